// `completeness` is a flag: it marks the field that holds the block.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page {
    items: Vec<String>,
    #[envelope(completeness = "yes")]
    completeness: Completeness,
}

fn main() {}
