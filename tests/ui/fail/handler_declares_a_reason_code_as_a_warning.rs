// A reason and a warning of the service's own with one code, declared on one endpoint: a client
// that reads the code as the warning takes an incomplete answer for complete.
use completeness::{Envelope, Scope, completeness};

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold are hidden.")]
pub struct LegalHold;

#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "LEGAL_HOLD", owner = "legal", review_by = "2030-01-01", message = "A hold applies.")]
pub struct HoldWarning;

#[completeness(resource = "documents", reasons(MorePagesAvailable, LegalHold), warnings(StaleIndex, HoldWarning))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
