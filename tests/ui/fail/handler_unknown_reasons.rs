// A name in another case or with underscores, or a letter or two off, is a slip of a standard
// name: the message says which.
use completeness::{Envelope, completeness};

#[completeness(resource = "service_accounts", reasons(MORE_PAGES_AVAILABLE, MorePageAvailable, PartialResults))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
