// The kind decides `truncated` and how clients classify the reason: it is required.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", message = "Records under hold are hidden.")]
struct LegalHold;

fn main() {}
