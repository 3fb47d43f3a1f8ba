// A handler is declared once: a second `#[completeness]` is refused on its own, without the
// errors of a reason type generated twice.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "accounts", reasons(MorePagesAvailable))]
#[completeness(resource = "accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Envelope<String, ListAccountsReason> {
    Envelope::complete(vec![], Scope::new("accounts", "all"))
}

struct Api;

#[completeness]
impl Api {
    #[completeness(resource = "accounts", reasons())]
    #[completeness::completeness(resource = "accounts", reasons())]
    async fn list() -> Envelope<String, ApiListReason> {
        Envelope::complete(vec![], Scope::new("accounts", "all"))
    }
}

fn main() {}
