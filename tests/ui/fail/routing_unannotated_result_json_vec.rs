use axum::{Json, Router};
use completeness::Problem;
use completeness::routing::post;
use completeness::{CompletenessConfig, CursorKeys};

async fn import_accounts(Json(names): Json<Vec<String>>) -> Result<Json<Vec<String>>, Problem> {
    Ok(Json(names))
}

fn main() {
    let _app: Router = Router::new()
        .route("/service-accounts/import", post(import_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
