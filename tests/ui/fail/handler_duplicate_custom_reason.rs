// A custom reason listed twice.
use completeness::{Envelope, Scope, completeness};

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hidden.")]
struct LegalHold;

#[completeness(resource = "documents", reasons(LegalHold, MorePagesAvailable, LegalHold))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
