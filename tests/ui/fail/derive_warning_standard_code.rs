// A standard warning has its own type.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "STALE_INDEX", owner = "search-team", review_by = "2027-06-30", message = "Stale.")]
struct Stale;

fn main() {}
