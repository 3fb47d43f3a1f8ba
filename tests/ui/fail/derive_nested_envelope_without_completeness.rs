use completeness::{Aggregate, Envelope, ResultEnvelope};

// Two answers side by side, each with its own block, in a struct that reports none.
#[derive(ResultEnvelope)]
struct Dashboard {
    title: String,
    accounts: Envelope<String>,
    total: Box<Aggregate<u64>>,
}

fn main() {}
