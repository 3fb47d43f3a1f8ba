// A collection and a declared field are always on the wire: an empty list is `[]` and an
// unfilled field is `null` in `omitted_fields`, so skipping either is refused.
use completeness::{Completeness, Field, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    items: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

#[derive(ResultEnvelope)]
struct Account {
    id: String,
    #[serde(skip_serializing)]
    owner_email: Field<String>,
}

fn main() {}
