// `crate = "..."` names the path the framework is reached by: a string holding a path, once.
use completeness::{Completeness, Reason, ResultEnvelope, Warning, completeness};

#[derive(ResultEnvelope)]
#[envelope(crate = "completeness", crate = "::completeness")]
struct Names {
    names: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness<ListNamesReason>,
}

#[derive(Debug, Clone, Reason)]
#[reason(crate = "platform::", code = "LEGAL_HOLD", kind = visibility, message = "held")]
struct LegalHold;

#[derive(Debug, Clone, Warning)]
#[warning(crate = completeness, code = "REPLICA_LAG", owner = "storage", review_by = "2027-06-30", message = "lag")]
struct ReplicaLag;

#[completeness(krate = "completeness", resource = "names", reasons(MorePagesAvailable))]
async fn list_names() -> Names {
    unimplemented!()
}

fn main() {}
