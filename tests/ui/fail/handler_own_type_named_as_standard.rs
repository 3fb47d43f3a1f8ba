// A bare standard name in `reasons(...)` is the standard reason, even where a type of the
// service's own has that name (declare that one by its path): reporting it names both types.
use completeness::{Envelope, Scope, completeness};

mod own {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "TENANT_HIDDEN", kind = visibility, message = "A tenant is hidden.")]
    pub struct VisibilityRestricted;
}

use own::VisibilityRestricted;

#[completeness(resource = "documents", reasons(VisibilityRestricted))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::incomplete(vec![], Scope::new("documents", "all"), VisibilityRestricted)
}

fn main() {}
