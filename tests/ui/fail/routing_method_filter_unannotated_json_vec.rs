// `on(filter, ..)`, first or chained, checks its handler like `get`.
use axum::routing::MethodFilter;
use axum::{Json, Router};
use completeness::routing::{get, on};
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
        .route("/service-accounts", get(list_accounts).on(MethodFilter::POST, import_accounts).into())
        .route("/imports", on(MethodFilter::PUT, import_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
