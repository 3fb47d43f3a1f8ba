// Routed without the attribute, an envelope wrapped in `Json` is refused by the type-level
// check, which says to return the envelope as it is.
use axum::{Json, Router};
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys, Envelope, Scope};

async fn list_accounts() -> Json<Envelope<String>> {
    Json(Envelope::complete(vec![], Scope::new("service_accounts", "all")))
}

fn main() {
    let _app: Router = Router::new()
        .route("/service-accounts", get(list_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
