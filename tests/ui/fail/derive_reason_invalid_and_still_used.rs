// A reason and a warning the derives refuse, used by a handler anyway: only their mistakes are
// reported, not each use of them.
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

fn main() {}
