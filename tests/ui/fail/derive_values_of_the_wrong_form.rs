// Names, a case, a function's path and a justification are written as strings; each mistake
// is reported once.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[serde(rename_all = camelCase, rename = Page)]
struct Page {
    #[serde(rename = itemList)]
    items: Vec<String>,
    #[serde(skip_serializing_if = Option::is_none)]
    note: Option<String>,
    #[envelope(bounded = 3)]
    roles: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
