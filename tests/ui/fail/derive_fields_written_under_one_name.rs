use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Documents {
    items: Vec<u32>,
    #[serde(rename = "items")]
    other: Vec<u32>,
    #[envelope(completeness)]
    completeness: Completeness,
}

#[derive(ResultEnvelope)]
#[serde(rename_all = "camelCase")]
struct Renamed {
    doc_ids: Vec<u32>,
    #[serde(rename = "docIds")]
    more_ids: Vec<u32>,
    // Not written: it takes no name.
    #[serde(skip)]
    #[allow(non_snake_case)]
    docIds: u32,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
