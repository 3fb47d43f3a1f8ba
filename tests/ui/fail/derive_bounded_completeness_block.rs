// The completeness block is not a collection, so it cannot be `bounded`.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page {
    items: Vec<String>,
    #[envelope(completeness, bounded = "one block")]
    completeness: Completeness,
}

fn main() {}
