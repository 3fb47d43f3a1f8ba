// A message's placeholders name the fields. The compiler reports a misspelled name on the
// placeholder itself, with the field it may mean, and a positional `{}` on its braces: the
// derive leaves both to it, since a proc macro on stable Rust can point only at the whole
// string literal.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "held by {authorty} until {until:?}")]
struct LegalHold {
    authority: String,
    until: Option<String>,
}

#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "REPLICA_LAG", owner = "storage-team", review_by = "2027-06-30", message = "{} seconds behind")]
struct ReplicaLag {
    seconds: u64,
}

// A positional `{}` beside a field the message names: it takes no field by position.
#[derive(Debug, Clone, completeness::Warning)]
#[warning(code = "SHARD_LAG", owner = "storage-team", review_by = "2027-06-30", message = "{} behind {shard}")]
struct ShardLag {
    shard: u32,
    seconds: u64,
}

fn main() {}
