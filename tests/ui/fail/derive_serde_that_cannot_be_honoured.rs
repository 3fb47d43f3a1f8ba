// serde attributes that would change the envelope's shape are refused, never ignored.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[serde(tag = "type")]
struct Page {
    #[serde(flatten)]
    items: Vec<String>,
    #[serde(rename = "block")]
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
