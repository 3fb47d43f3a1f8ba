// A warning has an owner and a real review-by date.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "REPLICA_LAG", review_by = "2027-02-30", message = "The replica lags.")]
struct ReplicaLag;


// Digits only: a sign is no part of a date.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "SIGNED_DATE", owner = "storage-team", review_by = "2027-+6-30", message = "Signed.")]
struct SignedDate;

// A month that does not exist is said to be one.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "NO_SUCH_MONTH", owner = "storage-team", review_by = "2027-13-01", message = "Never.")]
struct NoSuchMonth;

fn main() {}
