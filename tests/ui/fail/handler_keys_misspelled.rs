// A misspelled key gets a suggestion, and the key it stood for is not also reported missing.
use completeness::{Envelope, Scope, completeness};

#[completeness(resourse = "documents", reason(MorePagesAvailable))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
