use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
    #[envelope(completeness)]
    also: Completeness,
}

fn main() {}
