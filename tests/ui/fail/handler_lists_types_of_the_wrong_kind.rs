// `reasons(...)` takes reason types and `warnings(...)` warning types: a plain struct, or a
// reason listed as a warning, says what it is not and how to make it one.
use completeness::{Envelope, Scope, completeness};

mod own {
    /// Not a reason: no derive.
    #[derive(Debug, Clone)]
    pub struct ReplicaLag;

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Held.")]
    pub struct LegalHold;
}

#[completeness(resource = "documents", reasons(own::ReplicaLag), warnings(own::LegalHold))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
