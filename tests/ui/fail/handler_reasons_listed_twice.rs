// Every declared reason goes in one `reasons(...)`, every warning in one `warnings(...)`.
use completeness::{Envelope, completeness};

#[completeness(
    resource = "service_accounts",
    reasons(VisibilityRestricted),
    reasons(MorePagesAvailable),
    warnings(PageSizeReduced),
    warnings(StaleIndex)
)]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
