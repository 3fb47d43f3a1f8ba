use completeness::{Completeness, ResultEnvelope};

// The block is there, but not marked: the struct would go out as a single resource whose
// `complete: false` sits nested where no one looks.
#[derive(ResultEnvelope)]
struct Dashboard {
    title: String,
    names: Vec<String>,
    stats: Completeness,
}

#[derive(ResultEnvelope)]
struct Summary {
    title: String,
    stats: Option<Completeness>,
}

fn main() {}
