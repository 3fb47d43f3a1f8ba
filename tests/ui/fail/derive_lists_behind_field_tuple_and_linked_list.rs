use std::collections::LinkedList;

use completeness::{Field, ResultEnvelope};

// Each of these holds a list: the members of a group, some of them, a queue.
#[derive(ResultEnvelope)]
struct Group {
    id: String,
    members: Field<Vec<String>>,
    sample: (Vec<String>, u32),
    queue: LinkedList<String>,
}

fn main() {}
