// A warning needs a code, a non-empty owner and a review date; `kind` is for reasons only.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(owner = " ", kind = source, message = "Replicas lag.")]
struct ReplicaLag;

fn main() {}
