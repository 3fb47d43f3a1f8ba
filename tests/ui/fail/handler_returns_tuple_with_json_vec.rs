use axum::Json;
use axum::http::StatusCode;
use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> (StatusCode, Json<Vec<String>>) {
    (StatusCode::OK, Json(vec![]))
}

fn main() {}
