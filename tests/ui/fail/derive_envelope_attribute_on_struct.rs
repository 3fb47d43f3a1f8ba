// `#[envelope(...)]` keys belong on fields, not on the struct.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[envelope(completeness)]
struct Page {
    items: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
