use completeness::{Completeness, ResultEnvelope};

// A list that could not be read is `[]` with a reason, never `null`; a bounded side list may be optional.
#[derive(ResultEnvelope)]
struct Search {
    hits: Option<Vec<String>>,
    #[envelope(bounded = "a search names at most three facets")]
    facets: Option<Vec<String>>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {}
