// A data field named like a member of the completeness block is the derive's error, pointed at
// the `rename` that names it so when one does; the handler that returns the struct reports
// nothing more (the derive's stand-in carries any reason type).
use completeness::{Completeness, ResultEnvelope, Scope, completeness};

#[derive(ResultEnvelope)]
pub struct Cases {
    pub page: Vec<u32>,
    #[serde(rename = "scope")]
    pub region: String,
    #[envelope(completeness)]
    pub completeness: Completeness<ListCasesReason>,
}

#[completeness(resource = "cases", reasons(MorePagesAvailable))]
async fn list_cases() -> Cases {
    Cases { page: vec![], region: String::new(), completeness: Completeness::complete(Scope::new("cases", "all")) }
}

fn main() {
    let _ = list_cases;
}
