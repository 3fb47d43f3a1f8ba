use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted), strict = true)]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
