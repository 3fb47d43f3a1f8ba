// Clients read a reason's details back, so each detail member is an owned type that both
// serializes and deserializes: a borrowed field, and a type that only serializes, are refused.
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
struct ShardName(String);

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "held by {authority}")]
struct LegalHold {
    authority: &'static str,
}

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLDS", kind = visibility, message = "held")]
struct LegalHolds {
    authorities: Option<Vec<(u32, &'static str)>>,
}

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "SHARD_MOVING", kind = source, message = "shard {shard} is moving")]
struct ShardMoving {
    shard: ShardName,
}

fn main() {}
