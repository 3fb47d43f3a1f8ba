// The struct's `json_schema` key is a flag, given once.
use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
#[envelope(json_schema, json_schema)]
struct Twice {
    name: String,
}

#[derive(ResultEnvelope)]
#[envelope(json_schema = true)]
struct WithAValue {
    name: String,
}

fn main() {}
