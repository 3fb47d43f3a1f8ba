// An envelope is a JSON response itself; wrapped in `Json`, its block would go out unseen by
// the layers that enforce `require_complete`.
use axum::Json;
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Json<Envelope<String, ListAccountsReason>> {
    Json(Envelope::complete(vec![], Scope::new("service_accounts", "all")))
}

fn main() {}
