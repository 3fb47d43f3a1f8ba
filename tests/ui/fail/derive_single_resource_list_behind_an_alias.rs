// A single resource's field written as no list may still be one behind an alias: the
// type-level check refuses it, and one inside `Option`, `Field`, `Box`, `Rc` or `Arc`, on the
// field's type; so is a slice behind `Arc` or `Cow`.
use completeness::{Field, ResultEnvelope};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

type Members = Vec<String>;
type Quotas = Option<BTreeMap<String, u64>>;
type Tags = Cow<'static, [String]>;
type Ids = Arc<[u64]>;

#[derive(ResultEnvelope)]
struct Team {
    name: String,
    members: Members,
    quotas: Quotas,
    admins: Field<Members>,
    shared: Arc<Members>,
    owners: Box<Members>,
    tags: Tags,
    ids: Ids,
}

fn main() {}
