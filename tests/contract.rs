//! The wire contract (contract §2): golden fixtures, the four states, and every strict-deserializer rejection.

use std::fs;
use std::path::Path;

use completeness::reason::{
    ClientLimitReached, MorePagesAvailable, QuotaExhausted, ResultLimitReached, SnapshotExpired, SourceUnavailable,
    TimeBudgetExceeded, VisibilityRestricted,
};
use completeness::warning::StaleIndex;
use completeness::{
    Aggregate, Completeness, Continuation, Envelope, LimitKind, PageInfo, Progress, Reason, ReasonCode, Relation,
    Scope, StandardReason, WarningCode,
};
use serde_json::{Map, Value, json};

fn fixture(path: &str) -> Value {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path);
    let text = fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Compares two JSON objects member by member, naming the first difference.
fn assert_members_eq(actual: &Value, expected: &Value, what: &str) {
    let (Some(actual), Some(expected)) = (actual.as_object(), expected.as_object()) else {
        panic!("{what}: both sides must be objects: {actual} vs {expected}");
    };
    for (key, want) in expected {
        assert_eq!(actual.get(key), Some(want), "{what}: member `{key}`");
    }
    for key in actual.keys() {
        assert!(expected.contains_key(key), "{what}: unexpected member `{key}`");
    }
}

fn scope() -> Scope {
    Scope::new("service_accounts", "service accounts readable by credential 'admin'")
        .with_snapshot("s-1042")
        .with_filter("owner", "none")
}

fn every_reason() -> Vec<StandardReason> {
    let progress = Progress::new(1, Some(3), "sources");
    vec![
        MorePagesAvailable::new("c1.k2.AAAB.c2ln").into(),
        ResultLimitReached::new(50, "add a tenant filter or a longer name prefix").into(),
        TimeBudgetExceeded::new(50, progress).retry_with_deadline(2).into(),
        SourceUnavailable::new("legacy").retry_after(5).into(),
        VisibilityRestricted::new().into(),
        QuotaExhausted::new(30).into(),
        ClientLimitReached::new(LimitKind::Pages, 10).resume_with("c1.k2.AAAC.c2ln").into(),
        SnapshotExpired::new("s-1042").into(),
    ]
}

#[test]
fn every_reason_code_serializes_exactly_as_its_golden_fixture() {
    let reasons = every_reason();
    let codes: Vec<ReasonCode> = reasons.iter().map(|reason| reason.code()).collect();
    assert_eq!(codes, ReasonCode::KNOWN, "one reason per known code, each once, in the table's order");
    for reason in &reasons {
        let code = reason.code();
        let golden = fixture(&format!("reasons/{code}.json"));
        assert_members_eq(&serde_json::to_value(reason).unwrap(), &golden, code.as_str());
        let back: StandardReason = serde_json::from_value(golden.clone()).unwrap();
        assert_eq!(back.code(), code);
        assert_members_eq(&serde_json::to_value(&back).unwrap(), &golden, code.as_str());
    }
}

#[test]
fn every_continuation_kind_serializes_exactly_as_its_golden_fixture() {
    let kinds = [
        Continuation::NextCursor { cursor: "c1.k2.AAAB.c2ln".into() },
        Continuation::RetryAfter { seconds: 5 },
        Continuation::RetryWithDeadline { minimum_seconds: 2 },
        Continuation::NarrowQuery { hint: "add a tenant filter or a longer name prefix".into() },
        Continuation::Restart { reason: "snapshot s-1042 is no longer retained".into() },
    ];
    for continuation in kinds {
        let golden = fixture(&format!("continuations/{}.json", continuation.kind()));
        assert_members_eq(&serde_json::to_value(&continuation).unwrap(), &golden, continuation.kind());
        let back: Continuation = serde_json::from_value(golden).unwrap();
        assert_eq!(back, continuation);
    }
}

#[test]
fn each_reason_brings_its_own_recovery_as_the_continuation() {
    let expected_kinds = [
        Some("next_cursor"),
        Some("narrow_query"),
        Some("retry_with_deadline"),
        Some("retry_after"),
        None,
        Some("retry_after"),
        Some("next_cursor"),
        Some("restart"),
    ];
    for (reason, kind) in every_reason().into_iter().zip(expected_kinds) {
        let code = reason.code();
        let c: Completeness = Completeness::incomplete(scope(), reason);
        assert_eq!(c.continuation().map(Continuation::kind), kind, "{code}");
    }
}

const COLLECTION_MEMBERS: [&str; 11] = [
    "status",
    "complete",
    "truncated",
    "items",
    "incomplete_reasons",
    "continuation",
    "next_cursor",
    "page",
    "scope",
    "warnings",
    "evidence",
];

fn page(returned: u64, cursor: bool) -> PageInfo {
    let facts = PageInfo::new(returned, Some(50), 50, "id ascending").with_snapshot("s-1042").with_resumed(false);
    if !cursor {
        return facts;
    }
    facts.with_cursor(completeness::CursorContract::new(
        true,
        "2026-11-29T20:15:00Z",
        vec![completeness::CursorBinding::Filters, completeness::CursorBinding::Credential],
    ))
}

/// Serializes, checks the exact member set, parses strictly, and checks the wire form survives.
fn round_trip(envelope: &Envelope<String>) -> (Value, Envelope<String>) {
    let json = serde_json::to_value(envelope).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = COLLECTION_MEMBERS.to_vec();
    expected.sort_unstable();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, expected, "every member always present");
    let back: Envelope<String> = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(serde_json::to_value(&back).unwrap(), json, "wire form survives a round trip");
    assert_eq!(&back, envelope, "the value survives a round trip");
    (json, back)
}

#[test]
fn complete_with_items_round_trips_as_complete() {
    let envelope = Envelope::new(
        vec!["sa-000184".to_owned()],
        Completeness::<StandardReason>::complete(scope()).with_page(page(1, false)),
    );
    let (json, back) = round_trip(&envelope);
    assert_eq!(json["status"], "complete");
    assert_eq!(json["complete"], true);
    assert_eq!(json["truncated"], false);
    assert_eq!(json["incomplete_reasons"], json!([]));
    assert_eq!(json["continuation"], Value::Null);
    assert_eq!(json["next_cursor"], Value::Null);
    assert!(back.is_complete());
    assert_eq!(back.items, vec!["sa-000184".to_owned()]);
}

#[test]
fn complete_and_empty_is_evidence_of_absence() {
    let envelope: Envelope<String> =
        Envelope::new(vec![], Completeness::complete(scope().with_filter("tenant", "east")).with_page(page(0, false)));
    let (json, back) = round_trip(&envelope);
    assert_eq!(json["complete"], true);
    assert_eq!(json["items"], json!([]));
    assert!(back.is_complete() && back.items.is_empty());
}

#[test]
fn incomplete_with_items_keeps_items_and_reasons() {
    let envelope = Envelope::new(
        vec!["sa-000001".to_owned(), "sa-000002".to_owned()],
        Completeness::<StandardReason>::incomplete(scope(), MorePagesAvailable::new("c1.k2.next"))
            .with_page(page(2, true)),
    );
    let (json, back) = round_trip(&envelope);
    assert_eq!(json["status"], "partial");
    assert_eq!(json["truncated"], true);
    assert_eq!(json["next_cursor"], "c1.k2.next");
    assert_eq!(json["continuation"], json!({"kind": "next_cursor", "cursor": "c1.k2.next"}));
    assert_eq!(back.items.len(), 2);
    assert_eq!(back.completeness.next_cursor(), Some("c1.k2.next"));
}

/// The members of `scope` and `page` are always written, `null` or a value, and read only so:
/// a page that leaves one out did not say it (§2.1, §2.5). `expires_at` is an RFC 3339 time.
#[test]
fn a_scope_or_page_member_left_out_or_an_expiry_that_is_no_time_is_refused() {
    let envelope = Envelope::new(
        vec!["sa-000001".to_owned()],
        Completeness::<StandardReason>::incomplete(scope(), MorePagesAvailable::new("c1.k2.next"))
            .with_page(page(1, true)),
    );
    let json = serde_json::to_value(&envelope).unwrap();
    serde_json::from_value::<Envelope<String>>(json.clone()).expect("as written, it reads");
    let pointers = ["/scope/snapshot", "/page/requested_size", "/page/snapshot", "/page/cursor"];
    for pointer in pointers {
        let (parent, member) = pointer.rsplit_once('/').unwrap();
        let mut body = json.clone();
        body.pointer_mut(parent).unwrap().as_object_mut().unwrap().remove(member);
        let error = serde_json::from_value::<Envelope<String>>(body).unwrap_err().to_string();
        assert!(error.contains(member), "{pointer}: {error}");
    }
    let mut body = json.clone();
    body["page"]["cursor"]["expires_at"] = json!("whenever");
    let error = serde_json::from_value::<Envelope<String>>(body).unwrap_err().to_string();
    assert!(error.contains("not an RFC 3339 time"), "{error}");
}

#[test]
fn incomplete_and_empty_is_never_read_as_absence() {
    let envelope: Envelope<String> = Envelope::new(
        vec![],
        Completeness::incomplete(scope().with_filter("tenant", "south"), VisibilityRestricted::new())
            .with_page(page(0, false)),
    );
    let (json, back) = round_trip(&envelope);
    assert_eq!(json["complete"], false);
    assert_eq!(json["status"], "partial");
    assert_eq!(json["truncated"], false, "visibility is not truncation");
    assert_eq!(json["continuation"], Value::Null, "no recovery for visibility, and still not complete");
    assert_eq!(json["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    assert!(!back.is_complete());
    assert!(back.items.is_empty());
}

#[test]
fn aggregates_round_trip_in_all_four_states() {
    let cases: Vec<(u64, Completeness<StandardReason>, Relation)> = vec![
        (31, Completeness::complete(scope()), Relation::Exact),
        (0, Completeness::complete(scope()), Relation::Exact),
        (31, Completeness::incomplete(scope(), VisibilityRestricted::new()), Relation::LowerBound),
        (0, Completeness::incomplete(scope(), SourceUnavailable::new("legacy")), Relation::LowerBound),
    ];
    for (count, completeness, relation) in cases {
        let complete = completeness.is_complete();
        let aggregate = Aggregate::count(count, relation, completeness);
        let json = serde_json::to_value(&aggregate).unwrap();
        assert_eq!(json["count"], count);
        assert_eq!(json["relation"], serde_json::to_value(relation).unwrap());
        assert_eq!(json["complete"], complete);
        assert!(json.get("page").is_none() && json.get("evidence").is_none(), "aggregates carry no page or evidence");
        let back: Aggregate<u64> = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, aggregate);
        assert_eq!(serde_json::to_value(&back).unwrap(), json);
    }
}

#[test]
fn an_incomplete_aggregate_is_never_exact() {
    let aggregate: Aggregate<u64> =
        Aggregate::count(31, Relation::Exact, Completeness::incomplete(scope(), VisibilityRestricted::new()));
    assert_eq!(aggregate.relation(), Relation::LowerBound);
    let mut json = serde_json::to_value(&aggregate).unwrap();
    json["relation"] = json!("exact");
    let err = serde_json::from_value::<Aggregate<u64>>(json).unwrap_err().to_string();
    assert!(err.contains("exact"), "{err}");

    // Exact when counted, then a reason: the count is what was visible, a lower bound.
    let mut later: Aggregate<u64> = Aggregate::count(31, Relation::Exact, Completeness::complete(scope()));
    assert_eq!(later.relation(), Relation::Exact);
    later.completeness_mut().push_reason(VisibilityRestricted::new());
    assert_eq!(later.relation(), Relation::LowerBound);
    let json = serde_json::to_value(&later).unwrap();
    assert_eq!(json["relation"], "lower_bound");
    let back: Aggregate<u64> = serde_json::from_value(json).expect("what is written is read back");
    assert_eq!((back.relation(), back.completeness().is_complete()), (Relation::LowerBound, false));
}

/// A value named like a member of the contract would be read as that member (`evidence` on a
/// count would look like the evidence of a complete inventory): refused on both sides.
#[test]
fn an_aggregate_value_never_takes_a_member_name() {
    for name in ["evidence", "page", "relation", "scope"] {
        let mut json =
            serde_json::to_value(Aggregate::<u64>::count(3, Relation::Exact, Completeness::complete(scope()))).unwrap();
        let count = json.as_object_mut().unwrap().remove("count").unwrap();
        json.as_object_mut().unwrap().insert(name.to_owned(), count);
        let err = serde_json::from_value::<Aggregate<u64>>(json).unwrap_err().to_string();
        assert!(err.contains(name), "{name}: {err}");
        let built = std::panic::catch_unwind(|| {
            Aggregate::<u64>::new(name, 3, Relation::Exact, Completeness::complete(scope()))
        });
        assert!(built.is_err(), "{name}: an aggregate cannot be built with it");
    }
}

#[test]
fn unknown_reason_codes_are_kept_and_mean_incomplete() {
    let mut json = serde_json::to_value(Envelope::<String>::complete(vec![], scope())).unwrap();
    json["complete"] = json!(false);
    json["status"] = json!("partial");
    json["incomplete_reasons"] =
        json!([{"code": "REGION_DRAINING", "message": "A region is draining.", "region": "eu-2"}]);
    let back: Envelope<String> = serde_json::from_value(json.clone()).unwrap();
    assert!(!back.is_complete());
    assert_eq!(back.completeness.reason_codes(), vec![ReasonCode::custom("REGION_DRAINING")]);
    let again = serde_json::to_value(&back).unwrap();
    assert_eq!(again["incomplete_reasons"], json["incomplete_reasons"], "unknown reasons survive whole");
}

#[test]
fn unknown_warning_codes_are_kept_and_never_change_complete() {
    let envelope: Envelope<String> = Envelope::new(
        vec![],
        Completeness::complete(scope())
            .with_warning(StaleIndex::new("audit").observed_revision("r-981").refreshed_at("2026-11-29T19:58:02Z")),
    );
    let mut json = serde_json::to_value(&envelope).unwrap();
    assert_eq!(json["complete"], true, "a warning never makes a result incomplete");
    json["warnings"].as_array_mut().unwrap().push(json!({"code": "SHARD_REBALANCING", "message": "m", "shard": 3}));
    let back: Envelope<String> = serde_json::from_value(json).unwrap();
    assert!(back.is_complete());
    let codes: Vec<_> = back.completeness.warnings().iter().map(|w| w.code().clone()).collect();
    assert_eq!(codes, vec![WarningCode::StaleIndex, WarningCode::custom("SHARD_REBALANCING")]);
    assert_eq!(back.completeness.warnings()[1].details()["shard"], 3);
}

fn valid_partial() -> Value {
    let envelope = Envelope::new(
        vec!["a".to_owned()],
        Completeness::<StandardReason>::incomplete(scope(), MorePagesAvailable::new("c1.next"))
            .with_page(page(1, true)),
    );
    serde_json::to_value(envelope).unwrap()
}

fn valid_complete() -> Value {
    serde_json::to_value(Envelope::<String>::complete(vec!["a".to_owned()], scope())).unwrap()
}

fn rejection(mut json: Value, edit: impl FnOnce(&mut Map<String, Value>)) -> String {
    edit(json.as_object_mut().unwrap());
    match serde_json::from_value::<Envelope<String>>(json) {
        Ok(_) => panic!("the strict deserializer accepted a response that violates the contract"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_member_is_required() {
    for member in COLLECTION_MEMBERS {
        let err = rejection(valid_complete(), |o| {
            o.remove(member);
        });
        assert!(err.contains(member), "missing `{member}` must be named: {err}");
    }
}

#[test]
fn a_missing_complete_is_rejected_never_defaulted() {
    let err = rejection(valid_complete(), |o| {
        o.remove("complete");
    });
    assert!(err.contains("missing `complete`"), "{err}");
    let err = rejection(valid_complete(), |o| {
        o.insert("complete".into(), json!("yes"));
    });
    assert!(err.contains("`complete` must be a boolean"), "{err}");
}

#[test]
fn complete_true_with_reasons_is_rejected() {
    let err = rejection(valid_partial(), |o| {
        o.insert("complete".into(), json!(true));
        o.insert("status".into(), json!("complete"));
    });
    assert!(err.contains("`complete` is true but `incomplete_reasons` lists MORE_PAGES_AVAILABLE"), "{err}");
}

#[test]
fn complete_false_without_reasons_is_rejected() {
    let err = rejection(valid_complete(), |o| {
        o.insert("complete".into(), json!(false));
        o.insert("status".into(), json!("partial"));
    });
    assert!(err.contains("`incomplete_reasons` is empty"), "{err}");
}

#[test]
fn status_must_be_derived_from_complete() {
    for bad in [json!("success"), json!("partial"), Value::Null] {
        let err = rejection(valid_complete(), |o| {
            o.insert("status".into(), bad.clone());
        });
        assert!(err.contains("`status` must be \"complete\""), "{err}");
    }
}

#[test]
fn truncated_must_be_derived_from_the_reasons() {
    let err = rejection(valid_partial(), |o| {
        o.insert("truncated".into(), json!(false));
    });
    assert!(err.contains("`truncated` must be true"), "{err}");
    let err = rejection(valid_complete(), |o| {
        o.insert("truncated".into(), json!(true));
    });
    assert!(err.contains("`truncated` must be false"), "{err}");
}

#[test]
fn a_complete_response_cannot_carry_a_continuation() {
    let err = rejection(valid_complete(), |o| {
        o.insert("continuation".into(), json!({"kind": "retry_after", "seconds": 1}));
    });
    assert!(err.contains("`continuation` must be null"), "{err}");
}

#[test]
fn an_incomplete_response_cannot_carry_evidence() {
    let err = rejection(valid_partial(), |o| {
        o.insert("evidence".into(), json!("ev1.forged"));
    });
    assert!(err.contains("`evidence` must be null"), "{err}");
}

#[test]
fn more_pages_without_a_cursor_is_rejected() {
    let err = rejection(valid_partial(), |o| {
        o.insert("next_cursor".into(), Value::Null);
    });
    assert!(err.contains("`next_cursor` is null") && err.contains("R7"), "{err}");
}

#[test]
fn a_cursor_without_more_pages_is_rejected() {
    let err = rejection(valid_complete(), |o| {
        o.insert("next_cursor".into(), json!("c1.dangling"));
    });
    assert!(err.contains("no reason offers a next page") && err.contains("R7"), "{err}");
}

/// An empty cursor, sent back, reads as no cursor to many servers, which then serve the first
/// page again; an empty evidence token is no signature (contract §2.2 R7, R9).
#[test]
fn empty_tokens_are_rejected() {
    let err = rejection(valid_partial(), |o| {
        o.insert("next_cursor".into(), json!(""));
        o.insert("continuation".into(), json!({"kind": "next_cursor", "cursor": ""}));
    });
    assert!(err.contains("`next_cursor` is the empty string") && err.contains("R7"), "{err}");
    let err = rejection(valid_complete(), |o| {
        o.insert("evidence".into(), json!(""));
    });
    assert!(err.contains("`evidence` is the empty string") && err.contains("R9"), "{err}");
    // A non-empty token of any form is the server's own business.
    let mut json = valid_complete();
    json["evidence"] = json!("x");
    serde_json::from_value::<Envelope<String>>(json).expect("a non-empty evidence token is read");
}

#[test]
fn continuation_cursor_must_equal_next_cursor() {
    let err = rejection(valid_partial(), |o| {
        o.insert("continuation".into(), json!({"kind": "next_cursor", "cursor": "c1.other"}));
    });
    assert!(err.contains("must equal `next_cursor`"), "{err}");
}

#[test]
fn a_reason_with_a_recovery_needs_a_continuation() {
    let json = serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), QuotaExhausted::new(30))).unwrap();
    let err = rejection(json, |o| {
        o.insert("continuation".into(), Value::Null);
    });
    assert!(err.contains("QUOTA_EXHAUSTED always has a recovery path") && err.contains("R6"), "{err}");
}

/// R6 holds on the continuation's value where the reason carries its recovery itself
/// (`QUOTA_EXHAUSTED`'s `retry_after_seconds`): a client acting on `continuation` would retry
/// at once where the reason says in an hour.
#[test]
fn the_continuation_is_the_first_reasons_own_recovery() {
    let json =
        serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), QuotaExhausted::new(3600))).unwrap();
    assert_eq!(json["continuation"], json!({"kind": "retry_after", "seconds": 3600}));
    let read: Envelope<String> = serde_json::from_value(json.clone()).expect("the writer keeps R6");
    assert!(!read.is_complete());
    let err = rejection(json, |o| {
        o.insert("continuation".into(), json!({"kind": "retry_after", "seconds": 0}));
    });
    assert!(err.contains("QUOTA_EXHAUSTED's own recovery") && err.contains("R6"), "{err}");
}

/// R6 read back: a `SOURCE_UNAVAILABLE` that offered no retry, before a `QUOTA_EXHAUSTED`
/// whose wait is the continuation, is read as offering none; the wait stays the quota's.
#[test]
fn a_wait_a_later_reason_carries_is_not_lent_to_an_earlier_one() {
    let mut written = Envelope::<String>::incomplete(vec![], scope(), SourceUnavailable::new("legacy"));
    written.completeness.push_reason(QuotaExhausted::new(30));
    let json = serde_json::to_value(&written).unwrap();
    assert_eq!(json["continuation"], json!({"kind": "retry_after", "seconds": 30}));
    let read: Envelope<String> = serde_json::from_value(json).unwrap();
    let recoveries: Vec<Option<Continuation>> = read.completeness.reasons().iter().map(Reason::recovery).collect();
    assert_eq!(recoveries, [None, Some(Continuation::RetryAfter { seconds: 30 })], "as written");

    // And a source that did offer its own wait keeps it.
    let mut written = Envelope::<String>::incomplete(vec![], scope(), SourceUnavailable::new("legacy").retry_after(5));
    written.completeness.push_reason(QuotaExhausted::new(30));
    let read: Envelope<String> = serde_json::from_value(serde_json::to_value(&written).unwrap()).unwrap();
    let recoveries: Vec<Option<Continuation>> = read.completeness.reasons().iter().map(Reason::recovery).collect();
    assert_eq!(
        recoveries,
        [Some(Continuation::RetryAfter { seconds: 5 }), Some(Continuation::RetryAfter { seconds: 30 })]
    );
}

/// R6: a `next_cursor` is offered by a reason, whose recovery it is: the continuation is not
/// null beside it (here a collector's resumable `CLIENT_LIMIT_REACHED`).
#[test]
fn a_next_cursor_needs_a_continuation() {
    let limit = ClientLimitReached::new(LimitKind::Pages, 1).resume_with("c1.next");
    let json = serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), limit)).unwrap();
    assert_eq!(json["next_cursor"], "c1.next");
    serde_json::from_value::<Envelope<String>>(json.clone()).expect("the writer keeps R6");
    let err = rejection(json, |o| {
        o.insert("continuation".into(), Value::Null);
    });
    assert!(err.contains("`continuation` is null although `next_cursor` offers a next page"), "{err}");
}

/// R12: a standard reason's `kind` is its code's, if it carries one at all; a `kind` that says
/// anything else (here, what is hidden) is refused like any other detail of
/// `VISIBILITY_RESTRICTED`.
#[test]
fn a_standard_reason_that_carries_a_kind_carries_its_own() {
    let hidden =
        || serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), VisibilityRestricted::new())).unwrap();
    let err = rejection(hidden(), |o| {
        o["incomplete_reasons"][0]["kind"] = json!("3 hidden: acct-7, acct-9, acct-11");
    });
    assert!(err.contains("its kind is visibility") && err.contains("R12"), "{err}");
    let err = rejection(hidden(), |o| {
        o["incomplete_reasons"][0]["kind"] = json!("truncation");
    });
    assert!(err.contains("its kind is visibility"), "{err}");
    let mut json = hidden();
    json["incomplete_reasons"][0]["kind"] = json!("visibility");
    let read: Envelope<String> = serde_json::from_value(json).expect("its own kind may be said");
    assert_eq!(read.completeness.reason_codes(), vec![ReasonCode::VisibilityRestricted]);
}

/// `progress.planned` is always written, `null` when unknown: one left out is refused, as the
/// members of `scope` and `page` are, rather than read as "unknown".
#[test]
fn progress_states_planned_even_when_unknown() {
    let progress = Progress::new(1, None, "sources");
    let json =
        serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), TimeBudgetExceeded::new(200, progress)))
            .unwrap();
    assert_eq!(json["incomplete_reasons"][0]["progress"]["planned"], Value::Null);
    serde_json::from_value::<Envelope<String>>(json.clone()).expect("null is read as unknown");
    let err = rejection(json, |o| {
        o["incomplete_reasons"][0]["progress"].as_object_mut().unwrap().remove("planned");
    });
    assert!(err.contains("planned"), "{err}");
}

#[test]
fn page_returned_must_count_the_items() {
    let err = rejection(valid_partial(), |o| {
        o.insert("items".into(), json!(["a", "b"]));
    });
    assert!(err.contains("`page.returned` is 1 but `items` holds 2"), "{err}");
}

/// Each rule of §2.2, broken alone on a valid response: the strict reader's error names it.
#[test]
fn every_rule_is_named_by_the_rejection_of_a_response_that_breaks_it() {
    /// A rule, the valid response to start from, and the edit that breaks the rule alone.
    type Case = (&'static str, fn() -> Value, fn(&mut Map<String, Value>));
    let cases: [Case; 13] = [
        ("R1", valid_complete, |o| drop(o.remove("scope"))),
        ("R2", valid_complete, |o| {
            o.insert("complete".into(), json!(false));
            o.insert("status".into(), json!("partial"));
        }),
        ("R3", valid_complete, |o| drop(o.insert("status".into(), json!("partial")))),
        ("R4", valid_partial, |o| drop(o.insert("truncated".into(), json!(false)))),
        ("R5", valid_complete, |o| drop(o.insert("continuation".into(), json!({"kind": "retry_after", "seconds": 1})))),
        ("R6", valid_partial, |o| drop(o.insert("continuation".into(), Value::Null))),
        ("R7", valid_complete, |o| drop(o.insert("next_cursor".into(), json!("c1.dangling")))),
        ("R8", valid_partial, |o| {
            o.insert("continuation".into(), json!({"kind": "next_cursor", "cursor": "c1.other"}));
        }),
        ("R9", valid_partial, |o| drop(o.insert("evidence".into(), json!("ev1.forged")))),
        ("R10", valid_partial, |o| drop(o["page"].as_object_mut().unwrap().insert("cursor".into(), Value::Null))),
        ("R11", valid_partial, |o| drop(o.insert("items".into(), json!(["a", "b"])))),
        ("R12", valid_partial, |o| drop(o["incomplete_reasons"][0].as_object_mut().unwrap().remove("message"))),
        ("R13", valid_complete, |o| drop(o.insert("warnings".into(), json!([{"code": "stale", "message": "m"}])))),
    ];
    for (rule, valid, edit) in cases {
        let err = rejection(valid(), edit);
        assert!(err.contains(&format!("§2.2 {rule})")), "breaking {rule} alone: {err}");
    }
    // The collection reader names R1 for its own data member too.
    let err = rejection(valid_complete(), |o| drop(o.remove("items")));
    assert!(err.contains("missing `items`") && err.contains("§2.2 R1)"), "{err}");
}

/// §7: `scope`, `page`, `page.cursor`, a continuation and a reason's `progress` may gain
/// members in a minor release; a reader ignores them, as it does new members of the response.
#[test]
fn members_a_reader_does_not_know_are_ignored_at_every_level() {
    let mut json = serde_json::to_value(Envelope::<String>::incomplete(
        vec![],
        scope(),
        TimeBudgetExceeded::new(200, Progress::new(1, Some(3), "sources")).retry_with_deadline(2),
    ))
    .unwrap();
    json["incomplete_reasons"][0]["progress"]["eta_ms"] = json!(40);
    assert_eq!(json["continuation"]["kind"], "retry_with_deadline");
    json["continuation"]["jitter_ms"] = json!(5);
    json["scope"]["tenant_count"] = json!(4);
    json["served_by"] = json!("replica-2");
    let page: Envelope<String> = serde_json::from_value(json).expect("unknown members are ignored");
    assert_eq!(page.completeness.reason_codes(), vec![ReasonCode::TimeBudgetExceeded]);

    let mut json = valid_partial();
    json["page"]["total_estimate"] = json!(1000);
    json["page"]["cursor"]["renewable"] = json!(false);
    let page: Envelope<String> = serde_json::from_value(json).expect("unknown page members are ignored");
    assert_eq!(page.completeness.next_cursor(), Some("c1.next"));
}

/// §7: a cursor may be bound to more in a later version; a value of `invalidated_by` a reader
/// does not know is kept as it came, never a reason to refuse the answer, and written back as
/// it came. One that is no string is refused.
#[test]
fn a_cursor_binding_a_reader_does_not_know_is_kept() {
    use completeness::CursorBinding;
    let mut json = valid_partial();
    json["page"]["cursor"]["invalidated_by"] = json!(["filters", "page_size", "credential"]);
    let page: Envelope<String> = serde_json::from_value(json.clone()).expect("an unknown binding is read");
    let contract = page.completeness.page().and_then(|p| p.cursor.clone()).expect("a cursor contract");
    let other = CursorBinding::Other("page_size".to_owned());
    assert_eq!(contract.invalidated_by, [CursorBinding::Filters, other, CursorBinding::Credential]);
    let again = serde_json::to_value(&page).unwrap();
    assert_eq!(again["page"]["cursor"]["invalidated_by"], json["page"]["cursor"]["invalidated_by"]);

    let mut json = valid_partial();
    json["page"]["cursor"]["invalidated_by"] = json!(["filters", 7]);
    assert!(serde_json::from_value::<Envelope<String>>(json).is_err(), "a binding is a string");
}

#[test]
fn malformed_reasons_are_rejected_with_their_index() {
    let cases = [
        (json!([{"message": "no code"}]), "string `code`"),
        (json!([{"code": "RESULT_LIMIT_REACHED"}]), "lacks its `message`"),
        (json!([{"code": "RESULT_LIMIT_REACHED", "message": "m"}]), "lacks its `limit`"),
        (json!([{"code": "RESULT_LIMIT_REACHED", "message": "m", "limit": -1}]), "non-negative integer"),
        (json!(["MORE_PAGES_AVAILABLE"]), "must be an object"),
    ];
    for (reasons, expected) in cases {
        let err = rejection(valid_complete(), |o| {
            o.insert("complete".into(), json!(false));
            o.insert("status".into(), json!("partial"));
            o.insert("truncated".into(), json!(true));
            o.insert("incomplete_reasons".into(), reasons);
        });
        assert!(err.contains("incomplete_reasons[0]") && err.contains(expected), "{err}");
    }
}

/// The contract examples whose body `keep` takes, with their names.
fn contract_examples(keep: impl Fn(&Value) -> bool) -> Vec<(String, Value)> {
    let examples = fixture("contract-examples.json");
    let examples = examples["examples"].as_array().unwrap().iter().filter(|example| keep(&example["body"]));
    examples.map(|example| (example["name"].as_str().unwrap().to_owned(), example.clone())).collect()
}

#[test]
fn every_contract_example_with_a_completeness_block_is_accepted_and_preserved() {
    let examples = contract_examples(|body| body.get("complete").is_some());
    assert_eq!(examples.len(), 6, "all six completeness examples are checked");
    for (name, example) in &examples {
        let (name, body) = (name.as_str(), &example["body"]);
        let again = if body.get("count").is_some() {
            let aggregate: Aggregate<u64> =
                serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            serde_json::to_value(aggregate).unwrap()
        } else {
            let envelope: Envelope<Value> =
                serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(envelope.is_complete(), body["complete"].as_bool().unwrap(), "{name}");
            serde_json::to_value(envelope).unwrap()
        };
        assert_members_eq(&again, body, name);
    }
}

/// The problem examples are problems as the runtime writes them: their `type` and `title` are
/// their code's (§5.4), their `status` the response's; an expired cursor carries its `restart`
/// (§2.5); and the strict refusal of an answer a source left out is the one the runtime makes of
/// that answer, its `continuation` the wait its `Retry-After` gives (§5.3).
#[test]
fn every_problem_example_is_the_problem_the_runtime_writes() {
    use completeness::problem::Problem;
    use completeness::report::IncompleteReport;
    let examples = contract_examples(|body| body.get("complete").is_none() && body.get("code").is_some());
    assert_eq!(examples.len(), 3, "the three problem examples are checked");
    for (name, example) in &examples {
        let body = &example["body"];
        let problem: Problem = serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(u64::from(problem.status()), example["status_code"].as_u64().unwrap(), "{name}");
        assert!((400..600).contains(&problem.status()), "{name}");
        let written = Problem::new(problem.code().clone(), "");
        assert_eq!(
            (body["type"].as_str(), body["title"].as_str()),
            (Some(&*written.type_uri()), Some(written.title()))
        );
        match problem.code().as_str() {
            "CURSOR_EXPIRED" => assert_eq!(body["continuation"]["kind"], "restart", "{name}"),
            "COMPLETE_RESULT_UNAVAILABLE" => {
                // The answer refused: the example's reasons, with the continuation it says they offered.
                let mut answer =
                    serde_json::to_value(Envelope::<Value>::incomplete(vec![], scope(), VisibilityRestricted::new()))
                        .unwrap();
                answer["incomplete_reasons"] = body["incomplete_reasons"].clone();
                answer["continuation"] = body["continuation"].clone();
                let answer: Envelope<Value> = serde_json::from_value(answer).unwrap_or_else(|e| panic!("{name}: {e}"));
                let report = IncompleteReport::of_response(&answer).unwrap();
                let refusal = Problem::complete_result_unavailable(&report);
                assert_eq!(problem.status(), refusal.status(), "{name}");
                let retry_after = example["headers"]["Retry-After"].as_str().and_then(|s| s.parse().ok());
                assert_eq!(retry_after, refusal.retry_after(), "{name}");
                assert_eq!(problem.extension("continuation"), refusal.extension("continuation"), "{name}");
                assert_eq!(problem.extension("incomplete_reasons"), refusal.extension("incomplete_reasons"), "{name}");
            }
            _ => assert_eq!(problem.extension("continuation"), None, "{name}"),
        }
    }
}

/// A member given twice would read one way here (serde keeps the last) and another way in a
/// reader that keeps the first: `"complete": false, ..., "complete": true` is refused, for a
/// collection, an aggregate and a bare block.
#[test]
fn a_member_given_twice_is_refused() {
    let partial =
        serde_json::to_string(&Envelope::<String>::incomplete(vec![], scope(), VisibilityRestricted::new())).unwrap();
    let twice = format!(
        r#"{},"status":"complete","complete":true,"incomplete_reasons":[],"continuation":null}}"#,
        partial.trim_end_matches('}')
    );
    let err = serde_json::from_str::<Envelope<String>>(&twice).unwrap_err().to_string();
    assert!(err.contains("given twice"), "{err}");
    let err = serde_json::from_str::<Completeness<StandardReason>>(&twice.replace(r#""items":[],"#, ""))
        .unwrap_err()
        .to_string();
    assert!(err.contains("given twice"), "{err}");
    let count =
        serde_json::to_string(&Aggregate::<u64>::count(3, Relation::LowerBound, Completeness::complete(scope())))
            .unwrap();
    let twice = format!(r#"{},"count":300}}"#, count.trim_end_matches('}'));
    let err = serde_json::from_str::<Aggregate<u64>>(&twice).unwrap_err().to_string();
    assert!(err.contains("member `count` is given twice"), "{err}");

    // Inside a reason: the first `code` says records are hidden, the last that a page follows.
    let hidden = partial.replacen(
        r#""code":"VISIBILITY_RESTRICTED""#,
        r#""code":"VISIBILITY_RESTRICTED","code":"MORE_PAGES_AVAILABLE""#,
        1,
    );
    assert_ne!(hidden, partial);
    let err = serde_json::from_str::<Envelope<String>>(&hidden).unwrap_err().to_string();
    assert!(err.contains("member `code` is given twice"), "{err}");
}

/// A scope is the query's only with the asked resource and exactly the asked filters: each
/// difference is named, a value applied other than asked, a filter dropped (a wider set) or
/// added (a narrower one).
#[test]
fn a_scope_names_how_it_differs_from_the_query_asked() {
    let scope = Scope::new("service_accounts", "every tenant").with_filter("owner", "none").with_filter("limit", 5);
    let asked = [("owner", json!("none")), ("limit", json!(5))];
    assert_eq!(scope.differs_from("service_accounts", &asked), None);
    assert_eq!(scope.differs_from("users", &asked).as_deref(), Some("the resource is `service_accounts`, not `users`"));
    assert_eq!(
        scope.differs_from("service_accounts", &[("owner", json!("alice")), ("limit", json!("5"))]).as_deref(),
        Some(
            "the filter `owner` was asked as \"alice\" but applied as \"none\"; \
             the filter `limit` was asked as \"5\" but applied as 5"
        )
    );
    assert_eq!(
        scope.differs_from("service_accounts", &[("owner", json!("none"))]).as_deref(),
        Some("the filter `limit` = 5 was applied but not asked")
    );
    let difference = Scope::new("service_accounts", "every tenant").differs_from("service_accounts", &asked);
    assert_eq!(
        difference.as_deref(),
        Some(
            "the filter `owner` was asked as \"none\" but not applied; the filter `limit` was asked as 5 but not applied"
        )
    );
}

/// `page.resumed` is a boolean a server always writes (the schemas require it); a page of an
/// older server leaves it out, read as `None`, and `null` is no boolean: refused.
#[test]
fn page_resumed_is_a_required_boolean_an_older_server_leaves_out() {
    let page = json!({"returned": 0, "requested_size": null, "applied_size": 10, "ordering": "id ascending",
                      "snapshot": null, "cursor": null});
    let older: completeness::PageInfo = serde_json::from_value(page.clone()).unwrap();
    assert_eq!(older.resumed, None);
    assert!(serde_json::to_value(&older).unwrap().get("resumed").is_none(), "not said, not written");
    for (resumed, read) in [(json!(true), Some(true)), (json!(false), Some(false))] {
        let mut said = page.clone();
        said["resumed"] = resumed;
        assert_eq!(serde_json::from_value::<completeness::PageInfo>(said).unwrap().resumed, read);
    }
    let mut null = page;
    null["resumed"] = Value::Null;
    assert!(serde_json::from_value::<completeness::PageInfo>(null).is_err(), "null is no boolean");
    let schema = serde_json::to_value(schemars::schema_for!(completeness::PageInfo)).unwrap();
    assert!(schema["required"].as_array().unwrap().contains(&json!("resumed")), "{schema}");
    assert_eq!(schema["properties"]["resumed"]["type"], "boolean", "{schema}");
}

/// The schemas of a reason type that declares every standard reason, rendered for OpenAPI and
/// as JSON Schema, each as a validator.
#[cfg(all(feature = "openapi", feature = "json-schema"))]
fn reason_validators() -> Vec<(&'static str, Value, jsonschema::Validator)> {
    type EveryReason = completeness::DeclaredReason<completeness::Everything>;
    let mut openapi = serde_json::to_value(<EveryReason as utoipa::PartialSchema>::schema()).unwrap();
    // The detail objects it refers to, as a document lists them.
    let mut components = Vec::new();
    <EveryReason as utoipa::ToSchema>::schemas(&mut components);
    let components: serde_json::Map<String, Value> =
        components.into_iter().map(|(name, schema)| (name, serde_json::to_value(schema).unwrap())).collect();
    openapi["components"] = json!({"schemas": components});
    let json = serde_json::to_value(schemars::schema_for!(EveryReason)).unwrap();
    [("openapi", openapi), ("json-schema", json)]
        .into_iter()
        .map(|(what, schema)| {
            let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{what}: {e}: {schema}"));
            (what, schema, validator)
        })
        .collect()
}

/// Contract §3.2 in the schemas: each standard code is a branch of its own that requires
/// exactly the detail members its reason sends, so a generated client reads `limit`,
/// `budget_ms` and `progress` as what they are; a reason missing one, with one of the wrong
/// type, of a code not declared, or `VISIBILITY_RESTRICTED` counting what it hides, is refused.
#[cfg(all(feature = "openapi", feature = "json-schema"))]
#[test]
fn the_reason_schemas_require_each_standard_codes_own_details_and_refuse_others() {
    for (what, schema, validator) in reason_validators() {
        let branches = schema["oneOf"].as_array().unwrap_or_else(|| panic!("{what}: one branch per code: {schema}"));
        assert_eq!(branches.len(), ReasonCode::KNOWN.len(), "{what}");
        let unsized_budget = TimeBudgetExceeded::new(70, Progress::new(5, None, "rows"));
        for reason in every_reason().into_iter().chain([unsized_budget.into()]) {
            let sent = serde_json::to_value(&reason).unwrap();
            let code = reason.code();
            assert!(validator.is_valid(&sent), "{what} refuses {sent}: {:?}", validator.validate(&sent).err());
            let branch = branches
                .iter()
                .find(|branch| {
                    let written = &branch["properties"]["code"];
                    written["const"] == code.as_str() || written["enum"] == json!([code.as_str()])
                })
                .unwrap_or_else(|| panic!("{what}: no branch for {code}"));
            let mut required: Vec<&str> =
                branch["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            let mut members: Vec<&str> = sent.as_object().unwrap().keys().map(String::as_str).collect();
            required.sort_unstable();
            members.sort_unstable();
            assert_eq!(required, members, "{what}: {code} requires exactly the members it sends");
            for detail in members.iter().filter(|member| !["code", "message"].contains(member)) {
                let mut missing = sent.clone();
                missing.as_object_mut().unwrap().remove(*detail);
                assert!(!validator.is_valid(&missing), "{what}: {code} without `{detail}` is accepted");
                let mut mistyped = sent.clone();
                mistyped[*detail] = json!([]);
                assert!(!validator.is_valid(&mistyped), "{what}: {code} with `{detail}: []` is accepted");
            }
        }
        let counted = json!({"code": "VISIBILITY_RESTRICTED", "message": "hidden", "hidden": 3});
        assert!(!validator.is_valid(&counted), "{what}: a count of hidden records is accepted");
        let negative = json!({"code": "RESULT_LIMIT_REACHED", "message": "cap", "limit": -1});
        assert!(!validator.is_valid(&negative), "{what}: a negative limit is accepted");
        let undeclared = json!({"code": "LEGAL_HOLD", "message": "held", "kind": "visibility"});
        assert!(!validator.is_valid(&undeclared), "{what}: a code the type does not declare is accepted");
        let newer = json!({"code": "RESULT_LIMIT_REACHED", "message": "cap", "limit": 5, "window": "1h"});
        assert!(validator.is_valid(&newer), "{what}: a detail added later (§7) is refused");
    }
}

/// Contract §3.5 in the warning schemas: each standard warning code is a branch of its own,
/// with its detail members (`PAGE_SIZE_REDUCED` its `requested` and `applied`); a warning
/// missing a detail it always carries, or of a code not declared, is refused.
#[cfg(all(feature = "openapi", feature = "json-schema"))]
#[test]
fn the_warning_schemas_require_each_standard_codes_own_details() {
    use completeness::Warning;
    use completeness::warning::{
        DefaultScopeApplied, DeprecatedField, OrderingDefaulted, PageSizeReduced, PartialFieldSet,
    };
    type EveryReason = completeness::DeclaredReason<completeness::Everything>;
    let sent: Vec<Value> = [
        Warning::from(StaleIndex::new("search").observed_revision("r-41").refreshed_at("2026-12-05T10:00:00Z")),
        StaleIndex::new("search").into(),
        PartialFieldSet::new(&["owner_email"], &["secret_fingerprint"]).into(),
        DefaultScopeApplied::new("active accounts only").into(),
        PageSizeReduced::new(500, 100).into(),
        OrderingDefaulted::new("id ascending").into(),
        DeprecatedField::new("owner").into(),
    ]
    .iter()
    .map(|warning| serde_json::to_value(warning).unwrap())
    .collect();
    let mut generator = schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12());
    let json = EveryReason::warning_json_schema(&mut generator).to_value();
    let openapi = serde_json::to_value(EveryReason::warning_schema()).unwrap();
    for (what, schema) in [("openapi", openapi), ("json-schema", json)] {
        let branches = schema["oneOf"].as_array().unwrap_or_else(|| panic!("{what}: one branch per code: {schema}"));
        assert_eq!(branches.len(), WarningCode::KNOWN.len(), "{what}");
        let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{what}: {e}"));
        for warning in &sent {
            assert!(validator.is_valid(warning), "{what} refuses {warning}: {:?}", validator.validate(warning).err());
            let code = warning["code"].as_str().unwrap();
            let branch = branches
                .iter()
                .find(|b| b["properties"]["code"]["const"] == code || b["properties"]["code"]["enum"] == json!([code]))
                .unwrap_or_else(|| panic!("{what}: no branch for {code}"));
            for member in warning.as_object().unwrap().keys() {
                assert!(branch["properties"][member].is_object(), "{what}: {code} sends `{member}`, undescribed");
            }
            for required in branch["required"].as_array().unwrap() {
                let required = required.as_str().unwrap();
                let mut missing = warning.clone();
                missing.as_object_mut().unwrap().remove(required);
                assert!(!validator.is_valid(&missing), "{what}: {code} without `{required}` is accepted");
            }
        }
        let reduced = branches.iter().find(|b| {
            b["properties"]["code"]["const"] == "PAGE_SIZE_REDUCED"
                || b["properties"]["code"]["enum"] == json!(["PAGE_SIZE_REDUCED"])
        });
        assert_eq!(
            reduced.map(|b| b["required"].clone()),
            Some(json!(["code", "message", "requested", "applied"])),
            "{what}"
        );
        let undeclared = json!({"code": "REPLICA_LAG", "message": "behind", "stale": true});
        assert!(!validator.is_valid(&undeclared), "{what}: a code not declared is accepted");
    }
}

/// Members the contract always writes, `null` or a value (§2.1, §2.5): their JSON Schemas
/// require them and take their `null`, so an honest answer with no snapshot, a last page
/// without a cursor, or a budget stop of unknown size validates; a member left out does not.
#[cfg(feature = "json-schema")]
#[test]
fn the_json_schemas_of_members_always_written_take_their_null() {
    let validate = |schema: schemars::Schema, value: Value, what: &str| {
        let schema = schema.to_value();
        let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(validator.is_valid(&value), "{what} refuses {value}: {:?}", validator.validate(&value).err());
        value
    };
    let unpinned =
        validate(schemars::schema_for!(Scope), serde_json::to_value(Scope::new("rows", "all")).unwrap(), "Scope");
    assert_eq!(unpinned["snapshot"], Value::Null);
    let mut without = unpinned.clone();
    without.as_object_mut().unwrap().remove("snapshot");
    let schema = schemars::schema_for!(Scope).to_value();
    assert!(!jsonschema::draft202012::new(&schema).unwrap().is_valid(&without), "a scope without `snapshot`");
    let last = PageInfo::new(3, None, 50, "id ascending").with_resumed(true);
    let last = validate(schemars::schema_for!(PageInfo), serde_json::to_value(last).unwrap(), "PageInfo");
    assert_eq!(
        (&last["requested_size"], &last["snapshot"], &last["cursor"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    validate(schemars::schema_for!(PageInfo), serde_json::to_value(page(3, true)).unwrap(), "PageInfo with a cursor");
    let unknown = Progress::new(2, None, "rows");
    let unknown = validate(schemars::schema_for!(Progress), serde_json::to_value(unknown).unwrap(), "Progress");
    assert_eq!(unknown["planned"], Value::Null);
}

/// The JSON Schema of an envelope over any reason takes an answer with each standard reason
/// (its continuation and cursor derived), one with a code it does not know, and pages with
/// their facts; it refuses a standard reason without its details and a warning with a
/// reason's code (§3.5).
#[cfg(feature = "json-schema")]
#[test]
fn the_json_schema_of_an_envelope_over_any_reason_takes_every_reason() {
    let schema = schemars::schema_for!(Envelope<String>).to_value();
    let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
    let valid = |value: &Value| {
        assert!(validator.is_valid(value), "refuses {value}: {:?}", validator.validate(value).err());
    };
    let unknown: StandardReason =
        serde_json::from_value(json!({"code": "LEGAL_HOLD", "message": "held", "kind": "visibility"})).unwrap();
    for reason in every_reason().into_iter().chain([unknown]) {
        let envelope: Envelope<String> = Envelope::incomplete(vec!["sa-1".into()], scope(), reason);
        valid(&serde_json::to_value(&envelope).unwrap());
    }
    let mut last: Envelope<String> = Envelope::complete(vec!["sa-1".into()], scope());
    last.completeness.set_page(Some(page(1, false)));
    valid(&serde_json::to_value(&last).unwrap());
    let mut bare =
        serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), QuotaExhausted::new(30))).unwrap();
    bare["incomplete_reasons"][0].as_object_mut().unwrap().remove("retry_after_seconds");
    assert!(!validator.is_valid(&bare), "QUOTA_EXHAUSTED without retry_after_seconds: {bare}");
    // R4, R6, R7, R10, each broken on an honest answer.
    let paged = |edit: &dyn Fn(&mut Value)| {
        let mut envelope: Envelope<String> =
            Envelope::incomplete(vec!["sa-1".into()], scope(), MorePagesAvailable::new("c1.next"));
        let mut facts = page(1, true);
        facts.resumed = Some(false);
        envelope.completeness.set_page(Some(facts));
        let mut answer = serde_json::to_value(&envelope).unwrap();
        valid(&answer);
        edit(&mut answer);
        answer
    };
    for (what, edit) in [
        (
            "MORE_PAGES_AVAILABLE without next_cursor (R7)",
            &(|a: &mut Value| a["next_cursor"] = Value::Null) as &dyn Fn(&mut Value),
        ),
        ("MORE_PAGES_AVAILABLE without a continuation (R6)", &|a: &mut Value| a["continuation"] = Value::Null),
        ("page facts that do not state the cursor (R10)", &|a: &mut Value| a["page"]["cursor"] = Value::Null),
        ("an empty cursor in the continuation (R7)", &|a: &mut Value| a["continuation"]["cursor"] = json!("")),
        ("a cursor beside no reason that offers one (R7)", &|a: &mut Value| {
            a["incomplete_reasons"] = json!([{"code": "VISIBILITY_RESTRICTED", "message": "hidden"}]);
            a["continuation"] = Value::Null;
            a["truncated"] = json!(false);
            a["page"]["cursor"] = Value::Null;
        }),
    ] {
        let answer = paged(edit);
        assert!(!validator.is_valid(&answer), "accepts {what}: {answer}");
    }
    let quota = serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), QuotaExhausted::new(30))).unwrap();
    valid(&quota);
    let mut unrecovered = quota.clone();
    unrecovered["continuation"] = Value::Null;
    assert!(!validator.is_valid(&unrecovered), "QUOTA_EXHAUSTED without its retry (R6): {unrecovered}");
    // R4: a reason of a code and kind this reader does not know may truncate.
    let mut unknown = quota;
    unknown["incomplete_reasons"] = json!([{"code": "UPSTREAM_CUT", "message": "cut"}]);
    unknown["continuation"] = Value::Null;
    unknown["truncated"] = json!(true);
    valid(&unknown);
    let mut warned = serde_json::to_value(Envelope::<String>::complete(vec![], scope())).unwrap();
    warned["warnings"] = json!([{"code": "RESULT_LIMIT_REACHED", "message": "cap", "limit": 5}]);
    assert!(!validator.is_valid(&warned), "a reason sent as a warning: {warned}");
}

/// The OpenAPI schema of an envelope over any reason takes an answer with each standard reason
/// and one with a code it does not know, and refuses an answer without its block's members.
/// (A standard code without its details passes there as another code: utoipa writes no `not`;
/// the JSON Schema refuses it, above, and so does an endpoint's declared reason type.)
#[cfg(feature = "openapi")]
#[test]
fn the_openapi_schema_of_an_envelope_over_any_reason_takes_every_reason() {
    use utoipa::{PartialSchema, ToSchema};
    let mut components = vec![(Envelope::<String>::name().into_owned(), Envelope::<String>::schema())];
    Envelope::<String>::schemas(&mut components);
    let components: Map<String, Value> =
        components.into_iter().map(|(name, schema)| (name, serde_json::to_value(schema).unwrap())).collect();
    let root = json!({
        "$ref": format!("#/components/schemas/{}", Envelope::<String>::name()),
        "components": {"schemas": components},
    });
    let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
    let unknown: StandardReason =
        serde_json::from_value(json!({"code": "LEGAL_HOLD", "message": "held", "kind": "visibility"})).unwrap();
    for reason in every_reason().into_iter().chain([unknown]) {
        let answer =
            serde_json::to_value(Envelope::<String>::incomplete(vec!["sa-1".into()], scope(), reason)).unwrap();
        assert!(validator.is_valid(&answer), "refuses {answer}: {:?}", validator.validate(&answer).err());
    }
    let mut bare =
        serde_json::to_value(Envelope::<String>::incomplete(vec![], scope(), QuotaExhausted::new(30))).unwrap();
    bare.as_object_mut().unwrap().remove("incomplete_reasons");
    assert!(!validator.is_valid(&bare), "an answer without `incomplete_reasons`: {bare}");
}

/// The public error types are errors: a caller's own error type takes them with `?` through
/// `From<E: Error>` (anyhow, `Box<dyn Error>`), and they say what went wrong in words.
#[test]
fn public_error_types_implement_std_error_and_display() {
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<completeness::Problem>();
    error::<completeness::FetchError>();
    error::<completeness::rules::Violation>();
    error::<completeness::warning::CatalogProblem>();
    error::<completeness::cursor::CursorError>();
    error::<completeness::cursor::TokenError>();
    error::<completeness::cursor::KeyError>();
    let said = completeness::cursor::TokenError::BadSignature.to_string();
    assert_eq!(said, "token refused: its signature does not match (altered or forged)");
}
