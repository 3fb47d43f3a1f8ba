//! Two handlers of one module whose names give one reason type (`api_list` and `Api::list` both
//! give `ApiListReason`; `list_items_2` and `list_items2` both give `ListItems2Reason`): the
//! `reason_type` key names one of them otherwise, and its response names that type.

use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "accounts", reasons())]
async fn api_list() -> Envelope<String, ApiListReason> {
    Envelope::complete(vec![], Scope::new("accounts", "every account"))
}

struct Api;

#[completeness]
impl Api {
    #[completeness(resource = "keys", reasons(MorePagesAvailable), reason_type = ApiKeysReason)]
    async fn list() -> Envelope<String, ApiKeysReason> {
        Envelope::complete(vec![], Scope::new("keys", "every key"))
    }
}

#[completeness(resource = "items", reasons())]
async fn list_items_2() -> Envelope<String, ListItems2Reason> {
    Envelope::complete(vec![], Scope::new("items", "every item"))
}

#[completeness(reason_type = ListItemsV2Reason, resource = "items", reasons(MorePagesAvailable))]
pub async fn list_items2() -> Envelope<String, ListItemsV2Reason> {
    Envelope::complete(vec![], Scope::new("items", "every item"))
}

fn main() {
    assert!(ApiListReason::ALL.is_empty() && ListItems2Reason::ALL.is_empty());
    assert_eq!(ApiKeysReason::ALL.len(), 1);
    assert_eq!(ListItemsV2Reason::ALL.len(), 1);
    let _ = (api_list, Api::list, list_items_2, list_items2);
}
