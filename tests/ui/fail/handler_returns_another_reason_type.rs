// A handler that declares its reasons must report over its own reason type: the standard
// type would let it report anything.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "documents", reasons(ResultLimitReached))]
async fn list_documents() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
