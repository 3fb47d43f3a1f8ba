//! The fault layer on a real `Router`: every fault a route declares, and only those, keeps the
//! wire contract; `require_complete` gets the matching status; the header works only where the
//! layer is installed; the same seed gives the same faults; items are never added or altered.

use std::collections::BTreeSet;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use completeness::routing::get;
use completeness::scope::{CursorBinding, CursorContract, PageInfo};
use completeness::testing::check_envelope_invariants;
use completeness::testing::faults::{
    FAULT_HEADER, Fault, FaultLayer, Faulted, RequestFacts, Schedule, inject, shape_rng,
};
use completeness::{Aggregate, Envelope, ReasonCode, Relation, Reported, Scope, TimeBudget, completeness};
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Decision, Intent, decide};
use proptest::prelude::*;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Records under a legal hold are hidden from everyone but the legal team.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under legal hold {hold} are hidden.")]
pub struct LegalHold {
    hold: String,
}

/// The upstream API cut its answer short without saying where.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "UPSTREAM_TRUNCATED", kind = truncation, message = "The upstream API may have cut its answer.")]
pub struct UpstreamTruncated;

/// A replica serving reads lags behind the primary.
#[derive(Debug, Clone, PartialEq, completeness::Warning)]
#[warning(code = "REPLICA_LAG", owner = "storage-team", review_by = "2027-06-30", message = "The replica lags.", stale)]
pub struct ReplicaLag;

/// `?n=ITEMS&more=1&cursor=..`: `n` items from two sources, a next page when `more` is set.
#[completeness(
    resource = "things",
    reasons(
        MorePagesAvailable,
        VisibilityRestricted,
        SourceUnavailable,
        TimeBudgetExceeded,
        ResultLimitReached,
        QuotaExhausted,
        SnapshotExpired,
        LegalHold,
        UpstreamTruncated
    ),
    warnings(StaleIndex, ReplicaLag)
)]
async fn list_things(
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Envelope<Value, ListThingsReason> {
    let param = |name: &str| query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let n: usize = param("n").and_then(|n| n.parse().ok()).unwrap_or(6);
    let more = param("more").is_some();
    let items: Vec<Value> = (0..n).map(|i| json!({"id": format!("t-{i:03}"), "source": SOURCES[i % 2]})).collect();
    let mut page = Envelope::complete(items, Scope::new("things", "things readable by everyone"));
    if more {
        page.completeness.push_reason(completeness::reason::MorePagesAvailable::new("c-next"));
    }
    if param("capped").is_some() {
        page.completeness.push_reason(completeness::reason::ResultLimitReached::new(n as u64, "add a filter"));
    }
    let mut facts =
        PageInfo::new(n as u64, None, 10, "id ascending").with_snapshot("s-1").with_resumed(param("cursor").is_some());
    if more {
        facts = facts.with_cursor(CursorContract::new(true, "2030-01-01T00:00:00Z", vec![CursorBinding::Filters]));
    }
    page.completeness.set_page(Some(facts));
    page
}

/// Declares one reason only.
#[completeness(resource = "plain", reasons(VisibilityRestricted))]
async fn list_plain() -> Envelope<u32, ListPlainReason> {
    Envelope::complete(vec![1, 2, 3, 4], Scope::new("plain", "everything"))
}

/// A derived envelope whose items are `tickets`, its first collection that is not bounded,
/// after a short list declared (and named) before it.
#[derive(completeness::ResultEnvelope)]
pub struct TicketPage {
    #[envelope(bounded = "the labels the query applied, a few at most")]
    applied_labels: Vec<String>,
    tickets: Vec<Value>,
    #[envelope(completeness)]
    completeness: completeness::Completeness<ListTicketsReason>,
}

/// Six tickets in one page, complete; declares a cut and a hidden subset.
#[completeness(resource = "tickets", reasons(ResultLimitReached, VisibilityRestricted))]
async fn list_tickets() -> TicketPage {
    let tickets = (0..6).map(|i| json!({"id": format!("k-{i}")})).collect();
    let mut completeness = completeness::Completeness::complete(Scope::new("tickets", "every ticket"));
    completeness.set_page(Some(PageInfo::new(6, None, 10, "id ascending").with_resumed(false)));
    TicketPage { tickets, applied_labels: vec!["open".to_owned(), "urgent".to_owned()], completeness }
}

/// `?time_budget_ms=`: six things within the request's time budget; declares running out.
#[completeness(resource = "things", reasons(TimeBudgetExceeded))]
async fn list_budgeted(_budget: TimeBudget) -> Envelope<Value, ListBudgetedReason> {
    let items = (0..6).map(|i| json!({"id": format!("b-{i}")})).collect();
    Envelope::complete(items, Scope::new("things", "every thing"))
}

/// `?relation=exact|estimate`: a count of 42 things, complete; declares what a count can lose.
#[completeness(
    resource = "things",
    reasons(
        VisibilityRestricted,
        SourceUnavailable,
        TimeBudgetExceeded,
        ResultLimitReached,
        QuotaExhausted,
        LegalHold
    ),
    warnings(StaleIndex)
)]
async fn count_things(
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Aggregate<u64, CountThingsReason> {
    let estimate = query.iter().any(|(k, v)| k == "relation" && v == "estimate");
    let relation = if estimate { Relation::Estimate } else { Relation::Exact };
    Aggregate::count(42, relation, completeness::Completeness::complete(Scope::new("things", "every thing")))
}

const SOURCES: [&str; 2] = ["alpha", "beta"];

fn router() -> Router {
    Router::new()
        .route("/things", get(list_things).into())
        .route("/plain", get(list_plain).into())
        .route("/tickets", get(list_tickets).into())
        .route("/budgeted", get(list_budgeted).into())
        .route("/things/count", get(count_things).into())
        .with_state(
            CompletenessConfig::new(CursorKeys::ephemeral())
                .with_time_budgets(Duration::from_secs(2), Duration::from_secs(MAX_BUDGET_SECS)),
        )
}

/// The largest time budget the router grants.
const MAX_BUDGET_SECS: u64 = 30;

#[tokio::test]
async fn an_aggregate_keeps_its_value_and_is_no_longer_exact() {
    let app = || router().layer(FaultLayer::new(Schedule::header_only()));
    let faults = ["VISIBILITY_RESTRICTED", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED", "RESULT_LIMIT_REACHED"];
    for (query, relation) in [("/things/count", "exact"), ("/things/count?relation=estimate", "estimate")] {
        let (_, _, clean) = send(router(), query, None).await;
        assert_eq!((clean["count"].clone(), clean["relation"].clone()), (json!(42), json!(relation)), "{clean}");
        for fault in faults.iter().chain(&["QUOTA_EXHAUSTED", "LEGAL_HOLD"]) {
            let (status, _, body) = send(app(), query, Some(fault)).await;
            let context = format!("{fault} on {query}: {body}");
            assert_eq!(status, StatusCode::OK, "{context}");
            let strict: Aggregate<u64> =
                serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{context}: {e}"));
            assert_eq!(*strict.value(), 42, "the value is never altered: {context}");
            assert!(!strict.completeness().is_complete(), "{context}");
            assert_eq!(strict.completeness().reason_codes()[0].as_str(), *fault, "{context}");
            let expected = if relation == "exact" { Relation::LowerBound } else { Relation::Estimate };
            assert_eq!(strict.relation(), expected, "{context}");
            assert!(body.get("page").is_none() && body.get("evidence").is_none(), "aggregate members only: {context}");
        }
        // A warning leaves the count and its relation as they were.
        let (_, _, warned) = send(app(), query, Some("STALE_INDEX")).await;
        assert_eq!((warned["complete"].clone(), warned["relation"].clone()), (json!(true), json!(relation)));
        assert_eq!(warned["warnings"][0]["code"], "STALE_INDEX", "{warned}");
    }
    let (status, _, body) = send(app(), "/things/count?require_complete=true", Some("SOURCE_UNAVAILABLE")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{body}");

    // A seeded schedule faults counts like collections, and only with what the route declares.
    let layer = FaultLayer::new(Schedule::seeded(11, 1.0));
    let seeded = router().layer(layer.clone());
    for _ in 0..30 {
        let (status, _, body) = send(seeded.clone(), "/things/count", None).await;
        if status == StatusCode::SERVICE_UNAVAILABLE {
            assert_eq!(body["code"], "SERVICE_UNAVAILABLE", "an outage, else a count: {body}");
            continue;
        }
        let strict: Aggregate<u64> = serde_json::from_value(body.clone()).unwrap_or_else(|e| panic!("{body}: {e}"));
        assert_eq!(*strict.value(), 42);
    }
    assert!(layer.log().iter().all(|r| r.fault.is_some()), "probability 1 faults every count");
}

#[tokio::test]
async fn a_derived_envelope_is_faulted_through_its_own_data_member() {
    let app = || router().layer(FaultLayer::new(Schedule::header_only()));
    let (status, _, clean) = send(app(), "/tickets", None).await;
    assert_eq!((status, clean["complete"].clone()), (StatusCode::OK, json!(true)), "{clean}");
    let whole = clean["tickets"].as_array().unwrap().clone();
    assert_eq!(whole.len(), 6);
    check_envelope_invariants(&clean).unwrap_or_else(|v| panic!("the real answer keeps the contract: {v:?}"));
    for fault in ["RESULT_LIMIT_REACHED", "VISIBILITY_RESTRICTED"] {
        let (status, _, body) = send(app(), "/tickets", Some(fault)).await;
        assert_eq!(status, StatusCode::OK, "{fault}: {body}");
        check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{fault}: {v:?}"));
        assert_eq!(body["complete"], false, "{fault}: {body}");
        assert_eq!(body["incomplete_reasons"][0]["code"], fault);
        let kept = body["tickets"].as_array().expect("the items keep their member name");
        assert!(kept.len() < whole.len() || fault == "VISIBILITY_RESTRICTED", "{fault}: {body}");
        assert!(is_subsequence(kept, &whole), "{fault}: only removed, never added or altered: {body}");
        assert!(body.get("items").is_none(), "no member is invented: {body}");
        assert_eq!(
            body["applied_labels"], clean["applied_labels"],
            "{fault}: the items are the first unbounded collection"
        );
        assert_eq!(body["page"]["returned"], kept.len(), "{fault}: {body}");
    }
    // A fault the route does not declare is refused, as on any other route.
    let (status, _, body) = send(app(), "/tickets", Some("SOURCE_UNAVAILABLE")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // Each refusal says why the name is not offered here.
    let detail = |body: &Value| body["detail"].as_str().unwrap_or_default().to_owned();
    assert!(
        detail(&body).contains(
            "'SOURCE_UNAVAILABLE' is not a fault this route offers on this request: the route does not declare it"
        ),
        "{body}"
    );
    let (_, _, body) = send(app(), "/tickets", Some("CLIENT_LIMIT_REACHED")).await;
    assert!(detail(&body).contains("a client reports it of its own limit"), "{body}");
    let (_, _, body) = send(app(), "/tickets", Some("CURSOR_EXPIRED")).await;
    assert!(detail(&body).contains("the route does not page"), "{body}");
    let paged = || router().layer(FaultLayer::new(Schedule::header_only()));
    let (_, _, body) = send(paged(), "/things?n=3", Some("CURSOR_EXPIRED")).await;
    assert!(detail(&body).contains("only on a request that sends a cursor"), "{body}");
    let (_, _, body) = send(app(), "/tickets", Some("NOPE")).await;
    assert!(detail(&body).contains("no fault has that name"), "{body}");
    // A layer serving real clients never gives an answer the service could not send itself.
    let config = CompletenessConfig::new(CursorKeys::ephemeral());
    let serving = || router().layer(FaultLayer::serving(Schedule::header_only(), &config));
    let (status, _, body) = send(serving(), "/tickets", Some("FUTURE_REASON")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(detail(&body).contains("a layer serving real clients gives only answers"), "{body}");
    // So are an empty header and two of them: no one fault is named.
    let (status, _, body) = send(app(), "/tickets", Some("")).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_REQUEST")), "{body}");
    let twice = Request::get("/tickets")
        .header(FAULT_HEADER, "VISIBILITY_RESTRICTED")
        .header(FAULT_HEADER, "RESULT_LIMIT_REACHED")
        .body(Body::empty())
        .unwrap();
    let response = app().oneshot(twice).await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST, "two faults named at once are refused");
    // `; emptied` empties the faulted collection, as an emptied schedule does, so that a kit's
    // failure on an empty, incomplete page is replayed by hand; another option is refused.
    let (status, _, body) = send(app(), "/tickets", Some("VISIBILITY_RESTRICTED; emptied")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{v:?}"));
    assert_eq!(body["tickets"], json!([]), "{body}");
    assert_eq!(
        (body["complete"].as_bool(), body["incomplete_reasons"][0]["code"].as_str()),
        (Some(false), Some("VISIBILITY_RESTRICTED"))
    );
    let (status, _, body) = send(app(), "/tickets", Some("VISIBILITY_RESTRICTED; halved")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn a_faulted_time_budget_is_the_one_the_route_applied_with_its_real_recovery() {
    let app = || router().layer(FaultLayer::new(Schedule::header_only()));
    for (asked, applied_ms, retry) in [
        ("?time_budget_ms=999999", MAX_BUDGET_SECS * 1000, None),
        ("", 2_000, Some(4)),
        ("?time_budget_ms=100", 100, Some(1)),
    ] {
        let request = Request::get(format!("/budgeted{asked}"))
            .header(FAULT_HEADER, "TIME_BUDGET_EXCEEDED")
            .body(Body::empty())
            .unwrap();
        let response = app().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let header = response.headers()["time-budget-ms"].to_str().unwrap().to_owned();
        let body: Value = serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
        check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{asked}: {v:?}"));
        let reason = &body["incomplete_reasons"][0];
        assert_eq!(reason["budget_ms"], applied_ms, "{asked}: the budget applied, as echoed: {body}");
        assert_eq!(header, applied_ms.to_string(), "{asked}");
        match retry {
            None => assert_eq!(body["continuation"], Value::Null, "{asked}: no larger budget exists: {body}"),
            Some(seconds) => {
                assert_eq!(body["continuation"]["kind"], "retry_with_deadline", "{asked}: {body}");
                assert_eq!(body["continuation"]["minimum_seconds"], seconds, "{asked}: {body}");
            }
        }
        let kept = body["items"].as_array().unwrap().len();
        assert!(kept < 6, "{asked}: work that ran out left something out: {body}");
        assert_eq!(reason["progress"]["completed"], kept, "{asked}: {body}");
    }
}

#[tokio::test]
async fn a_result_limit_fault_on_a_capped_answer_gives_one_lower_limit() {
    let app = router().layer(FaultLayer::new(Schedule::header_only()));
    let (status, _, body) = send(app, "/things?n=6&capped=1", Some("RESULT_LIMIT_REACHED")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{v:?}"));
    let reasons = body["incomplete_reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "one limit, the one the answer now stops at: {body}");
    assert_eq!(reasons[0]["limit"], body["items"].as_array().unwrap().len(), "{body}");
}

#[tokio::test]
async fn a_faulted_response_reports_what_its_body_says_to_outer_layers() {
    let app = router().layer(FaultLayer::new(Schedule::header_only()));
    let request = Request::get("/things?n=6").header(FAULT_HEADER, "RESULT_LIMIT_REACHED").body(Body::empty()).unwrap();
    let response = app.oneshot(request).await.unwrap();
    let reported = response.extensions().get::<Reported>().cloned().expect("the faulted answer carries its report");
    let body: Value = serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
    assert!(!reported.is_complete(), "{reported:?}");
    assert_eq!(reported.reason_codes(), [ReasonCode::ResultLimitReached]);
    assert_eq!(reported.items, Some(body["items"].as_array().unwrap().len() as u64), "{body}");
    assert!(reported.declared.is_some(), "the declaration stays with the answer");
}

/// A replica serving reads is behind; ask again later.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "REPLICA_BEHIND", kind = source, message = "Replica {replica} is behind.", recovery = ReplicaBehind::wait)]
pub struct ReplicaBehind {
    replica: String,
}

impl ReplicaBehind {
    fn wait(&self) -> Option<completeness::Continuation> {
        Some(completeness::Continuation::RetryAfter { seconds: 30 })
    }
}

/// Declares two reasons of the service's own, with detail members, one with a recovery.
#[completeness(resource = "held", reasons(LegalHold, ReplicaBehind), warnings(ReplicaLag))]
async fn list_held() -> Envelope<u32, ListHeldReason> {
    Envelope::complete(vec![1, 2, 3, 4], Scope::new("held", "everything"))
}

/// A service's own reason is injected as its example gives it, with its detail members and its
/// recovery, as the service sends it: a client reads the details back, and the continuation is
/// the one the reason offers. Without an example it has neither (what the layer can know of it
/// is its code and kind), which the documentation says.
#[tokio::test]
async fn a_services_own_reason_is_injected_as_its_example_gives_it() {
    let held = || {
        Router::new().route("/held", get(list_held).into()).with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
    };
    let examples = completeness::testing::faults::Examples::new()
        .reason(LegalHold { hold: "h-17".to_owned() })
        .reason(ReplicaBehind { replica: "eu-2".to_owned() });
    let with = || held().layer(FaultLayer::new(Schedule::header_only()).with_examples(examples.clone()));
    let (status, _, body) = send(with(), "/held", Some("LEGAL_HOLD")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let strict: Envelope<u32, ListHeldReason> = serde_json::from_value(body.clone()).unwrap();
    let reason = strict.completeness.reasons()[0].as_standard();
    assert_eq!(reason.to_details::<LegalHold>().unwrap().unwrap(), LegalHold { hold: "h-17".to_owned() }, "{body}");
    let (_, _, body) = send(with(), "/held", Some("REPLICA_BEHIND")).await;
    assert_eq!(body["incomplete_reasons"][0]["replica"], "eu-2", "{body}");
    assert_eq!(body["continuation"], json!({"kind": "retry_after", "seconds": 30}), "{body}");
    check_envelope_invariants(&body).unwrap();
    // Without an example: the code and kind only.
    let (_, _, body) = send(held().layer(FaultLayer::new(Schedule::header_only())), "/held", Some("LEGAL_HOLD")).await;
    assert!(body["incomplete_reasons"][0].get("hold").is_none(), "{body}");
}

async fn send(app: Router, uri: &str, fault: Option<&str>) -> (StatusCode, Option<String>, Value) {
    let mut request = Request::get(uri);
    if let Some(fault) = fault {
        request = request.header(FAULT_HEADER, fault);
    }
    let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, retry_after, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn ids(body: &Value) -> Vec<String> {
    body["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

/// True when `part` is `whole` with some elements left out, in order.
fn is_subsequence(part: &[Value], whole: &[Value]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|item| rest.any(|other| other == item))
}

const REASON_FAULTS: [&str; 7] = [
    "VISIBILITY_RESTRICTED",
    "SOURCE_UNAVAILABLE",
    "TIME_BUDGET_EXCEEDED",
    "RESULT_LIMIT_REACHED",
    "QUOTA_EXHAUSTED",
    "LEGAL_HOLD",
    "UPSTREAM_TRUNCATED",
];

#[tokio::test]
async fn every_declared_reason_fault_keeps_the_contract_and_only_removes_items() {
    for n in [0, 1, 6] {
        for more in [false, true] {
            let query = format!("/things?n={n}{}", if more { "&more=1" } else { "" });
            let (_, _, real) = send(router(), &query, None).await;
            for fault in REASON_FAULTS {
                let app = router().layer(FaultLayer::new(Schedule::header_only()));
                let (status, _, body) = send(app, &query, Some(fault)).await;
                let context = format!("{fault} on {query}: {body}");
                assert_eq!(status, StatusCode::OK, "{context}");
                check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{context}: {v:?}"));
                assert_eq!(body["complete"], false, "{context}");
                assert_eq!(body["evidence"], Value::Null, "{context}");
                let codes: Vec<&str> = body["incomplete_reasons"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["code"].as_str().unwrap())
                    .collect();
                assert!(codes.contains(&fault), "{context}");
                assert_eq!(codes.contains(&"MORE_PAGES_AVAILABLE"), more, "pagination is kept: {context}");
                assert!(
                    is_subsequence(body["items"].as_array().unwrap(), real["items"].as_array().unwrap()),
                    "items are only removed: {context}"
                );
                let reason =
                    body["incomplete_reasons"].as_array().unwrap().iter().find(|r| r["code"] == fault).unwrap();
                let kept = body["items"].as_array().unwrap().len() as u64;
                // The recovery travels in `continuation` when this reason is the first with one.
                let own_continuation = !more;
                match fault {
                    "VISIBILITY_RESTRICTED" => {
                        assert_eq!(reason.as_object().unwrap().len(), 2, "no detail: {context}");
                    }
                    "SOURCE_UNAVAILABLE" => {
                        let source = reason["source"].as_str().unwrap();
                        assert!(["alpha", "beta", "injected"].contains(&source), "{context}");
                        assert!(body["items"].as_array().unwrap().iter().all(|i| i["source"] != source), "{context}");
                        if own_continuation {
                            assert_eq!(body["continuation"]["kind"], "retry_after", "{context}");
                        }
                    }
                    "TIME_BUDGET_EXCEEDED" => {
                        assert_eq!(reason["progress"]["completed"], kept, "{context}");
                        assert_eq!(reason["progress"]["planned"], n, "{context}");
                        assert!(n == 0 || kept < n as u64, "work that ran out left something out: {context}");
                        if own_continuation {
                            // `/things` takes no budget: there is no larger one to offer.
                            assert_eq!(body["continuation"], Value::Null, "{context}");
                        }
                    }
                    "RESULT_LIMIT_REACHED" => {
                        // A limit is at least 1: an emptied page keeps none of it, and one item
                        // may be all a limit of 1 kept.
                        assert_eq!(reason["limit"], kept.max(1), "{context}");
                        assert!(n <= 1 || kept < n as u64, "cut below what there was: {context}");
                        if own_continuation {
                            assert_eq!(body["continuation"]["kind"], "narrow_query", "{context}");
                        }
                    }
                    "QUOTA_EXHAUSTED" => {
                        assert!(reason["retry_after_seconds"].as_u64().unwrap() >= 1, "{context}");
                        if own_continuation {
                            assert_eq!(body["continuation"]["kind"], "retry_after", "{context}");
                        }
                    }
                    "LEGAL_HOLD" => assert_eq!(reason["kind"], "visibility", "{context}"),
                    "UPSTREAM_TRUNCATED" => {
                        assert_eq!(reason["kind"], "truncation", "{context}");
                        assert_eq!(body["truncated"], true, "{context}");
                    }
                    _ => unreachable!(),
                }
            }
        }
    }
}

#[tokio::test]
async fn a_request_with_a_cursor_can_meet_an_expired_cursor_or_snapshot_or_a_restart() {
    let app = || router().layer(FaultLayer::new(Schedule::header_only()));
    let (status, _, body) = send(app(), "/things?n=4&more=1&cursor=c-1", Some("CURSOR_EXPIRED")).await;
    assert_eq!(status, StatusCode::GONE, "{body}");
    assert_eq!(body["code"], "CURSOR_EXPIRED");
    assert_eq!(body["continuation"]["kind"], "restart", "{body}");

    let (status, _, body) = send(app(), "/things?n=4&more=1&cursor=c-1", Some("SNAPSHOT_EXPIRED")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    check_envelope_invariants(&body).unwrap();
    assert_eq!(body["incomplete_reasons"][0]["code"], "SNAPSHOT_EXPIRED", "the traversal ends: {body}");
    assert_eq!(body["incomplete_reasons"][0]["snapshot"], "s-1");
    assert_eq!(body["next_cursor"], Value::Null, "{body}");
    assert_eq!(body["continuation"]["kind"], "restart", "{body}");

    // The first page again: the route's own answer to the request without its cursor (spelled
    // as the server reads it, decoded), the other parameters as sent.
    for cursor in ["cursor=c-1", "c%75rsor=c-1"] {
        let (status, _, body) = send(app(), &format!("/things?n=4&{cursor}&more=1"), Some("TRAVERSAL_RESTARTED")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        check_envelope_invariants(&body).unwrap();
        assert_eq!(body["page"]["resumed"], false, "a first page: {body}");
        assert_eq!(body["items"].as_array().map(Vec::len), Some(4), "n=4 kept: {body}");
        assert_eq!(body["next_cursor"], "c-next", "more=1 kept: {body}");
    }
    let (_, _, resumed) = send(app(), "/things?n=4&more=1&cursor=c-1", None).await;
    assert_eq!(resumed["page"]["resumed"], true, "{resumed}");

    // Without a cursor none is offered: the header is refused with a problem naming what is.
    for fault in ["CURSOR_EXPIRED", "SNAPSHOT_EXPIRED", "TRAVERSAL_RESTARTED"] {
        let (status, _, body) = send(app(), "/things?n=4&more=1", Some(fault)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["code"], "INVALID_REQUEST");
        assert!(body["detail"].as_str().unwrap().contains("VISIBILITY_RESTRICTED"), "{body}");
    }
}

#[tokio::test]
async fn declared_warnings_are_added_without_changing_completeness_or_items() {
    for (query, complete) in [("/things?n=3", true), ("/things?n=0", true), ("/things?n=3&more=1", false)] {
        let (_, _, real) = send(router(), query, None).await;
        for warning in ["STALE_INDEX", "REPLICA_LAG"] {
            let app = router().layer(FaultLayer::new(Schedule::header_only()));
            let (status, _, body) = send(app, query, Some(warning)).await;
            assert_eq!(status, StatusCode::OK);
            check_envelope_invariants(&body).unwrap_or_else(|v| panic!("{warning}: {v:?}"));
            assert_eq!(body["complete"], complete, "{body}");
            assert_eq!(body["items"], real["items"]);
            assert_eq!(body["warnings"][0]["code"], warning, "{body}");
            // Stale as the service's own would be: `REPLICA_LAG` is declared `stale`, and
            // `STALE_INDEX` is stale by its code; neither then proves absence.
            let says_stale = body["warnings"][0].get("stale").cloned();
            assert_eq!(says_stale, (warning == "REPLICA_LAG").then_some(json!(true)), "{body}");
            let read: Envelope<Value> = serde_json::from_value(body.clone()).unwrap();
            assert!(read.completeness.warnings()[0].is_stale(), "{body}");
            if complete {
                assert_eq!(decide(&read, Intent::ClaimAbsence), Decision::RefuseOrRequestReview, "{body}");
            }
        }
    }
}

#[tokio::test]
async fn require_complete_gets_the_status_of_the_faulted_answer() {
    let app = || router().layer(FaultLayer::new(Schedule::header_only()));
    for (fault, status) in [
        ("VISIBILITY_RESTRICTED", 403),
        ("LEGAL_HOLD", 403),
        ("RESULT_LIMIT_REACHED", 422),
        ("SOURCE_UNAVAILABLE", 503),
        ("QUOTA_EXHAUSTED", 503),
        ("TIME_BUDGET_EXCEEDED", 503),
    ] {
        let (got, retry_after, body) = send(app(), "/things?n=5&require_complete=true", Some(fault)).await;
        assert_eq!(got.as_u16(), status, "{fault}: {body}");
        assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{fault}");
        assert_eq!(body["incomplete_reasons"][0]["code"], fault, "{fault}");
        if matches!(fault, "SOURCE_UNAVAILABLE" | "QUOTA_EXHAUSTED") {
            assert!(retry_after.is_some(), "{fault}: Retry-After");
        }
    }
    let (got, _, body) = send(app(), "/things?n=5&require_complete=true", Some("STALE_INDEX")).await;
    assert_eq!(got, StatusCode::OK, "a warning does not make a result incomplete: {body}");
    assert_eq!(body["complete"], true);
    // Demanded with `Prefer`, the refusal of a faulted answer still says the preference was applied.
    let request = Request::get("/things?n=5")
        .header(FAULT_HEADER, "SOURCE_UNAVAILABLE")
        .header("prefer", "handling=strict")
        .body(Body::empty())
        .unwrap();
    let refused = app().oneshot(request).await.unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers().get("preference-applied").map(|v| v.to_str().unwrap()), Some("handling=strict"));
    // And, as the route's own refusal would, that the answer varies with `Prefer` (contract §5.3)
    // and the time budget it applied (§5.2): the headers of the answer it replaces.
    assert!(refused.headers().get_all("vary").iter().any(|v| v == "prefer"), "{:?}", refused.headers());
    let budgeted = Request::get("/budgeted?time_budget_ms=100")
        .header(FAULT_HEADER, "TIME_BUDGET_EXCEEDED")
        .header("prefer", "handling=strict")
        .body(Body::empty())
        .unwrap();
    let refused = router().layer(FaultLayer::new(Schedule::header_only())).oneshot(budgeted).await.unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers().get("time-budget-ms").map(|v| v.to_str().unwrap()), Some("100"));
    assert!(refused.headers().get_all("vary").iter().any(|v| v == "prefer"), "{:?}", refused.headers());
}

/// The codes of a body's `incomplete_reasons` (a collection's, or a strict refusal's), sorted.
fn reason_codes(body: &Value) -> Vec<String> {
    let reasons = body["incomplete_reasons"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut codes: Vec<String> = reasons.iter().map(|reason| reason["code"].as_str().unwrap().to_owned()).collect();
    codes.sort();
    codes
}

/// A strict read of `uri` under `app`, by `require_complete=true` in `uri` or, with `prefer`,
/// by `Prefer: return=minimal` then `Prefer: handling=strict` (the other preference kept beside
/// it), with the fault `fault` asked: its status, headers and body.
async fn strict(app: Router, uri: &str, prefer: bool, fault: &str) -> (StatusCode, axum::http::HeaderMap, Value) {
    let mut request = Request::get(uri).header(FAULT_HEADER, fault);
    if prefer {
        request = request.header("prefer", "return=minimal").header("prefer", "handling=strict");
    }
    let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, headers, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// A strict request whose route's own answer is already partial (cut at its result limit), which
/// the route alone refuses with 422, still meets the fault it asks for: the layer faults what the
/// route answers without the demand, then applies the demand, so the refusal is the one the
/// faulted answer calls for (403 for a hidden subset, listing both reasons), by the query or by
/// `Prefer`, acknowledged as the route acknowledges it. Seeded faults apply to it too. With no
/// fault, the route's own answer and refusal stand; a malformed demand still reaches the route.
#[tokio::test]
async fn a_strict_request_on_a_partial_answer_gets_the_refusal_of_its_faulted_answer() {
    let layer = FaultLayer::new(Schedule::header_only());
    let app = || router().layer(layer.clone());
    let both = ["RESULT_LIMIT_REACHED", "VISIBILITY_RESTRICTED"];
    for (uri, prefer) in [("/things?n=5&capped=1&require_complete=true", false), ("/things?n=5&capped=1", true)] {
        let (status, headers, body) = strict(app(), uri, prefer, "VISIBILITY_RESTRICTED").await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri}, Prefer {prefer}: visibility wins: {body}");
        assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{body}");
        assert_eq!(reason_codes(&body), both, "the route's reason and the fault's: {body}");
        let applied = headers.get("preference-applied").map(|v| v.to_str().unwrap());
        assert_eq!(applied, prefer.then_some("handling=strict"), "{uri}: {headers:?}");
        assert!(headers.get_all("vary").iter().any(|v| v == "prefer"), "{uri}: {headers:?}");
        let record = layer.log().pop().unwrap();
        assert_eq!((record.fault, record.status), (Some(Fault::Reason(ReasonCode::VisibilityRestricted)), 403));
        assert!(record.draw.is_some() && record.next_cursor.is_none(), "a read it faulted: {:?}", record.draw);
        // Another reason of the fault's: the limit the route met still gives the status (§5.3).
        let (status, _, body) = strict(app(), uri, prefer, "SOURCE_UNAVAILABLE").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{uri}: {body}");
        assert_eq!(reason_codes(&body), ["RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE"], "{uri}: {body}");
        // No fault: the route's own refusal, with its reason only.
        let (status, headers, body) = strict(app(), uri, prefer, "none").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{uri}: {body}");
        assert_eq!(
            (body["code"].as_str(), reason_codes(&body)),
            (Some("COMPLETE_RESULT_UNAVAILABLE"), vec![both[0].to_owned()])
        );
        let applied = headers.get("preference-applied").map(|v| v.to_str().unwrap());
        assert_eq!(applied, prefer.then_some("handling=strict"), "{uri}: {headers:?}");
        assert!(headers.get_all("vary").iter().any(|v| v == "prefer"), "{uri}: {headers:?}");
        // A complete answer left unfaulted is sent as the route sends it under the demand.
        let complete = uri.replace("capped=1&", "").replace("&capped=1", "");
        let (status, headers, body) = strict(app(), &complete, prefer, "none").await;
        assert_eq!((status, body["complete"].as_bool()), (StatusCode::OK, Some(true)), "{complete}: {body}");
        assert_eq!(ids(&body).len(), 5, "{body}");
        let applied = headers.get("preference-applied").map(|v| v.to_str().unwrap());
        assert_eq!(applied, prefer.then_some("handling=strict"), "{complete}: {headers:?}");
        assert!(headers.get_all("vary").iter().any(|v| v == "prefer"), "{complete}: {headers:?}");
    }
    // The refusal carries the report of the faulted answer it replaced, for the layers outside.
    let request = Request::get("/things?n=5&capped=1&require_complete=true")
        .header(FAULT_HEADER, "VISIBILITY_RESTRICTED")
        .body(Body::empty())
        .unwrap();
    let refused = app().oneshot(request).await.unwrap();
    let reported = refused.extensions().get::<Reported>().expect("the refusal carries its report");
    assert_eq!(reported.reason_codes(), [ReasonCode::ResultLimitReached, ReasonCode::VisibilityRestricted]);
    // A seeded schedule faults such a read as well.
    let seeded = router().layer(FaultLayer::new(Schedule::always("VISIBILITY_RESTRICTED")));
    let (status, _, body) = send(seeded, "/things?n=5&capped=1&require_complete=true", None).await;
    assert_eq!((status, reason_codes(&body)), (StatusCode::FORBIDDEN, both.map(str::to_owned).to_vec()), "{body}");
    // A malformed demand, or one given twice, reaches the route, which refuses it.
    for malformed in ["require_complete=maybe", "require_complete=true&require_complete=true"] {
        let uri = format!("/things?n=5&capped=1&{malformed}");
        let (status, _, body) = strict(app(), &uri, false, "VISIBILITY_RESTRICTED").await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("INVALID_REQUEST")),
            "{uri}: {body}"
        );
        assert_eq!(body["parameter"], "require_complete", "{uri}: {body}");
    }
}

#[tokio::test]
async fn a_route_gets_only_the_faults_it_declares() {
    let (status, _, body) =
        send(router().layer(FaultLayer::new(Schedule::header_only())), "/plain", Some("SOURCE_UNAVAILABLE")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("offered: VISIBILITY_RESTRICTED"), "{body}");

    let layer = FaultLayer::new(Schedule::seeded(3, 1.0));
    let app = router().layer(layer.clone());
    for _ in 0..40 {
        let (status, _, body) = send(app.clone(), "/plain", None).await;
        if status == StatusCode::OK {
            check_envelope_invariants(&body).unwrap();
        }
    }
    let applied: BTreeSet<String> = layer.log().iter().filter_map(|r| r.fault.as_ref().map(Fault::to_string)).collect();
    // What it declares, and what every read can meet: a newer server's reason, an outage.
    let expected = ["VISIBILITY_RESTRICTED", "FUTURE_REASON", "SERVICE_UNAVAILABLE"].map(str::to_owned);
    assert_eq!(applied, BTreeSet::from(expected));
}

#[tokio::test]
async fn the_header_works_only_where_the_layer_is_installed() {
    let (status, _, bare) = send(router(), "/things?n=6", Some("VISIBILITY_RESTRICTED")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(bare["complete"], true, "without the layer the header does nothing: {bare}");
    assert_eq!(ids(&bare).len(), 6);

    let app = router().layer(FaultLayer::new(Schedule::header_only()));
    let (_, _, faulted) = send(app.clone(), "/things?n=6", Some("VISIBILITY_RESTRICTED")).await;
    assert_eq!(faulted["complete"], false, "{faulted}");
    let (_, _, untouched) = send(app, "/things?n=6", None).await;
    assert_eq!(untouched, bare, "a header-only layer faults nothing else");
}

/// The outage every read a route declares can meet, a first page or a later one of a paginated
/// route: the `503` problem `SERVICE_UNAVAILABLE` in place of the answer, with a short
/// `Retry-After` and the `retry_after` continuation of as many seconds; nothing in it reads as a
/// list, empty or not.
#[tokio::test]
async fn an_outage_replaces_any_declared_read_with_a_503_that_says_when_to_ask_again() {
    use completeness::Reason;
    let layer = FaultLayer::new(Schedule::header_only());
    let app = router().layer(layer.clone());
    let reads = [
        "/things?n=6",
        "/things?n=6&more=1",
        "/things?n=6&more=1&cursor=c-1",
        "/things?n=6&require_complete=true",
        "/plain",
        "/tickets",
        "/budgeted",
        "/things/count",
    ];
    for uri in reads {
        let (status, retry_after, body) = send(app.clone(), uri, Some("SERVICE_UNAVAILABLE")).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{uri}: {body}");
        assert_eq!(body["code"], "SERVICE_UNAVAILABLE", "{uri}: {body}");
        assert_eq!((body["status"].clone(), body["title"].clone()), (json!(503), json!("Service unavailable")));
        assert_eq!(body["type"], "urn:completeness:problem:service-unavailable", "{body}");
        let seconds: u64 = retry_after.unwrap_or_else(|| panic!("{uri}: Retry-After")).parse().unwrap();
        assert!((1..=5).contains(&seconds), "{uri}: a short wait, {seconds} s");
        assert_eq!(body["continuation"], json!({"kind": "retry_after", "seconds": seconds}), "{uri}: {body}");
        for member in ["items", "tickets", "complete", "next_cursor", "count"] {
            assert!(body.get(member).is_none(), "{uri}: no {member} to read as an answer: {body}");
        }
    }
    let log = layer.log();
    assert_eq!(log.len(), reads.len());
    for record in &log {
        assert_eq!((record.fault.clone(), record.status), (Some(Fault::Unavailable), 503), "{record}");
        assert!(record.is_incomplete() && record.complete.is_none() && record.next_cursor.is_none(), "{record}");
    }
    // Offered last, on a first page, and on a later one of a route that pages.
    let offered = Fault::offered(&ListPlainReason::declared_set().unwrap(), false);
    assert_eq!(offered, [Fault::Reason(ReasonCode::VisibilityRestricted), Fault::FutureReason, Fault::Unavailable]);
    let offered = Fault::offered(&ListThingsReason::declared_set().unwrap(), false);
    assert_eq!(offered.last(), Some(&Fault::Unavailable), "{offered:?}");
    let continued = Fault::offered(&ListThingsReason::declared_set().unwrap(), true);
    assert_eq!(continued.last(), Some(&Fault::Unavailable), "{continued:?}");
    let unpaged = Fault::offered(&ListPlainReason::declared_set().unwrap(), true);
    assert!(!unpaged.contains(&Fault::Unavailable), "a cursor continues no traversal there: {unpaged:?}");
    // A request the layer cannot fault (a single resource) is refused the outage, as any fault.
    let single = Router::new()
        .route("/one", get(|| std::future::ready(completeness::Exempt::new("one thing", "a single resource"))).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
        .layer(FaultLayer::new(Schedule::header_only()));
    let (status, _, body) = send(single, "/one", Some("SERVICE_UNAVAILABLE")).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_REQUEST")), "{body}");
}

/// The reads of `/things` under `layer`, each preceded, when `interleave` is set, by requests
/// the layer cannot fault (a metrics scrape, `/openapi.json`, a health check, a single
/// resource, a write, an unknown path): the fault each read got, its schedule number, status
/// and body.
async fn reads_among_others(layer: &FaultLayer, interleave: bool) -> Vec<(String, Option<u64>, StatusCode, Value)> {
    let others = Router::new()
        .route("/metrics", axum::routing::get(|| async { "completeness_responses_total 1" }))
        .route("/openapi.json", axum::routing::get(|| async { axum::Json(json!({"openapi": "3.1.0"})) }))
        .route("/health", axum::routing::get(|| async { "ok" }))
        .route("/writes", axum::routing::post(|| async { StatusCode::CREATED }))
        .route(
            "/things/one",
            get(|| std::future::ready(completeness::Exempt::new("one thing", "a single resource"))).into(),
        )
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
    let app = router().merge(others).layer(layer.clone());
    let unfaultable = [
        (axum::http::Method::GET, "/metrics", StatusCode::OK),
        (axum::http::Method::GET, "/openapi.json", StatusCode::OK),
        (axum::http::Method::GET, "/health", StatusCode::OK),
        (axum::http::Method::GET, "/things/one", StatusCode::OK),
        (axum::http::Method::POST, "/writes", StatusCode::CREATED),
        (axum::http::Method::GET, "/nowhere", StatusCode::NOT_FOUND),
    ];
    let mut answers = Vec::new();
    for i in 0..30 {
        if interleave {
            for (method, uri, expected) in unfaultable.iter().cycle().skip(i).take(1 + i % 3) {
                let request = Request::builder().method(method.clone()).uri(*uri).body(Body::empty()).unwrap();
                let response = app.clone().oneshot(request).await.unwrap();
                assert_eq!(response.status(), *expected, "{method} {uri} passes through");
            }
        }
        let uri = match i % 3 {
            0 => "/things?n=6&more=1&cursor=c-1",
            1 => "/things?n=6",
            _ => "/things/count",
        };
        let (status, _, body) = send(app.clone(), uri, None).await;
        answers.push((status, body));
    }
    let reads = layer.log().into_iter().filter(|r| r.uri.starts_with("/things?") || r.uri == "/things/count");
    reads
        .zip(answers)
        .map(|(r, (status, body))| (r.fault.map_or("none".to_owned(), |f| f.to_string()), r.draw, status, body))
        .collect()
}

/// Only the requests the layer can fault move its schedule: a metrics scrape, `/openapi.json`,
/// a health check, a single resource, a write or a `404` between two reads changes neither
/// read's fault nor its shape, so the same seed misbehaves the same way again whatever else
/// the service is asked.
#[tokio::test]
async fn requests_the_layer_cannot_fault_do_not_move_its_schedule() {
    for schedule in [
        Schedule::seeded(42, 0.5),
        Schedule::sequence([Some("VISIBILITY_RESTRICTED"), None, Some("SERVICE_UNAVAILABLE")]),
    ] {
        let alone = reads_among_others(&FaultLayer::new(schedule.clone()), false).await;
        let layer = FaultLayer::new(schedule.clone());
        let among_others = reads_among_others(&layer, true).await;
        assert_eq!(alone.len(), 30);
        assert!(alone.iter().any(|(fault, ..)| fault != "none"), "{schedule}: some reads are faulted");
        assert_eq!(among_others, alone, "{schedule}: the same faults, the same answers");
        let draws: Vec<Option<u64>> = alone.iter().map(|(_, draw, ..)| *draw).collect();
        assert_eq!(draws, (0..30).map(Some).collect::<Vec<_>>(), "{schedule}: the reads alone are numbered");
        let log = layer.log();
        assert!(log.len() > 60, "{schedule}: the others were sent: {} requests", log.len());
        let others = log.iter().filter(|r| r.draw.is_none());
        assert!(others.clone().all(|r| r.fault.is_none() && r.offered.is_empty()), "{schedule}: none is faulted");
        assert_eq!(others.count(), log.len() - 30);
    }
}

async fn run_schedule(schedule: Schedule) -> Vec<(String, Value)> {
    let layer = FaultLayer::new(schedule);
    let app = router().layer(layer.clone());
    let mut answers = Vec::new();
    for i in 0..60 {
        let uri = if i % 3 == 0 { "/things?n=6&more=1&cursor=c-1" } else { "/things?n=6" };
        answers.push(send(app.clone(), uri, None).await.2);
    }
    layer.log().iter().map(|r| r.to_string()).zip(answers).collect()
}

#[tokio::test]
async fn the_same_seed_gives_the_same_faults() {
    let first = run_schedule(Schedule::seeded(42, 0.5)).await;
    let again = run_schedule(Schedule::seeded(42, 0.5)).await;
    assert_eq!(first, again);
    let other = run_schedule(Schedule::seeded(43, 0.5)).await;
    assert_ne!(first, other, "another seed, other faults");
    let faulted = first.iter().filter(|(line, _)| !line.contains("no fault")).count();
    assert!((10..=50).contains(&faulted), "about half the requests are faulted: {faulted} of 60");

    let sequence = Schedule::sequence([None, Some("QUOTA_EXHAUSTED"), Some("CURSOR_EXPIRED"), Some("UNDECLARED")]);
    let log = run_schedule(sequence).await;
    let faults: Vec<&str> = log.iter().take(5).map(|(line, _)| line.split(": ").nth(1).unwrap()).collect();
    assert!(faults[0].starts_with("no fault"), "{faults:?}");
    assert!(faults[1].starts_with("QUOTA_EXHAUSTED"), "{faults:?}");
    assert!(faults[2].starts_with("no fault"), "CURSOR_EXPIRED needs a cursor: {faults:?}");
    assert!(faults[3].starts_with("no fault"), "an undeclared fault is not applied: {faults:?}");
    assert!(faults[4].starts_with("no fault"), "past the end: {faults:?}");
}

#[test]
fn operator_schedules_are_parsed_or_refused_clearly() {
    assert_eq!("42".parse::<Schedule>().unwrap(), Schedule::seeded(42, 0.5));
    assert_eq!("7:0.25".parse::<Schedule>().unwrap(), Schedule::seeded(7, 0.25));
    assert_eq!("7:-0".parse::<Schedule>().unwrap().to_string(), "seed 7, probability 0", "minus zero is zero");
    for (bad, says) in [
        ("", "seed"),
        ("x", "seed"),
        ("-1", "seed"),
        ("3:2", "probability"),
        ("3:nan", "probability"),
        ("3:", "probability"),
    ] {
        let error = bad.parse::<Schedule>().unwrap_err();
        assert!(error.contains(says), "{bad:?}: {error}");
    }
}

fn things_page() -> impl Strategy<Value = (Value, bool)> {
    let rows = prop::collection::vec((0u32..1000, prop::sample::select(vec!["alpha", "beta", "gamma"])), 0..12);
    (rows, any::<bool>(), any::<bool>()).prop_map(|(rows, more, hidden)| {
        let items: Vec<Value> = rows.iter().map(|(id, source)| json!({"id": id, "source": source})).collect();
        let mut page: Envelope<Value, ListThingsReason> =
            Envelope::complete(items, Scope::new("things", "things readable by everyone"));
        if more {
            page.completeness.push_reason(completeness::reason::MorePagesAvailable::new("c-next"));
        }
        if hidden {
            page.completeness.push_reason(completeness::reason::VisibilityRestricted::new());
        }
        (serde_json::to_value(&page).unwrap(), more || hidden)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn faults_never_add_or_alter_items((page, incomplete) in things_page(), seed in any::<u64>(), n in 0u64..1000, cursor in any::<bool>(), pick in any::<prop::sample::Index>(), emptied in any::<bool>()) {
        use completeness::Reason;
        let declared = ListThingsReason::declared_set().unwrap();
        let offered = Fault::offered(&declared, cursor);
        let fault = &offered[pick.index(offered.len())];
        let facts = RequestFacts { has_cursor: cursor, time_budget_ms: Some(250), emptied, ..RequestFacts::default() };
        match inject(fault, &page, &declared, &facts, &mut shape_rng(seed, n)).unwrap() {
            // A page of items is always faulted, but for the first page again, which the
            // layer asks the route for.
            Faulted::Unchanged => prop_assert_eq!(fault, &Fault::Restarted),
            Faulted::Problem(problem) if *fault == Fault::Unavailable => {
                prop_assert_eq!(problem.status(), 503);
                prop_assert!(problem.retry_after().is_some_and(|s| (1..=5).contains(&s)), "{:?}", problem);
            }
            Faulted::Problem(problem) => {
                prop_assert_eq!(fault, &Fault::CursorExpired);
                prop_assert_eq!(problem.status(), 410);
            }
            Faulted::Page(faulted) => {
                let faulted = faulted.to_json();
                prop_assert!(check_envelope_invariants(&faulted).is_ok(), "{:?}", check_envelope_invariants(&faulted));
                let (kept, all) = (faulted["items"].as_array().unwrap(), page["items"].as_array().unwrap());
                prop_assert!(is_subsequence(kept, all), "{} is not a part of {}", faulted["items"], page["items"]);
                prop_assert_eq!(&faulted["evidence"], &Value::Null);
                prop_assert_eq!(&faulted["scope"], &page["scope"]);
                let codes: Vec<&Value> = faulted["incomplete_reasons"].as_array().unwrap().iter().map(|r| &r["code"]).collect();
                let hidden = codes.iter().filter(|c| **c == "VISIBILITY_RESTRICTED").count();
                prop_assert!(hidden <= 1, "one reason is not given twice: {:?}", codes);
                if matches!(fault, Fault::Reason(_) | Fault::FutureReason) {
                    prop_assert_eq!(&faulted["complete"], &json!(false));
                    // An emptied schedule's reason leaves the incomplete and empty page (but for
                    // a source unavailable, which names one source and takes its items only).
                    let one_source = *fault == Fault::Reason(ReasonCode::SourceUnavailable);
                    prop_assert!(!emptied || one_source || kept.is_empty(), "emptied, yet {} kept", faulted["items"]);
                } else {
                    prop_assert_eq!(&faulted["complete"], &json!(!incomplete));
                    prop_assert_eq!(kept, all);
                }
                // Same seed and request number, same answer.
                let again = inject(fault, &page, &declared, &facts, &mut shape_rng(seed, n)).unwrap();
                let Faulted::Page(again) = again else { unreachable!() };
                prop_assert_eq!(again.to_json(), faulted);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn faults_never_alter_an_aggregate_value(count in any::<u64>(), relation in prop::sample::select(vec![Relation::Exact, Relation::LowerBound, Relation::Estimate]), hidden in any::<bool>(), seed in any::<u64>(), pick in any::<prop::sample::Index>()) {
        use completeness::Reason;
        let mut block = completeness::Completeness::<CountThingsReason>::complete(Scope::new("things", "every thing"));
        if hidden {
            block.push_reason(completeness::reason::VisibilityRestricted::new());
        }
        let aggregate = serde_json::to_value(Aggregate::count(count, relation, block)).unwrap();
        let declared = CountThingsReason::declared_set().unwrap();
        let offered = Fault::offered(&declared, false);
        let fault = &offered[pick.index(offered.len())];
        let facts = RequestFacts::default();
        let faulted = inject(fault, &aggregate, &declared, &facts, &mut shape_rng(seed, 0)).unwrap();
        let faulted = match faulted {
            Faulted::Page(faulted) => faulted,
            // An outage replaces the count with its problem.
            Faulted::Problem(problem) if *fault == Fault::Unavailable => {
                prop_assert_eq!(problem.status(), 503);
                return Ok(());
            }
            _ => panic!("an aggregate is always faulted"),
        };
        let faulted = faulted.to_json();
        let strict: Aggregate<u64> = serde_json::from_value(faulted.clone()).map_err(|e| TestCaseError::fail(format!("{faulted}: {e}")))?;
        prop_assert_eq!(*strict.value(), count);
        prop_assert_eq!(&faulted["scope"], &aggregate["scope"]);
        let was = serde_json::from_value::<Aggregate<u64>>(aggregate.clone()).unwrap().relation();
        if matches!(fault, Fault::Reason(_) | Fault::FutureReason) {
            prop_assert!(!strict.completeness().is_complete());
            let lowered = if was == Relation::Exact { Relation::LowerBound } else { was };
            prop_assert_eq!(strict.relation(), lowered);
        } else {
            prop_assert_eq!(strict.relation(), was);
            prop_assert_eq!(strict.completeness().is_complete(), !hidden);
        }
    }
}

#[tokio::test]
async fn a_faulted_body_keeps_the_member_order_of_the_contract() {
    let app = router().layer(FaultLayer::new(Schedule::header_only()));
    let request = Request::get("/things?n=3").header(FAULT_HEADER, "QUOTA_EXHAUSTED").body(Body::empty()).unwrap();
    let body = to_bytes(app.oneshot(request).await.unwrap().into_body(), usize::MAX).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    let at = |member: &str| text.find(&format!("\"{member}\":")).unwrap_or_else(|| panic!("{member} in {text}"));
    let order = ["status", "complete", "truncated", "items", "incomplete_reasons", "continuation", "page", "evidence"];
    assert!(order.windows(2).all(|pair| at(pair[0]) < at(pair[1])), "{text}");
}

#[test]
fn weights_pick_among_faults_and_a_zero_weight_never_picks() {
    use completeness::ReasonCode;
    let offered = [
        Fault::Reason(ReasonCode::VisibilityRestricted),
        Fault::Reason(ReasonCode::SourceUnavailable),
        Fault::Reason(ReasonCode::QuotaExhausted),
    ];
    let schedule = Schedule::seeded(11, 1.0).weight("SOURCE_UNAVAILABLE", 0.0).weight("QUOTA_EXHAUSTED", 3.0);
    let picks: Vec<String> = (0..400).map(|n| schedule.choose(n, &offered).unwrap().to_string()).collect();
    let count = |name: &str| picks.iter().filter(|p| *p == name).count();
    assert_eq!(count("SOURCE_UNAVAILABLE"), 0);
    assert!(count("QUOTA_EXHAUSTED") > 2 * count("VISIBILITY_RESTRICTED"), "{picks:?}");
    assert!(count("VISIBILITY_RESTRICTED") > 0);
    assert!((0..100).all(|n| Schedule::seeded(11, 0.0).choose(n, &offered).is_none()), "probability 0: no fault");
}

#[test]
fn a_seed_draws_the_same_faults_on_every_platform() {
    use completeness::ReasonCode;
    let offered = [Fault::Reason(ReasonCode::VisibilityRestricted), Fault::CursorExpired];
    let drawn: String = (0..24)
        .map(|n| match Schedule::seeded(2026, 0.5).choose(n, &offered) {
            None => '.',
            Some(Fault::CursorExpired) => 'C',
            Some(_) => 'V',
        })
        .collect();
    // The draws are ChaCha streams keyed by seed and request number, pinned here.
    assert_eq!(drawn, "VCCVC..V.V...VC..C.....V");
}

/// A fault asked of a request the layer never faults is refused, not answered unfaulted as if
/// it had been applied: a write is refused before it runs (it changes nothing), a read of a
/// route that declares nothing to fault (a single resource) once it has answered. `none`, or no
/// header, passes.
#[tokio::test]
async fn a_fault_asked_of_a_request_that_offers_none_is_refused() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let writes = Arc::new(AtomicUsize::new(0));
    let counted = writes.clone();
    let app = || {
        let counted = counted.clone();
        let write = move || {
            counted.fetch_add(1, Ordering::SeqCst);
            std::future::ready(StatusCode::CREATED)
        };
        let single = || std::future::ready(completeness::Exempt::new("one thing", "a single resource"));
        Router::new()
            .route("/things", axum::routing::post(write))
            .route("/things/one", get(single).into())
            .with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
            .layer(FaultLayer::new(Schedule::header_only()))
    };
    let post = |fault: Option<&str>| {
        let mut request = Request::post("/things");
        if let Some(fault) = fault {
            request = request.header(FAULT_HEADER, fault);
        }
        request.body(Body::empty()).unwrap()
    };
    // The refusal is in the log, as the request it refused.
    let layer = FaultLayer::new(Schedule::header_only());
    let logged = Router::new().route("/things", axum::routing::post(|| std::future::ready(StatusCode::CREATED)));
    logged.layer(layer.clone()).oneshot(post(Some("SOURCE_UNAVAILABLE"))).await.unwrap();
    let log = layer.log();
    assert_eq!((log.len(), log[0].method.as_str(), log[0].status, log[0].draw), (1, "POST", 400, None), "{log:?}");
    for fault in ["SOURCE_UNAVAILABLE", "bogus"] {
        let response = app().oneshot(post(Some(fault))).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{fault}");
        let body: Value = serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
        assert_eq!(body["code"], "INVALID_REQUEST", "{body}");
        assert!(body["detail"].as_str().unwrap().contains("offers no fault"), "{body}");
        let (status, _, body) = send(app(), "/things/one", Some(fault)).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_REQUEST")), "{body}");
    }
    assert_eq!(writes.load(Ordering::SeqCst), 0, "a refused write did not run");
    for fault in [None, Some("none")] {
        assert_eq!(app().oneshot(post(fault)).await.unwrap().status(), StatusCode::CREATED, "{fault:?}");
        assert_eq!(send(app(), "/things/one", fault).await.0, StatusCode::OK, "{fault:?}");
    }
    assert_eq!(writes.load(Ordering::SeqCst), 2);
}

#[test]
fn a_warning_keeps_the_cursor_of_a_page_paged_by_the_services_own_reason() {
    use completeness::Reason;
    use completeness::WarningCode;
    // A page that a service's own truncation pages (contract §8): its cursor is that reason's.
    let page = json!({
        "status": "partial", "complete": false, "truncated": true, "items": [{"id": "a"}, {"id": "b"}],
        "incomplete_reasons": [{"code": "UPSTREAM_PAGED", "message": "The upstream has more.", "kind": "truncation"}],
        "continuation": {"kind": "next_cursor", "cursor": "c-2"},
        "next_cursor": "c-2",
        "page": {"returned": 2, "requested_size": 2, "applied_size": 2, "ordering": "id ascending",
                 "snapshot": "s-1", "cursor": {"freezes_snapshot": true, "expires_at": "2100-01-01T00:00:00Z",
                 "invalidated_by": ["filters"]}, "resumed": false},
        "scope": {"resource": "things", "visibility": "all", "snapshot": "s-1", "filters": {}},
        "warnings": [], "evidence": null
    });
    let declared = ListThingsReason::declared_set().unwrap();
    let facts = RequestFacts::default();
    let fault = Fault::Warning(WarningCode::StaleIndex);
    let Faulted::Page(faulted) = inject(&fault, &page, &declared, &facts, &mut shape_rng(7, 0)).unwrap() else {
        panic!("a warning fault changes the page");
    };
    let faulted = faulted.to_json();
    check_envelope_invariants(&faulted).unwrap_or_else(|v| panic!("{v:?}: {faulted}"));
    assert_eq!(faulted["warnings"][0]["code"], "STALE_INDEX", "{faulted}");
    assert_eq!(faulted["items"], page["items"]);
    // The traversal goes on where it would have: same reason, same cursor, same continuation.
    assert_eq!(faulted["incomplete_reasons"], page["incomplete_reasons"], "{faulted}");
    assert_eq!(faulted["next_cursor"], "c-2", "{faulted}");
    assert_eq!(faulted["continuation"], page["continuation"], "{faulted}");
    assert_eq!(faulted["page"]["cursor"], page["page"]["cursor"], "{faulted}");

    // A reason that does not end the traversal leaves its cursor too, also beside another
    // reason with a recovery of its own, which is then the continuation.
    let mut beside = page.clone();
    beside["incomplete_reasons"] = json!([
        {"code": "SOURCE_UNAVAILABLE", "message": "legacy did not answer", "source": "legacy"},
        {"code": "UPSTREAM_PAGED", "message": "The upstream has more.", "kind": "truncation"}
    ]);
    for (page, fault) in
        [(&page, Fault::Reason(ReasonCode::VisibilityRestricted)), (&beside, Fault::Warning(WarningCode::StaleIndex))]
    {
        let Faulted::Page(faulted) = inject(&fault, page, &declared, &facts, &mut shape_rng(7, 0)).unwrap() else {
            panic!("{fault:?} changes the page");
        };
        let faulted = faulted.to_json();
        check_envelope_invariants(&faulted).unwrap_or_else(|v| panic!("{fault:?}: {v:?}: {faulted}"));
        assert_eq!(faulted["next_cursor"], "c-2", "{fault:?}: {faulted}");
        assert_eq!(faulted["page"]["cursor"], page["page"]["cursor"], "{fault:?}: {faulted}");
    }

    // A fault that ends the traversal takes the cursor away with it.
    let fault = Fault::Reason(ReasonCode::SnapshotExpired);
    let Faulted::Page(ended) = inject(&fault, &page, &declared, &facts, &mut shape_rng(7, 0)).unwrap() else {
        panic!("a reason fault changes the page");
    };
    let ended = ended.to_json();
    check_envelope_invariants(&ended).unwrap_or_else(|v| panic!("{v:?}: {ended}"));
    assert_eq!(ended["next_cursor"], Value::Null, "{ended}");
}

/// `FUTURE_REASON`: a reason whose code no declaration of the route names, as a newer server
/// sends one. Drawn from the seed, it carries a kind of §3.4 or none; it takes items away
/// without adding or altering one, and the answer is incomplete as the contract's reader reads
/// it (a code without a kind as the most cautious, §3.4). A strict reader typed by the route's
/// own declaration refuses the whole answer.
#[test]
fn a_newer_servers_reason_is_reported_with_a_kind_or_none_and_only_removes_items() {
    use completeness::{Reason, ReasonKind};
    let declared = ListThingsReason::declared_set().unwrap();
    let items: Vec<Value> = (0..6).map(|id| json!({"id": id, "source": "alpha"})).collect();
    let mut page: Envelope<Value, ListThingsReason> =
        Envelope::complete(items, Scope::new("things", "things readable by everyone"));
    page.completeness.push_reason(completeness::reason::MorePagesAvailable::new("c-next"));
    let page = serde_json::to_value(&page).unwrap();
    let mut kinds = BTreeSet::new();
    for n in 0..60 {
        let facts = RequestFacts::default();
        let faulted = match inject(&Fault::FutureReason, &page, &declared, &facts, &mut shape_rng(5, n)).unwrap() {
            Faulted::Page(faulted) => faulted.to_json(),
            other => panic!("a collection is faulted: {other:?}"),
        };
        check_envelope_invariants(&faulted).unwrap_or_else(|v| panic!("{v:?}: {faulted}"));
        assert_eq!(faulted["complete"], false, "{faulted}");
        assert!(is_subsequence(faulted["items"].as_array().unwrap(), page["items"].as_array().unwrap()), "{faulted}");
        let reasons = faulted["incomplete_reasons"].as_array().unwrap();
        let future: Vec<&Value> = reasons.iter().filter(|r| r["code"] == "FUTURE_REASON").collect();
        assert_eq!(future.len(), 1, "{faulted}");
        assert!(future[0]["message"].as_str().is_some_and(|m| !m.is_empty()), "{faulted}");
        let kind = future[0].get("kind").map(|kind| kind.as_str().unwrap().to_owned());
        kinds.insert(kind.clone().unwrap_or_else(|| "none".to_owned()));
        // Read as the contract's reader reads a code it does not know.
        let read: Envelope<Value> = serde_json::from_value(faulted.clone()).unwrap();
        assert!(!read.completeness.is_complete());
        let reason = read.completeness.reasons().iter().find(|r| r.code().as_str() == "FUTURE_REASON").unwrap();
        let expected = kind.as_deref().map_or(ReasonKind::Unknown, |kind| ReasonKind::parse(kind).unwrap());
        assert_eq!(reason.kind(), expected, "{faulted}");
        assert_ne!(decide(&read, Intent::ClaimAbsence), Decision::Proceed, "{faulted}");
        // A snapshot's reason ends the traversal; the others leave the next page.
        assert_eq!(faulted["next_cursor"].is_null(), kind.as_deref() == Some("snapshot"), "{faulted}");
        // Refused whole by a reader typed by the route's own declaration.
        assert!(serde_json::from_value::<Envelope<Value, ListThingsReason>>(faulted.clone()).is_err(), "{faulted}");
    }
    let every = ["none", "truncation", "budget", "source", "visibility", "snapshot"].map(str::to_owned);
    assert_eq!(kinds, BTreeSet::from(every), "the seed draws each kind, and none");
}

/// A kit's layer offers `FUTURE_REASON` on every read; a serving one, whose answers stay within
/// the service's published schemas, never: the header naming it is refused there, and a
/// schedule never draws it.
#[tokio::test]
async fn a_serving_layer_never_reports_a_reason_the_route_does_not_declare() {
    let (status, _, body) =
        send(router().layer(FaultLayer::new(Schedule::header_only())), "/things?n=6", Some("FUTURE_REASON")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["incomplete_reasons"][0]["code"], "FUTURE_REASON", "{body}");
    let config = CompletenessConfig::new(CursorKeys::ephemeral());
    let serving = router().layer(FaultLayer::serving(Schedule::header_only(), &config));
    let (status, _, body) = send(serving, "/things?n=6", Some("FUTURE_REASON")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let offered = body["detail"].as_str().unwrap().split("(offered: ").nth(1).unwrap().to_owned();
    assert!(offered.contains("VISIBILITY_RESTRICTED") && !offered.contains("FUTURE_REASON"), "{body}");
    // The seed that draws it on a kit's layer never does on a serving one.
    for (serves, layer) in [
        (false, FaultLayer::new(Schedule::seeded(3, 1.0))),
        (true, FaultLayer::serving(Schedule::seeded(3, 1.0), &config)),
    ] {
        let app = router().layer(layer);
        let mut drawn = 0;
        for _ in 0..60 {
            let (_, _, body) = send(app.clone(), "/plain", None).await;
            drawn += usize::from(body.to_string().contains("FUTURE_REASON"));
        }
        assert_eq!(drawn == 0, serves, "serving: {serves}, FUTURE_REASON drawn {drawn} times of 60");
    }
}

/// A problem's wait is read wherever it is given: a `Retry-After` as an HTTP date (the seconds
/// until it, 0 once past), and a `retry_after` continuation in the body of a problem the layer
/// did not fault (as an MCP tool error carries it), the longer when both are given.
#[tokio::test]
async fn the_wait_of_a_problem_is_read_from_an_http_date_and_from_its_body() {
    fn problem(retry_after: Option<String>, seconds: Option<u64>) -> axum::response::Response {
        let mut body =
            json!({"type": "about:blank", "title": "Later", "status": 503, "code": "BUSY", "detail": "later"});
        if let Some(seconds) = seconds {
            body["continuation"] = json!({"kind": "retry_after", "seconds": seconds});
        }
        let mut response = (StatusCode::SERVICE_UNAVAILABLE, body.to_string()).into_response();
        let headers = response.headers_mut();
        headers.insert("content-type", "application/problem+json".parse().unwrap());
        if let Some(value) = retry_after {
            headers.insert("retry-after", value.parse().unwrap());
        }
        response
    }
    use axum::response::IntoResponse;
    let date = |from_now: i64| {
        let at = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(from_now);
        jiff::fmt::rfc2822::DateTimePrinter::new().timestamp_to_rfc9110_string(&at).unwrap()
    };
    let app = Router::new()
        .route("/date", axum::routing::get(move || async move { problem(Some(date(4)), None) }))
        .route("/past", axum::routing::get(move || async move { problem(Some(date(-60)), None) }))
        .route("/body", axum::routing::get(|| async { problem(None, Some(7)) }))
        .route("/both", axum::routing::get(|| async { problem(Some("2".to_owned()), Some(7)) }))
        .route("/seconds", axum::routing::get(|| async { problem(Some("3".to_owned()), None) }));
    let layer = FaultLayer::new(Schedule::header_only());
    let app = app.layer(layer.clone());
    for uri in ["/date", "/past", "/body", "/both", "/seconds"] {
        let (status, _, body) = send(app.clone(), uri, None).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::SERVICE_UNAVAILABLE, Some("BUSY")),
            "{uri}: sent as it is"
        );
    }
    let waits: Vec<(String, Option<u64>)> = layer.log().into_iter().map(|r| (r.uri, r.wait)).collect();
    // The date names a whole second 3 to 4 s after the answer left: 2 or 3 whole seconds.
    assert!(matches!(waits[0].1, Some(2 | 3)), "{waits:?}");
    assert_eq!(
        waits[1..],
        [
            ("/past".to_owned(), Some(0)),
            ("/body".to_owned(), Some(7)),
            ("/both".to_owned(), Some(7)),
            ("/seconds".to_owned(), Some(3))
        ],
        "{waits:?}"
    );
}

/// Echoes the `shade` it is asked for as a filter.
#[completeness(resource = "colours", reasons(VisibilityRestricted))]
async fn list_colours(
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Envelope<String, ListColoursReason> {
    let mut scope = Scope::new("colours", "every colour");
    if let Some((_, shade)) = query.iter().find(|(name, _)| name == "shade") {
        scope = scope.with_filter("shade", shade.as_str());
    }
    Envelope::complete(vec!["teal".to_owned(), "umber".to_owned()], scope)
}

/// `list_things`'s answer to `query`, as a call outside HTTP (an MCP tool's) computes it.
async fn things(query: &[(&str, &str)]) -> Envelope<Value, ListThingsReason> {
    let query = query.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect();
    list_things(axum::extract::Query(query)).await
}

/// `GET uri`, the request a call outside HTTP stands for.
fn stands_for(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

/// An answer given outside HTTP is faulted as the route's `GET` would be: a reason added and
/// items removed, a problem for an outage (with its wait), the first page again for a cursor
/// (the call's own first page); a fault only the route can answer (another question) is a
/// problem that says so, never another answer passed off as the route's.
#[tokio::test]
async fn an_answer_given_outside_http_is_faulted_as_its_route_would_be() {
    let layer = |fault: &str| FaultLayer::new(Schedule::always(fault));
    let first_page = || async { Ok(things(&[("n", "4"), ("more", "1")]).await) };

    let answer = things(&[("n", "6")]).await;
    let faulted = layer("VISIBILITY_RESTRICTED")
        .fault_answer(stands_for("/things?n=6"), answer, first_page)
        .await
        .expect("a faulted answer");
    assert!(!faulted.is_complete());
    assert_eq!(faulted.completeness.reason_codes(), [ReasonCode::VisibilityRestricted]);
    assert!(faulted.items.len() < 6, "items removed: {:?}", faulted.items);

    let answer = things(&[("n", "6")]).await;
    let outage = layer("SERVICE_UNAVAILABLE").fault_answer(stands_for("/things?n=6"), answer, first_page).await;
    let problem = outage.expect_err("an outage is a problem");
    assert_eq!((problem.code().as_str(), problem.status()), ("SERVICE_UNAVAILABLE", 503));
    assert!(problem.retry_after().is_some_and(|seconds| (1..=5).contains(&seconds)), "{problem:?}");

    let answer = things(&[("n", "2"), ("more", "1"), ("cursor", "c-1")]).await;
    let again = layer("TRAVERSAL_RESTARTED")
        .fault_answer(stands_for("/things?n=2&more=1&cursor=c-1"), answer, first_page)
        .await
        .expect("the first page");
    assert_eq!(again.completeness.page().and_then(|page| page.resumed), Some(false));
    assert_eq!(again.items.len(), 4, "the call's own first page: {:?}", again.items);

    // The budget the call was read under, carried by the request, is the one the fault states,
    // with the deadline a larger budget gives.
    let budget = TimeBudget::new(Duration::from_millis(2_000), Duration::from_secs(MAX_BUDGET_SECS));
    let mut request = stands_for("/budgeted");
    request.extensions_mut().insert(budget);
    let ran_out = layer("TIME_BUDGET_EXCEEDED")
        .fault_answer(request, list_budgeted(budget).await, move || async move { Ok(list_budgeted(budget).await) })
        .await
        .expect("a faulted answer");
    let reason = serde_json::to_value(&ran_out.completeness.reasons()[0]).unwrap();
    assert_eq!(reason["budget_ms"], 2_000, "{reason}");
    let continuation = serde_json::to_value(ran_out.completeness.continuation()).unwrap();
    assert_eq!(continuation, json!({"kind": "retry_with_deadline", "minimum_seconds": 4}), "{continuation}");

    let query = vec![("shade".to_owned(), "dark".to_owned())];
    let answer = list_colours(axum::extract::Query(query.clone())).await;
    let wider = || async move { Ok(list_colours(axum::extract::Query(query)).await) };
    let dropped = layer("FILTER_DROPPED").fault_answer(stands_for("/colours?shade=dark"), answer, wider).await;
    let problem = dropped.expect_err("another question cannot be answered here");
    assert_eq!(problem.status(), 500);
    assert!(problem.detail().contains("FILTER_DROPPED"), "{problem:?}");
}

/// A single resource with fields it may leave out (contract §2.7): `owner_email` left out for
/// every caller but `?admin`, `last_used_at` filled (`null`, a genuine null, for `sa-never`).
#[derive(Debug, Clone, PartialEq, completeness::ResultEnvelope)]
pub struct Account {
    id: String,
    owner: Option<String>,
    owner_email: completeness::Field<String>,
    last_used_at: completeness::Field<String>,
    warnings: Vec<completeness::Warning>,
}

async fn account(
    axum::extract::Path(id): axum::extract::Path<String>,
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Account {
    use completeness::{Field, Omission};
    let admin = query.iter().any(|(name, _)| name == "admin");
    let owner_email =
        if admin { Field::Filled("a@example.test".to_owned()) } else { Field::Omitted(Omission::NoAccess) };
    let last_used_at = if id == "sa-never" { Field::Null } else { Field::Filled("2026-11-01T00:00:00Z".to_owned()) };
    let warnings = if admin {
        Vec::new()
    } else {
        vec![completeness::warning::PartialFieldSet::new(&["owner_email"], &[]).into()]
    };
    Account { id, owner: None, owner_email, last_used_at, warnings }
}

/// The accounts router, with `/things/one`, a resource that may leave no field out.
fn accounts() -> Router {
    Router::new()
        .route("/accounts/{id}", get(account).into())
        .route(
            "/things/one",
            get(|| std::future::ready(completeness::Exempt::new("one thing", "a single resource"))).into(),
        )
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
}

/// `FIELD_OMITTED` leaves a field the resource filled out as the contract says a server does
/// (§2.7): `null`, listed in `omitted_fields` with `NO_ACCESS` or `SOURCE_FAILED`, named in its
/// `PARTIAL_FIELD_SET` warning; every other member as the handler wrote it. A field the
/// resource left out itself is never drawn; emptied, every field it filled is left out; a
/// resource that fills none offers only the outage.
#[tokio::test]
async fn a_single_resource_gets_a_field_left_out() {
    let app = accounts().layer(FaultLayer::new(Schedule::header_only()));
    let (_, _, whole) = send(app.clone(), "/accounts/sa-1?admin", None).await;
    assert_eq!(whole["omitted_fields"], json!({}), "{whole}");
    let mut left_out = BTreeSet::new();
    for n in 0..40 {
        let layer = FaultLayer::new(Schedule::seeded(n, 1.0).weight("SERVICE_UNAVAILABLE", 0.0));
        let (status, _, body) = send(accounts().layer(layer.clone()), "/accounts/sa-1?admin", None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let listed = body["omitted_fields"].as_object().unwrap();
        assert_eq!(listed.len(), 1, "one field: {body}");
        let (name, why) = listed.iter().next().unwrap();
        assert!(["owner_email", "last_used_at"].contains(&name.as_str()), "{body}");
        assert!(["NO_ACCESS", "SOURCE_FAILED"].contains(&why.as_str().unwrap()), "{body}");
        assert_eq!(body[name], Value::Null, "{body}");
        let warning = &body["warnings"][0];
        assert_eq!((warning["code"].as_str(), &warning["fields"]), (Some("PARTIAL_FIELD_SET"), &json!([name])));
        // The rest as the handler wrote it.
        let mut rest = body.as_object().unwrap().clone();
        let mut expected = whole.as_object().unwrap().clone();
        for member in [name.as_str(), "omitted_fields", "warnings"] {
            rest.remove(member);
            expected.remove(member);
        }
        assert_eq!(rest, expected);
        let record = &layer.log()[0];
        assert_eq!((record.fault.clone(), record.draw), (Some(Fault::FieldOmitted), Some(0)), "{record}");
        assert_eq!(record.offered, [Fault::FieldOmitted, Fault::Unavailable]);
        assert!(record.omitted.as_ref().unwrap().0.contains_key(name), "{record}");
        assert!(record.to_string().contains(&format!("fields left out: {name} ({why})").replace('"', "")), "{record}");
        left_out.insert((name.clone(), why.as_str().unwrap().to_owned()));
    }
    assert_eq!(left_out.len(), 4, "each field, each code: {left_out:?}");

    // Its members as the handler wrote them, in order: it reads, and compares, the same.
    let request = Request::get("/accounts/sa-1?admin").header(FAULT_HEADER, "FIELD_OMITTED; emptied");
    let response = app.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let text = String::from_utf8(to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec()).unwrap();
    let at = |member: &str| text.find(&format!("\"{member}\":")).unwrap_or_else(|| panic!("{member}: {text}"));
    let order = ["id", "owner", "owner_email", "last_used_at", "warnings", "omitted_fields"].map(at);
    assert!(order.is_sorted(), "in the handler's order: {text}");

    // Left out by the service already: only the other is drawn; its warning names both.
    let (_, _, body) = send(app.clone(), "/accounts/sa-1", Some("FIELD_OMITTED")).await;
    let listed = body["omitted_fields"].as_object().unwrap();
    assert_eq!(listed["owner_email"], "NO_ACCESS", "{body}");
    assert!(listed.contains_key("last_used_at") && body["last_used_at"].is_null(), "{body}");
    assert_eq!(body["warnings"][0]["fields"], json!(["owner_email", "last_used_at"]), "{body}");
    // Emptied, every field filled with a value is left out; a genuine null is not drawn (left
    // out, it would read the same to a client that takes it for a genuine one).
    let (_, _, body) = send(app.clone(), "/accounts/sa-1?admin", Some("FIELD_OMITTED; emptied")).await;
    let listed: BTreeSet<&str> = body["omitted_fields"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(listed, BTreeSet::from(["last_used_at", "owner_email"]), "emptied: every field filled: {body}");
    assert!(body["owner_email"].is_null() && body["last_used_at"].is_null(), "{body}");
    assert_eq!(body["warnings"][0]["code"], "PARTIAL_FIELD_SET", "a warning added where there was none: {body}");
    let (_, _, body) = send(app.clone(), "/accounts/sa-never?admin", Some("FIELD_OMITTED; emptied")).await;
    let listed: BTreeSet<&str> = body["omitted_fields"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(listed, BTreeSet::from(["owner_email"]), "its genuine null stays one: {body}");
    // Nothing filled with a value: the outage alone is offered.
    let (status, _, body) = send(app.clone(), "/accounts/sa-never", Some("FIELD_OMITTED")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("(offered: SERVICE_UNAVAILABLE)"), "{body}");
    // The outage, as on a collection: a 503 problem with its wait.
    let (status, retry_after, body) = send(app.clone(), "/accounts/sa-1", Some("SERVICE_UNAVAILABLE")).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("SERVICE_UNAVAILABLE")));
    assert!(retry_after.is_some(), "{body}");
    // A fault a resource does not offer is refused, saying what it offers.
    let (status, _, body) = send(app.clone(), "/accounts/sa-1", Some("VISIBILITY_RESTRICTED")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("FIELD_OMITTED, SERVICE_UNAVAILABLE"), "{body}");
    // A resource that may leave no field out offers none, and takes no schedule number.
    let (status, _, body) = send(app.clone(), "/things/one", Some("FIELD_OMITTED")).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_REQUEST")), "{body}");
    let layer = FaultLayer::new(Schedule::seeded(1, 1.0));
    let app = accounts().layer(layer.clone());
    send(app.clone(), "/things/one", None).await;
    send(app.clone(), "/accounts/sa-2?admin", None).await;
    let draws: Vec<Option<u64>> = layer.log().iter().map(|record| record.draw).collect();
    assert_eq!(draws, [None, Some(0)]);
}

/// `Account`'s wire form, read back: each `Field` a plain option, the fields left out beside.
#[derive(serde::Deserialize)]
struct AccountWire {
    id: String,
    owner: Option<String>,
    owner_email: Option<String>,
    last_used_at: Option<String>,
    warnings: Vec<completeness::Warning>,
    omitted_fields: completeness::OmittedFields,
}

/// As a client reads it: a field listed in `omitted_fields` is left out (contract §2.7).
impl<'de> serde::Deserialize<'de> for Account {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = AccountWire::deserialize(deserializer)?;
        let left_out = &wire.omitted_fields;
        Ok(Account {
            id: wire.id,
            owner: wire.owner,
            owner_email: left_out.restore("owner_email", wire.owner_email),
            last_used_at: left_out.restore("last_used_at", wire.last_used_at),
            warnings: wire.warnings,
        })
    }
}

/// The same resource, read back carelessly: a `null` is a genuine null, `omitted_fields` unread.
#[derive(Debug, Clone, PartialEq, completeness::ResultEnvelope)]
pub struct CarelessAccount {
    id: String,
    owner: Option<String>,
    owner_email: completeness::Field<String>,
    last_used_at: completeness::Field<String>,
    warnings: Vec<completeness::Warning>,
}

impl<'de> serde::Deserialize<'de> for CarelessAccount {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = AccountWire::deserialize(deserializer)?;
        let field = completeness::Field::from_option;
        Ok(CarelessAccount {
            id: wire.id,
            owner: wire.owner,
            owner_email: field(wire.owner_email),
            last_used_at: field(wire.last_used_at),
            warnings: wire.warnings,
        })
    }
}

/// A single resource has no first page: the layer never asks for it.
fn no_first_page<A>() -> std::future::Ready<Result<A, completeness::Problem>> {
    std::future::ready(Err(completeness::Problem::new(completeness::ProblemCode::Internal, "no first page")))
}

/// A single resource given outside HTTP is faulted as its `GET` is, read back as its type: one
/// that reads `omitted_fields` gets the field left out; one that would read its `null` as a
/// genuine one gets a 500 problem that says so, never an answer that lost what was left out.
#[tokio::test]
async fn a_single_resource_given_outside_http_is_faulted_and_must_be_read_back_with_what_it_left_out() {
    use completeness::{Field, Omission, ReportsCompleteness};
    let layer = FaultLayer::new(Schedule::always("FIELD_OMITTED").emptied());
    let read = |id: &str| {
        account(axum::extract::Path(id.to_owned()), axum::extract::Query(vec![("admin".into(), String::new())]))
    };
    let faulted = layer
        .fault_answer(stands_for("/accounts/sa-1?admin"), read("sa-1").await, no_first_page)
        .await
        .expect("a faulted account");
    assert!(matches!(faulted.owner_email, Field::Omitted(Omission::NoAccess | Omission::SourceFailed)), "{faulted:?}");
    assert!(matches!(faulted.last_used_at, Field::Omitted(_)), "{faulted:?}");
    let omitted = faulted.single_report().unwrap().omitted;
    assert_eq!(omitted.0.len(), 2, "{omitted:?}");

    let careless = |account: Account| CarelessAccount {
        id: account.id,
        owner: account.owner,
        owner_email: account.owner_email,
        last_used_at: account.last_used_at,
        warnings: account.warnings,
    };
    let lost =
        layer.fault_answer(stands_for("/accounts/sa-1?admin"), careless(read("sa-1").await), no_first_page).await;
    let problem = lost.expect_err("a field left out would be read as a genuine null");
    assert_eq!(problem.status(), 500);
    assert!(problem.detail().contains("but its type reads back none left out"), "{problem:?}");
    assert!(problem.detail().contains("OmittedFields::restore"), "{problem:?}");
    // Unfaulted, the careless type reads back what was sent: nothing was left out.
    let unfaulted = FaultLayer::new(Schedule::header_only())
        .fault_answer(stands_for("/accounts/sa-1?admin"), careless(read("sa-1").await), no_first_page)
        .await
        .expect("the account as it was");
    assert!(matches!(unfaulted.last_used_at, Field::Filled(_)), "{unfaulted:?}");
}
