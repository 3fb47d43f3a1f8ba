use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
union Raw {
    count: u32,
    flags: u32,
}

fn main() {}
