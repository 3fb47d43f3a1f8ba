//! A service's own reasons and warnings generic over a constant, listed with a block as the
//! argument (`Capped<{ 2 + 1 }>`): the checks that no code is declared twice quote the paths as
//! written, braces and all, and compile.

use completeness::{Envelope, Reason, Scope, Warning, completeness};

#[derive(Debug, Clone, Reason)]
#[reason(code = "CAPPED", kind = truncation, message = "Capped.")]
struct Capped<const N: usize>;

#[derive(Debug, Clone, Reason)]
#[reason(code = "SHARDS_DOWN", kind = source, message = "Shards are down.")]
struct ShardsDown<const N: usize>;

#[derive(Debug, Clone, Warning)]
#[warning(code = "LAGGING", owner = "storage-team", review_by = "2027-06-30", message = "Lagging.")]
struct Lagging<const SECONDS: u64>;

#[completeness(
    resource = "orders",
    reasons(Capped<{ 2 + 1 }>, ShardsDown<{ 1 }>),
    warnings(Lagging<{ 60 * 5 }>)
)]
async fn list_orders() -> Envelope<u32, ListOrdersReason> {
    let mut page = Envelope::incomplete(vec![1], Scope::new("orders", "every order"), Capped::<3>);
    page.completeness.push_reason(ShardsDown::<1>);
    page.completeness.push_warning(Lagging::<300>);
    page
}

fn main() {
    assert_eq!(ListOrdersReason::ALL.len(), 2);
    let page = tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(list_orders());
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["incomplete_reasons"][0]["code"], "CAPPED");
    assert_eq!(wire["warnings"][0]["code"], "LAGGING");
}
