// On a data field, only the attributes that change how it is written are honoured; a
// `skip_serializing_if` names a function by its path.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page {
    #[serde(serialize_with = "write_items")]
    items: Vec<String>,
    #[serde(skip_serializing_if = "not a path")]
    note: Option<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
