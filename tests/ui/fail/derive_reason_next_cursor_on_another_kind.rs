// A next page continues an answer cut short: clients follow a service's own cursor only from a
// reason of kind `truncation`, so `next_cursor` on another kind is a cursor no client takes.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "SHARD_MORE", kind = source, message = "Shard {shard} has more.", recovery = ShardMore::next, next_cursor)]
struct ShardMore {
    shard: u32,
    cursor: String,
}

impl ShardMore {
    fn next(&self) -> Option<completeness::Continuation> {
        Some(completeness::Continuation::NextCursor { cursor: self.cursor.clone() })
    }
}

// Without a recovery either: one error, the kind's, since a recovery would not mend it.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "SHARD_PAGED", kind = source, message = "Shard {shard} pages.", next_cursor)]
struct ShardPaged {
    shard: u32,
}

fn main() {}
