// A handler that declares its reasons must report over its own reason type: the standard
// type would let it report anything. Written without its reason type, an envelope is told the
// alias to write, wherever the answer goes.
use axum::http::StatusCode;
use completeness::{Aggregate, Envelope, Problem, Scope, completeness};

#[completeness(resource = "documents", reasons(ResultLimitReached))]
async fn list_documents() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("documents", "all"))
}

#[completeness(resource = "documents", reasons(ResultLimitReached))]
async fn count_documents() -> Result<Aggregate<u64>, Problem> {
    unimplemented!()
}

#[completeness(resource = "documents", reasons())]
async fn fresh_documents() -> (StatusCode, Envelope<String>) {
    unimplemented!()
}

fn main() {}
