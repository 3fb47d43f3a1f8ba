use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted, VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
