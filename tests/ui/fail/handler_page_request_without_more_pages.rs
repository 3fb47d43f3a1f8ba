use completeness::{Envelope, PageRequest, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts(_page: PageRequest) -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
