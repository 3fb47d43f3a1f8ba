// Pushing a warning the endpoint did not declare does not compile.
use completeness::warning::StaleIndex;
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    let mut page = Envelope::complete(vec![], Scope::new("documents", "all"));
    page.completeness.push_warning(StaleIndex::new("audit"));
    page
}

fn main() {}
