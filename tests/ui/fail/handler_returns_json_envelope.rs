// An envelope is a JSON response itself; wrapped in `Json`, its block would go out unseen by
// the layers that enforce `require_complete`. (On the error side, `Json` is an error body.)
use axum::Json;
use axum::http::StatusCode;
use completeness::{Envelope, Problem, Scope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Json<Envelope<String, ListAccountsReason>> {
    Json(Envelope::complete(vec![], Scope::new("service_accounts", "all")))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_owners() -> Result<(StatusCode, Json<Envelope<String, ListOwnersReason>>), Problem> {
    Ok((StatusCode::OK, Json(Envelope::complete(vec![], Scope::new("service_accounts", "all")))))
}

fn main() {}
