// A reason and a warning the derives refuse, used by a handler anyway: only their mistakes are
// reported, not each use of them. Two refused reasons of one name in two modules, listed by one
// endpoint, are not reported as one code declared twice.
use completeness::{Envelope, Reason, Scope, Warning, completeness};

#[derive(Debug, Clone, Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "held")]
pub struct LegalHold {
    message: String,
}

#[derive(Debug, Clone, Warning)]
#[warning(code = "replica lag", owner = "storage", review_by = "2027-06-30", message = "lag")]
pub struct ReplicaLag;

#[completeness(resource = "records", reasons(LegalHold), warnings(ReplicaLag))]
async fn list_records() -> Envelope<String, ListRecordsReason> {
    let mut page = Envelope::incomplete(vec![], Scope::new("records", "all"), LegalHold { message: "x".into() });
    page.completeness.push_warning(ReplicaLag);
    page
}

mod a {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = hidden, message = "held")]
    pub struct Held;
}

mod b {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "OTHER_HOLD", message = "held elsewhere")]
    pub struct Held;
}

#[completeness(resource = "records", reasons(a::Held, b::Held))]
async fn list_held() -> Envelope<String, ListHeldReason> {
    Envelope::complete(vec![], Scope::new("records", "all"))
}

fn main() {}
