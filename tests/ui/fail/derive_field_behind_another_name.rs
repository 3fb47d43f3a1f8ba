// A `Field` the derive does not see as one (an alias, an import under another name, a wrapper)
// would go out as a plain `null`, not listed in `omitted_fields`.
use completeness::Field as Maybe;
use completeness::{Completeness, Field, ResultEnvelope};

type Email = Field<String>;

#[derive(ResultEnvelope)]
pub struct Person {
    pub name: String,
    pub email: Email,
    pub phone: Maybe<String>,
    pub address: Option<Field<String>>,
}

#[derive(ResultEnvelope)]
pub struct People {
    pub people: Vec<String>,
    pub contact: Box<Field<String>>,
    #[envelope(completeness)]
    pub completeness: Completeness,
}

fn main() {}
