use axum::{Json, Router};
use completeness::Problem;
use completeness::routing::post;

async fn import_accounts(Json(names): Json<Vec<String>>) -> Result<Json<Vec<String>>, Problem> {
    Ok(Json(names))
}

fn main() {
    let _app: Router = Router::new().route("/service-accounts/import", post(import_accounts).into());
}
