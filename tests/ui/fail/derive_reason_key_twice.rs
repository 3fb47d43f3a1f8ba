// A reason's keys may be spread over several `#[reason(...)]` attributes, but each key is
// given once.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility)]
#[reason(code = "LEGAL_HOLD_V2", message = "Records under legal hold are hidden.")]
struct LegalHold;

fn main() {}
