// The resource is named by a string literal.
use completeness::{Envelope, completeness};

#[completeness(resource = service_accounts, reasons(VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
