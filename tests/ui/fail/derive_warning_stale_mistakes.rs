// `stale` is a flag, given once, and the name of a member of the warning object: no detail
// field may take it.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "CACHE_SERVED", owner = "edge-team", review_by = "2027-06-30", message = "From cache.", stale = true)]
#[warning(stale)]
struct CacheServed {
    stale: bool,
}

fn main() {}
