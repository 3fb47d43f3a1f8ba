// The success side is named, but the error side is opaque: the message says to name the
// error type, on the `impl` itself.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", reasons(MorePagesAvailable))]
async fn list_documents() -> Result<Envelope<String, ListDocumentsReason>, impl axum::response::IntoResponse> {
    Ok::<_, axum::http::StatusCode>(Envelope::complete(vec![], Scope::new("documents", "all")))
}

fn main() {}
