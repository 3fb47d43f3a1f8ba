use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(MORE_PAGES_AVAILABLE, PartialResults))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
