// An empty resource name would put an empty `scope.resource` on the wire.
use completeness::{Envelope, completeness};

#[completeness(resource = " ", reasons(VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
