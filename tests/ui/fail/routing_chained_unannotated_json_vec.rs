use axum::{Json, Router};
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, Scope};

async fn list_accounts() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("service-accounts", "every account"))
}

async fn import_accounts() -> Json<Vec<String>> {
    Json(vec![])
}

fn main() {
    let _app: Router = Router::new()
        .route("/service-accounts", get(list_accounts).post(import_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
