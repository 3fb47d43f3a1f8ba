// The generated reason type holds exactly the declared reasons: reporting another does not compile.
use completeness::reason::ResultLimitReached;
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "service_accounts", reasons(MorePagesAvailable))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    let scope = Scope::new("service_accounts", "every account");
    Envelope::incomplete(vec![], scope, ResultLimitReached::new(100, "filter by tenant"))
}

fn main() {}
