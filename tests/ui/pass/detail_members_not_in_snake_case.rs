//! Detail members keep the names the wire gives them: a field not in snake_case (`partnerID`,
//! as a partner's API names it) builds without a warning once its struct allows the name, also
//! where the message names it. The message reads each field it names, by the field's name.

#![deny(warnings)]

use completeness::{Envelope, Reason, ReasonDetails, Scope, Warning, WarningDetails, completeness};

#[derive(Debug, Clone, Reason)]
#[reason(code = "PARTNER_DOWN", kind = source, message = "Partner {partnerID} is down.")]
#[allow(non_snake_case)]
struct PartnerDown {
    partnerID: String,
    partnerURL: String,
}

#[derive(Debug, Clone, Warning)]
#[warning(code = "PARTNER_LAG", owner = "partner-team", review_by = "2027-06-30", message = "{lagSeconds} s behind.")]
#[allow(non_snake_case)]
struct PartnerLag {
    partnerID: String,
    lagSeconds: u32,
}

#[completeness(resource = "orders", reasons(PartnerDown), warnings(PartnerLag))]
async fn list_orders() -> Envelope<u32, ListOrdersReason> {
    let scope = Scope::new("orders", "every order");
    let down = PartnerDown { partnerID: "p-7".into(), partnerURL: "https://partner.example".into() };
    let mut page = Envelope::incomplete(vec![], scope, down);
    page.completeness.push_warning(PartnerLag { partnerID: "p-7".into(), lagSeconds: 3 });
    page
}

fn main() {
    let down = PartnerDown { partnerID: "p-7".into(), partnerURL: String::new() };
    assert_eq!(down.default_message(), "Partner p-7 is down.");
    assert_eq!(PartnerLag { partnerID: "p-7".into(), lagSeconds: 3 }.message(), "3 s behind.");
    let page = tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(list_orders());
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["incomplete_reasons"][0]["partnerID"], "p-7");
    assert_eq!(wire["warnings"][0]["lagSeconds"], 3);
}
