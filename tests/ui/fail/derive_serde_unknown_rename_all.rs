// `rename_all` takes one of serde's cases, spelled as serde spells them.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
#[serde(rename_all = "kebab")]
struct Page {
    items: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
