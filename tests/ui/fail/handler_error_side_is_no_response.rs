// The error side of a handler's `Result` is what axum answers an `Err` with: a type that is no
// response is said to be one, on the error type, not as "not a handler" where it is routed.
use completeness::{Envelope, Scope, completeness};

#[derive(Debug)]
pub enum StoreError {
    Down,
}

#[completeness(resource = "documents", reasons(MorePagesAvailable))]
async fn list_documents() -> Result<Envelope<String, ListDocumentsReason>, StoreError> {
    Ok(Envelope::complete(vec![], Scope::new("documents", "all")))
}

fn main() {}
