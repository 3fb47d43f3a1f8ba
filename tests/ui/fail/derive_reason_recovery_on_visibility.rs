// A reason of kind `visibility` offers no continuation: no retry, next page or other question
// shows what the credential may not read, so a caller that followed one would go round in
// circles.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Hold {hold} hides records.", recovery = LegalHold::retry)]
struct LegalHold {
    hold: String,
}

impl LegalHold {
    fn retry(&self) -> Option<completeness::Continuation> {
        Some(completeness::Continuation::RetryAfter { seconds: 5 })
    }
}

fn main() {}
