// A comma missing between keys: one error, where the comma goes, and no "missing key" errors
// for the keys the parse did not reach.
use completeness::Reason;

#[derive(Debug, Clone, Reason)]
#[reason(code = "LEGAL_HOLD" kind = visibility, message = "Held.")]
struct LegalHold;

fn main() {}
