// A list behind an alias in a struct with a completeness block: the derive reads the type as
// written, so it would neither count the names in `page.returned` nor always write them.
use completeness::{Completeness, ResultEnvelope, StandardReason};

pub type Names = Vec<String>;

#[derive(ResultEnvelope)]
pub struct NamePage {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    names: Names,
    #[envelope(completeness)]
    completeness: Completeness<StandardReason>,
}

fn main() {}
