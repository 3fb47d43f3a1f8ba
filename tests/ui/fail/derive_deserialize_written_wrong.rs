// The struct's `deserialize` key is a flag, given once.
use completeness::{Field, ResultEnvelope};

#[derive(ResultEnvelope)]
#[envelope(deserialize, deserialize)]
struct Twice {
    name: Field<String>,
}

#[derive(ResultEnvelope)]
#[envelope(deserialize = "yes")]
struct WithAValue {
    name: Field<String>,
}

fn main() {}
