// An axum handler cannot take `self`: a method inside an annotated `impl` block is refused.
use completeness::{Envelope, completeness};

struct Api;

#[completeness]
impl Api {
    #[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
    async fn list_accounts(&self) -> Envelope<String, ApiListAccountsReason> {
        unimplemented!()
    }
}

fn main() {}
