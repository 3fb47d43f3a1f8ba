// A serde attribute would change the struct's own `Serialize` only: the reason object on the
// wire is written by the derive, field by field, so each one is refused.
use completeness::Reason;

#[derive(Debug, Clone, Reason, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold {hold_id} are hidden.")]
pub struct LegalHold {
    hold_id: String,
    #[serde(rename = "ticket")]
    ticket_ref: u32,
}

fn main() {}
