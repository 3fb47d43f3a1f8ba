use std::collections::LinkedList;

use completeness::{Field, ResultEnvelope};

/// As the `smallvec` crate's: a list kept inline up to its capacity, then on the heap.
mod smallvec {
    pub struct SmallVec<A>(pub A);
}

// Each of these holds a list: the members of a group, some of them, a queue, the recent ones.
#[derive(ResultEnvelope)]
struct Group {
    id: String,
    members: Field<Vec<String>>,
    sample: (Vec<String>, u32),
    queue: LinkedList<String>,
    recent: smallvec::SmallVec<[String; 8]>,
}

fn main() {}
