// The struct's `openapi` key is a flag, given once.
use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
#[envelope(openapi, openapi)]
struct Twice {
    name: String,
}

#[derive(ResultEnvelope)]
#[envelope(openapi = "3.1")]
struct WithAValue {
    name: String,
}

fn main() {}
