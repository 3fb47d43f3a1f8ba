// `stale = false` is spelt by leaving `stale` out.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "SAMPLED", owner = "metrics-team", review_by = "2027-06-30", message = "Sampled.", stale = false)]
struct Sampled;

fn main() {}
