// `deserialize` reads the struct's own members and restores each `Field` under the name
// `omitted_fields` lists it by: the struct's serde keys that would read another type, fill what
// is missing, name another serde or read other names than it writes are refused, and so is any
// key but `rename = ".."` on a `Field`.
use completeness::{Field, ResultEnvelope};

#[derive(serde::Deserialize)]
struct Other {
    name: Option<String>,
}

impl From<Other> for ThroughAnother {
    fn from(other: Other) -> Self {
        ThroughAnother { name: completeness::Field::from_option(other.name) }
    }
}

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
#[serde(from = "Other", default, crate = "serde")]
struct ThroughAnother {
    name: Field<String>,
}

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
#[serde(try_from = "Other")]
struct TriedFromAnother {
    name: Field<String>,
}

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
#[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
struct TwoCases {
    last_used_at: Field<String>,
}

#[derive(ResultEnvelope)]
#[envelope(deserialize)]
struct FieldKeys {
    #[serde(alias = "mail")]
    email: Field<String>,
    #[serde(rename(serialize = "seen", deserialize = "last_seen"))]
    seen: Field<u64>,
    #[serde(default, rename = "nick")]
    nickname: Field<String>,
    #[serde(rename = "ok")]
    renamed: Field<String>,
}

fn main() {}
