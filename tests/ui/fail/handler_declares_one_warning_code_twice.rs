// Two warning types with one code declared on one endpoint: caught when the declaration compiles.
use completeness::{Envelope, Scope, completeness};

mod a {
    #[derive(Debug, Clone, completeness::Warning)]
    #[warning(code = "REPLICA_LAG", owner = "storage", review_by = "2030-01-01", message = "Behind.")]
    pub struct ReplicaLag;
}

mod b {
    #[derive(Debug, Clone, completeness::Warning)]
    #[warning(code = "REPLICA_LAG", owner = "storage", review_by = "2030-01-01", message = "Behind too.")]
    pub struct ReplicaLag;
}

#[completeness(resource = "documents", reasons(MorePagesAvailable), warnings(a::ReplicaLag, b::ReplicaLag))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

fn main() {}
