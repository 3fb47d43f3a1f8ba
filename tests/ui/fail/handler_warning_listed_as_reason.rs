// A warning in `reasons(...)`, and a reason in `warnings(...)`.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", reasons(StaleIndex), warnings(VisibilityRestricted))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
