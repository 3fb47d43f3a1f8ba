use completeness::{Envelope, StandardReason, completeness};

#[completeness()]
async fn list_accounts() -> Envelope<String, StandardReason> {
    unimplemented!()
}

fn main() {}
