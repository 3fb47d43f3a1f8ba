use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
struct ListAccounts;

fn main() {}
