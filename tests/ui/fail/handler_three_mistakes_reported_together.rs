// Three mistakes, three errors; the function and its reason type are still emitted,
// so `main` adds no "cannot find" error.
use axum::Json;
use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(MorePagesAvailable, TooMany), sort = "id")]
async fn list_accounts() -> Json<Vec<String>> {
    Json(vec![])
}

fn main() {
    let _ = list_accounts;
    let _ = ListAccountsReason::ALL;
}
