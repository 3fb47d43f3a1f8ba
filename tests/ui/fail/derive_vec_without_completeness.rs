use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct AccountList {
    accounts: Vec<String>,
    total_hint: u64,
}

fn main() {}
