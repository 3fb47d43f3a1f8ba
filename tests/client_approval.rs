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
    let progress = Progress::new(842, None, "rows");
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

/// An action the service carries out only with complete evidence cannot be limited to the ids
/// read so far: that option is not offered; the others are.
#[test]
fn an_action_that_needs_evidence_is_not_offered_on_the_returned_ids() {
    let listing: Envelope<Value> = Envelope::incomplete(accounts(2), scope("north"), VisibilityRestricted::new());
    let offered = ApprovalRequest::new(ACTION, "owner=none", &listing);
    assert!(offered.options.iter().any(|o| matches!(o, RecoveryOption::LimitToReturnedIds { .. })));
    let request = offered.evidence_required();
    assert_eq!(request.options, [RecoveryOption::UseBroaderCredential, RecoveryOption::Abandon]);
    assert!(!request.to_string().contains("returned ids"), "{request}");
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

/// Limits read as words (`1 page`, not `1 pages`), and a service's own reason reads as one
/// sentence with its message (no `.;`).
#[test]
fn limits_and_a_services_own_message_read_as_sentences() {
    for (kind, limit, words) in [
        (LimitKind::Pages, 1, "1 page"),
        (LimitKind::Pages, 10, "10 pages"),
        (LimitKind::Items, 1, "1 item"),
        (LimitKind::Deadline, 300, "a deadline of 300 ms"),
    ] {
        assert_eq!(kind.describe(limit), words);
        let listing: Envelope<Value> =
            Envelope::incomplete(accounts(2), scope("admin"), ClientLimitReached::new(kind, limit));
        let text = ApprovalRequest::new(ACTION, "owner=none", &listing).to_string();
        assert!(text.contains(&format!("its own limit of {words} after 2 service accounts")), "{text}");
        let wire = serde_json::to_value(&listing).unwrap();
        assert_eq!(
            wire["incomplete_reasons"][0]["message"],
            format!("The client stopped collecting at its own limit of {words}.")
        );
    }
    let outage = serde_json::json!({"code": "ARCHIVE_OFFLINE", "kind": "source", "message": "The archive cold-1 did not answer."});
    let mut wire = serde_json::to_value(Envelope::<Value>::complete(accounts(2), scope("admin"))).unwrap();
    wire["incomplete_reasons"] = json!([outage]);
    wire["complete"] = json!(false);
    wire["status"] = json!("partial");
    let listing: Envelope<Value> = serde_json::from_value(wire).expect("a service's own reason reads back");
    let text = ApprovalRequest::new(ACTION, "owner=none", &listing).to_string();
    assert!(text.contains("The archive cold-1 did not answer; 2 service accounts returned"), "{text}");
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

/// The first option is the step `decide` takes: with more pages and a spent budget, `decide`
/// says retry, so a new attempt comes before going on with the traversal.
#[test]
fn the_first_option_is_the_step_decide_takes() {
    use completeness::{Decision, Intent, decide};
    let progress = Progress::new(1, Some(2), "sources");
    let mut listing: Envelope<Value> = Envelope::incomplete(accounts(2), scope("admin"), MorePagesAvailable::new("c2"));
    listing.completeness.push_reason(TimeBudgetExceeded::new(200, progress).retry_with_deadline(3));
    assert_eq!(decide(&listing, Intent::ClaimAbsence), Decision::RetryLater);
    let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
    assert_eq!(request.options[0], RecoveryOption::RetryWithLargerDeadline { minimum_seconds: Some(3) });
    assert_eq!(request.options[1], RecoveryOption::ContinueCollecting { cursor: "c2".into() });
}

/// The options are ordered as `decide`'s recoveries for every pair of reasons of different
/// kinds, not only one hand-picked case: the option first is the step `decide` takes.
#[test]
fn the_first_option_is_the_step_decide_takes_for_every_pair_of_kinds() {
    use completeness::{Decision, Intent, Reason, StandardReason, decide};
    let progress = || Progress::new(1, Some(2), "sources");
    let one_of_each_kind: Vec<StandardReason> = vec![
        VisibilityRestricted::new().into(),
        ResultLimitReached::new(2, "add a filter").into(),
        TimeBudgetExceeded::new(200, progress()).retry_with_deadline(3).into(),
        SourceUnavailable::new("legacy").into(),
        SnapshotExpired::new("s-1042").into(),
        MorePagesAvailable::new("c2").into(),
        // A code of a later version, without a kind: treated like visibility (contract §3.4).
        serde_json::from_value(json!({"code": "NEW_REASON_V2", "message": "a reason of a later version"})).unwrap(),
    ];
    // The decision each option stands for.
    let step = |option: &RecoveryOption| match option {
        RecoveryOption::UseBroaderCredential => Decision::RefuseOrRequestReview,
        RecoveryOption::NarrowQuery { .. } => Decision::NarrowQuery,
        RecoveryOption::RetryWithLargerDeadline { .. }
        | RecoveryOption::RetryLater { .. }
        | RecoveryOption::RestartCollection => Decision::RetryLater,
        RecoveryOption::ContinueCollecting { .. } => Decision::ContinueSearch,
        other => panic!("{other:?} is not a step decide takes"),
    };
    for first in &one_of_each_kind {
        for second in &one_of_each_kind {
            let mut listing: Envelope<Value> = Envelope::incomplete(accounts(2), scope("admin"), first.clone());
            if second != first {
                listing.completeness.push_reason(second.clone());
            }
            let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
            let decided = decide(&listing, Intent::ClaimAbsence);
            assert_eq!(
                step(&request.options[0]),
                decided,
                "{:?} + {:?}: {:?}",
                first.code(),
                second.code(),
                request.options
            );
        }
    }
}

/// A service's own reasons get options by their kind and the recovery they offer.
#[test]
fn a_services_own_reasons_get_options_by_kind_and_recovery() {
    use completeness::Continuation;

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "REPLICA_BEHIND", kind = source, message = "A replica is behind.", recovery = ReplicaBehind::wait)]
    struct ReplicaBehind;
    impl ReplicaBehind {
        fn wait(&self) -> Option<Continuation> {
            Some(Continuation::RetryAfter { seconds: 7 })
        }
    }

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Some records are on hold.")]
    struct LegalHold;

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "UPSTREAM_CUT", kind = truncation, message = "The upstream cut its answer.")]
    struct UpstreamCut;

    // The one own reason whose continuation is its next page pages, as `decide` reads it.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "UPSTREAM_PAGED", kind = truncation, message = "The upstream has more.", recovery = UpstreamPaged::next, next_cursor)]
    struct UpstreamPaged;
    impl UpstreamPaged {
        fn next(&self) -> Option<Continuation> {
            Some(Continuation::NextCursor { cursor: "up-2".into() })
        }
    }

    let cases = [
        (
            Envelope::<Value>::incomplete(accounts(1), scope("admin"), ReplicaBehind),
            RecoveryOption::RetryLater { after_seconds: Some(7) },
        ),
        (Envelope::incomplete(accounts(1), scope("admin"), LegalHold), RecoveryOption::UseBroaderCredential),
        (Envelope::incomplete(accounts(1), scope("admin"), UpstreamCut), RecoveryOption::NarrowQuery { hint: None }),
        (
            Envelope::incomplete(accounts(1), scope("admin"), UpstreamPaged),
            RecoveryOption::ContinueCollecting { cursor: "up-2".into() },
        ),
    ];
    use completeness::{Decision, Intent, decide};
    let steps =
        [Decision::RetryLater, Decision::RefuseOrRequestReview, Decision::NarrowQuery, Decision::ContinueSearch];
    for ((listing, first), step) in cases.into_iter().zip(steps) {
        let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
        assert_eq!(request.options[0], first, "{:?}", request.reasons);
        assert_eq!(decide(&listing, Intent::Report), step, "the first option is the step decide takes");
        // Read back from the wire, as a client holds it.
        let read: Envelope<Value> = serde_json::from_value(serde_json::to_value(&listing).unwrap()).unwrap();
        assert_eq!(ApprovalRequest::new(ACTION, "owner=none", &read).options[0], first);
    }
}

/// A complete answer that still cannot back a change says why, and offers to read again.
#[test]
fn a_complete_answer_without_evidence_or_on_a_stale_index_offers_to_read_again() {
    use completeness::warning::StaleIndex;
    let listing: Envelope<Value> = Envelope::complete(accounts(2), scope("admin"));
    let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
    assert!(matches!(&request.options[0], RecoveryOption::ReadAgain { why } if why.contains("no evidence token")));
    assert!(request.to_string().contains("covers the whole scope"), "{request}");

    let mut stale: Envelope<Value> = Envelope::complete(accounts(2), scope("admin"));
    stale.completeness.push_warning(StaleIndex::new("directory"));
    let request = ApprovalRequest::new(ACTION, "owner=none", &stale);
    assert!(
        request.options.iter().any(|o| matches!(o, RecoveryOption::ReadAgain { why } if why.contains("STALE_INDEX")))
    );
    assert_eq!(request.options.last(), Some(&RecoveryOption::Abandon));
}

/// A traversal the collector stopped is explained in the collector's words (a loop, a page of
/// another query), not as an expired snapshot, which it is not; a bare `SNAPSHOT_EXPIRED` is.
#[test]
fn a_stopped_traversal_is_explained_in_the_words_of_whoever_stopped_it() {
    use completeness::client::{CollectLimits, FetchError, collect_all};
    // The second page hands back the cursor that led to it.
    let fetch = |cursor: Option<String>| async move {
        let page = if cursor.is_some() { accounts(2)[1..].to_vec() } else { accounts(1) };
        Ok::<_, FetchError>(Envelope::incomplete(page, scope("admin"), MorePagesAvailable::new("c2")))
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let looped = runtime.block_on(collect_all(fetch, CollectLimits::default())).unwrap();
    let text = ApprovalRequest::new(ACTION, "owner=none", &looped).to_string();
    assert!(text.contains("the traversal stopped before its last page: A page gave a cursor"), "{text}");
    assert!(!text.contains("is gone"), "a loop is no expired snapshot:\n{text}");

    let expired: Envelope<Value> = Envelope::incomplete(accounts(1), scope("admin"), SnapshotExpired::new("s-1042"));
    let text = ApprovalRequest::new(ACTION, "owner=none", &expired).to_string();
    assert!(text.contains("the snapshot s-1042 the listing was read at is gone before the last page"), "{text}");
}

/// Limiting the action to the returned ids names each id once (a traversal that went over the
/// same ground returned some twice), and its sentence names the first 20 and counts the rest;
/// the option holds them all.
#[test]
fn the_ids_to_limit_the_action_to_are_each_named_once_and_the_sentence_stays_short() {
    let mut items = accounts(30);
    items.push(items[0].clone());
    let listing: Envelope<Value> = Envelope::incomplete(items, scope("admin"), SourceUnavailable::new("legacy"));
    let request = ApprovalRequest::new(ACTION, "owner=none", &listing);
    let ids = request.options.iter().find_map(|option| match option {
        RecoveryOption::LimitToReturnedIds { ids } => Some(ids.clone()),
        _ => None,
    });
    let expected: Vec<String> = (1..=30).map(|n| format!("sa-{n:06}")).collect();
    assert_eq!(ids, Some(expected));
    let text = request.to_string();
    assert!(text.contains("limit the action to the 30 returned ids (sa-000001, "), "{text}");
    assert!(text.contains("sa-000020 and 10 more); anything not returned stays untouched"), "{text}");
    assert!(!text.contains("sa-000021"), "{text}");
}
