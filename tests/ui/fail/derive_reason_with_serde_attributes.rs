// A serde attribute would change the struct's own `Serialize` only: the reason object on the
// wire is written by the derive, field by field, so each one is refused.
use completeness::Reason;

#[derive(Debug, Clone, Reason, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold {hold_id} are hidden.")]
pub struct LegalHold {
    hold_id: String,
    #[serde(rename = "ticket")]
    ticket_ref: u32,
}

// Without serde's derive beside it, the attribute is still this derive's to refuse, with no
// second error that serde's is not found.
#[derive(Debug, Clone, Reason)]
#[reason(code = "SHARD_DOWN", kind = source, message = "Shard {shard} is down.")]
pub struct ShardDown {
    #[serde(rename = "shardId")]
    shard: u32,
}

fn main() {}
