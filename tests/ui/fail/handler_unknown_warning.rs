use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted), warnings(StaleIndex, SlowQuery))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
