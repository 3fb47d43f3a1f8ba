// A list after response parts (headers, extensions) goes out with axum's default status, 200,
// like an answer without completeness metadata: refused on the error side, written or behind an
// alias. A tuple that starts with a status is an error response, and passes.
use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use completeness::{Envelope, completeness};

type WithHeaders = (HeaderMap, Json<Vec<String>>);

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_headers() -> Result<Envelope<String, ListWithHeadersReason>, WithHeaders> {
    Err((HeaderMap::new(), Json(vec![])))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_two_parts(
) -> Result<Envelope<String, ListWithTwoPartsReason>, ([(&'static str, &'static str); 1], HeaderMap, Json<Vec<u64>>)> {
    Err(([("x-error", "1")], HeaderMap::new(), Json(vec![])))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_a_status(
) -> Result<Envelope<String, ListWithAStatusReason>, (StatusCode, HeaderMap, Json<Vec<String>>)> {
    Err((StatusCode::SERVICE_UNAVAILABLE, HeaderMap::new(), Json(vec![])))
}

fn main() {}
