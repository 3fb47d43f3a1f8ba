use axum::{Json, Router};
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};

async fn list_accounts() -> Json<Vec<String>> {
    Json(vec![])
}

fn main() {
    let _app: Router = Router::new()
        .route("/service-accounts", get(list_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
