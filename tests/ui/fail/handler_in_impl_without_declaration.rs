// Inside an annotated `impl` block, each handler still states its declaration.
use completeness::{Envelope, completeness};

struct Api;

#[completeness]
impl Api {
    #[completeness]
    async fn list_accounts() -> Envelope<String, ApiListAccountsReason> {
        unimplemented!()
    }
}

fn main() {}
