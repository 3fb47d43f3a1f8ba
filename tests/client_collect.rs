//! `collect_all` follows cursors until `complete: true` and reports what it did not collect.

use std::cell::RefCell;
use std::time::Duration;

use completeness::client::{CollectLimits, Collected, FetchError, collect_all, resume};
use completeness::reason::MorePagesAvailable;
use completeness::testing::{MemorySource, Mutation, assert_envelope_invariants};
use completeness::{
    Continuation, Decision, Envelope, Intent, LimitKind, ReasonCode, Scope, StandardReason, WarningCode, decide,
};
use serde_json::{Value, json};

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
}

/// Collects from `source`, applying `between(fetch_number, source)` before every fetch after the first.
fn collect(
    source: &RefCell<MemorySource>,
    limits: CollectLimits,
    between: impl Fn(u64, &mut MemorySource),
) -> Result<Collected<u64>, FetchError> {
    block_on(collect_all(
        |cursor: Option<String>| {
            let mut source = source.borrow_mut();
            let number = source.fetches() + 1;
            if number > 1 {
                between(number, &mut source);
            }
            let page = source.fetch(cursor.as_deref());
            async move { page }
        },
        limits,
    ))
}

fn no_limits() -> CollectLimits {
    CollectLimits { max_pages: 10_000, max_items: 1_000_000, deadline: Duration::from_secs(3600) }
}

#[test]
fn follows_cursors_through_short_and_empty_pages_until_complete() {
    let source = RefCell::new(MemorySource::new(20, 1).with_page_sizes(vec![0, 3, 1, 0, 7]));
    let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, (1..=20).collect::<Vec<u64>>());
    assert!(collected.pages_fetched() > 5, "empty and short pages were not the end");
    assert_envelope_invariants(&serde_json::to_value(&collected).unwrap());
}

#[test]
fn an_exactly_full_last_page_is_not_followed_by_a_probe() {
    for (count, size) in [(100_u64, 10_usize), (101, 10), (1, 1), (10, 100)] {
        let source = RefCell::new(MemorySource::new(count, size));
        let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
        assert!(collected.is_complete());
        assert_eq!(collected.items.len() as u64, count);
        assert_eq!(source.borrow().fetches(), count.div_ceil(size as u64), "{count} items in pages of {size}");
    }
}

#[test]
fn complete_and_empty_source_is_complete_after_one_fetch() {
    let source = RefCell::new(MemorySource::new(0, 10));
    let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
    assert!(collected.is_complete());
    assert!(collected.items.is_empty());
    assert_eq!(source.borrow().fetches(), 1);
}

#[test]
fn a_page_read_at_another_snapshot_is_not_merged() {
    let source = RefCell::new(MemorySource::new(30, 10).freezing_snapshots(false));
    let collected = collect(&source, no_limits(), |n, s| {
        if n == 2 {
            s.apply(Mutation::Insert(1000));
        }
    })
    .unwrap();
    assert!(!collected.is_complete());
    assert!(collected.completeness.has_reason(&ReasonCode::SnapshotExpired));
    assert_eq!(collected.items, (1..=10).collect::<Vec<u64>>(), "only the first snapshot's page is kept");
    assert_eq!(collected.completeness.scope().snapshot.as_deref(), Some("s-1"));
    assert_eq!(collected.completeness.continuation().map(|c| c.kind()), Some("restart"));
}

#[test]
fn a_frozen_snapshot_survives_mutations_between_pages() {
    let source = RefCell::new(MemorySource::new(30, 7));
    let collected = collect(&source, no_limits(), |n, s| {
        s.apply(Mutation::Insert(100 + n));
        s.apply(Mutation::Delete(0));
    })
    .unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, source.borrow().ids_at(1));
}

#[test]
fn cursor_expiry_returns_what_was_collected_with_snapshot_expired_and_does_not_restart() {
    let source = RefCell::new(MemorySource::new(30, 10));
    let collected = collect(&source, no_limits(), |n, s| {
        if n == 3 {
            s.apply(Mutation::Insert(500));
            s.apply(Mutation::ExpireOldSnapshots);
        }
    })
    .unwrap();
    assert!(!collected.is_complete());
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired]);
    assert_eq!(collected.items, (1..=20).collect::<Vec<u64>>());
    assert_eq!(source.borrow().fetches(), 3, "no restart after the 410");
    assert_eq!(collected.completeness.next_cursor(), None);
    // The server's words, its detail and the restart it offered, not the collector's guess.
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["incomplete_reasons"][0]["message"], "snapshot s-1 is no longer retained");
    let restart = Continuation::Restart { reason: "snapshot gone".to_owned() };
    assert_eq!(collected.completeness.continuation(), Some(&restart));
    assert_envelope_invariants(&json);
}

#[test]
fn page_limit_reports_client_limit_with_a_cursor_that_resumes() {
    let source = RefCell::new(MemorySource::new(50, 10));
    let limits = CollectLimits { max_pages: 2, ..no_limits() };
    let collected = collect(&source, limits, |_, _| {}).unwrap();
    assert!(!collected.is_complete());
    assert!(collected.completeness.is_truncated());
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::ClientLimitReached]);
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["incomplete_reasons"][0]["limit_kind"], "pages");
    assert_eq!(json["incomplete_reasons"][0]["limit"], 2);
    assert_eq!(json["continuation"]["kind"], "next_cursor");
    assert_envelope_invariants(&json);

    let resume = collected.completeness.next_cursor().unwrap().to_owned();
    let next = source.borrow_mut().fetch(Some(&resume)).unwrap();
    assert_eq!(next.items, (21..=30).collect::<Vec<u64>>(), "the resume cursor continues after the last page");
}

#[test]
fn item_limit_stops_between_pages_without_dropping_fetched_items() {
    let source = RefCell::new(MemorySource::new(50, 8));
    let limits = CollectLimits { max_items: 10, ..no_limits() };
    let collected = collect(&source, limits, |_, _| {}).unwrap();
    assert_eq!(collected.items, (1..=16).collect::<Vec<u64>>());
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["incomplete_reasons"][0]["limit_kind"], "items");
    assert_eq!(json["page"]["returned"], 16);
    assert!(json["page"]["cursor"].is_object(), "the resume cursor's contract is kept");
}

#[test]
fn a_spent_deadline_stops_before_fetching_and_says_so() {
    let source = RefCell::new(MemorySource::new(5, 10));
    let limits = CollectLimits { deadline: Duration::ZERO, ..no_limits() };
    let collected = collect(&source, limits, |_, _| {}).unwrap();
    assert!(!collected.is_complete());
    assert!(collected.items.is_empty(), "incomplete and empty");
    assert_eq!(source.borrow().fetches(), 0);
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["incomplete_reasons"][0]["limit_kind"], LimitKind::Deadline.to_json());
    assert_envelope_invariants(&json);
}

#[test]
fn a_deadline_that_passes_while_pages_wait_stops_the_traversal_with_a_resume_cursor() {
    // Every page waits 30 ms on a timer (a fetch that returns Pending); the deadline is
    // 50 ms, so the collector must stop after a handful of the 100 pages.
    let source = RefCell::new(MemorySource::new(1_000, 10));
    let limits = CollectLimits { deadline: Duration::from_millis(50), ..no_limits() };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let collected = runtime
        .block_on(collect_all(
            |cursor: Option<String>| {
                let page = source.borrow_mut().fetch(cursor.as_deref());
                async move {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    page
                }
            },
            limits,
        ))
        .unwrap();
    assert!(!collected.is_complete());
    let fetched = collected.pages_fetched();
    assert!((1..=3).contains(&fetched), "the deadline was read after each waiting page: {fetched} pages fetched");
    assert_eq!(collected.items.len() as u64, fetched * 10);
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["incomplete_reasons"][0]["limit_kind"], LimitKind::Deadline.to_json());
    assert!(json["next_cursor"].is_string(), "the traversal can be resumed");
    assert_envelope_invariants(&json);
}

#[test]
fn reasons_and_warnings_of_every_page_are_carried() {
    let source = RefCell::new(MemorySource::new(40, 6).restricted(true).warning_every(Some(2)));
    let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
    assert!(!collected.is_complete(), "VISIBILITY_RESTRICTED on every page");
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::VisibilityRestricted]);
    let fetches = source.borrow().fetches();
    let stale = collected.completeness.warnings().iter().filter(|w| *w.code() == WarningCode::StaleIndex).count();
    assert_eq!(stale as u64, fetches / 2, "one warning from every second page");
    assert!(collected.items.iter().all(|id| id % 5 != 0));
    assert_eq!(collected.completeness.next_cursor(), None);
}

#[test]
fn a_failed_page_is_an_error_not_a_shorter_result() {
    let result = block_on(collect_all(
        |cursor: Option<String>| async move {
            let scope = Scope::new("numbers", "all").with_snapshot("s-1");
            match cursor {
                None => Ok(Envelope::incomplete(vec![1_u32], scope, MorePagesAvailable::new("p2"))),
                Some(_) => Err(FetchError::Transport("connection reset".into())),
            }
        },
        no_limits(),
    ));
    assert_eq!(result.unwrap_err(), FetchError::Transport("connection reset".into()));
}

/// The last page of a traversal of two, reached with a cursor (`page.resumed`).
fn last_page(evidence: Value) -> Value {
    json!({
        "status": "complete", "complete": true, "truncated": false, "items": [2],
        "incomplete_reasons": [], "continuation": null, "next_cursor": null,
        "page": {"returned": 1, "requested_size": 1, "applied_size": 1, "ordering": "id ascending",
                 "snapshot": "s-1", "cursor": null, "resumed": true},
        "scope": {"resource": "numbers", "visibility": "all", "snapshot": "s-1", "filters": {}},
        "warnings": [], "evidence": evidence
    })
}

fn first_page(reasons: Value) -> Value {
    json!({
        "status": "partial", "complete": false, "truncated": true, "items": [1],
        "incomplete_reasons": reasons, "continuation": {"kind": "next_cursor", "cursor": "p2"},
        "next_cursor": "p2",
        "page": {"returned": 1, "requested_size": 1, "applied_size": 1, "ordering": "id ascending",
                 "snapshot": "s-1", "cursor": {"freezes_snapshot": true, "expires_at": "2100-01-01T00:00:00Z",
                 "invalidated_by": ["filters"]}, "resumed": false},
        "scope": {"resource": "numbers", "visibility": "all", "snapshot": "s-1", "filters": {}},
        "warnings": [], "evidence": null
    })
}

/// A traversal of two JSON pages, read with the strict deserializer: the first without a
/// cursor, the second with one.
fn two_pages(
    pages: &[Value; 2],
) -> impl Fn(Option<String>) -> std::future::Ready<Result<Envelope<u32, StandardReason>, FetchError>> + Copy + '_ {
    |cursor: Option<String>| {
        let page = pages[usize::from(cursor.is_some())].clone();
        std::future::ready(serde_json::from_value(page).map_err(|e| FetchError::Contract(e.to_string())))
    }
}

fn collect_json(pages: [Value; 2]) -> Collected<u32> {
    block_on(collect_all(two_pages(&pages), no_limits())).unwrap()
}

/// Asserts that `collected` stopped with a restart: incomplete, `SNAPSHOT_EXPIRED` alone, no
/// evidence, a `restart` continuation, and a reason whose message `says` why; returns its wire
/// form, which keeps the envelope invariants. `what` names the case in a failure.
fn assert_restarted(collected: &Collected<u32>, says: &str, what: &str) -> Value {
    assert!(!collected.is_complete(), "{what}");
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired], "{what}");
    assert_eq!(collected.completeness.evidence(), None, "{what}");
    let json = serde_json::to_value(collected).unwrap();
    assert_eq!(json["continuation"]["kind"], "restart", "{what}: {json}");
    assert!(json["incomplete_reasons"][0]["message"].as_str().unwrap().contains(says), "{what}: {json}");
    assert_envelope_invariants(&json);
    json
}

#[test]
fn a_complete_collection_carries_the_evidence_of_its_last_page() {
    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let collected = collect_json([first_page(more), last_page(json!("ev1.k1.token"))]);
    assert!(collected.is_complete());
    assert_eq!(collected.items, vec![1, 2]);
    assert_eq!(collected.completeness.evidence(), Some("ev1.k1.token"));
}

/// The last page of a traversal of two, incomplete for `reasons`, whose continuation is
/// `continuation` (no next cursor).
fn last_partial_page(reasons: Value, continuation: Value) -> Value {
    let mut page = last_page(Value::Null);
    page["status"] = json!("partial");
    page["complete"] = json!(false);
    page["incomplete_reasons"] = reasons;
    page["continuation"] = continuation;
    page
}

/// A reason reported on every page is carried once, with the recovery the last page gave it:
/// the pages before offered their next cursor (R6), so it came without one there. A service's
/// own reason, the only one of its page, gets the continuation no standard reason claims, and
/// the collected block offers it, as the last page did.
#[test]
fn a_reason_on_every_page_is_carried_once_with_the_recovery_of_the_last() {
    let source_down = json!({"code": "SOURCE_UNAVAILABLE", "message": "down", "source": "shard-2"});
    let behind = json!({"code": "REPLICA_BEHIND", "message": "behind", "kind": "source"});
    let more = json!({"code": "MORE_PAGES_AVAILABLE", "message": "more"});
    let retry = json!({"kind": "retry_after", "seconds": 30});
    for reason in [source_down, behind] {
        let collected = collect_json([
            first_page(json!([more.clone(), reason.clone()])),
            last_partial_page(json!([reason.clone()]), retry.clone()),
        ]);
        assert!(!collected.is_complete());
        assert_eq!(collected.items, vec![1, 2]);
        let codes: Vec<String> = collected.completeness.reason_codes().iter().map(|c| c.as_str().to_owned()).collect();
        assert_eq!(codes, [reason["code"].as_str().unwrap()], "carried once");
        let wire = serde_json::to_value(&collected.completeness).unwrap();
        assert_eq!(wire["continuation"], retry, "{reason}: {wire}");
        assert_envelope_invariants(&serde_json::to_value(&collected).unwrap());
    }
    // A wait on the first page (its reason before the next page's) and another on the last:
    // the later one holds.
    let down = json!({"code": "SOURCE_UNAVAILABLE", "message": "down", "source": "shard-2"});
    let mut first = first_page(json!([down.clone(), more]));
    first["continuation"] = json!({"kind": "retry_after", "seconds": 5});
    let collected = collect_json([first, last_partial_page(json!([down]), retry.clone())]);
    let wire = serde_json::to_value(&collected.completeness).unwrap();
    assert_eq!(wire["continuation"], retry, "{wire}");
}

/// A page whose cursor a service's own truncation offered (no `MORE_PAGES_AVAILABLE`, one such
/// reason, its continuation that cursor) pages as `MORE_PAGES_AVAILABLE` does: the next page is
/// that reason's recovery, and the collection is complete when the last page is. Where whose
/// cursor it is cannot be told (two reasons of the service's own), or the reason is not a
/// truncation, the collection stops there, incomplete, with the page's reasons.
#[test]
fn a_cursor_offered_by_a_services_own_truncation_is_followed_when_the_page_says_whose_it_is() {
    let own = |code: &str, kind: &str| json!({"code": code, "message": "more upstream", "kind": kind});
    let collected =
        collect_json([first_page(json!([own("UPSTREAM_PAGED", "truncation")])), last_page(json!("ev1.k1.token"))]);
    assert!(collected.is_complete(), "{:?}", collected.completeness.reason_codes());
    assert_eq!((collected.items.clone(), collected.pages_fetched()), (vec![1, 2], 2));
    assert_eq!(collected.completeness.evidence(), Some("ev1.k1.token"));

    for reasons in [
        json!([own("UPSTREAM_PAGED", "truncation"), own("ARCHIVE_PENDING", "truncation")]),
        json!([own("UPSTREAM_RETRY", "source")]),
    ] {
        let mut first = first_page(reasons.clone());
        first["truncated"] = json!(reasons.as_array().unwrap().iter().any(|r| r["kind"] == "truncation"));
        let collected = collect_json([first, last_page(json!("ev1.k1.token"))]);
        assert!(!collected.is_complete(), "{reasons}");
        assert_eq!((collected.items.clone(), collected.pages_fetched()), (vec![1], 1), "{reasons}");
        let codes: Vec<String> = collected.completeness.reason_codes().iter().map(|c| c.as_str().to_owned()).collect();
        let sent: Vec<&str> = reasons.as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
        assert_eq!(codes, sent, "the page's reasons are kept");
        assert_eq!(collected.completeness.evidence(), None);
    }
}

/// A page cut by a limit of its own (a gateway's `CLIENT_LIMIT_REACHED`) that resumes with the
/// page's next cursor pages on as `decide` says (`ContinueSearch`): the collector follows the
/// cursor and does not keep the limit, which that cursor recovers. Without a resume cursor the
/// limit stays reported (see `resume_goes_on_from_the_collectors_own_limit_not_a_carried_one`).
#[test]
fn a_gateways_limit_that_resumes_with_the_next_cursor_is_followed_as_decide_says() {
    let gateway = json!([{"code": "CLIENT_LIMIT_REACHED", "message": "the gateway stopped",
                          "limit_kind": "pages", "limit": 1}]);
    let first = first_page(gateway);
    let read: Envelope<u32, StandardReason> = serde_json::from_value(first.clone()).unwrap();
    assert_eq!(decide(&read, Intent::ClaimAbsence), Decision::ContinueSearch);
    let collected = collect_json([first, last_page(json!("ev1.k1.token"))]);
    assert!(collected.is_complete(), "{:?}", collected.completeness.reason_codes());
    assert_eq!((collected.items.clone(), collected.pages_fetched()), (vec![1, 2], 2));
    assert_eq!(collected.completeness.evidence(), Some("ev1.k1.token"));
}

/// A collection whose first fetched page was reached with a cursor (a caller's `cursor` put in
/// the fetch: its first page is the tail of some traversal) is no answer to the question, though
/// the tail's last page says `complete: true` and carries evidence: the pages before it were not
/// read (contract §8). It is incomplete with a restart, takes none of the tail's items, and
/// backs no change. One from a first page says `resumed: false`.
#[test]
fn a_collection_that_starts_on_a_resumed_page_is_not_taken_as_the_whole() {
    use completeness::{Decision, Intent, decide};
    let mut tail = last_page(json!("ev1.k1.token"));
    tail["page"]["resumed"] = json!(true);
    let fetch = |_: Option<String>| {
        std::future::ready(serde_json::from_value(tail.clone()).map_err(|e| FetchError::Contract(e.to_string())))
    };
    let collected: Collected<u32> = block_on(collect_all(fetch, no_limits())).unwrap();
    let json = assert_restarted(&collected, "reached with a cursor", "a tail");
    assert!(collected.items.is_empty(), "{:?}", collected.items);
    assert_eq!(decide(collected.envelope(), Intent::Mutate), Decision::RefuseOrRequestReview);
    // It names the question the tail answered, and that it was a tail.
    assert_eq!(json["scope"]["resource"], "numbers", "{json}");
    assert_eq!(json["page"]["resumed"], true, "{json}");

    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let whole = collect_json([first_page(more), last_page(json!("ev1.k1.token"))]);
    assert_eq!(whole.completeness.page().map(|page| page.resumed), Some(Some(false)));
}

/// A later page that answers another query (other filters, resource, visibility or ordering,
/// at the same snapshot) is not merged into the first one's answer, whatever it says: the result
/// is incomplete with a restart, and carries no evidence (contract §2.5).
#[test]
fn a_page_of_another_query_is_not_merged_and_the_result_says_restart() {
    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let changes = [
        ("filters", "/scope/filters", json!({"owner": "bob"})),
        ("resource", "/scope/resource", json!("teams")),
        ("visibility", "/scope/visibility", json!("tenant north")),
        ("ordering", "/page/ordering", json!("name ascending")),
    ];
    for (what, pointer, value) in changes {
        let mut other = last_page(json!("ev1.k1.token"));
        *other.pointer_mut(pointer).unwrap() = value;
        let collected = collect_json([first_page(more.clone()), other]);
        let json = assert_restarted(&collected, "another query", what);
        assert_eq!(collected.items, vec![1], "{what}: the other query's items are not merged");
        assert_eq!(json["scope"]["filters"], json!({}), "{what}: the first page's scope is the result's");
    }
}

/// A cursor answered with a first page (`page.resumed: false`) is not merged: a cache or a
/// redirect that dropped the cursor, or a server that started over, would otherwise hand back
/// items already taken, and the merged answer would look complete and back a change (contract
/// §2.5: a client never merges two traversals). A page that does not say (a server older than
/// `page.resumed`) cannot be told apart, and is merged, as it was before the member existed.
#[test]
fn a_cursor_answered_with_a_first_page_is_not_merged() {
    use completeness::client::{Decision, Intent, decide};
    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let mut again = last_page(json!("ev1.k1.token"));
    again["items"] = json!([1]);
    again["page"]["resumed"] = json!(false);
    let collected = collect_json([first_page(more.clone()), again]);
    let json = assert_restarted(&collected, "first page", "a first page again");
    assert_eq!(collected.items, vec![1], "the first page's items are not taken twice");
    assert_eq!(decide(collected.envelope(), Intent::Mutate), Decision::RefuseOrRequestReview);
    // Its snapshot is still there: the restart claims no expiry, nor does the verdict.
    assert_eq!(json["continuation"]["reason"], "the traversal cannot be continued", "{json}");
    let said = completeness::client::explain::verdict(&collected.completeness, collected.items.len());
    assert!(!said.contains("no longer retained") && said.contains("first page"), "{said}");

    // Said to be reached with the cursor, or not said at all (an older server), it is merged.
    let older = |mut page: Value| {
        page["page"].as_object_mut().unwrap().remove("resumed");
        page
    };
    for (what, last) in
        [("resumed", last_page(json!("ev1.k1.token"))), ("not said", older(last_page(json!("ev1.k1.token"))))]
    {
        let first = if what == "resumed" { first_page(more.clone()) } else { older(first_page(more.clone())) };
        let collected = collect_json([first, last]);
        assert_eq!((collected.is_complete(), collected.items.clone()), (true, vec![1, 2]), "{what}");
    }
}

#[test]
fn an_incomplete_collection_never_carries_evidence() {
    let reasons = json!([
        {"code": "SOURCE_UNAVAILABLE", "message": "legacy is down", "source": "legacy"},
        {"code": "MORE_PAGES_AVAILABLE", "message": "more"}
    ]);
    let collected = collect_json([first_page(reasons), last_page(json!("ev1.k1.token"))]);
    assert!(!collected.is_complete(), "a reason seen on an earlier page keeps the result incomplete");
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SourceUnavailable]);
    assert_eq!(collected.completeness.evidence(), None);
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["evidence"], Value::Null);
    assert_envelope_invariants(&json);
}

#[test]
fn a_resume_cursor_carries_the_contract_of_the_page_that_issued_it() {
    let page = |n: u32, expires_at: &str| {
        let mut page = first_page(json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]));
        page["items"] = json!([n]);
        page["next_cursor"] = json!(format!("p{}", n + 1));
        page["continuation"]["cursor"] = page["next_cursor"].clone();
        page["page"]["cursor"]["expires_at"] = json!(expires_at);
        page["page"]["resumed"] = json!(n > 1);
        page
    };
    let pages = [page(1, "2100-01-01T00:00:00Z"), page(2, "2100-01-02T00:00:00Z"), page(3, "2100-01-03T00:00:00Z")];
    let collected = block_on(collect_all(
        |cursor: Option<String>| {
            let index = match cursor.as_deref() {
                None => 0,
                Some("p2") => 1,
                _ => 2,
            };
            let page = pages[index].clone();
            async move {
                serde_json::from_value::<Envelope<u32, StandardReason>>(page)
                    .map_err(|e| FetchError::Contract(e.to_string()))
            }
        },
        CollectLimits { max_pages: 2, ..no_limits() },
    ))
    .unwrap();
    assert_eq!(collected.items, vec![1, 2]);
    assert_eq!(collected.completeness.next_cursor(), Some("p3"));
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["page"]["cursor"]["expires_at"], "2100-01-02T00:00:00Z", "the contract of p3, issued by page 2");
    assert_eq!(json["page"]["returned"], 2);
    assert_envelope_invariants(&json);
}

#[test]
fn a_collected_result_round_trips_through_the_strict_deserializer() {
    let source = RefCell::new(MemorySource::new(25, 4).warning_every(Some(3)));
    let collected = collect(&source, CollectLimits { max_pages: 3, ..no_limits() }, |_, _| {}).unwrap();
    let json = serde_json::to_value(&collected).unwrap();
    let back: Envelope<u64> = serde_json::from_value(json.clone()).expect("strictly valid");
    assert_eq!(back.items, collected.items);
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
    assert!(json["next_cursor"].is_string(), "CLIENT_LIMIT_REACHED resumes without MORE_PAGES_AVAILABLE");
}

/// `LimitKind` as its wire string.
trait ToJson {
    fn to_json(&self) -> Value;
}

impl ToJson for LimitKind {
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap()
    }
}

#[test]
fn a_carried_reason_keeps_the_recovery_its_page_offered() {
    let budget = json!({
        "status": "partial", "complete": false, "truncated": false, "items": [1],
        "incomplete_reasons": [{"code": "TIME_BUDGET_EXCEEDED", "message": "out of time", "budget_ms": 50,
                                "progress": {"completed": 1, "planned": null, "unit": "rows"}}],
        "continuation": {"kind": "retry_with_deadline", "minimum_seconds": 3}, "next_cursor": null,
        "page": null,
        "scope": {"resource": "numbers", "visibility": "all", "snapshot": "s-1", "filters": {}},
        "warnings": [], "evidence": null
    });
    let collected = collect_json([budget.clone(), budget]);
    assert_eq!(collected.pages_fetched(), 1, "no next page without MORE_PAGES_AVAILABLE");
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(json["continuation"], json!({"kind": "retry_with_deadline", "minimum_seconds": 3}));
    assert_envelope_invariants(&json);
}

/// A page of `items` of one query (`numbers` at snapshot `s-1`), incomplete for `reason`.
fn numbers_page(items: Vec<u64>, reason: impl Into<StandardReason>) -> Envelope<u64> {
    Envelope::incomplete(items, Scope::new("numbers", "every number").with_snapshot("s-1"), reason)
}

#[test]
fn a_page_with_more_pages_and_no_cursor_makes_the_result_incomplete() {
    use completeness::Reason;
    let cursorless = StandardReason::from_wire(
        json!({"code": "MORE_PAGES_AVAILABLE", "message": "more"}).as_object().unwrap().clone(),
    )
    .unwrap();
    let fetches = RefCell::new(0);
    let collected = block_on(collect_all(
        |_cursor: Option<String>| {
            *fetches.borrow_mut() += 1;
            let page = numbers_page(vec![1, 2], cursorless.clone());
            async move { Ok::<_, FetchError>(page) }
        },
        no_limits(),
    ))
    .unwrap();
    assert_eq!(*fetches.borrow(), 1, "nothing to follow");
    assert_eq!(collected.items, vec![1, 2]);
    assert_broken(&collected, "no cursor");
}

/// `collected` stopped because a page could not continue its traversal: incomplete (a
/// traversal that cannot go on is not complete), with `SNAPSHOT_EXPIRED` alone, saying `why`,
/// and a `restart`.
fn assert_broken(collected: &Collected<u64>, why: &str) {
    use completeness::Reason;
    assert!(!collected.is_complete(), "a traversal that cannot go on is not complete");
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired]);
    assert!(collected.completeness.reasons()[0].message().contains(why));
    assert_eq!(collected.completeness.continuation().map(|c| c.kind()), Some("restart"));
    assert_envelope_invariants(&serde_json::to_value(collected).unwrap());
}

/// A server whose cursors loop (`a`, `b`, then `a` again) would be followed without end, each
/// round adding the same items again: the collector stops before it follows a cursor twice.
#[test]
fn a_cursor_given_again_is_not_followed_and_makes_the_result_incomplete() {
    for cycle in [vec!["a"], vec!["a", "b"], vec!["a", "b", "c"]] {
        let fetched = RefCell::new(Vec::new());
        let collected = block_on(collect_all(
            |cursor: Option<String>| {
                let mut fetched = fetched.borrow_mut();
                fetched.push(cursor.clone());
                let next = cycle[(fetched.len() - 1) % cycle.len()];
                let page = numbers_page(vec![fetched.len() as u64], MorePagesAvailable::new(next));
                async move { Ok::<_, FetchError>(page) }
            },
            no_limits(),
        ))
        .unwrap();
        let expected: Vec<Option<String>> =
            std::iter::once(None).chain(cycle.iter().map(|c| Some(c.to_string()))).collect();
        assert_eq!(*fetched.borrow(), expected, "each cursor of {cycle:?} followed once");
        assert_eq!(collected.items, (1..=cycle.len() as u64 + 1).collect::<Vec<_>>(), "no page read twice");
        assert_broken(&collected, "already followed");
    }
}

/// A traversal resumed from its resume cursor does not follow that cursor again either.
#[test]
fn a_resumed_traversal_does_not_follow_its_resume_cursor_again() {
    use completeness::Reason;
    let page = |item: u64, next: &str| numbers_page(vec![item], MorePagesAvailable::new(next));
    let one_page = CollectLimits { max_pages: 1, ..no_limits() };
    let first = block_on(collect_all(|_| std::future::ready(Ok::<_, FetchError>(page(1, "r"))), one_page)).unwrap();
    assert_eq!(first.completeness.next_cursor(), Some("r"));
    let fetched = RefCell::new(Vec::new());
    let resumed = block_on(resume(
        first,
        |cursor: Option<String>| {
            fetched.borrow_mut().push(cursor);
            std::future::ready(Ok::<_, FetchError>(page(2, "r")))
        },
        no_limits(),
    ))
    .unwrap();
    assert_eq!(*fetched.borrow(), vec![Some("r".to_owned())], "the resume cursor, once");
    assert_eq!(resumed.items, vec![1, 2]);
    assert!(!resumed.is_complete());
    assert!(resumed.completeness.reasons().iter().any(|r| r.message().contains("already followed")));
}

/// Fetches pages of `source`, applying `between(source)` before every fetch.
fn fetcher<'a>(
    source: &'a RefCell<MemorySource>,
    between: impl Fn(&mut MemorySource) + 'a,
) -> impl FnMut(Option<String>) -> std::future::Ready<Result<Envelope<u64, StandardReason>, FetchError>> + 'a {
    move |cursor: Option<String>| {
        let mut source = source.borrow_mut();
        between(&mut source);
        std::future::ready(source.fetch(cursor.as_deref()))
    }
}

/// A traversal a limit stopped goes on from its resume cursor, under writes between pages, and
/// is complete only once the whole snapshot is collected: exactly its ids, fetched once each.
/// A limit that stops the collector before its first page leaves no cursor to resume from:
/// `resume` starts the traversal from the first page (it returned the stopped result again,
/// for good, while `decide` said to retry).
#[test]
fn a_traversal_stopped_before_its_first_page_resumes_from_the_first_page() {
    let source = RefCell::new(MemorySource::new(25, 10));
    for stopping in [
        CollectLimits { max_pages: 0, ..no_limits() },
        CollectLimits { max_items: 0, ..no_limits() },
        CollectLimits { deadline: Duration::ZERO, ..no_limits() },
    ] {
        let stopped = block_on(collect_all(fetcher(&source, |_| {}), stopping)).unwrap();
        assert_eq!(stopped.pages_fetched(), 0, "{stopping:?}");
        assert_eq!(stopped.completeness.reason_codes(), vec![ReasonCode::ClientLimitReached], "{stopping:?}");
        let whole = block_on(resume(stopped, fetcher(&source, |_| {}), no_limits())).unwrap();
        assert!(whole.is_complete(), "{stopping:?}: {:?}", whole.completeness.reason_codes());
        assert_eq!(whole.items, (1..=25).collect::<Vec<u64>>(), "{stopping:?}");
        assert_eq!(whole.pages_fetched(), 3, "{stopping:?}");
    }
}

#[test]
fn a_traversal_stopped_at_a_limit_resumes_to_exactly_the_whole_snapshot() {
    let source = RefCell::new(MemorySource::new(50, 10));
    let two_pages = CollectLimits { max_pages: 2, ..no_limits() };
    // Writes before every fetch but the first: the traversal reads the first page's snapshot.
    let write = |s: &mut MemorySource| {
        if s.fetches() > 0 {
            let next = 1_000 + s.fetches();
            s.apply(Mutation::Insert(next));
            s.apply(Mutation::Delete(3));
        }
    };
    let first = block_on(collect_all(fetcher(&source, write), two_pages)).unwrap();
    assert_eq!(first.completeness.reason_codes(), vec![ReasonCode::ClientLimitReached]);
    assert_eq!(first.items.len(), 20);

    let second = block_on(resume(first, fetcher(&source, write), two_pages)).unwrap();
    assert_eq!(second.completeness.reason_codes(), vec![ReasonCode::ClientLimitReached], "two more pages, no more");
    assert_eq!(second.items.len(), 40);
    assert_envelope_invariants(&serde_json::to_value(&second).unwrap());

    let whole = block_on(resume(second, fetcher(&source, write), no_limits())).unwrap();
    assert!(whole.is_complete(), "{:?}", whole.completeness.reason_codes());
    assert_eq!(whole.items, source.borrow().ids_at(1), "exactly the first page's snapshot");
    assert_eq!((whole.pages_fetched(), source.borrow().fetches()), (5, 5), "ceil(50 / 10) fetches in all");
    assert_envelope_invariants(&serde_json::to_value(&whole).unwrap());
}

/// A loop across runs: the first run followed `a` and `b` and stopped at its page limit; the
/// resumed run is handed `a` again. It stops there, rather than read `a`'s page again (which a
/// server could answer as a complete last page, with its items a second time).
#[test]
fn a_resumed_traversal_does_not_follow_a_cursor_an_earlier_run_followed() {
    let pages: [(Option<&str>, Envelope<u64>); 3] = [
        (None, numbers_page(vec![1], MorePagesAvailable::new("a"))),
        (Some("a"), numbers_page(vec![2], MorePagesAvailable::new("b"))),
        (Some("b"), numbers_page(vec![3], MorePagesAvailable::new("a"))),
    ];
    let fetched = RefCell::new(Vec::new());
    let fetch = |cursor: Option<String>| {
        fetched.borrow_mut().push(cursor.clone());
        let page = pages.iter().find(|(at, _)| *at == cursor.as_deref()).map(|(_, page)| page.clone());
        std::future::ready(page.ok_or_else(|| FetchError::Transport(format!("no page at {cursor:?}"))))
    };
    let first = block_on(collect_all(fetch, CollectLimits { max_pages: 2, ..no_limits() })).unwrap();
    assert_eq!(first.completeness.reason_codes(), vec![ReasonCode::ClientLimitReached]);
    let resumed = block_on(resume(first, fetch, no_limits())).unwrap();
    assert_eq!(*fetched.borrow(), vec![None, Some("a".to_owned()), Some("b".to_owned())], "`a` once");
    assert_eq!(resumed.items, vec![1, 2, 3]);
    assert_broken(&resumed, "already followed");
}

/// A resumed traversal carries the server's evidence only when the whole of it is complete,
/// and what the earlier run reported stays reported.
#[test]
fn a_resumed_traversal_carries_evidence_only_when_the_whole_is_complete() {
    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let pages = [first_page(more), last_page(json!("ev1.k1.token"))];
    let fetch = two_pages(&pages);
    let stopped = block_on(collect_all(fetch, CollectLimits { max_pages: 1, ..no_limits() })).unwrap();
    assert_eq!(stopped.completeness.evidence(), None);
    let whole = block_on(resume(stopped, fetch, no_limits())).unwrap();
    assert!(whole.is_complete());
    assert_eq!(whole.items, vec![1, 2]);
    assert_eq!(whole.completeness.evidence(), Some("ev1.k1.token"));

    // An earlier run's other reason stays: the whole is then incomplete, without evidence.
    let source = json!([{"code": "SOURCE_UNAVAILABLE", "message": "down", "source": "legacy"},
                        {"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let pages = [first_page(source), last_page(json!("ev1.k1.token"))];
    let fetch = two_pages(&pages);
    let stopped = block_on(collect_all(fetch, CollectLimits { max_pages: 1, ..no_limits() })).unwrap();
    let resumed = block_on(resume(stopped, fetch, no_limits())).unwrap();
    assert_eq!(resumed.completeness.reason_codes(), vec![ReasonCode::SourceUnavailable]);
    assert_eq!(resumed.completeness.evidence(), None);
}

/// Only a stop at the collector's own limit resumes; anything else comes back unchanged,
/// without a fetch. A snapshot gone while resuming keeps what was collected and says so.
#[test]
fn only_a_limit_resumes_and_an_expired_snapshot_ends_the_resumed_traversal() {
    let source = RefCell::new(MemorySource::new(5, 10));
    let complete = block_on(collect_all(fetcher(&source, |_| {}), no_limits())).unwrap();
    let unchanged =
        block_on(resume(complete.clone(), |_| async { panic!("no fetch for a complete result") }, no_limits()));
    assert_eq!(unchanged.unwrap(), complete);

    let source = RefCell::new(MemorySource::new(30, 10));
    let stopped =
        block_on(collect_all(fetcher(&source, |_| {}), CollectLimits { max_pages: 1, ..no_limits() })).unwrap();
    let expire = |s: &mut MemorySource| {
        s.apply(Mutation::Insert(500));
        s.apply(Mutation::ExpireOldSnapshots);
    };
    let ended = block_on(resume(stopped, fetcher(&source, expire), no_limits())).unwrap();
    assert_eq!(ended.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired]);
    assert_eq!(ended.items, (1..=10).collect::<Vec<u64>>(), "what the first run collected is kept");
    assert_eq!(ended.completeness.evidence(), None);
}

/// `resume` goes on from the cursor of the collector's own `CLIENT_LIMIT_REACHED`, the last
/// reason of the stopped result, not from a gateway's: here a gateway's page carries two
/// `CLIENT_LIMIT_REACHED` of its own beside `MORE_PAGES_AVAILABLE`, and the wire gives the
/// page's cursor to two of the three reasons (R6, R8). The cursor goes on where every one of
/// them stopped, as `decide` reads it: none is kept, and the resumed traversal is complete at
/// its end.
#[test]
fn resume_goes_on_from_the_collectors_own_limit_after_a_gateways_ones() {
    let page = |n: u32, reasons: Value, next: Option<&str>| {
        json!({
            "status": if next.is_some() { "partial" } else { "complete" }, "complete": next.is_none(),
            "truncated": next.is_some(), "items": [n], "incomplete_reasons": reasons,
            "continuation": next.map(|cursor| json!({"kind": "next_cursor", "cursor": cursor})),
            "next_cursor": next,
            "page": {"returned": 1, "requested_size": 1, "applied_size": 1, "ordering": "id ascending",
                     "snapshot": "s-1", "cursor": next.map(|_| json!({"freezes_snapshot": true,
                     "expires_at": "2100-01-01T00:00:00Z", "invalidated_by": ["filters"]})), "resumed": n > 1},
            "scope": {"resource": "numbers", "visibility": "all", "snapshot": "s-1", "filters": {}},
            "warnings": [], "evidence": null
        })
    };
    let gateway = json!({"code": "CLIENT_LIMIT_REACHED", "message": "the gateway stopped",
                         "limit_kind": "pages", "limit": 1});
    let gateway_items = json!({"code": "CLIENT_LIMIT_REACHED", "message": "the gateway stopped again",
                               "limit_kind": "items", "limit": 1});
    let more = json!({"code": "MORE_PAGES_AVAILABLE", "message": "more"});
    let first = page(1, json!([more.clone(), gateway.clone(), gateway_items.clone()]), Some("p2"));
    let read: Envelope<u32, StandardReason> = serde_json::from_value(first).unwrap();
    assert_eq!(decide(&read, Intent::ClaimAbsence), Decision::ContinueSearch);
    let pages = [
        page(1, json!([more, gateway, gateway_items]), Some("p2")),
        page(2, json!([more]), Some("p3")),
        page(3, json!([]), None),
    ];
    let fetched = RefCell::new(Vec::new());
    let fetch = |cursor: Option<String>| {
        fetched.borrow_mut().push(cursor.clone());
        let n = match cursor.as_deref() {
            None => 0,
            Some("p2") => 1,
            Some("p3") => 2,
            Some(other) => panic!("no page {other}"),
        };
        std::future::ready(
            serde_json::from_value::<Envelope<u32, StandardReason>>(pages[n].clone())
                .map_err(|e| FetchError::Contract(e.to_string())),
        )
    };
    let stopped = block_on(collect_all(fetch, CollectLimits { max_pages: 2, ..no_limits() })).unwrap();
    assert_eq!(stopped.items, vec![1, 2]);
    assert_eq!(stopped.completeness.next_cursor(), Some("p3"), "the collector's own resume cursor");
    let resumed = block_on(resume(stopped, fetch, no_limits())).unwrap();
    assert_eq!(resumed.items, vec![1, 2, 3], "each item once: the traversal went on after page 2");
    assert_eq!(*fetched.borrow(), [None, Some("p2".to_owned()), Some("p3".to_owned())]);
    assert!(resumed.is_complete(), "{:?}", resumed.completeness.reason_codes());
    assert_eq!(resumed.completeness.next_cursor(), None, "nothing to resume: the traversal reached its end");
}

/// A server that serves an item on two pages, each page otherwise well-formed and the last one
/// complete, gives a complete collection the collector cannot tell apart from a whole one (it
/// knows no identity); `first_repeated` names the item served twice, and is `None` for a
/// traversal that served each once.
#[test]
fn an_item_served_twice_is_found_by_its_key() {
    let more = json!([{"code": "MORE_PAGES_AVAILABLE", "message": "more"}]);
    let mut repeated = last_page(json!("ev1.k1.token"));
    repeated["items"] = json!([1, 2]);
    repeated["page"]["returned"] = json!(2);
    let collected = collect_json([first_page(more.clone()), repeated]);
    assert!(collected.is_complete(), "complete as each page says");
    assert_eq!(collected.items, vec![1, 1, 2]);
    assert_eq!(collected.first_repeated(|n| *n), Some(&1));
    let once = collect_json([first_page(more), last_page(json!("ev1.k1.token"))]);
    assert_eq!(once.first_repeated(|n| *n), None);
}

/// `MemorySource` answers as a service that filters and issues evidence does, so a client's
/// tests can cover "complete, with evidence" and "the scope says what was asked": the filter is
/// echoed in every page's scope, and evidence comes on the last page only where a server may
/// give it (every page complete but for paging, current, at one snapshot), empty too.
#[test]
fn a_memory_source_echoes_its_filters_and_gives_evidence_only_to_a_whole_traversal() {
    let filters = [("tenant", json!("north"))];
    for count in [0_u64, 25] {
        let source = RefCell::new(MemorySource::new(count, 10).with_filter("tenant", "north").issuing_evidence(true));
        let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
        assert!(collected.is_complete(), "{count}");
        assert_eq!(collected.completeness.scope().differs_from("numbers", &filters), None, "{count}");
        assert!(collected.completeness.scope().differs_from("numbers", &[("tenant", json!("south"))]).is_some());
        assert_eq!(collected.completeness.evidence(), Some("ev-s-1"), "{count}");
        assert_eq!(decide(collected.envelope(), Intent::Mutate), Decision::Proceed, "{count}");
        assert_envelope_invariants(&serde_json::to_value(&collected).unwrap());
    }
    // No evidence where a server may give none: a restricted view, stale pages, a snapshot
    // that is not held.
    for source in [
        MemorySource::new(25, 10).restricted(true),
        MemorySource::new(25, 10).warning_every(Some(2)),
        MemorySource::new(25, 10).freezing_snapshots(false),
    ] {
        let source = RefCell::new(source.issuing_evidence(true));
        let collected = collect(&source, no_limits(), |_, _| {}).unwrap();
        assert_eq!(collected.completeness.evidence(), None, "{:?}", source.borrow());
        assert_ne!(decide(collected.envelope(), Intent::Mutate), Decision::Proceed);
    }
}
