use completeness::{Envelope, completeness};

// Stands in for `completeness::PageRequest`: the rule looks at the argument's type name.
struct PageRequest;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts(_page: PageRequest) -> Envelope<String, ListAccountsReason> {
    unimplemented!()
}

fn main() {}
