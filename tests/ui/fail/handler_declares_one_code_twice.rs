// Two types with one code declared on one endpoint: caught when the declaration compiles, and
// the message names the two.
use completeness::{Envelope, Scope, completeness};

mod a {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hidden.")]
    pub struct LegalHold;
}

mod b {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hidden too.")]
    pub struct LegalHold;
}

#[completeness(resource = "documents", reasons(a::LegalHold, MorePagesAvailable, b::LegalHold))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
