// `PageRequest` clamps the page size, so the handler declares the warning that says so.
use completeness::{Envelope, PageRequest, completeness};

#[completeness(resource = "service_accounts", reasons(MorePagesAvailable))]
async fn list_accounts(_page: PageRequest) -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
