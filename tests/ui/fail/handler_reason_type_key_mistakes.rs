// `reason_type` names the reason type once, with a name (not a string), in place of the one
// made from the handler's name.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "items", reasons(), reason_type = ItemsReason, reason_type = ItemsV2Reason)]
async fn list_items() -> Envelope<String, ItemsReason> {
    Envelope::complete(vec![], Scope::new("items", "every item"))
}

#[completeness(resource = "items", reasons(), reason_type = "ListItemsV2Reason")]
async fn list_items2() -> Envelope<String, ListItems2Reason> {
    Envelope::complete(vec![], Scope::new("items", "every item"))
}

fn main() {}
