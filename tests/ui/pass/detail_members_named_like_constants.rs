//! A detail member named like a constant in scope (`LIMIT`) is the field, where the message
//! names it or not: the message reads each field it names by the field's name, and binds no
//! pattern a constant could turn refutable.

use completeness::{Envelope, Reason, ReasonDetails, Scope, Warning, WarningDetails, completeness};

/// A constant of the name of the fields below.
const LIMIT: u32 = 100;

#[derive(Debug, Clone, Reason)]
#[reason(code = "CAPPED", kind = truncation, message = "Capped.")]
#[allow(non_snake_case)]
struct Capped {
    LIMIT: u32,
}

#[derive(Debug, Clone, Reason)]
#[reason(code = "CAPPED_AT", kind = truncation, message = "Capped at {LIMIT}.")]
#[allow(non_snake_case)]
struct CappedAt {
    LIMIT: u32,
}

#[derive(Debug, Clone, Warning)]
#[warning(code = "NEAR_LIMIT", owner = "storage-team", review_by = "2027-06-30", message = "{LIMIT} left.")]
#[allow(non_snake_case)]
struct NearLimit {
    LIMIT: u32,
}

#[completeness(resource = "orders", reasons(Capped, CappedAt), warnings(NearLimit))]
async fn list_orders() -> Envelope<u32, ListOrdersReason> {
    let mut page = Envelope::incomplete(vec![], Scope::new("orders", "every order"), Capped { LIMIT: 1 });
    page.completeness.push_reason(CappedAt { LIMIT: 2 });
    page.completeness.push_warning(NearLimit { LIMIT: 3 });
    page
}

fn main() {
    assert_eq!(Capped { LIMIT: 1 }.default_message(), "Capped.");
    assert_eq!(CappedAt { LIMIT: 2 }.default_message(), "Capped at 2.");
    assert_eq!(NearLimit { LIMIT: 3 }.message(), "3 left.");
    assert_eq!(LIMIT, 100);
    let page = tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(list_orders());
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["incomplete_reasons"][1]["LIMIT"], 2);
    assert_eq!(wire["warnings"][0]["LIMIT"], 3);
}
