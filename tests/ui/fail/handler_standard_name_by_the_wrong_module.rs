// A standard name written by the facade's path must go through its own module: there is no
// `completeness::warning::MorePagesAvailable`.
use completeness::{Envelope, Scope, completeness};

#[completeness(
    resource = "documents",
    reasons(completeness::warning::MorePagesAvailable),
    warnings(completeness::reason::StaleIndex)
)]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
