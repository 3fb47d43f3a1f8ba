use axum::Json;
use completeness::{Envelope, Scope, completeness};

// A cached copy as the error: it would go out as a 200 list, read like an answer.
#[completeness(resource = "accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Result<Envelope<String, ListAccountsReason>, Json<Vec<String>>> {
    Ok(Envelope::complete(vec![], Scope::new("accounts", "all")))
}

#[completeness(resource = "users", reasons(VisibilityRestricted))]
async fn list_users() -> Result<Envelope<String, ListUsersReason>, Vec<String>> {
    Ok(Envelope::complete(vec![], Scope::new("users", "all")))
}

fn main() {}
