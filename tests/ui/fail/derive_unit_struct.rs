// An envelope has data: a unit struct has nothing to carry.
use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Nothing;

fn main() {}
