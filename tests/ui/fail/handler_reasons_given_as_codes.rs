// `reasons(...)` takes type names; a wire code gets the name to write instead.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", reasons("MORE_PAGES_AVAILABLE"))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
