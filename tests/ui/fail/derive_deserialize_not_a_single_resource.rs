// `deserialize` reads a single resource back: a struct with a completeness block, or a tuple
// struct (whose data is a list), has no `Field` to restore, and derives serde's `Deserialize`.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
struct Page {
    items: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
struct Names(Vec<String>, #[envelope(completeness)] Completeness);

fn main() {}
