//! `assert_envelope_invariants` accepts every collection of the contract examples and
//! names each violation of contract §2.1.

use completeness::testing::{assert_envelope_invariants, check_envelope_invariants};
use serde_json::{Value, json};

fn contract_examples() -> Vec<(String, Value)> {
    let text = include_str!("fixtures/contract-examples.json");
    let file: Value = serde_json::from_str(text).unwrap();
    file["examples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["status_code"] == 200 && e["body"].get("items").is_some())
        .map(|e| (e["name"].as_str().unwrap().to_owned(), e["body"].clone()))
        .collect()
}

#[test]
fn every_collection_of_the_contract_examples_passes() {
    let examples = contract_examples();
    assert!(examples.len() >= 4, "the four states and the federated search");
    for (name, body) in examples {
        if let Err(violations) = check_envelope_invariants(&body) {
            panic!("contract example '{name}' rejected: {violations:?}");
        }
    }
}

/// The contract's "empty first page with more pages", to break one invariant at a time.
fn empty_first_page() -> Value {
    contract_examples().into_iter().find(|(name, _)| name == "empty first page with more pages").unwrap().1
}

fn complete_page() -> Value {
    contract_examples().into_iter().find(|(name, _)| name == "complete and empty").unwrap().1
}

/// Applies `breakage` and expects a violation mentioning `needle`.
fn rejects(mut body: Value, breakage: impl FnOnce(&mut Value), needle: &str) {
    breakage(&mut body);
    match check_envelope_invariants(&body) {
        Ok(()) => panic!("accepted a response that should break `{needle}`: {body}"),
        Err(violations) => {
            assert!(violations.iter().any(|v| v.contains(needle)), "no violation mentions `{needle}`: {violations:?}")
        }
    }
}

#[test]
fn items_that_are_not_an_array_are_a_violation_as_the_reader_refuses_them() {
    for items in [Value::Null, serde_json::json!({}), serde_json::json!("a")] {
        let body = complete_page();
        let mut broken = body.clone();
        broken["items"] = items.clone();
        let reader = serde_json::from_value::<completeness::Envelope<Value>>(broken.clone()).unwrap_err();
        assert!(reader.to_string().contains("`items` must be an array"), "{reader}");
        rejects(body, |b| b["items"] = items, "`items` must be an array");
    }
}

#[test]
fn a_missing_complete_member_is_a_violation_never_a_default() {
    rejects(complete_page(), |b| drop(b.as_object_mut().unwrap().remove("complete")), "`complete`");
}

#[test]
fn status_success_is_a_violation() {
    rejects(complete_page(), |b| b["status"] = json!("success"), "`status`");
}

#[test]
fn complete_with_reasons_is_a_violation() {
    rejects(empty_first_page(), |b| b["complete"] = json!(true), "`complete` is true");
}

#[test]
fn incomplete_without_reasons_is_a_violation() {
    rejects(complete_page(), |b| b["complete"] = json!(false), "`complete` is false");
}

#[test]
fn truncated_must_follow_the_reasons() {
    rejects(empty_first_page(), |b| b["truncated"] = json!(false), "`truncated`");
}

#[test]
fn a_next_cursor_without_more_pages_is_a_violation() {
    rejects(complete_page(), |b| b["next_cursor"] = json!("c9"), "`next_cursor` is set");
}

#[test]
fn more_pages_without_a_next_cursor_is_a_violation() {
    rejects(
        empty_first_page(),
        |b| {
            b["next_cursor"] = Value::Null;
            b["continuation"] = Value::Null;
        },
        "`next_cursor` is null",
    );
}

#[test]
fn the_continuation_cursor_must_equal_next_cursor() {
    rejects(empty_first_page(), |b| b["continuation"]["cursor"] = json!("other"), "must equal `next_cursor`");
}

#[test]
fn a_continuation_on_a_complete_response_is_a_violation() {
    rejects(complete_page(), |b| b["continuation"] = json!({"kind": "retry_after", "seconds": 1}), "must be null");
}

#[test]
fn evidence_on_a_partial_read_is_a_violation() {
    rejects(empty_first_page(), |b| b["evidence"] = json!("ev1.forged"), "`evidence` must be null");
}

#[test]
fn visibility_restricted_must_not_count_hidden_records() {
    rejects(
        empty_first_page(),
        |b| {
            b["incomplete_reasons"]
                .as_array_mut()
                .unwrap()
                .push(json!({"code": "VISIBILITY_RESTRICTED", "message": "hidden", "hidden_count": 4}));
        },
        "must not name or count hidden records",
    );
}

#[test]
fn reason_details_are_required() {
    rejects(
        complete_page(),
        |b| {
            b["complete"] = json!(false);
            b["status"] = json!("partial");
            b["evidence"] = Value::Null;
            b["incomplete_reasons"] = json!([{"code": "SOURCE_UNAVAILABLE", "message": "down"}]);
        },
        "lacks its `source` member",
    );
}

#[test]
fn the_continuation_belongs_to_the_first_reason_that_has_one() {
    rejects(
        empty_first_page(),
        |b| {
            b["truncated"] = json!(true);
            b["incomplete_reasons"] = json!([
                {"code": "MORE_PAGES_AVAILABLE", "message": "more"},
                {"code": "QUOTA_EXHAUSTED", "message": "quota", "retry_after_seconds": 5}
            ]);
            b["continuation"] = json!({"kind": "retry_after", "seconds": 5});
        },
        "first reason that has one",
    );
}

#[test]
fn page_returned_must_count_the_items() {
    rejects(complete_page(), |b| b["page"]["returned"] = json!(3), "`page.returned` is 3");
}

#[test]
fn a_missing_member_is_named() {
    rejects(complete_page(), |b| drop(b.as_object_mut().unwrap().remove("warnings")), "missing `warnings`");
}

#[test]
#[should_panic(expected = "breaks the completeness contract")]
fn the_assertion_panics_with_every_violation() {
    let mut body = complete_page();
    body["status"] = json!("success");
    assert_envelope_invariants(&body);
}

/// The kit lists every broken rule at once (contract §2.2), also when a member cannot be read:
/// a malformed reason (R12) hides neither the status (R3), the evidence (R9), a malformed
/// warning (R13) nor the count of items (R11).
#[test]
fn every_broken_rule_is_listed_at_once() {
    let mut body = empty_first_page();
    body["incomplete_reasons"][0].as_object_mut().unwrap().remove("message");
    body["status"] = json!("complete");
    body["evidence"] = json!("ev1.forged");
    body["warnings"] = json!([{"code": "lowercase", "message": "m"}]);
    body["items"] = json!(["a"]);
    let violations = check_envelope_invariants(&body).expect_err("five rules are broken");
    for rule in ["R3", "R9", "R11", "R12", "R13"] {
        assert!(
            violations.iter().any(|v| v.contains(&format!("§2.2 {rule})"))),
            "{rule} is not listed: {violations:#?}"
        );
    }

    // Every missing member is named, not only the first.
    let mut body = complete_page();
    for member in ["complete", "scope", "warnings"] {
        body.as_object_mut().unwrap().remove(member);
    }
    let violations = check_envelope_invariants(&body).expect_err("three members are missing");
    for member in ["complete", "scope", "warnings"] {
        assert!(violations.iter().any(|v| v.contains(&format!("missing `{member}`"))), "{member}: {violations:#?}");
    }
}

/// A server says of every page whether it resumed a traversal (contract §2.5): the test kit,
/// which checks a server's own answers, refuses a page without `resumed`, which the strict
/// reader takes (an older server's) and merges as before.
#[test]
fn a_served_page_without_resumed_is_a_violation() {
    let page = empty_first_page();
    assert!(page["page"]["resumed"].is_boolean(), "the contract's example says it: {page}");
    rejects(page.clone(), |body| _ = body["page"].as_object_mut().unwrap().remove("resumed"), "no `resumed`");
    let mut older = page;
    older["page"].as_object_mut().unwrap().remove("resumed");
    let read: completeness::Envelope<Value> = serde_json::from_value(older).expect("an older server's page is read");
    assert_eq!(read.completeness.page().unwrap().resumed, None);
}

/// The contract's aggregate example.
fn restricted_count() -> Value {
    let text = include_str!("fixtures/contract-examples.json");
    let file: Value = serde_json::from_str(text).unwrap();
    let example = file["examples"].as_array().unwrap().iter().find(|e| e["body"].get("relation").is_some());
    example.expect("the contract's aggregate example")["body"].clone()
}

/// An aggregate is checked against its own contract (§2.6): the block's rules without `page`
/// and `evidence`, which it does not have, a relation never exact while incomplete, one value.
#[test]
fn an_aggregate_is_checked_against_the_aggregate_contract_naming_each_violation() {
    let count = restricted_count();
    completeness::testing::assert_aggregate_invariants(&count);
    assert!(check_envelope_invariants(&count).is_err(), "the collection checker is not the aggregate's");
    let complete = json!({
        "status": "complete", "complete": true, "truncated": false, "count": 0, "relation": "exact",
        "incomplete_reasons": [], "continuation": null, "next_cursor": null,
        "scope": {"resource": "service_accounts", "visibility": "all", "snapshot": null, "filters": {}}, "warnings": []
    });
    completeness::testing::assert_aggregate_invariants(&complete);

    let broken = |change: &dyn Fn(&mut Value), needle: &str| {
        let mut body = count.clone();
        change(&mut body);
        let violations = completeness::testing::check_aggregate_invariants(&body).expect_err(needle);
        assert!(violations.iter().any(|v| v.contains(needle)), "{needle}: {violations:?}");
    };
    broken(&|b| b["relation"] = json!("exact"), "\"exact\" but the aggregate is incomplete");
    broken(&|b| drop(b.as_object_mut().unwrap().remove("relation")), "missing `relation`");
    broken(&|b| b["relation"] = json!("about"), "`relation` is not exact, lower_bound or estimate");
    broken(&|b| drop(b.as_object_mut().unwrap().remove("count")), "no value member");
    broken(&|b| b["total"] = json!(40), "one value member");
    broken(&|b| b["page"] = json!(null), "`page` is a collection's member");
    broken(&|b| b["evidence"] = json!("ev1.k1.x.y"), "`evidence` is a collection's member");
    broken(&|b| b["complete"] = json!(true), "R2");
    broken(&|b| drop(b.as_object_mut().unwrap().remove("scope")), "missing `scope`");
    assert!(completeness::testing::check_aggregate_invariants(&json!([1])).is_err());
}
