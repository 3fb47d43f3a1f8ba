//! `ApprovalRequest` shows the proposed action, its scope, every reason in plain
//! words and the recovery options that fit those reasons.

use completeness::client::RecoveryOption;
use completeness::reason::{
    ClientLimitReached, LimitKind, MorePagesAvailable, Progress, ResultLimitReached, SnapshotExpired,
    SourceUnavailable, TimeBudgetExceeded, VisibilityRestricted,
};
use completeness::{ApprovalRequest, Envelope, Scope};
use serde_json::{Value, json};

fn scope(credential: &str) -> Scope {
    Scope::new("service_accounts", format!("service accounts readable by credential '{credential}'"))
        .with_snapshot("s-1042")
        .with_filter("owner", "none")
}

fn accounts(count: usize) -> Vec<Value> {
    (1..=count).map(|n| json!({"id": format!("sa-{n:06}"), "owner": null})).collect()
}

const ACTION: &str = "archive every unowned service account";

#[test]
fn a_spent_time_budget_is_explained_with_counts_and_offers_a_larger_deadline() {
    let progress = Progress { completed: 842, planned: None, unit: "rows".into() };
    let listing: Envelope<Value> = Envelope::incomplete(
        accounts(842),
        scope("admin"),
        TimeBudgetExceeded::new(2000, progress).retry_with_deadline(10),
    );
    let request = ApprovalRequest::new(ACTION, "owner=none in every tenant", &listing);
    let text = request.to_string();
    assert!(text.starts_with("APPROVAL REQUIRED: archive every unowned service account\n"), "{text}");
    assert!(text.contains("Target scope: owner=none in every tenant"));
    assert!(
        text.contains("the inventory ran out of time after returning 842 of an unknown number of service accounts"),
        "{text}"
    );
    assert_eq!(request.options[0], RecoveryOption::RetryWithLargerDeadline { minimum_seconds: Some(10) });
    assert!(matches!(&request.options[1], RecoveryOption::LimitToReturnedIds { ids } if ids.len() == 842));
    assert_eq!(request.options.last(), Some(&RecoveryOption::Abandon));
}

#[test]
fn the_json_form_carries_codes_explanations_and_described_options() {
    let listing: Envelope<Value> = Envelope::incomplete(accounts(2), scope("north"), VisibilityRestricted::new());
    let json = ApprovalRequest::new(ACTION, "owner=none, tenant south", &listing).to_json();
    assert_eq!(json["action"], ACTION);
    assert_eq!(json["target_scope"], "owner=none, tenant south");
    assert_eq!(json["complete"], false);
    assert_eq!(json["returned"], 2);
    assert_eq!(json["reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    assert!(json["reasons"][0]["explanation"].as_str().unwrap().contains("cannot read every record"));
    let kinds: Vec<&str> = json["options"].as_array().unwrap().iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["use_broader_credential", "limit_to_returned_ids", "abandon"]);
    assert_eq!(json["options"][1]["ids"], json!(["sa-000001", "sa-000002"]));
    assert!(json["options"][2]["description"].as_str().unwrap().contains("nothing has been changed"));
}

#[test]
fn an_empty_incomplete_listing_offers_no_ids_to_limit_the_action_to() {
    let listing: Envelope<Value> = Envelope::incomplete(vec![], scope("admin"), MorePagesAvailable::new("c2"));
    let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
    assert_eq!(
        request.options,
        vec![RecoveryOption::ContinueCollecting { cursor: "c2".into() }, RecoveryOption::Abandon]
    );
    assert!(request.to_string().contains("0 service accounts were returned and further pages were never fetched"));
}

#[test]
fn every_reason_gets_its_own_explanation_and_fitting_option() {
    let mut listing: Envelope<Value> =
        Envelope::incomplete(accounts(3), scope("admin"), ResultLimitReached::new(500, "add a tenant filter"));
    listing.completeness.push_reason(SourceUnavailable::new("legacy").retry_after(15));
    listing.completeness.push_reason(SnapshotExpired::new("s-1042"));
    listing.completeness.push_reason(ClientLimitReached::new(LimitKind::Pages, 10).resume_with("c11"));
    let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
    let codes: Vec<&str> = request.reasons.iter().map(|r| r.code.as_str()).collect();
    assert_eq!(codes, ["RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE", "SNAPSHOT_EXPIRED", "CLIENT_LIMIT_REACHED"]);
    let text = request.to_string();
    assert!(text.contains("limit of 500 results"), "{text}");
    assert!(text.contains("the source 'legacy' did not answer"), "{text}");
    assert!(text.contains("snapshot s-1042"), "{text}");
    assert!(text.contains("its own limit of 10 pages after 3 service accounts"), "{text}");
    assert_eq!(
        request.options,
        vec![
            RecoveryOption::NarrowQuery { hint: Some("add a tenant filter".into()) },
            RecoveryOption::RetryLater { after_seconds: Some(15) },
            RecoveryOption::RestartCollection,
            RecoveryOption::ContinueCollecting { cursor: "c11".into() },
            RecoveryOption::LimitToReturnedIds {
                ids: vec!["sa-000001".into(), "sa-000002".into(), "sa-000003".into()]
            },
            RecoveryOption::Abandon,
        ]
    );
}

#[test]
fn reasons_read_back_from_the_wire_still_get_their_recovery_options() {
    let json = json!({
        "status": "partial", "complete": false, "truncated": false, "items": [],
        "incomplete_reasons": [{"code": "TIME_BUDGET_EXCEEDED", "message": "out of time", "budget_ms": 50,
                                "progress": {"completed": 1, "planned": 3, "unit": "sources"}}],
        "continuation": {"kind": "retry_with_deadline", "minimum_seconds": 4}, "next_cursor": null, "page": null,
        "scope": {"resource": "search", "visibility": "records readable by credential 'admin'", "snapshot": null,
                  "filters": {"q": "svc"}},
        "warnings": [], "evidence": null
    });
    let listing: Envelope<Value> = serde_json::from_value(json).unwrap();
    let request = ApprovalRequest::new("delete matching records", "q=svc", &listing);
    assert_eq!(request.options[0], RecoveryOption::RetryWithLargerDeadline { minimum_seconds: Some(4) });
    assert!(request.reasons[0].explanation.contains("1 of 3 sources finished"), "{:?}", request.reasons);
}
