// The alias hides the list from the syntax check; the type-level assertion catches it.
use axum::Json;
use completeness::completeness;

type AccountList = Json<Vec<String>>;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> AccountList {
    Json(vec![])
}

fn main() {}
