// Reporting a service's own reason the endpoint did not declare does not compile.
use completeness::{Envelope, Scope, completeness};

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hidden.")]
struct LegalHold;

#[completeness(resource = "documents", reasons(MorePagesAvailable))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::incomplete(vec![], Scope::new("documents", "all"), LegalHold)
}

fn main() {}
