use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<String>,
    #[envelope(completeness, completeness)]
    completeness: Completeness,
}

fn main() {}
