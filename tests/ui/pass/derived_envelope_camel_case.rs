//! serde's `rename_all` and field attributes on a derived envelope: data members renamed,
//! completeness members keep their contract names.

use completeness::{Completeness, ResultEnvelope, Scope};

#[derive(ResultEnvelope)]
#[serde(rename_all = "camelCase")]
struct TicketPage {
    ticket_list: Vec<String>,
    #[serde(rename = "nextHint", skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {
    let page = TicketPage {
        ticket_list: vec!["t-1".into()],
        hint: None,
        completeness: Completeness::complete(Scope::new("tickets", "all")),
    };
    let json = serde_json::to_value(&page).unwrap();
    assert_eq!(json["ticketList"], serde_json::json!(["t-1"]));
    assert!(json.get("nextHint").is_none());
    assert_eq!(json["incomplete_reasons"], serde_json::json!([]));
}
