// Every mistake of the attribute is reported at once: no message, an unknown key, a field
// named like a member the reason object already has.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, colour = "red")]
struct LegalHold {
    code: String,
}

fn main() {}
