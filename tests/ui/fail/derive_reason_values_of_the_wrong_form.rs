// Each key's value has its form: a string, a kind's name, a path. A value of the wrong form is
// reported once, and the other keys are still read.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = LEGAL_HOLD, kind = "visibility", message = "Records under legal hold are hidden.", recovery = "narrow")]
struct LegalHold;

fn main() {}
