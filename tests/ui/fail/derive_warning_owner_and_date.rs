// A warning has an owner and a real review-by date.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "REPLICA_LAG", review_by = "2027-02-30", message = "The replica lags.")]
struct ReplicaLag;

fn main() {}
