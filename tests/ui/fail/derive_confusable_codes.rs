// A service's own code a letter or two from a standard one would be read as the standard one.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "SOURCES_UNAVAILABLE", kind = source, message = "Sources are down.")]
struct SourcesDown;

#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "STALE_INDEXX", owner = "search-team", review_by = "2027-06-30", message = "Stale.")]
struct Stale;

// A code in another case is suggested in SCREAMING_SNAKE_CASE.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "replicaLag", owner = "storage-team", review_by = "2027-06-30", message = "Behind.")]
struct Lag;

fn main() {}
