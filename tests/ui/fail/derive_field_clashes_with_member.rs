use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<String>,
    status: String,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
