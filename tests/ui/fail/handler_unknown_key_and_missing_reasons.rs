// An unknown key that is no near miss of `reasons` does not stand for it: the missing
// `reasons(...)` is reported too, in the same build.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", cache_seconds = 30)]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
