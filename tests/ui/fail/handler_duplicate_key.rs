use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", resource = "accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
