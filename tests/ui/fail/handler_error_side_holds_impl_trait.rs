// An `impl Trait` inside the error side's tuple is as opaque as one on its own.
use axum::http::StatusCode;
use axum::response::IntoResponse;
use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Result<Envelope<String, ListAccountsReason>, (StatusCode, impl IntoResponse)> {
    Err::<Envelope<String, ListAccountsReason>, _>((StatusCode::BAD_GATEWAY, "upstream failed"))
}

fn main() {}
