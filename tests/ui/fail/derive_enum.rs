use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
enum Listing {
    Accounts(Vec<String>),
    Nothing,
}

fn main() {}
