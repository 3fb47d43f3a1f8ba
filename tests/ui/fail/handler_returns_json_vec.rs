use axum::Json;
use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Json<Vec<String>> {
    Json(vec![])
}

fn main() {}
