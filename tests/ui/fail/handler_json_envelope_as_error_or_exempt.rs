use axum::Json;
use completeness::{Envelope, Exempt, Scope, completeness};

// A partial answer sent as the error, in `Json`: a strict caller would get it as a 200.
#[completeness(resource = "accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Result<Envelope<String, ListAccountsReason>, Json<Envelope<String, ListAccountsReason>>> {
    Ok(Envelope::complete(vec![], Scope::new("accounts", "all")))
}

#[completeness(resource = "users", reasons(VisibilityRestricted))]
async fn list_users() -> Exempt<Json<Envelope<String, ListUsersReason>>> {
    unimplemented!()
}

fn main() {}
