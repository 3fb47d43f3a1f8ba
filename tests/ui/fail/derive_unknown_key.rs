use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Search {
    #[envelope(flatten)]
    hits: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
