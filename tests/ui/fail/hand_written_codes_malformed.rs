// A reason or warning implemented by hand names its code with `ReasonCode::custom` /
// `WarningCode::custom`: a code a reader would refuse (not SCREAMING_SNAKE_CASE) or take for a
// standard one does not compile, since the code is a constant.
use completeness::{ReasonCode, WarningCode};

const LOWER: ReasonCode = ReasonCode::custom("legal-hold");
const STANDARD: ReasonCode = ReasonCode::custom("MORE_PAGES_AVAILABLE");
const WARNING: WarningCode = WarningCode::custom("STALE_INDEX");

fn main() {
    let _ = (LOWER, STANDARD, WARNING);
}
