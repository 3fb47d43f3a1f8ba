// A standard reason listed bare and by the facade's path is the same reason listed twice.
use completeness::{Envelope, completeness};

#[completeness(resource = "things", reasons(MorePagesAvailable, completeness::reason::MorePagesAvailable))]
async fn list_things() -> Envelope<String, ListThingsReason> {
    unimplemented!()
}

fn main() {}
