use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Frozen {
    ids: Box<[u64]>,
}

fn main() {}
