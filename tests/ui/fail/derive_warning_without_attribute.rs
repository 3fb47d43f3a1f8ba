// A warning declares its code, owner and review date in `#[warning(...)]`.
#[derive(Debug, Clone, completeness::Warning)]
struct ReplicaLag;

fn main() {}
