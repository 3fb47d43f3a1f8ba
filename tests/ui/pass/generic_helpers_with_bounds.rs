// A helper generic over the reason type reports a reason and pushes a warning once its bounds
// name them; every endpoint that declares both can call it.
use completeness::reason::VisibilityRestricted;
use completeness::warning::StaleIndex;
use completeness::{AcceptsWarning, Completeness, Envelope, Reason, Scope, completeness};

fn mark_stale_and_hidden<R>(completeness: &mut Completeness<R>)
where
    R: Reason + From<VisibilityRestricted> + AcceptsWarning<StaleIndex>,
{
    completeness.push_reason(VisibilityRestricted::new());
    completeness.push_warning(StaleIndex::new("audit"));
}

#[completeness(resource = "documents", reasons(VisibilityRestricted), warnings(StaleIndex))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    let mut page = Envelope::complete(vec![], Scope::new("documents", "all"));
    mark_stale_and_hidden(&mut page.completeness);
    page
}

fn main() {
    let mut block: Completeness<ListDocumentsReason> = Completeness::complete(Scope::new("documents", "all"));
    mark_stale_and_hidden(&mut block);
    assert!(!block.is_complete());
    assert_eq!(block.warnings().len(), 1);
    let _ = list_documents;
}
