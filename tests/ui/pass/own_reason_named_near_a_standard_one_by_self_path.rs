//! A service's own reason whose name is a letter or two from a standard one (`QuotaExhaust`,
//! beside `QuotaExhausted`) is listed by a path, `self::QuotaExhaust`, as the error on the bare
//! name suggests: that is the service's type, not a slip.

use completeness::{Envelope, Reason, Scope, completeness};

#[derive(Debug, Clone, Reason)]
#[reason(code = "STORAGE_FULL", kind = budget, message = "The storage of the export is full.")]
struct QuotaExhaust;

#[completeness(resource = "exports", reasons(self::QuotaExhaust))]
async fn list_exports() -> Envelope<u32, ListExportsReason> {
    Envelope::incomplete(vec![], Scope::new("exports", "every export"), QuotaExhaust)
}

fn main() {
    let _ = list_exports;
}
