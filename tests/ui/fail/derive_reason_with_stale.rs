// Staleness is a warning's: a stale answer is still complete.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "REPLICA_BEHIND", kind = source, message = "The replica is behind.", stale)]
struct ReplicaBehind;

fn main() {}
