// A reason declares its code in `#[reason(...)]`.
#[derive(Debug, Clone, completeness::Reason)]
struct LegalHold;

fn main() {}
