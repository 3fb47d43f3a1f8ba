// `#[envelope(...)]` keys of fields (`completeness`, `bounded`) do not go on the struct, whose one key is `json_schema`.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[envelope(completeness)]
struct Page {
    items: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
