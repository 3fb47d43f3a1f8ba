// serde attributes that would change the envelope's shape are refused, never ignored; on the
// completeness block, one that only changes reading (`skip_deserializing`) is accepted.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[serde(tag = "type")]
struct Page {
    #[serde(flatten)]
    items: Vec<String>,
    #[serde(rename = "block", skip_deserializing)]
    #[serde(skip_serializing)]
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
