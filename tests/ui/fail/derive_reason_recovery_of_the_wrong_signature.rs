use completeness::{Continuation, Reason};

// `recovery` names a function `fn(&Self) -> Option<Continuation>`; this one returns a
// continuation always.
#[derive(Debug, Clone, Reason)]
#[reason(code = "SHARD_DOWN", kind = source, message = "Shard {shard} is down.", recovery = ShardDown::retry)]
struct ShardDown {
    shard: u32,
}

impl ShardDown {
    fn retry(&self) -> Continuation {
        Continuation::RetryAfter { seconds: 30 }
    }
}

fn main() {}
