// A reason's fields are its wire members: they need names.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hidden.")]
struct LegalHold(String);

fn main() {}
