// `reasons` and `warnings` take a parenthesized list of names, not a value.
use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons = "VisibilityRestricted", warnings = PageSizeReduced)]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
