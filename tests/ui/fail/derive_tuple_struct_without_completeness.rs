use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Names(Vec<String>);

fn main() {}
