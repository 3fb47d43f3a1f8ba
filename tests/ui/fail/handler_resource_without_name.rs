// `resource` is a key with a value: the name of what the endpoint lists.
use completeness::{Envelope, completeness};

#[completeness(resource, reasons(VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
