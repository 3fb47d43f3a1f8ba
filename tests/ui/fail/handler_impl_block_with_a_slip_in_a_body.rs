// A slip in one body of a `#[completeness]` impl block: rustc's own error, and nothing else (not
// the handlers' attributes expanded as free functions inside the block, nor a reason type missing).
use completeness::{Envelope, Scope, completeness};

struct Api;

#[completeness]
impl Api {
    #[completeness(resource = "names", reasons())]
    async fn list_names() -> Envelope<String, ApiListNamesReason> {
        let scope = Scope::new("names", "all");
        Envelope::complete(vec![], scope +)
    }

    #[completeness(resource = "tags", reasons(MorePagesAvailable))]
    async fn list_tags() -> Envelope<String, ApiListTagsReason> {
        Envelope::complete(vec![], Scope::new("tags", "all"))
    }
}

fn main() {}
