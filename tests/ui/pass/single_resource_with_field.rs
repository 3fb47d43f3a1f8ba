//! A single resource needs no completeness block; `Field<T>` fields produce `omitted_fields`.
//! Fields behind aliases that are not lists pass the type-level list check.

use completeness::routing::get;
use completeness::{Field, Omission, ReportsCompleteness, ResultEnvelope, Warning};

type AccountId = String;
type Labels = Option<[String; 2]>;

#[derive(serde::Serialize)]
struct Owner {
    team: String,
}

#[derive(ResultEnvelope)]
struct ServiceAccount {
    id: AccountId,
    labels: Labels,
    owner: Option<Owner>,
    owner_email: Field<String>,
    description: Field<String>,
    archived: bool,
    warnings: Vec<Warning>,
}

async fn show() -> ServiceAccount {
    unimplemented!()
}

fn main() {
    let _ = get::<_, _, completeness::CompletenessConfig>(show);
    let account = ServiceAccount {
        id: "sa-000042".into(),
        labels: None,
        owner: Some(Owner { team: "storage".into() }),
        owner_email: Field::Omitted(Omission::NoAccess),
        description: Field::Null,
        archived: false,
        warnings: vec![completeness::warning::PartialFieldSet::new(&["owner_email"], &[]).into()],
    };
    let json = serde_json::to_value(&account).unwrap();
    assert_eq!(json["owner_email"], serde_json::Value::Null);
    assert_eq!(json["description"], serde_json::Value::Null);
    assert_eq!(json["omitted_fields"], serde_json::json!({"owner_email": "NO_ACCESS"}));
    assert_eq!(json["warnings"][0]["code"], "PARTIAL_FIELD_SET");
    assert!(json.get("complete").is_none());
    assert!(account.completeness_report().is_none());
}
