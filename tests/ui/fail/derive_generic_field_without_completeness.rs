use completeness::ResultEnvelope;
use serde::Serialize;

// `ApiResponse<Vec<Account>>` would be a list without completeness metadata.
#[derive(ResultEnvelope)]
struct ApiResponse<T: Serialize> {
    data: T,
    request_id: String,
}

fn main() {}
