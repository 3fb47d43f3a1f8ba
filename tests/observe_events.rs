//! What operators see, through a real Router: the tracing events of a partial answer, a
//! complete answer, a forged cursor, refused evidence and a strict refusal, with their fields
//! and without any token text; and the counters they add, in a local Prometheus recorder.

use crate::observe_support;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use completeness::config::CompletenessConfig;
use completeness::cursor::{CursorKeys, QueryBinding};
use completeness::observe::{EntryPoint, zero_counters, zero_single_resource_counters};
use completeness::page_request::PageRequest;
use completeness::reason::{MorePagesAvailable, Reason, SourceUnavailable};
use completeness::routing::{get, post};
use completeness::testing::faults::{FAULT_HEADER, FaultLayer, Schedule};
use completeness::warning::{PageSizeReduced, PartialFieldSet};
use completeness::{
    AcceptsWarning, Completeness, Credential, Envelope, Exempt, Field, Omission, Problem, ProblemCode, RequireComplete,
    RequireEvidence, ResultEnvelope, Scope, StandardReason, Warning, completeness,
};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};
use observe_support::{Capture, Captured, series, value};
use serde::Deserialize;
use tower::ServiceExt;
use tracing::Level;
use tracing_subscriber::layer::SubscriberExt;

#[completeness(resource = "accounts", reasons(SourceUnavailable))]
async fn partial() -> Envelope<String, PartialReason> {
    Envelope::incomplete(vec!["a".into(), "b".into()], Scope::new("", "all"), SourceUnavailable::new("legacy"))
}

#[completeness(resource = "accounts", reasons(SourceUnavailable))]
async fn empty_partial() -> Envelope<String, EmptyPartialReason> {
    Envelope::incomplete(vec![], Scope::new("", "all"), SourceUnavailable::new("legacy"))
}

/// A source of the service's own kind: its member `source` names it.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "SHARD_OFFLINE", kind = source, message = "Shard {source} is offline.")]
struct ShardOffline {
    source: String,
}

/// Three sources down, one of them with a name that would split a log line, and a permission
/// filter, which names no source.
#[completeness(resource = "accounts", reasons(SourceUnavailable, VisibilityRestricted, ShardOffline))]
async fn sources_down() -> Envelope<String, SourcesDownReason> {
    let completeness = Completeness::incomplete(Scope::new("", "all"), SourceUnavailable::new("directory"))
        .with_reason(completeness::reason::VisibilityRestricted::default())
        .with_reason(ShardOffline { source: "shard-7".into() })
        .with_reason(SourceUnavailable::new("legacy\nevent=forged"));
    Envelope::new(vec![], completeness)
}

#[completeness(resource = "accounts", reasons(SourceUnavailable))]
async fn complete() -> Envelope<String, CompleteReason> {
    Envelope::complete(vec!["a".into()], Scope::new("", "all"))
}

#[completeness(resource = "accounts", reasons(SourceUnavailable))]
async fn empty_complete() -> Envelope<String, EmptyCompleteReason> {
    Envelope::complete(vec![], Scope::new("", "all"))
}

/// A derived envelope with two data fields, routed without `#[completeness]`.
#[derive(ResultEnvelope)]
struct Hits {
    hits: Vec<String>,
    sources: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness<StandardReason>,
}

async fn hits() -> Hits {
    let completeness = Completeness::incomplete(Scope::new("hits", "all"), SourceUnavailable::new("legacy"));
    Hits { hits: vec!["a".into()], sources: vec!["directory".into()], completeness }
}

/// A problem relayed from an upstream, with whatever code it had.
async fn upstream(axum::extract::Path(code): axum::extract::Path<String>) -> Result<Envelope<String>, Problem> {
    Err(Problem::new(ProblemCode::parse(&code), "the upstream refused"))
}

/// A refusal with a code of the service's own, written in its code: one of a bounded set.
async fn draining() -> Result<Envelope<String>, Problem> {
    Err(Problem::new(ProblemCode::custom("SHARD_DRAINING"), "the shard is draining").with_status(503))
}

/// A gateway's answer: an upstream page relayed as it came, with the upstream's own codes.
async fn relayed(axum::extract::Path(shard): axum::extract::Path<u32>) -> Envelope<String> {
    let code = format!("SHARD_{shard}_DOWN");
    let upstream = Envelope::<String>::complete(vec![], Scope::new("hits", "all"));
    let mut wire = serde_json::to_value(upstream).unwrap();
    wire["complete"] = serde_json::json!(false);
    wire["status"] = serde_json::json!("partial");
    wire["incomplete_reasons"] = serde_json::json!([{"code": code, "message": "a shard is down"}]);
    serde_json::from_value(wire).unwrap()
}

/// Odd numbers below 100, paged.
async fn numbers(request: PageRequest) -> Result<Envelope<u32>, Problem> {
    odd_numbers(request)
}

/// The page of odd numbers below 100 that `request` asks for, over any reason type.
fn odd_numbers<R>(request: PageRequest) -> Result<Envelope<u32, R>, Problem>
where
    R: Reason + From<MorePagesAvailable> + AcceptsWarning<PageSizeReduced>,
{
    let scope = Scope::new("numbers", "all numbers");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    let after: u32 = page.position().map_or(Ok(0), |p| p.parse().map_err(|_| page.unreadable_position()))?;
    let rows: Vec<u32> = (after + 1..100).filter(|n| n % 2 == 1).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, |n| n.to_string()))
}

/// [`numbers`], declared: the fault layer faults only what a route declares.
#[completeness(resource = "numbers", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn declared_numbers(request: PageRequest) -> Result<Envelope<u32, DeclaredNumbersReason>, Problem> {
    odd_numbers(request)
}

#[derive(Debug, Deserialize)]
struct ArchiveBody {
    #[allow(dead_code)] // refused before it is read
    ids: Vec<String>,
}

async fn archive(_: RequireEvidence<ArchiveBody>) -> Exempt<StatusCode> {
    Exempt::new(StatusCode::NO_CONTENT, "an action, not a list")
}

/// An action that verifies its evidence, then refuses what it was asked to act on.
async fn archive_refused(_: RequireEvidence<ArchiveBody>) -> completeness::Problem {
    completeness::Problem::new(completeness::ProblemCode::TargetNotInEvidence, "not in the inventory")
}

/// A list behind a struct of the service's own: no type the derive reads says it is one.
#[derive(serde::Serialize)]
struct Members(Vec<String>);

/// A list one struct deep: the roster holds one beside a scalar.
#[derive(serde::Serialize)]
struct Roster {
    updated: u64,
    on_call: Vec<String>,
}

/// A single resource that hides a list in `members` and another one struct deep in `roster`,
/// beside a `Value` holding an object of no array and a fixed-size array, which are no lists.
#[derive(ResultEnvelope)]
struct Team {
    name: String,
    members: Members,
    roster: Roster,
    settings: serde_json::Value,
    corners: [u32; 2],
}

async fn team() -> Team {
    let settings = serde_json::json!({"owner": "ana", "limits": {"max": 2}});
    let roster = Roster { updated: 1, on_call: vec!["bo".into()] };
    Team { name: "north".into(), members: Members(vec!["ana".into(), "bo".into()]), roster, settings, corners: [1, 2] }
}

/// The same list, declared bounded: the service says why it cannot grow.
#[derive(ResultEnvelope)]
struct BoundedTeam {
    name: String,
    #[envelope(bounded = "a team has at most two members")]
    members: Members,
}

async fn bounded_team() -> BoundedTeam {
    BoundedTeam { name: "north".into(), members: Members(vec!["ana".into()]) }
}

/// A single resource with fields it may leave out, and its warnings.
#[derive(ResultEnvelope)]
struct Account {
    id: String,
    owner: Field<String>,
    last_used_at: Field<String>,
    warnings: Vec<Warning>,
}

/// `/account/{case}`: `failed`, a source failed and a field was not asked for; `asked`, only a
/// field not asked for is left out; `whole`, every field is filled.
async fn account(axum::extract::Path(case): axum::extract::Path<String>) -> Account {
    let not_requested = Field::Omitted(Omission::NotRequested);
    let (owner, last_used_at) = match case.as_str() {
        "failed" => (not_requested, Field::Omitted(Omission::SourceFailed)),
        "asked" => (not_requested, Field::Filled("2026-12-01".into())),
        _ => (Field::Filled("ana".into()), Field::Filled("2026-12-01".into())),
    };
    let warnings = match owner {
        Field::Omitted(_) => vec![PartialFieldSet::new(&["owner"], &["owner"]).into()],
        _ => vec![],
    };
    Account { id: "sa-1".into(), owner, last_used_at, warnings }
}

async fn authenticate(mut request: Request, next: Next) -> Response {
    request.extensions_mut().insert(Credential::new("north", 1).with_tenant("north"));
    next.run(request).await
}

fn app() -> Router {
    Router::new()
        .route("/partial", get(partial).into())
        .route("/empty-partial", get(empty_partial).into())
        .route("/sources-down", get(sources_down).into())
        .route("/complete", get(complete).into())
        .route("/numbers", get(numbers).into())
        .route("/declared-numbers", get(declared_numbers).into())
        .route("/archive", post(archive).into())
        .route("/archive-refused", post(archive_refused).into())
        .route("/hits", get(hits).into())
        .route("/relayed/{shard}", get(relayed).into())
        .route("/upstream/{code}", get(upstream).into())
        .route("/draining", get(draining).into())
        .route("/team", get(team).into())
        .route("/account/{case}", get(account).into())
        .route("/bounded-team", get(bounded_team).into())
        // axum's own routing: the layer is installed by hand (twice here: observed once all the same).
        .route("/plain/{id}", axum::routing::get(empty_complete))
        .route_layer(completeness::observe::layer())
        .route_layer(middleware::from_fn(authenticate))
        .layer(completeness::observe::layer())
        .with_state(CompletenessConfig::new(KEYS.clone()).with_page_sizes(5, 10))
}

/// The keys of [`app`]'s settings, one ring for the process: a test signs with them what the
/// app verifies.
static KEYS: std::sync::LazyLock<CursorKeys> = std::sync::LazyLock::new(CursorKeys::ephemeral);

/// A service without authentication: its settings give requests the anonymous credential.
fn anonymous_app() -> Router {
    Router::new()
        .route("/numbers", get(numbers).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential())
}

/// A service that forgot both authentication and `with_anonymous_credential()`.
fn unauthenticated_app() -> Router {
    Router::new().route("/numbers", get(numbers).into()).with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
}

/// A request without a credential where one is needed is the client's 401, and the first one
/// of the settings tells the operator what is missing (an authentication that inserts no
/// `Credential`, or no anonymous credential), once: every such request has the same cause.
#[test]
fn the_first_request_without_a_credential_tells_the_operator_once() {
    let (capture, _, statuses) = run_on(unauthenticated_app, vec![get_request("/numbers"), get_request("/numbers")]);
    assert_eq!(statuses, [StatusCode::UNAUTHORIZED, StatusCode::UNAUTHORIZED]);
    let event = only(capture.of_kind("credential_missing"));
    assert_eq!((event.level, event.field("route"), event.field("method")), (Level::WARN, "/numbers", "GET"));
    let message = event.field("message");
    assert!(
        message.contains("with_anonymous_credential()") && message.contains("completeness::Credential"),
        "{message}"
    );
    // A service with an anonymous credential has nothing to be told.
    let (capture, _, statuses) = run_on(anonymous_app, vec![get_request("/numbers")]);
    assert_eq!(statuses, [StatusCode::OK]);
    assert!(capture.of_kind("credential_missing").is_empty());
}

/// Sends the requests to a fresh app with the capture and a local recorder installed.
fn run(requests: Vec<Request>) -> (Capture, String, Vec<StatusCode>) {
    run_on(app, requests)
}

/// [`run`] against the router `app` builds.
fn run_on(app: fn() -> Router, requests: Vec<Request>) -> (Capture, String, Vec<StatusCode>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut statuses = Vec::new();
    let (capture, metrics) = observing(|| {
        runtime.block_on(async {
            let app = app();
            for request in requests {
                statuses.push(app.clone().oneshot(request).await.unwrap().status());
            }
        })
    });
    (capture, metrics, statuses)
}

/// Runs `f` with the capture and a local recorder installed: what it emitted and counted.
fn observing(f: impl FnOnce()) -> (Capture, String) {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::registry().with(capture.clone());
    let recorder: PrometheusRecorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    tracing::subscriber::with_default(subscriber, || metrics::with_local_recorder(&recorder, f));
    (capture, handle.render())
}

fn get_request(uri: &str) -> Request {
    Request::get(uri).body(Body::empty()).unwrap()
}

/// The count of `GET` answers of `route` whose `complete` label is `complete`.
fn responses(metrics: &str, route: &str, complete: &str) -> f64 {
    value(metrics, "completeness_responses_total", &[("route", route), ("method", "GET"), ("complete", complete)])
}

fn only(events: Vec<Captured>) -> Captured {
    assert_eq!(events.len(), 1, "exactly one event: {events:#?}");
    events.into_iter().next().unwrap()
}

#[test]
fn a_partial_answer_emits_one_info_event_with_route_method_reasons_items_and_credential() {
    let (capture, metrics, statuses) = run(vec![get_request("/partial")]);
    assert_eq!(statuses, [StatusCode::OK]);
    let event = only(capture.of_kind("response"));
    assert_eq!(event.level, Level::INFO);
    assert_eq!((event.field("route"), event.field("method"), event.field("complete")), ("/partial", "GET", "false"));
    assert_eq!(event.field("credential"), "north", "who got the partial answer");
    assert_eq!(
        (event.field("reasons"), event.field("items"), event.field("warnings")),
        ("SOURCE_UNAVAILABLE", "2", "")
    );
    assert_eq!(event.field("sources"), "legacy", "which source failed, without reading the body");
    assert_eq!((responses(&metrics, "/partial", "false"), responses(&metrics, "/partial", "true")), (1.0, 0.0));
    let reasons = value(
        &metrics,
        "completeness_reasons_total",
        &[("route", "/partial"), ("method", "GET"), ("code", "SOURCE_UNAVAILABLE")],
    );
    assert_eq!(reasons, 1.0);
    let missing = [("route", "/partial"), ("method", "GET")];
    assert_eq!(value(&metrics, "completeness_missing_data_total", &missing), 1.0, "an answer that misses data");
}

/// Every source that failed is named, a service's own kind of source too, in wire order; a
/// reason of another kind names none, and a name cannot split the log line.
#[test]
fn an_answer_missing_several_sources_names_each() {
    let (capture, metrics, _) = run(vec![get_request("/sources-down")]);
    let event = only(capture.of_kind("response"));
    assert_eq!(event.field("reasons"), "SOURCE_UNAVAILABLE,VISIBILITY_RESTRICTED,SHARD_OFFLINE,SOURCE_UNAVAILABLE");
    assert_eq!(event.field("sources"), "directory,shard-7,legacy\\nevent=forged");
    assert!(!metrics.contains("shard-7") && !metrics.contains("directory"), "no source is a label: {metrics}");
}

/// Codes relayed from an upstream are not bounded: each is named in its event, but counted
/// under `OTHER`, so fifty shards add one series, not fifty.
#[test]
fn codes_neither_standard_nor_declared_are_counted_as_other() {
    let requests = (0..50).map(|shard| get_request(&format!("/relayed/{shard}"))).collect();
    let (capture, metrics, _) = run(requests);
    let events = capture.of_kind("response");
    assert_eq!(events.len(), 50);
    assert!(events.iter().any(|event| event.field("reasons") == "SHARD_7_DOWN"));
    let route = "/relayed/{shard}";
    assert_eq!(
        value(&metrics, "completeness_reasons_total", &[("route", route), ("method", "GET"), ("code", "OTHER")]),
        50.0
    );
    assert!(!metrics.contains("SHARD_7_DOWN"), "{metrics}");
    let (_, metrics, _) = run(vec![get_request("/partial")]);
    let standard = [("route", "/partial"), ("method", "GET"), ("code", "SOURCE_UNAVAILABLE")];
    assert_eq!(value(&metrics, "completeness_reasons_total", &standard), 1.0, "standard codes keep their label");
}

#[test]
fn a_derived_envelope_routed_without_the_attribute_is_observed_too() {
    let (capture, metrics, _) = run(vec![get_request("/hits")]);
    let event = only(capture.of_kind("response"));
    assert_eq!((event.level, event.field("route"), event.field("complete")), (Level::INFO, "/hits", "false"));
    assert_eq!((event.field("reasons"), event.field("items")), ("SOURCE_UNAVAILABLE", ""), "no single item count");
    let partial = [("route", "/hits"), ("method", "GET"), ("complete", "false")];
    assert_eq!(value(&metrics, "completeness_responses_total", &partial), 1.0);
}

#[test]
fn an_incomplete_empty_answer_is_not_mistaken_for_a_complete_one() {
    let (capture, metrics, _) = run(vec![get_request("/empty-partial")]);
    let event = only(capture.of_kind("response"));
    assert_eq!((event.level, event.field("complete"), event.field("items")), (Level::INFO, "false", "0"));
    let partial = [("route", "/empty-partial"), ("method", "GET"), ("complete", "false")];
    assert_eq!(value(&metrics, "completeness_responses_total", &partial), 1.0);
}

#[test]
fn complete_answers_emit_at_debug_only() {
    let (capture, metrics, _) = run(vec![get_request("/complete"), get_request("/plain/7")]);
    let events = capture.of_kind("response");
    assert_eq!(events.len(), 2, "one event per answer, even under two layers: {events:#?}");
    for event in &events {
        assert_eq!((event.level, event.field("complete"), event.field("reasons")), (Level::DEBUG, "true", ""));
    }
    assert_eq!((events[0].field("route"), events[0].field("items")), ("/complete", "1"));
    assert_eq!(
        (events[1].field("route"), events[1].field("items")),
        ("/plain/{id}", "0"),
        "the template, not the path"
    );
    let complete = [("route", "/plain/{id}"), ("method", "GET"), ("complete", "true")];
    assert_eq!(value(&metrics, "completeness_responses_total", &complete), 1.0);
}

#[test]
fn a_clamped_page_counts_its_warning_and_its_reduced_size() {
    let (capture, metrics, _) = run(vec![get_request("/numbers?page_size=1000")]);
    let event = only(capture.of_kind("response"));
    assert_eq!(event.level, Level::DEBUG, "a page whose only reason is more pages is the normal course of paging");
    assert_eq!(event.field("complete"), "false");
    assert_eq!((event.field("reasons"), event.field("warnings")), ("MORE_PAGES_AVAILABLE", "PAGE_SIZE_REDUCED"));
    assert_eq!(event.field("items"), "10");
    let warning = [("route", "/numbers"), ("method", "GET"), ("code", "PAGE_SIZE_REDUCED")];
    assert_eq!(value(&metrics, "completeness_warnings_total", &warning), 1.0);
    assert_eq!(
        value(&metrics, "completeness_page_size_reduced_total", &[("route", "/numbers"), ("method", "GET")]),
        1.0
    );
    let missing = [("route", "/numbers"), ("method", "GET")];
    assert_eq!(value(&metrics, "completeness_missing_data_total", &missing), 0.0, "a page misses nothing");
}

/// A garbled cursor is the client's mistake, not the service's: an `INFO` event (the causes an
/// operator acts on are `WARN`: `a_refused_cursors_event_names_its_cause`).
#[test]
fn a_garbled_cursor_emits_an_event_with_code_route_and_credential_but_not_the_token() {
    let garbled = "c1.eph.Zm9yZ2VkLXBheWxvYWQtc2VjcmV0.bWFj";
    let (capture, metrics, statuses) = run(vec![get_request(&format!("/numbers?cursor={garbled}"))]);
    assert_eq!(statuses, [StatusCode::BAD_REQUEST]);
    let event = only(capture.of_kind("cursor_refused"));
    assert_eq!((event.level, event.field("cause")), (Level::INFO, "malformed"));
    assert_eq!(
        (event.field("code"), event.field("route"), event.field("method"), event.field("credential")),
        ("INVALID_CURSOR", "/numbers", "GET", "north")
    );
    assert_eq!(event.field("status"), "400");
    assert_no_token_text(&capture, &["Zm9yZ2VkLXBheWxvYWQtc2VjcmV0", "bWFj"]);
    assert!(capture.of_kind("response").is_empty(), "a refusal is not an answer");
    let refused = [("route", "/numbers"), ("method", "GET"), ("code", "INVALID_CURSOR")];
    assert_eq!(value(&metrics, "completeness_cursor_refusals_total", &refused), 1.0);
}

/// A refused cursor's event says which of the ways `INVALID_CURSOR` covers it is (`cause`): a
/// garbled one, one signed with a key this server does not hold (a rotation that retired a key
/// too early), or one whose signature does not match (another secret under the same key id).
/// The last two are the service's keys, or a forgery, which an operator acts on: `WARN`; the
/// first is the client's mistake: `INFO`.
#[test]
fn a_refused_cursors_event_names_its_cause() {
    let issued = {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let response = runtime.block_on(app().oneshot(get_request("/numbers"))).unwrap();
        let body = runtime.block_on(axum::body::to_bytes(response.into_body(), usize::MAX)).unwrap();
        let page: serde_json::Value = serde_json::from_slice(&body).unwrap();
        page["next_cursor"].as_str().expect("a first page of five has a next one").to_owned()
    };
    // The signature's first character changed (every value of its six bits is one a signature
    // can have; the last character's low bits are padding, which would read as malformed).
    let (signed, signature) = issued.rsplit_once('.').unwrap();
    let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
    let altered = format!("{signed}.{flipped}{}", &signature[1..]);
    let (_, rest) = issued.split_once('.').unwrap();
    let (_, unsigned) = rest.split_once('.').unwrap();
    let unknown_key = format!("c1.retired-key.{unsigned}");
    let cursors = [("zzz", "malformed"), (unknown_key.as_str(), "unknown_key"), (altered.as_str(), "altered")];
    let requests = cursors.iter().map(|(cursor, _)| get_request(&format!("/numbers?cursor={cursor}"))).collect();
    let (capture, _, statuses) = run(requests);
    assert_eq!(statuses, [StatusCode::BAD_REQUEST; 3]);
    let refused = capture.of_kind("cursor_refused");
    let causes: Vec<(&str, Level)> = refused.iter().map(|event| (event.field("cause"), event.level)).collect();
    let levels = [Level::INFO, Level::WARN, Level::WARN];
    assert_eq!(causes, cursors.iter().map(|(_, cause)| *cause).zip(levels).collect::<Vec<_>>());
}

/// Every other problem counts in `completeness_problems_total` by route, method, status and code; a
/// code read or built at run time that this version does not know (one relayed from an
/// upstream) as `OTHER`, so that relayed codes add no series; the event names it. A service's
/// own code written in its code (`ProblemCode::custom`) counts by its name. So does a
/// `COMPLETE_RESULT_UNAVAILABLE` a handler answers itself (relaying an upstream's strict
/// refusal): no answer of the framework's was refused, so no strict refusal counts it.
#[test]
fn other_problems_are_counted_with_bounded_codes() {
    let requests = vec![
        get_request("/upstream/SHARD_7_DOWN"),
        get_request("/upstream/SHARD_8_DOWN"),
        get_request("/upstream/NOT_FOUND"),
        get_request("/draining"),
        get_request("/upstream/COMPLETE_RESULT_UNAVAILABLE"),
    ];
    let (capture, metrics, statuses) = run(requests);
    assert_eq!(
        statuses,
        [
            StatusCode::BAD_REQUEST,
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::SERVICE_UNAVAILABLE,
            StatusCode::SERVICE_UNAVAILABLE
        ]
    );
    let own = [("route", "/draining"), ("method", "GET"), ("status", "503"), ("code", "SHARD_DRAINING")];
    assert_eq!(value(&metrics, "completeness_problems_total", &own), 1.0, "{metrics}");
    let counted = |status, code| {
        value(
            &metrics,
            "completeness_problems_total",
            &[("route", "/upstream/{code}"), ("method", "GET"), ("status", status), ("code", code)],
        )
    };
    assert_eq!((counted("400", "OTHER"), counted("404", "NOT_FOUND")), (2.0, 1.0), "{metrics}");
    assert_eq!(counted("503", "COMPLETE_RESULT_UNAVAILABLE"), 1.0, "{metrics}");
    assert!(!metrics.contains("SHARD_7_DOWN"), "{metrics}");
    let codes: Vec<String> = capture.of_kind("problem").iter().map(|event| event.field("code").to_owned()).collect();
    assert_eq!(codes, ["SHARD_7_DOWN", "SHARD_8_DOWN", "NOT_FOUND", "SHARD_DRAINING", "COMPLETE_RESULT_UNAVAILABLE"]);
    assert!(capture.of_kind("strict_refusal").is_empty());
}

/// A single resource that left out a field because its source failed is an `INFO` event and
/// counts as missing data; one that left out only what the client did not ask for is `DEBUG`
/// and misses nothing; a whole one says nothing. Its omissions and warnings are counted.
#[test]
fn a_single_resource_with_fields_left_out_is_observed() {
    let requests = ["/account/failed", "/account/asked", "/account/whole"].map(get_request).into();
    let (capture, metrics, statuses) = run(requests);
    assert_eq!(statuses, [StatusCode::OK; 3]);
    let events = capture.of_kind("single_resource");
    assert_eq!(events.len(), 2, "the whole resource says nothing: {events:#?}");
    let (failed, asked) = (&events[0], &events[1]);
    assert_eq!((failed.level, failed.field("route"), failed.field("method")), (Level::INFO, "/account/{case}", "GET"));
    assert_eq!(
        (failed.field("omitted"), failed.field("warnings")),
        ("last_used_at:SOURCE_FAILED,owner:NOT_REQUESTED", "PARTIAL_FIELD_SET")
    );
    assert_eq!((asked.level, asked.field("omitted")), (Level::DEBUG, "owner:NOT_REQUESTED"));
    assert_eq!((failed.field("credential"), asked.field("credential")), ("north", "north"));

    let route = "/account/{case}";
    let missing = [("route", route), ("method", "GET")];
    assert_eq!(value(&metrics, "completeness_missing_data_total", &missing), 1.0, "the failed source only");
    let omitted = |code| {
        value(&metrics, "completeness_omitted_fields_total", &[("route", route), ("method", "GET"), ("code", code)])
    };
    assert_eq!((omitted("SOURCE_FAILED"), omitted("NOT_REQUESTED")), (1.0, 2.0));
    let warnings = [("route", route), ("method", "GET"), ("code", "PARTIAL_FIELD_SET")];
    assert_eq!(value(&metrics, "completeness_warnings_total", &warnings), 2.0);
}

/// Counters started at start-up are series at zero before any answer, one per code the route's
/// reason type declares (every standard code for the standard type), so that the first partial
/// answer is an increase an alert sees rather than a new series at 1; starting them again keeps
/// what they counted.
#[test]
fn started_counters_are_series_at_zero_that_the_first_partial_answer_raises() {
    let recorder: PrometheusRecorder = PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let start = || {
        zero_counters::<SourcesDownReason>("/sources-down", "GET");
        zero_counters::<StandardReason>("/relayed/{shard}", "GET");
        zero_single_resource_counters("/account/{case}", "GET");
    };
    let (started, answered) = metrics::with_local_recorder(&recorder, || {
        start();
        let started = handle.render();
        let status = runtime.block_on(async { app().oneshot(get_request("/sources-down")).await.unwrap().status() });
        assert_eq!(status, StatusCode::OK);
        start();
        (started, handle.render())
    });

    let route = |route| [("route", route), ("method", "GET")];
    let coded = |name: &'static str, code| [("route", name), ("method", "GET"), ("code", code)];
    let down = route("/sources-down");
    let partial = [down[0], down[1], ("complete", "false")];
    let whole = [down[0], down[1], ("complete", "true")];
    for text in [&started, &answered] {
        assert_eq!(series(text, "completeness_responses_total", &whole), Some(0.0), "{text}");
    }
    let declared = ["SOURCE_UNAVAILABLE", "VISIBILITY_RESTRICTED", "SHARD_OFFLINE"];
    for code in declared {
        let labels = coded("/sources-down", code);
        assert_eq!(series(&started, "completeness_reasons_total", &labels), Some(0.0), "{code}: {started}");
    }
    assert_eq!(series(&started, "completeness_responses_total", &partial), Some(0.0));
    assert_eq!(series(&started, "completeness_missing_data_total", &down), Some(0.0));
    let undeclared = coded("/sources-down", "MORE_PAGES_AVAILABLE");
    assert_eq!(series(&started, "completeness_reasons_total", &undeclared), None, "undeclared codes get no series");

    // One answer with two sources down, a permission filter and a shard offline.
    let raised: Vec<_> =
        declared.map(|code| series(&answered, "completeness_reasons_total", &coded("/sources-down", code))).into();
    assert_eq!(raised, [Some(2.0), Some(1.0), Some(1.0)]);
    assert_eq!(series(&answered, "completeness_responses_total", &partial), Some(1.0));
    assert_eq!(series(&answered, "completeness_missing_data_total", &down), Some(1.0), "started again, kept");

    // The standard type: every standard reason and warning.
    for code in completeness::ReasonCode::KNOWN {
        let labels = coded("/relayed/{shard}", code.as_str());
        assert_eq!(series(&started, "completeness_reasons_total", &labels), Some(0.0), "{code:?}");
    }
    for code in completeness::WarningCode::KNOWN {
        let labels = coded("/relayed/{shard}", code.as_str());
        assert_eq!(series(&started, "completeness_warnings_total", &labels), Some(0.0), "{code:?}");
    }
    let relayed = route("/relayed/{shard}");
    assert_eq!(series(&started, "completeness_page_size_reduced_total", &relayed), Some(0.0));

    // A single resource: what it may leave out, by every omission code.
    let account = route("/account/{case}");
    assert_eq!(series(&started, "completeness_missing_data_total", &account), Some(0.0));
    for code in ["NO_ACCESS", "SOURCE_FAILED", "NOT_REQUESTED", "OTHER"] {
        let labels = coded("/account/{case}", code);
        assert_eq!(series(&started, "completeness_omitted_fields_total", &labels), Some(0.0), "{code}");
    }
}

/// A problem that refuses no token (a bad page size here) is an `INFO` event with its code, so
/// that an operator sees why a request failed without reading its body.
#[test]
fn a_problem_is_an_event_with_its_code() {
    let (capture, _, statuses) = run(vec![get_request("/numbers?page_size=0")]);
    assert_eq!(statuses, [StatusCode::BAD_REQUEST]);
    let event = only(capture.of_kind("problem"));
    assert_eq!(
        (event.level, event.field("route"), event.field("code"), event.field("status"), event.field("credential")),
        (Level::INFO, "/numbers", "INVALID_PAGE_SIZE", "400", "north")
    );
}

/// A single resource whose field holds a list (through a struct the derive cannot see into,
/// at its top or one struct deep: contract §2.7) is reported once per field, naming the type
/// and the field; the answer goes out as it is. A field declared bounded, an object of no array
/// and a fixed-size array are not reported.
#[test]
fn a_list_hidden_in_a_single_resource_is_reported_once() {
    let (capture, _, statuses) = run(vec![get_request("/team"), get_request("/team"), get_request("/bounded-team")]);
    assert_eq!(statuses, [StatusCode::OK, StatusCode::OK, StatusCode::OK]);
    let events = capture.of_kind("list_in_single_resource");
    let fields: Vec<&str> = events.iter().map(|event| event.field("field")).collect();
    assert_eq!(fields, ["members", "roster"], "{events:#?}");
    for event in &events {
        assert_eq!(event.level, Level::WARN);
        assert!(event.field("single_resource").ends_with("::Team"), "{event:?}");
    }
}

#[test]
fn a_refusal_names_the_anonymous_credential_of_a_service_without_authentication() {
    let forged = "c1.eph.Zm9yZ2VkLXBheWxvYWQtc2VjcmV0.bWFj";
    let (capture, _, statuses) = run_on(anonymous_app, vec![get_request(&format!("/numbers?cursor={forged}"))]);
    assert_eq!(statuses, [StatusCode::BAD_REQUEST]);
    let event = only(capture.of_kind("cursor_refused"));
    assert_eq!((event.field("code"), event.field("credential")), ("INVALID_CURSOR", "anonymous"));
}

#[test]
fn refused_evidence_emits_a_warning_with_code_route_and_credential_but_not_the_token() {
    let forged = "ev1.eph.c2VjcmV0LWV2aWRlbmNlLXBheWxvYWQ.c2ln";
    let body = serde_json::json!({"ids": ["sa-1"], "evidence": forged}).to_string();
    let archive = Request::post("/archive").header("content-type", "application/json").body(Body::from(body)).unwrap();
    let missing = Request::post("/archive")
        .header("content-type", "application/json")
        .body(Body::from(r#"{"ids": ["sa-1"]}"#))
        .unwrap();
    let (capture, metrics, statuses) = run(vec![archive, missing]);
    assert_eq!(statuses, [StatusCode::PRECONDITION_FAILED, StatusCode::PRECONDITION_REQUIRED]);
    let events = capture.of_kind("evidence_refused");
    assert_eq!(events.len(), 2, "{events:#?}");
    for (event, (code, status)) in events.iter().zip([("EVIDENCE_INVALID", "412"), ("EVIDENCE_REQUIRED", "428")]) {
        assert_eq!(event.level, Level::WARN);
        assert_eq!((event.field("code"), event.field("status")), (code, status));
        assert_eq!(
            (event.field("route"), event.field("method"), event.field("credential")),
            ("/archive", "POST", "north")
        );
    }
    assert_no_token_text(&capture, &["c2VjcmV0LWV2aWRlbmNlLXBheWxvYWQ", "c2ln"]);
    for code in ["EVIDENCE_INVALID", "EVIDENCE_REQUIRED"] {
        assert_eq!(
            value(
                &metrics,
                "completeness_evidence_refusals_total",
                &[("route", "/archive"), ("method", "POST"), ("code", code)]
            ),
            1.0
        );
    }
}

#[test]
fn accepted_evidence_emits_its_event_and_count_but_not_the_token() {
    let credential = Credential::new("north", 1).with_tenant("north");
    let issuer = completeness::EvidenceIssuer::new(CompletenessConfig::new(KEYS.clone()), credential);
    let mut inventory: completeness::Envelope<u32> = completeness::Envelope::complete(
        vec![],
        completeness::Scope::new("service_accounts", "all").with_filter("owner", "none"),
    );
    assert!(issuer.attach_to(&mut inventory));
    let token = inventory.completeness.evidence().unwrap().to_owned();
    let body = serde_json::json!({"ids": ["sa-1"], "evidence": token}).to_string();
    let archive = |uri: &str| {
        Request::post(uri).header("content-type", "application/json").body(Body::from(body.clone())).unwrap()
    };
    // The second verifies the token too, then refuses its targets: no acceptance.
    let (capture, metrics, statuses) = run(vec![archive("/archive"), archive("/archive-refused")]);
    assert_eq!(statuses, [StatusCode::NO_CONTENT, StatusCode::PRECONDITION_FAILED]);
    let event = only(capture.of_kind("evidence_accepted"));
    assert_eq!(event.level, Level::INFO);
    assert_eq!(
        (event.field("route"), event.field("method"), event.field("credential"), event.field("resource")),
        ("/archive", "POST", "north", "service_accounts")
    );
    let signature = token.rsplit('.').next().unwrap();
    assert_no_token_text(&capture, &[signature]);
    assert_eq!(
        value(&metrics, "completeness_evidence_accepted_total", &[("route", "/archive"), ("method", "POST")]),
        1.0
    );
}

#[test]
fn a_strict_refusal_emits_the_status_it_chose() {
    let (capture, metrics, statuses) = run(vec![get_request("/partial?require_complete=true")]);
    assert_eq!(statuses, [StatusCode::SERVICE_UNAVAILABLE]);
    let event = only(capture.of_kind("strict_refusal"));
    assert_eq!(event.level, Level::WARN);
    assert_eq!(
        (event.field("status"), event.field("route"), event.field("reasons"), event.field("items")),
        ("503", "/partial", "SOURCE_UNAVAILABLE", "2")
    );
    assert_eq!(event.field("credential"), "north", "who demanded a complete answer");
    assert_eq!(event.field("sources"), "legacy", "which source the refused answer lacked");
    assert!(capture.of_kind("response").is_empty(), "the refusal is the one event of this answer");
    assert!(capture.of_kind("problem").is_empty(), "the refusal is the one event of this answer");
    assert!(!metrics.contains("completeness_problems_total"), "counted once, as a strict refusal: {metrics}");
    assert_eq!(
        value(
            &metrics,
            "completeness_strict_refusals_total",
            &[("route", "/partial"), ("method", "GET"), ("status", "503")]
        ),
        1.0
    );
    let partial = [("route", "/partial"), ("method", "GET"), ("complete", "false")];
    assert_eq!(value(&metrics, "completeness_responses_total", &partial), 1.0);
}

fn assert_no_token_text(capture: &Capture, secrets: &[&str]) {
    for event in capture.events() {
        for (name, text) in &event.fields {
            for secret in secrets {
                assert!(!text.contains(secret), "field {name} of {event:?} holds token text");
            }
        }
    }
}

/// [`app`] behind a fault layer that applies the fault a request names.
fn faulted_app() -> Router {
    app().layer(FaultLayer::new(Schedule::header_only()))
}

/// A request that names the fault to apply.
fn faulted_request(uri: &str, fault: &str) -> Request {
    Request::get(uri).header(FAULT_HEADER, fault).body(Body::empty()).unwrap()
}

#[test]
fn a_faulted_answer_is_observed_as_the_client_received_it() {
    let requests = vec![
        faulted_request("/complete", "SOURCE_UNAVAILABLE"),
        faulted_request("/complete", "none"),
        faulted_request("/complete?require_complete=true", "SOURCE_UNAVAILABLE"),
    ];
    let (capture, metrics, statuses) = run_on(faulted_app, requests);
    assert_eq!(statuses, [StatusCode::OK, StatusCode::OK, StatusCode::SERVICE_UNAVAILABLE]);
    let events = capture.of_kind("response");
    assert_eq!(events.len(), 2, "one event per answer sent, none for the answers replaced: {events:#?}");
    assert_eq!(
        (events[0].level, events[0].field("complete"), events[0].field("reasons")),
        (Level::INFO, "false", "SOURCE_UNAVAILABLE"),
        "the faulted answer, not the complete one the handler gave"
    );
    assert_eq!((events[1].level, events[1].field("complete")), (Level::DEBUG, "true"), "not faulted");
    let refusal = only(capture.of_kind("strict_refusal"));
    assert_eq!((refusal.field("status"), refusal.field("reasons")), ("503", "SOURCE_UNAVAILABLE"));
    assert_eq!((responses(&metrics, "/complete", "false"), responses(&metrics, "/complete", "true")), (2.0, 1.0));
    let reasons = value(
        &metrics,
        "completeness_reasons_total",
        &[("route", "/complete"), ("method", "GET"), ("code", "SOURCE_UNAVAILABLE")],
    );
    assert_eq!(reasons, 2.0);
    let strict = [("route", "/complete"), ("method", "GET"), ("status", "503")];
    assert_eq!(value(&metrics, "completeness_strict_refusals_total", &strict), 1.0);
}

#[test]
fn a_faulted_cursor_refusal_is_observed_as_a_refused_cursor() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut statuses = Vec::new();
    let (capture, metrics) = observing(|| {
        runtime.block_on(async {
            let app = faulted_app();
            let first = app.clone().oneshot(faulted_request("/declared-numbers?page_size=5", "none")).await.unwrap();
            let body = axum::body::to_bytes(first.into_body(), usize::MAX).await.unwrap();
            let page: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let cursor = page["next_cursor"].as_str().expect("a first page of five numbers has a next page");
            let uri = format!("/declared-numbers?page_size=5&cursor={cursor}");
            statuses.push(app.oneshot(faulted_request(&uri, "CURSOR_EXPIRED")).await.unwrap().status());
        })
    });
    assert_eq!(statuses, [StatusCode::GONE]);
    let event = only(capture.of_kind("cursor_refused"));
    assert_eq!(
        (event.level, event.field("code"), event.field("route"), event.field("credential")),
        (Level::INFO, "CURSOR_EXPIRED", "/declared-numbers", "north"),
        "an expired cursor is the client's course"
    );
    assert_eq!(capture.of_kind("response").len(), 1, "the first page only: the second was refused");
    let refused = [("route", "/declared-numbers"), ("method", "GET"), ("code", "CURSOR_EXPIRED")];
    assert_eq!(value(&metrics, "completeness_cursor_refusals_total", &refused), 1.0);
}

#[test]
fn an_entry_point_outside_the_routes_is_observed_as_a_route_is() {
    let tool = EntryPoint::new("list_accounts", "MCP").with_credential("north");
    let empty_partial: Envelope<String> =
        Envelope::incomplete(vec![], Scope::new("accounts", "all"), SourceUnavailable::new("legacy"));
    let forged = "c1.eph.Zm9yZ2VkLXBheWxvYWQtc2VjcmV0.bWFj";
    let config = CompletenessConfig::new(CursorKeys::ephemeral());
    let cursor_refusal = PageRequest::new(config, Credential::new("north", 1), None, Some(forged))
        .expect_err("a forged cursor is refused");
    let (capture, metrics) = observing(|| {
        // An incomplete, empty answer; the same answer under a strict demand (whose problem,
        // given back as a refusal, is no second event, and is the same problem all the same); a
        // refused cursor; a problem that refuses no token; and an upstream's strict refusal
        // relayed, which no answer of this entry point's was, so it is a problem of its own.
        assert!(tool.answer(RequireComplete(false), &empty_partial).is_ok());
        let strict = tool.answer(RequireComplete(true), &empty_partial).expect_err("refused under a strict demand");
        assert_eq!(strict.status(), 503);
        tool.refused(&strict);
        let read_back: Problem = serde_json::from_value(serde_json::to_value(&strict).unwrap()).unwrap();
        assert_eq!(read_back, strict, "observed or not, it says the same");
        tool.refused(&cursor_refusal);
        tool.refused(&Problem::new(ProblemCode::NotFound, "no such account"));
        tool.refused(&Problem::new(ProblemCode::CompleteResultUnavailable, "the upstream refused a partial answer"));
    });

    let answer = only(capture.of_kind("response"));
    assert_eq!((answer.level, answer.field("route"), answer.field("method")), (Level::INFO, "list_accounts", "MCP"));
    assert_eq!(
        (answer.field("complete"), answer.field("reasons"), answer.field("items")),
        ("false", "SOURCE_UNAVAILABLE", "0")
    );
    assert_eq!(answer.field("credential"), "north", "who got the partial answer");
    let strict = only(capture.of_kind("strict_refusal"));
    assert_eq!(
        (strict.level, strict.field("route"), strict.field("status"), strict.field("credential")),
        (Level::WARN, "list_accounts", "503", "north")
    );
    let refused = only(capture.of_kind("cursor_refused"));
    assert_eq!(
        (refused.level, refused.field("route"), refused.field("code"), refused.field("credential")),
        (Level::INFO, "list_accounts", "INVALID_CURSOR", "north")
    );
    let problem_events = capture.of_kind("problem");
    let problems: Vec<(Level, &str, &str, &str)> =
        problem_events.iter().map(|p| (p.level, p.field("route"), p.field("code"), p.field("status"))).collect();
    assert_eq!(
        problems,
        [
            (Level::INFO, "list_accounts", "NOT_FOUND", "404"),
            (Level::INFO, "list_accounts", "COMPLETE_RESULT_UNAVAILABLE", "503")
        ]
    );
    assert_eq!(capture.events().len(), 5, "one event each: {:#?}", capture.events());
    assert_no_token_text(&capture, &["Zm9yZ2VkLXBheWxvYWQtc2VjcmV0", "bWFj"]);

    let partial = [("route", "list_accounts"), ("method", "MCP"), ("complete", "false")];
    assert_eq!(value(&metrics, "completeness_responses_total", &partial), 2.0, "both answers, the refused one too");
    let reasons = [("route", "list_accounts"), ("method", "MCP"), ("code", "SOURCE_UNAVAILABLE")];
    assert_eq!(value(&metrics, "completeness_reasons_total", &reasons), 2.0);
    let missing = [("route", "list_accounts"), ("method", "MCP")];
    assert_eq!(value(&metrics, "completeness_missing_data_total", &missing), 2.0, "both miss data");
    let strict = [("route", "list_accounts"), ("method", "MCP"), ("status", "503")];
    assert_eq!(value(&metrics, "completeness_strict_refusals_total", &strict), 1.0);
    let cursors = [("route", "list_accounts"), ("method", "MCP"), ("code", "INVALID_CURSOR")];
    assert_eq!(value(&metrics, "completeness_cursor_refusals_total", &cursors), 1.0);
}

/// A service whose keyset keys make cursors longer than its token bound: [`numbers`] with a
/// bound of 64 bytes, shorter than any cursor it signs.
fn short_token_app() -> Router {
    Router::new()
        .route("/numbers", get(numbers).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential().with_max_token_len(64))
}

/// [`odd_numbers`] pinned to one snapshot, its pages attested for evidence.
async fn pinned_numbers(request: PageRequest) -> Result<Envelope<u32>, Problem> {
    evidenced_numbers(request, true)
}

/// [`pinned_numbers`] without the pin: its handler asks for evidence all the same.
async fn unpinned_numbers(request: PageRequest) -> Result<Envelope<u32>, Problem> {
    evidenced_numbers(request, false)
}

fn evidenced_numbers(request: PageRequest, pinned: bool) -> Result<Envelope<u32>, Problem> {
    let scope = Scope::new("numbers", "all numbers");
    let mut page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    if pinned {
        page.pin_snapshot("s-1");
    }
    let after: u32 = page.position().map_or(Ok(0), |p| p.parse().map_err(|_| page.unreadable_position()))?;
    let rows: Vec<u32> = (after + 1..100).filter(|n| n % 2 == 1).take(page.fetch_size()).collect();
    let mut envelope: Envelope<u32> = page.envelope(scope, rows, |n| n.to_string());
    page.attach_evidence(&mut envelope.completeness);
    Ok(envelope)
}

/// A cursor the attestation of a pinned page makes longer than the bound is reported too, though
/// the cursor it was signed from first was within it.
#[test]
fn an_attested_cursor_longer_than_the_server_accepts_is_reported() {
    let app = |len: usize| {
        Router::new()
            .route("/pinned", get(pinned_numbers).into())
            .with_state(CompletenessConfig::new(KEYS.clone()).with_anonymous_credential().with_max_token_len(len))
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let first_page = |len: usize| {
        runtime.block_on(async {
            let first = app(len).oneshot(get_request("/pinned?page_size=5")).await.unwrap();
            let body = axum::body::to_bytes(first.into_body(), usize::MAX).await.unwrap();
            serde_json::from_slice::<serde_json::Value>(&body).unwrap()
        })
    };
    let attested = first_page(usize::MAX)["next_cursor"].as_str().expect("a next page").len();
    let (capture, _) = observing(|| {
        first_page(attested - 1);
    });
    let event = only(capture.of_kind("cursor_too_long"));
    assert_eq!(event.field("max_token_len"), (attested - 1).to_string());
}

#[test]
fn a_cursor_longer_than_the_server_accepts_is_reported_where_it_is_made() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut refusal = serde_json::Value::Null;
    let (capture, _) = observing(|| {
        runtime.block_on(async {
            let app = short_token_app();
            let first = app.clone().oneshot(get_request("/numbers?page_size=5")).await.unwrap();
            let body = axum::body::to_bytes(first.into_body(), usize::MAX).await.unwrap();
            let page: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let cursor = page["next_cursor"].as_str().expect("a first page of five numbers has a next page");
            let next = app.oneshot(get_request(&format!("/numbers?page_size=5&cursor={cursor}"))).await.unwrap();
            let body = axum::body::to_bytes(next.into_body(), usize::MAX).await.unwrap();
            refusal = serde_json::from_slice(&body).unwrap();
        })
    });
    let event = only(capture.of_kind("cursor_too_long"));
    assert_eq!((event.level, event.field("max_token_len")), (Level::ERROR, "64"));
    assert!(event.field("length").parse::<usize>().unwrap() > 64, "{event:?}");
    assert_eq!(refusal["code"], "INVALID_CURSOR", "{refusal}");
    let detail = refusal["detail"].as_str().unwrap();
    assert!(detail.contains("longer than the longest token this server accepts"), "{detail}");
}

/// A handler that asks for evidence on a traversal it did not pin to a snapshot gets none past
/// one page, and the operator is told once (a `WARN` event `evidence_unpinned`), since tests
/// with little data, whose traversals are one page, do not show it. A pinned one is not told.
#[test]
fn a_traversal_asking_for_evidence_without_a_pinned_snapshot_is_reported_once() {
    let app = Router::new()
        .route("/pinned", get(pinned_numbers).into())
        .route("/unpinned", get(unpinned_numbers).into())
        .with_state(CompletenessConfig::new(KEYS.clone()).with_anonymous_credential());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut evidence = Vec::new();
    let (capture, _) = observing(|| {
        runtime.block_on(async {
            for uri in
                ["/pinned?page_size=5", "/unpinned?page_size=500", "/unpinned?page_size=5", "/unpinned?page_size=5"]
            {
                let answer = app.clone().oneshot(get_request(uri)).await.unwrap();
                let body = axum::body::to_bytes(answer.into_body(), usize::MAX).await.unwrap();
                let page: serde_json::Value = serde_json::from_slice(&body).unwrap();
                evidence.push(page["evidence"].is_string());
            }
        })
    });
    assert_eq!(evidence, [false, true, false, false], "one whole page read at once gets evidence unpinned");
    let event = only(capture.of_kind("evidence_unpinned"));
    assert_eq!((event.level, event.field("resource")), (Level::WARN, "numbers"));
    assert!(event.field("message").contains("pin_snapshot"), "{event:?}");
}
