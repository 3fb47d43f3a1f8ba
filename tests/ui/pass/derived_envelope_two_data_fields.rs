//! A custom envelope with two data fields: the completeness block is flattened around them.

use completeness::reason::SourceUnavailable;
use completeness::{Completeness, ReportsCompleteness, ResultEnvelope, Scope};
use serde::Serialize;

#[derive(Serialize)]
struct Hit {
    id: String,
}

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<Hit>,
    sources: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
}

fn main() {
    let scope = Scope::new("search", "records readable by credential 'admin'");
    let search = Search {
        hits: vec![Hit { id: "sa-000042".into() }],
        sources: vec!["directory".into(), "audit".into()],
        completeness: Completeness::incomplete(scope, SourceUnavailable::new("legacy")),
    };
    let json = serde_json::to_value(&search).unwrap();
    assert_eq!(json["status"], "partial");
    assert_eq!(json["complete"], false);
    assert_eq!(json["hits"][0]["id"], "sa-000042");
    assert_eq!(json["sources"], serde_json::json!(["directory", "audit"]));
    assert_eq!(json["incomplete_reasons"][0]["code"], "SOURCE_UNAVAILABLE");
    assert!(json.get("completeness").is_none(), "the block is flattened, not nested");
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 12, "{keys:?}");
    assert!(!search.completeness_report().unwrap().is_complete());
}
