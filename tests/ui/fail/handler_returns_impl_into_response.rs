use axum::Json;
use axum::response::IntoResponse;
use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> impl IntoResponse {
    Json(vec!["svc-north-00001"])
}

fn main() {}
