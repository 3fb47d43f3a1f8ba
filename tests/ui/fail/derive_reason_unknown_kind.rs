// The kind is one of the contract's.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = legal, message = "Records under hold are hidden.")]
struct LegalHold;

fn main() {}
