// A single resource's field written as no list may still be one behind an alias: the
// type-level check refuses it, and `Option` of one, on the field's type.
use completeness::ResultEnvelope;
use std::collections::BTreeMap;

type Members = Vec<String>;
type Quotas = Option<BTreeMap<String, u64>>;

#[derive(ResultEnvelope)]
struct Team {
    name: String,
    members: Members,
    quotas: Quotas,
}

fn main() {}
