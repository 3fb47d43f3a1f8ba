// A reason's code is a wire code: SCREAMING_SNAKE_CASE.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "legal-hold", kind = visibility, message = "Records under hold are hidden.")]
struct LegalHold;

fn main() {}
