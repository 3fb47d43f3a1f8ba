// A comma missing between keys, or between names: one error, where the comma goes, and no
// "missing key" errors for the keys the parse did not reach.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "accounts" reasons(MorePagesAvailable))]
async fn list_accounts() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("accounts", "all"))
}

#[completeness(resource = "documents", reasons(MorePagesAvailable VisibilityRestricted))]
async fn list_documents() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

// A wire code after a type name gets the name to write, as one listed first does.
#[completeness(resource = "tags", reasons(MorePagesAvailable, "VISIBILITY_RESTRICTED"))]
async fn list_tags() -> Envelope<String, ListTagsReason> {
    Envelope::complete(vec![], Scope::new("tags", "all"))
}

fn main() {}
