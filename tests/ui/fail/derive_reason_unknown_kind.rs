// The kind is one of the contract's.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = legal, message = "Records under hold are hidden.")]
struct LegalHold;

// Kinds are lower-case: one written otherwise is named as it should be.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "REPLICA_HIDDEN", kind = Visibility, message = "Records of the replica are hidden.")]
struct ReplicaHidden;

fn main() {}
