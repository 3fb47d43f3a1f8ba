use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Inventory {
    by_id: HashMap<String, u32>,
    by_name: BTreeMap<String, u32>,
    tenants: HashSet<String>,
    owners: BTreeSet<String>,
    recent: VecDeque<String>,
}

fn main() {}
