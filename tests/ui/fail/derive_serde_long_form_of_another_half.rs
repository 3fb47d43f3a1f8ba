// serde's long form has a writing and a reading half, `serialize` and `deserialize`.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page {
    items: Vec<u32>,
    #[serde(rename(write = "title"))]
    name: String,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
