// A tuple envelope writes its one data field as `items`; a second has no name to go by.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Page(Vec<String>, Vec<u64>, #[envelope(completeness)] Completeness);

fn main() {}
