//! The client conformance kit against the service_accounts example with the fault layer, over
//! real HTTP on loopback: our own clients (`collect_all`, `decide`, the approval flow, the
//! cleanup agent) keep every property under every declared fault and hundreds of seeded
//! schedules; a naive client that takes an empty page for absence is caught, with a schedule
//! that replays the failure.

use crate::built_example;
use crate::e2e_support;

use std::time::Duration;

use completeness::client::http::{Retries, ServiceClient};
use completeness::testing::faults::{Conclusion, Failure, Fault, FaultRecord, Kit, Schedule, Target};
use completeness::{ApprovalRequest, CollectLimits, Collected, Decision, Intent, ReasonCode, collect_all, decide};
use e2e_support::service;
use serde_json::Value;

/// A fresh service of 300 accounts (about ten unowned), sources without added latency.
async fn make_router() -> axum::Router {
    let config = service::Config { slow_sources: Vec::new(), ..e2e_support::config(300) };
    service::build(config, tokio_util::sync::CancellationToken::new()).await.expect("the service builds").1
}

fn kit() -> Kit<impl Fn() -> BoxFuture> {
    Kit::new(|| Box::pin(make_router()) as BoxFuture)
}

/// The router a kit run starts from.
type BoxFuture = std::pin::Pin<Box<dyn std::future::Future<Output = axum::Router>>>;

async fn collect(target: &Target, path: &str, query: &[(&str, &str)]) -> Result<Collected<Value>, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let pages = client.pages::<Value>(path, query);
    let limits = CollectLimits { max_pages: 50, ..CollectLimits::default() };
    collect_all(|cursor| pages.fetch(cursor), limits).await.map_err(|e| e.to_string())
}

/// The sorted ids a collection holds.
fn ids(collected: &Collected<Value>) -> Vec<String> {
    let mut ids: Vec<String> = collected.items.iter().filter_map(|i| i["id"].as_str().map(str::to_owned)).collect();
    ids.sort();
    ids
}

fn reasons(collected: &Collected<Value>) -> Vec<String> {
    collected.completeness.reason_codes().iter().map(ToString::to_string).collect()
}

const UNOWNED: (&str, &[(&str, &str)]) = ("/service-accounts", &[("owner", "none"), ("page_size", "3")]);
const SEARCH: (&str, &[(&str, &str)]) = ("/search", &[("q", "svc-north-000")]);
/// The scopes of the two questions: their resource, and the filters asked, no fewer and no more.
const UNOWNED_SCOPE: (&str, &[(&str, &str)]) = ("service_accounts", &[("owner", "none")]);
const SEARCH_SCOPE: (&str, &[(&str, &str)]) = ("search_results", &[("q", "svc-north-000")]);

/// How the scope `collected` names differs from `asked` (contract §8: `complete: true` speaks of
/// the scope the answer names, and an answer without a filter asked is one to another question).
fn another_question(collected: &Collected<Value>, asked: (&str, &[(&str, &str)])) -> Option<String> {
    let (resource, filters) = asked;
    let filters: Vec<(&str, Value)> = filters.iter().map(|(name, value)| (*name, Value::from(*value))).collect();
    let difference = collected.completeness.scope().differs_from(resource, &filters)?;
    Some(format!("an answer to another question than {resource} {filters:?}: {difference}"))
}

/// The stale warnings of a collection (contract §3.5).
fn stale(collected: &Collected<Value>) -> Vec<String> {
    collected.completeness.warnings().iter().filter(|w| w.is_stale()).map(|w| w.code().to_string()).collect()
}

/// `collect_all` over the paginated listing and the fanned-out search: complete only when both
/// are, and read from current state.
async fn collect_all_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    let search = collect(&target, SEARCH.0, SEARCH.1).await?;
    let others = [another_question(&listing, UNOWNED_SCOPE), another_question(&search, SEARCH_SCOPE)];
    if others.iter().any(Option::is_some) {
        return Ok(Conclusion::Incomplete(others.into_iter().flatten().collect()));
    }
    let not_current = [stale(&listing), stale(&search)].concat();
    if listing.completeness.is_complete() && search.completeness.is_complete() && not_current.is_empty() {
        Ok(Conclusion::Complete(format!("unowned {:?}; search {:?}", ids(&listing), ids(&search))))
    } else {
        Ok(Conclusion::Incomplete([reasons(&listing), reasons(&search), not_current].concat()))
    }
}

/// The same, blind to stale warnings: it claims absent what a lagging index did not show.
async fn stale_blind_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    let search = collect(&target, SEARCH.0, SEARCH.1).await?;
    if listing.completeness.is_complete() && search.completeness.is_complete() {
        Ok(Conclusion::Complete(format!("unowned {:?}; search {:?}", ids(&listing), ids(&search))))
    } else {
        Ok(Conclusion::Incomplete([reasons(&listing), reasons(&search)].concat()))
    }
}

/// Claims absence of every account not found, only when `decide` allows it.
async fn decide_client(target: Target) -> Result<Conclusion, String> {
    let search = collect(&target, SEARCH.0, SEARCH.1).await?;
    if let Some(other) = another_question(&search, SEARCH_SCOPE) {
        return Ok(Conclusion::Incomplete(vec![other]));
    }
    match decide(&search, Intent::ClaimAbsence) {
        Decision::Proceed => Ok(Conclusion::Complete(format!("{:?}", ids(&search)))),
        decision => Ok(Conclusion::Incomplete(
            [vec![format!("{decision:?}")], reasons(&search), search.completeness.warning_codes_text()].concat(),
        )),
    }
}

/// Acts only when `decide(.., Mutate)` proceeds; otherwise asks a person with an approval request.
async fn approval_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    if let Some(other) = another_question(&listing, UNOWNED_SCOPE) {
        return Ok(Conclusion::Incomplete(vec![other]));
    }
    if decide(&listing, Intent::Mutate) == Decision::Proceed && listing.completeness.evidence().is_some() {
        return Ok(Conclusion::Complete(format!("{:?}", ids(&listing))));
    }
    let request = ApprovalRequest::new("archive every unowned service account", "owner=none", &listing);
    let mut uncovered: Vec<String> = request.reasons.iter().map(|r| format!("{}: {}", r.code, r.explanation)).collect();
    uncovered.extend(request.warnings.iter().cloned());
    Ok(Conclusion::Incomplete(uncovered))
}

/// A client that takes an empty first page for proof that no account is unowned.
async fn naive_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let query = [("owner".to_owned(), "none".to_owned()), ("page_size".to_owned(), "3".to_owned())];
    let page: Value = client.get("/service-accounts", &query).await.map_err(|e| e.to_string())?;
    let empty = page["items"].as_array().is_none_or(Vec::is_empty);
    Ok(Conclusion::Complete(if empty { "no unowned accounts" } else { "some unowned accounts" }.to_owned()))
}

trait WarningText {
    fn warning_codes_text(&self) -> Vec<String>;
}

impl<R: completeness::Reason> WarningText for completeness::Completeness<R> {
    fn warning_codes_text(&self) -> Vec<String> {
        self.warnings().iter().map(|w| w.code().to_string()).collect()
    }
}

fn names(faults: impl IntoIterator<Item = Fault>) -> Vec<String> {
    faults.into_iter().map(|f| f.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn collect_all_keeps_the_client_contract_under_every_fault() {
    let report = kit().run(collect_all_client).await;
    report.assert_passes();
    assert!(report.runs > 300, "{} runs", report.runs);
    let offered = names(report.offered.clone());
    for fault in [
        "VISIBILITY_RESTRICTED",
        "SOURCE_UNAVAILABLE",
        "TIME_BUDGET_EXCEEDED",
        "RESULT_LIMIT_REACHED",
        "CURSOR_EXPIRED",
        "TRAVERSAL_RESTARTED",
        "STALE_INDEX",
        "SERVICE_UNAVAILABLE",
        "FUTURE_REASON",
        "FILTER_DROPPED",
        "CURSOR_REPEATED",
    ] {
        assert!(offered.contains(&fault.to_owned()), "{fault} offered: {offered:?}");
    }
    assert!(report.not_covered().is_empty(), "every offered fault was applied: {:?}", report.not_covered());
}

/// A client that concludes complete on an answer with a stale warning is caught: the layer
/// injects `STALE_INDEX` into the search, which takes away no item, so only the warning tells.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_blind_to_stale_warnings() {
    let report = Kit::new(|| Box::pin(make_router()) as BoxFuture).schedules(20).run(stale_blind_client).await;
    let caught: Vec<&String> = report
        .failures
        .iter()
        .flat_map(|failure| &failure.violations)
        .filter(|violation| violation.contains("answered with a stale warning"))
        .collect();
    assert!(!caught.is_empty(), "the stale-blind client must be caught: {:?}", report.failures);
    assert!(caught.iter().all(|v| v.contains("GET /search")), "{caught:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decide_keeps_the_client_contract_under_every_fault() {
    let report = kit().run(decide_client).await;
    report.assert_passes();
    assert!(report.not_covered().is_empty(), "{:?}", report.not_covered());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approval_flow_keeps_the_client_contract_under_every_fault() {
    let report = kit().run(approval_client).await;
    report.assert_passes();
    assert!(report.not_covered().is_empty(), "{:?}", report.not_covered());
}

/// The cleanup agent binary, as a user runs it: exit 0 archived on complete evidence, 2 asked
/// for approval (its output says why), 1 an error.
async fn cleanup_agent(target: Target) -> Result<Conclusion, String> {
    let output = tokio::process::Command::new(built_example::binary("cleanup_agent"))
        .args(["--server", target.url.as_str(), "--token", "admin", "--page-size", "3"])
        .output()
        .await
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    match output.status.code() {
        Some(0) => Ok(Conclusion::Complete("archived".to_owned())),
        Some(2) => Ok(Conclusion::Incomplete(stdout.lines().filter(|l| l.contains("_")).map(str::to_owned).collect())),
        _ => Err(format!("{stdout}{}", String::from_utf8_lossy(&output.stderr))),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cleanup_agent_never_archives_on_an_incomplete_inventory() {
    let report = kit().run(cleanup_agent).await;
    report.assert_passes();
    assert_eq!(report.truth, Some(Ok(Conclusion::Complete("archived".to_owned()))), "without faults it archives");
    assert!(report.not_covered().is_empty(), "{:?}", report.not_covered());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_takes_an_empty_page_for_absence_with_a_replayable_seed() {
    let kit = kit();
    let report = kit.run(naive_client).await;
    assert!(!report.failures.is_empty(), "the naive client must be caught");
    // Without faults already: it read one page of several and concluded.
    let baseline = report.failures.first().expect("the fault-free run fails").to_string();
    assert!(baseline.contains("`next_cursor` was not followed to a complete page"), "{baseline}");
    // And where a fault changed its answer, by that too.
    let failure = report
        .failures
        .iter()
        .find(|f| f.schedule.seed() != 0 && f.violations.iter().any(|v| v.contains("took an incomplete answer")))
        .expect("a seeded schedule catches it");
    let text = failure.to_string();
    assert!(text.contains(&format!("seed {}", failure.schedule.seed())), "{text}");
    assert!(text.contains("took an incomplete answer for a complete one"), "{text}");
    assert!(text.contains("GET /service-accounts?owner=none&page_size=3"), "the fault sequence is printed: {text}");
    let panic = std::panic::catch_unwind(|| report.assert_passes()).expect_err("assert_passes fails");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("(replay: kit.replay(Schedule::"), "each failure says how to replay it: {message}");

    // Replaying the schedule breaks the client the same way.
    let truth = Conclusion::Complete("some unowned accounts".to_owned());
    let replay = kit.replay(failure.schedule.clone(), Some(&truth), &naive_client).await;
    assert_eq!(replay.violations, failure.violations);
    assert_eq!(
        names(replay.log.iter().filter_map(|r| r.fault.clone())),
        names(failure.log.iter().filter_map(|r| r.fault.clone()))
    );
}

/// Pages through the unowned accounts by hand, checking every page's reasons and warnings, but
/// not `page.resumed`: a cursor answered with the first page again has its items taken twice.
async fn resumed_blind_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let (mut ids, mut cursor) = (Vec::new(), None::<String>);
    loop {
        let mut query = vec![("owner".to_owned(), "none".to_owned()), ("page_size".to_owned(), "3".to_owned())];
        query.extend(cursor.take().map(|cursor| ("cursor".to_owned(), cursor)));
        let page: Value = client.get("/service-accounts", &query).await.map_err(|e| e.to_string())?;
        let codes = |member: &str| -> Vec<String> {
            page[member]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["code"].as_str().map(str::to_owned))
                .collect()
        };
        let (reasons, warnings) = (codes("incomplete_reasons"), codes("warnings"));
        if reasons.iter().any(|code| code != "MORE_PAGES_AVAILABLE") || !warnings.is_empty() {
            return Ok(Conclusion::Incomplete([reasons, warnings].concat()));
        }
        ids.extend(page["items"].as_array().into_iter().flatten().filter_map(|i| i["id"].as_str().map(str::to_owned)));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return Ok(Conclusion::Complete(format!("{ids:?}"))),
        }
    }
}

/// A restarted traversal (a cursor answered with the first page again) merged with the pages
/// before it is caught by the items it took twice, with the fault named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_merges_a_restarted_traversal() {
    let kit = kit().schedules(0);
    let report = kit.run(resumed_blind_client).await;
    assert!(names(report.offered.clone()).contains(&"TRAVERSAL_RESTARTED".to_owned()), "{:?}", report.offered);
    // A restart shows only in a run that then reads to the end: every other fault of its pages
    // ends it first, and under the schedule that restarts every later page it never ends. So
    // the second read (the second page) is restarted, and nothing else.
    let truth = report.truth.clone().and_then(Result::ok);
    let schedule = Schedule::sequence([None, Some("TRAVERSAL_RESTARTED")]);
    let merged = kit.replay(schedule, truth.as_ref(), &resumed_blind_client).await;
    assert!(
        merged.violations.iter().any(|v| v.contains("merged a traversal restarted")),
        "the resumed-blind client must be caught: {:?}",
        merged.violations
    );
    assert!(merged.log.iter().any(|record| record.fault == Some(Fault::Restarted)), "{:?}", merged.log);
}

/// Archives whatever it collected, complete or not.
async fn reckless_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let body = serde_json::json!({"ids": ids(&listing), "evidence": listing.completeness.evidence().unwrap_or("none")});
    let _: Result<Value, _> = client.post("/service-accounts/archive", &body).await;
    Ok(Conclusion::Complete("archived".to_owned()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_destructive_action_on_an_incomplete_inventory() {
    let report = kit().schedules(20).run(reckless_client).await;
    let failure = report.failures.first().expect("the reckless client must be caught");
    let text = failure.to_string();
    assert!(text.contains("sent POST /service-accounts/archive although"), "{text}");
    assert!(text.contains("a destructive action on an incomplete or stale answer"), "{text}");
}

/// Starts over until it gets a complete listing, however long that takes.
async fn stubborn_client(target: Target) -> Result<Conclusion, String> {
    loop {
        let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
        if listing.completeness.is_complete() {
            return Ok(Conclusion::Complete(format!("{:?}", ids(&listing))));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_stops_and_reports_a_client_that_never_stops_retrying() {
    let report = kit().schedules(5).max_requests(40).run(stubborn_client).await;
    let text = report.failures.iter().map(ToString::to_string).collect::<String>();
    let schedules: Vec<String> = report.failures.iter().map(|f| f.schedule.to_string()).collect();
    assert!(schedules.contains(&"always VISIBILITY_RESTRICTED".to_owned()), "{schedules:?}");
    assert!(text.contains("more than 40 requests without concluding"), "{text}");
}

#[test]
fn the_example_refuses_bad_faults_values_clearly() {
    let parse = |value: &str| service::Config::from_args(["--faults".to_owned(), value.to_owned()]);
    let config = parse("42:0.25").unwrap().unwrap();
    assert_eq!(config.faults, Some(completeness::testing::faults::Schedule::seeded(42, 0.25)));
    assert_eq!(service::Config::from_args(Vec::<String>::new()).unwrap().unwrap().faults, None, "off by default");
    for (bad, says) in [("abc", "--faults: the seed"), ("7:1.5", "--faults: the probability"), ("7:", "probability")] {
        let error = parse(bad).unwrap_err();
        assert!(error.contains(says), "{bad}: {error}");
    }
    assert!(service::Config::from_args(["--faults".to_owned()]).unwrap_err().contains("--faults needs a value"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_started_with_faults_says_so_and_misbehaves_on_purpose() {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(built_example::binary("service_accounts"))
        .args(["--addr", "127.0.0.1:0", "--accounts", "60", "--faults", "5:1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut url, mut banner) = (None, None);
    while let Some(line) = lines.next_line().await.expect("the banner is readable") {
        if let Some(rest) = line.strip_prefix("service_accounts listening on ") {
            url = rest.split_whitespace().next().map(str::to_owned);
        }
        if line.contains("FAULT INJECTION ON") {
            banner = Some(line);
            break;
        }
        if line.starts_with("metrics") {
            break; // the banner went past where the fault line belongs
        }
    }
    let banner = banner.expect("the banner says faults are injected");
    assert!(banner.contains("seed 5, probability 1"), "{banner}");
    let url = url.expect("the banner names the address");
    let client = reqwest::Client::new();
    // `GET path` as admin, with `fault` named in the fault header.
    let get = async |path: &str, fault: &str| -> Value {
        let request = client.get(format!("{url}{path}")).header("Authorization", "Bearer admin");
        request.header("completeness-fault", fault).send().await.unwrap().json().await.unwrap()
    };
    let page = get("/service-accounts?owner=none", "VISIBILITY_RESTRICTED").await;
    completeness::testing::assert_envelope_invariants(&page);
    assert_eq!(page["complete"], false, "{page}");
    assert_eq!(page["incomplete_reasons"].as_array().unwrap().last().unwrap()["code"], "VISIBILITY_RESTRICTED");
    // An account read gets a field it filled left out, as the service leaves one out (§2.7),
    // and is observed so: the operator's count of fields left out includes it.
    let unfaulted = get("/service-accounts?page_size=1", "none").await;
    let id = unfaulted["items"][0]["id"].as_str().expect("an account");
    let account = get(&format!("/service-accounts/{id}"), "FIELD_OMITTED").await;
    let listed = account["omitted_fields"].as_object().unwrap();
    let (name, why) = listed.iter().find(|(_, why)| *why != "NOT_REQUESTED").expect("a field left out");
    assert!(["owner_email", "last_used_at"].contains(&name.as_str()) && account[name].is_null(), "{account}");
    let warning = &account["warnings"][0];
    assert_eq!(warning["code"], "PARTIAL_FIELD_SET", "{account}");
    assert!(warning["fields"].as_array().unwrap().contains(&Value::from(name.as_str())), "{account}");
    let metrics = client.get(format!("{url}/metrics")).send().await.unwrap().text().await.unwrap();
    let counted = metrics.lines().find(|line| {
        line.starts_with("completeness_omitted_fields_total{")
            && line.contains(&format!("code=\"{}\"", why.as_str().unwrap()))
            && line.contains("route=\"/service-accounts/{id}\"")
    });
    assert!(counted.is_some(), "the field left out is counted:\n{metrics}");
    child.kill().await.expect("the example stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_faulted_inventory_carries_no_evidence() {
    use axum::body::{Body, to_bytes};
    use completeness::testing::faults::{FAULT_HEADER, FaultLayer, Schedule};
    use tower::ServiceExt;
    let app = make_router().await.layer(FaultLayer::new(Schedule::header_only()));
    let get = |fault: Option<&str>| {
        let mut request = axum::http::Request::get("/service-accounts?owner=none&page_size=100")
            .header("Host", "localhost")
            .header("Authorization", "Bearer admin");
        if let Some(fault) = fault {
            request = request.header(FAULT_HEADER, fault);
        }
        app.clone().oneshot(request.body(Body::empty()).unwrap())
    };
    let body = |response: axum::response::Response| async move {
        serde_json::from_slice::<Value>(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap()
    };
    let real = body(get(None).await.unwrap()).await;
    assert_eq!(real["complete"], true, "{real}");
    assert!(real["evidence"].is_string(), "the complete inventory carries evidence: {real}");
    let faulted = body(get(Some("VISIBILITY_RESTRICTED")).await.unwrap()).await;
    completeness::testing::assert_envelope_invariants(&faulted);
    assert_eq!(faulted["complete"], false);
    assert_eq!(faulted["evidence"], Value::Null, "{faulted}");
}

/// A client that never returns is stopped at the run's time limit and fails, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_stops_and_reports_a_client_that_never_returns() {
    let report = kit()
        .schedules(1)
        .run_timeout(Duration::from_millis(300))
        .run(|_target: Target| std::future::pending::<Result<Conclusion, String>>())
        .await;
    let text = report.failures.iter().map(ToString::to_string).collect::<String>();
    assert!(text.contains("did not conclude within 0.3 s"), "{text}");
}

/// Panics on an incomplete listing instead of saying so.
async fn panicking_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    assert!(listing.completeness.is_complete(), "the listing is incomplete: {:?}", reasons(&listing));
    Ok(Conclusion::Complete(format!("{:?}", ids(&listing))))
}

/// A client that panics fails the runs it panics in, each with its schedule and the code that
/// replays it; the kit goes on with the other runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_client_fails_its_runs_with_a_replayable_schedule() {
    let kit = kit().schedules(10);
    let report = kit.run(panicking_client).await;
    assert!(report.runs > 10, "the kit went on after a panic: {} runs", report.runs);
    let failure = report.failures.first().expect("the panicking client must be caught");
    let text = failure.to_string();
    assert!(text.contains("the client panicked: the listing is incomplete"), "{text}");
    // The first failures are the schedules of one fault each; the seeded ones follow.
    assert_eq!(failure.schedule, Schedule::always("VISIBILITY_RESTRICTED"), "{text}");
    let always = r#"(replay: kit.replay(Schedule::always("VISIBILITY_RESTRICTED"), Some(&truth), &client)"#;
    assert!(text.contains(always), "{text}");
    let seeded = report.failures.iter().find(|f| f.schedule.seed() != 0).expect("a seeded schedule panics it too");
    let seed = seeded.schedule.seed();
    assert!(seeded.to_string().contains(&format!("kit.replay(Schedule::seeded({seed}, 0.5), ")), "{seeded}");
    let truth = report.truth.clone().and_then(Result::ok);
    let replay = kit.replay(Schedule::seeded(seed, 0.5), truth.as_ref(), &panicking_client).await;
    assert_eq!(replay.violations, seeded.violations, "the replay panics the same way");
}

/// A client whose routes offer no fault passes nothing: the kit fails at once, saying why,
/// rather than pass a client it could not test.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_routes_without_faults_is_not_passed() {
    let plain = || async {
        axum::Router::new()
            .route("/things", axum::routing::get(|| async { axum::Json(serde_json::json!({"items": [1]})) }))
    };
    let client = |target: Target| async move {
        let body = reqwest::get(format!("{}/things", target.url)).await.map_err(|e| e.to_string())?;
        Ok(Conclusion::Complete(body.text().await.map_err(|e| e.to_string())?))
    };
    let report = Kit::new(plain).schedules(50).run(client).await;
    assert_eq!(report.runs, 1, "nothing to run after the fault-free run");
    assert!(report.offered.is_empty());
    let text = report.failures.iter().map(ToString::to_string).collect::<String>();
    assert!(text.contains("no answer the client read offered a fault, so the kit can check nothing"), "{text}");
}

/// Waits without end once an answer is incomplete.
async fn waits_on_partial_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    if !listing.completeness.is_complete() {
        std::future::pending::<()>().await;
    }
    Ok(Conclusion::Complete(format!("{:?}", ids(&listing))))
}

/// A run stopped at the time limit stops the kit too: every later run would wait as long
/// (with the defaults, 300 runs of two minutes each).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_stops_at_the_first_run_that_waits_without_end() {
    let report = kit().schedules(50).run_timeout(Duration::from_millis(500)).run(waits_on_partial_client).await;
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    let text = report.failures[0].to_string();
    assert!(text.contains("did not conclude within 0.5 s"), "{text}");
    assert!(text.contains("the kit stopped after this run"), "{text}");
    assert_eq!(report.runs, 2, "stopped after the first faulted run: {} runs", report.runs);
}

/// Follows every cursor, but takes an empty page for proof that nothing is left: the bug the
/// framework exists for. A random draw empties a page of three too rarely to count on; the
/// kit gives each reason once with every faulted page empty, so no seeded schedule is needed.
async fn empty_page_is_nothing_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let query = unowned_query(cursor.as_deref());
        let page: Value = client.get("/service-accounts", &query).await.map_err(|e| e.to_string())?;
        let items = page["items"].as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            return Ok(Conclusion::Complete(format!("{found:?}")));
        }
        found.extend(items.iter().filter_map(|i| i["id"].as_str().map(str::to_owned)));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None if page["complete"] == true => {
                found.sort();
                return Ok(Conclusion::Complete(format!("{found:?}")));
            }
            None => return Ok(Conclusion::Incomplete(vec!["the listing is incomplete".to_owned()])),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_takes_an_incomplete_empty_page_for_nothing_without_seeds() {
    let report = kit().schedules(0).run(empty_page_is_nothing_client).await;
    let emptied: Vec<&Failure> = report.failures.iter().filter(|f| f.schedule.is_emptied()).collect();
    assert!(!emptied.is_empty(), "{:?}", report.failures);
    let text = emptied[0].to_string();
    assert!(text.contains("took an incomplete answer for a complete one"), "{text}");
    assert!(text.contains(".emptied()"), "the replay code empties too: {text}");
    // Our own collector is not failed by empty pages.
    kit().schedules(0).run(collect_all_client).await.assert_passes();
}

/// A replayed schedule that names a fault no request offered (written wrong, or not declared
/// by the routes the client reads) fails the run, saying so, instead of passing a client it
/// did not test; a fault that is offered passes a good client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schedule_naming_a_fault_no_route_offers_fails_instead_of_passing() {
    let kit = kit();
    let truth = kit.replay(Schedule::header_only(), None, &collect_all_client).await;
    assert!(truth.violations.is_empty(), "{:?}", truth.violations);
    let truth = truth.outcome.and_then(Result::ok);
    for schedule in [
        Schedule::always("VISIBLITY_RESTRICTED").emptied(),
        Schedule::sequence([Some("NOT_A_FAULT")]),
        Schedule::seeded(3, 0.5).weight("SOURCE_UNAVAILABLE_TYPO", 2.0),
    ] {
        let name = schedule.named()[0].to_owned();
        let run = kit.replay(schedule, truth.as_ref(), &collect_all_client).await;
        assert!(
            run.violations.iter().any(|violation| violation.contains(&format!(
                "the schedule names the fault {name}, which no request of this run offered (offered: "
            )) && violation.contains("VISIBILITY_RESTRICTED")),
            "{name}: {:?}",
            run.violations
        );
    }
    let offered = kit.replay(Schedule::always("VISIBILITY_RESTRICTED").emptied(), truth.as_ref(), &collect_all_client);
    let offered = offered.await;
    assert!(offered.violations.is_empty(), "{:?}", offered.violations);
    assert!(
        offered.log.iter().any(|record| record.fault.as_ref().is_some_and(|f| f.name() == "VISIBILITY_RESTRICTED"))
    );
}

/// The query of the unowned listing the hand-paging clients read, with `cursor` when given.
fn unowned_query(cursor: Option<&str>) -> Vec<(String, String)> {
    let mut query: Vec<(String, String)> = UNOWNED.1.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    query.extend(cursor.map(|c| ("cursor".to_owned(), c.to_owned())));
    query
}

/// How the scope of the page `page` differs from `asked` ([`another_question`]), or that it
/// names none.
fn another_scope(page: &Value, asked: (&str, &[(&str, &str)])) -> Option<String> {
    let Ok(scope) = serde_json::from_value::<completeness::Scope>(page["scope"].clone()) else {
        return Some("a page without a scope".to_owned());
    };
    let (resource, filters) = asked;
    let filters: Vec<(&str, Value)> = filters.iter().map(|(name, value)| (*name, Value::from(*value))).collect();
    scope.differs_from(resource, &filters).map(|difference| format!("an answer to another question: {difference}"))
}

/// What a hand-paging client makes of one page.
enum Read {
    /// Go on with this cursor.
    Next(String),
    /// Stop here, concluding this.
    Concluded(Conclusion),
}

/// One page of the unowned listing as the hand-paging clients read it, taking its ids into
/// `ids`: incomplete at a page over another scope than the question's (a filter dropped), at a
/// reason whose code `kept` keeps (other than the next page's) or at any warning, or at a first
/// page again where a cursor was sent (`resumed_expected`), or at a next cursor it was handed
/// out before (`handed_out`: a server that loops); complete, with the sorted ids, at the page
/// that names no next cursor.
fn read_page(
    page: &Value,
    resumed_expected: bool,
    ids: &mut Vec<String>,
    handed_out: &mut Vec<String>,
    kept: impl Fn(&str) -> bool,
) -> Read {
    if let Some(other) = another_scope(page, UNOWNED_SCOPE) {
        return Read::Concluded(Conclusion::Incomplete(vec![other]));
    }
    let codes = |member: &str| page[member].as_array().into_iter().flatten().filter_map(|r| r["code"].as_str());
    let reasons: Vec<String> = codes("incomplete_reasons").filter(|code| kept(code)).map(str::to_owned).collect();
    let warnings: Vec<String> = codes("warnings").map(str::to_owned).collect();
    if reasons.iter().any(|code| code != "MORE_PAGES_AVAILABLE") || !warnings.is_empty() {
        return Read::Concluded(Conclusion::Incomplete([reasons, warnings].concat()));
    }
    if resumed_expected && page["page"]["resumed"] == false {
        return Read::Concluded(Conclusion::Incomplete(vec!["the traversal restarted".to_owned()]));
    }
    ids.extend(page["items"].as_array().into_iter().flatten().filter_map(|i| i["id"].as_str().map(str::to_owned)));
    match page["next_cursor"].as_str() {
        Some(next) if handed_out.iter().any(|before| before == next) => {
            Read::Concluded(Conclusion::Incomplete(vec!["a cursor handed out twice: the traversal loops".to_owned()]))
        }
        Some(next) => {
            handed_out.push(next.to_owned());
            Read::Next(next.to_owned())
        }
        None => {
            ids.sort();
            Read::Concluded(Conclusion::Complete(format!("{ids:?}")))
        }
    }
}

/// Pages through the unowned accounts by hand, heeding every reason and warning, a traversal
/// restarted or looping and an answer to another question ([`read_page`]), but reads a `503` as "nothing (more) to list": an outage taken for absence, the
/// bug the framework exists for. Any other refusal ends it without a conclusion.
async fn outage_is_nothing_client(target: Target) -> Result<Conclusion, String> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;
    let (mut ids, mut cursor, mut handed_out) = (Vec::<String>::new(), None::<String>, Vec::new());
    loop {
        let query = unowned_query(cursor.as_deref());
        let answer = client
            .get(format!("{}{}", target.url, UNOWNED.0))
            .bearer_auth("admin")
            .query(&query)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if answer.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE {
            // "The service found nothing (more)": what was read so far is the whole list.
            ids.sort();
            return Ok(Conclusion::Complete(format!("{ids:?}")));
        }
        if !answer.status().is_success() {
            return Err(format!("refused: {}", answer.status()));
        }
        let page: Value = answer.json().await.map_err(|e| e.to_string())?;
        match read_page(&page, cursor.is_some(), &mut ids, &mut handed_out, |_| true) {
            Read::Next(next) => cursor = Some(next),
            Read::Concluded(conclusion) => return Ok(conclusion),
        }
    }
}

/// An outage (`SERVICE_UNAVAILABLE`, offered on every read, first pages included) read as an
/// empty, complete list is caught: under the schedule that answers every read with it, the
/// client concluded on the `503` of its first page. The client handles every other fault, so
/// every failing run is one with an outage in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_reads_an_outage_as_an_empty_list() {
    let kit = kit().schedules(20);
    let report = kit.run(outage_is_nothing_client).await;
    let Some(Ok(Conclusion::Complete(truth))) = report.truth.clone() else {
        panic!("without faults it concludes complete: {:?}", report.failures);
    };
    assert_ne!(truth, "[]", "there are unowned accounts to miss");
    let outage = report
        .failures
        .iter()
        .find(|failure| failure.schedule == Schedule::always("SERVICE_UNAVAILABLE"))
        .unwrap_or_else(|| panic!("the outage on its first page must catch it: {:?}", report.failures));
    let text = outage.to_string();
    assert!(text.contains("the client concluded complete with \"[]\""), "{text}");
    assert!(text.contains("took an incomplete answer for a complete one"), "{text}");
    assert!(
        text.contains("GET /service-accounts?owner=none&page_size=3 was answered with a problem (503)"),
        "the judge names the outage: {text}"
    );
    assert_eq!(outage.log.len(), 1, "one read, its first page, answered 503: {text}");
    assert_eq!((outage.log[0].had_cursor, outage.log[0].status), (false, 503), "{text}");
    for failure in &report.failures {
        assert!(failure.log.iter().any(|record| record.fault == Some(Fault::Unavailable)), "{failure}");
    }
    // Replaying the schedule breaks it the same way.
    let truth = Conclusion::Complete(truth);
    let replay = kit.replay(outage.schedule.clone(), Some(&truth), &outage_is_nothing_client).await;
    assert_eq!(replay.violations, outage.violations);
}

/// `collect_all` over the unowned accounts, asking again after an outage's `Retry-After` (a new
/// traversal, never merged with the one it cut short), three times at most, then giving up.
async fn waits_out_outages_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let limits = CollectLimits { max_pages: 50, ..CollectLimits::default() };
    for attempt in 1..=3 {
        let pages = client.pages::<Value>(UNOWNED.0, UNOWNED.1);
        match collect_all(|cursor| pages.fetch(cursor), limits).await {
            Ok(listing) if listing.completeness.is_complete() && stale(&listing).is_empty() => {
                return Ok(Conclusion::Complete(format!("{:?}", ids(&listing))));
            }
            Ok(listing) => return Ok(Conclusion::Incomplete([reasons(&listing), stale(&listing)].concat())),
            Err(completeness::client::FetchError::Problem(problem)) if problem.status() == 503 && attempt < 3 => {
                let seconds = problem.retry_after().ok_or_else(|| format!("a 503 without Retry-After: {problem}"))?;
                assert!(seconds <= 5, "the kit's outage asks for a short wait: {seconds} s");
                tokio::time::sleep(Duration::from_secs(seconds)).await;
            }
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("still unavailable".to_owned())
}

/// A client that waits out an outage and reads again passes: the outage is a refusal it may
/// retry, and the read that follows it, complete, is the one it concludes from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_waits_out_an_outage_keeps_the_client_contract() {
    let report = kit().schedules(3).run(waits_out_outages_client).await;
    report.assert_passes();
    assert!(report.applied.contains(&Fault::Unavailable), "{:?}", report.applied);
}

/// `collect_all` over the unowned accounts, asking again at once after an outage, without
/// waiting the `Retry-After` it was given: three times at most, then giving up.
async fn retries_outages_at_once_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let limits = CollectLimits { max_pages: 50, ..CollectLimits::default() };
    for attempt in 1..=3 {
        let pages = client.pages::<Value>(UNOWNED.0, UNOWNED.1);
        match collect_all(|cursor| pages.fetch(cursor), limits).await {
            Ok(listing) if listing.completeness.is_complete() && stale(&listing).is_empty() => {
                return Ok(Conclusion::Complete(format!("{:?}", ids(&listing))));
            }
            Ok(listing) => return Ok(Conclusion::Incomplete([reasons(&listing), stale(&listing)].concat())),
            Err(completeness::client::FetchError::Problem(problem)) if problem.status() == 503 && attempt < 3 => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("still unavailable".to_owned())
}

/// A client that asks again at once after an outage, instead of after its `Retry-After`, is
/// caught: the message names both requests, the wait asked and the time it waited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_retries_an_outage_at_once() {
    let report = kit().schedules(0).run(retries_outages_at_once_client).await;
    let outage = report
        .failures
        .iter()
        .find(|failure| failure.schedule == Schedule::always("SERVICE_UNAVAILABLE"))
        .unwrap_or_else(|| panic!("the outage on every first page must catch it: {:?}", report.failures));
    let text = outage.to_string();
    let wait = outage.log[0].wait.unwrap_or_else(|| panic!("the outage asked for a wait: {text}"));
    assert!((1..=5).contains(&wait), "{text}");
    let first = "request #0 GET /service-accounts?owner=none&page_size=3";
    let hasty = outage
        .violations
        .iter()
        .find(|v| v.starts_with("request #1 GET /service-accounts?owner=none&page_size=3 came "))
        .unwrap_or_else(|| panic!("the first retry is named: {text}"));
    assert!(
        hasty.contains(&format!("after the answer to {first}, the same request, asked it to wait {wait} s")),
        "{hasty}"
    );
    assert!(hasty.ends_with("a retry waits as long as it was asked to"), "{hasty}");
    // Every failing run is one with an outage in it: nothing else is wrong with the client.
    for failure in &report.failures {
        assert!(failure.log.iter().any(|record| record.fault == Some(Fault::Unavailable)), "{failure}");
        assert!(
            failure.violations.iter().all(|v| v.ends_with("a retry waits as long as it was asked to")),
            "{failure}"
        );
    }
}

/// Reads the search, heeding its reasons and warnings, and asks it again at once while its
/// answer is partial with a `retry_after` continuation (three times at most), instead of after
/// the seconds it asks for.
async fn retries_partial_answers_at_once_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let query: Vec<(String, String)> = SEARCH.1.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    for attempt in 1..=3 {
        let page: Value = client.get(SEARCH.0, &query).await.map_err(|e| e.to_string())?;
        let codes = |member: &str| -> Vec<String> {
            let listed = page[member].as_array().into_iter().flatten();
            listed.filter_map(|r| r["code"].as_str().map(str::to_owned)).collect()
        };
        let (reasons, warnings) = (codes("incomplete_reasons"), codes("warnings"));
        if page["complete"] == true && warnings.is_empty() {
            let items = page["items"].as_array().into_iter().flatten();
            let mut ids: Vec<&str> = items.filter_map(|i| i["id"].as_str()).collect();
            ids.sort_unstable();
            return Ok(Conclusion::Complete(format!("{ids:?}")));
        }
        if page["continuation"]["kind"] != "retry_after" || attempt == 3 {
            return Ok(Conclusion::Incomplete([reasons, warnings].concat()));
        }
    }
    Err("unreachable: the third attempt concludes".to_owned())
}

/// A client that asks again at once after a partial answer whose continuation is `retry_after`
/// (a source unavailable) is caught, as one that retries an outage at once is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_retries_a_partial_answer_too_soon() {
    let report = kit().schedules(0).run(retries_partial_answers_at_once_client).await;
    let partial = report
        .failures
        .iter()
        .find(|failure| failure.schedule == Schedule::always("SOURCE_UNAVAILABLE"))
        .unwrap_or_else(|| panic!("a source unavailable on every read must catch it: {:?}", report.failures));
    let text = partial.to_string();
    let first = &partial.log[0];
    assert_eq!((first.status, first.complete), (200, Some(false)), "{text}");
    let wait = first.wait.unwrap_or_else(|| panic!("the partial answer asked for a wait: {text}"));
    let hasty = partial
        .violations
        .iter()
        .find(|v| v.starts_with(&format!("request #1 GET {} came ", first.uri)))
        .unwrap_or_else(|| panic!("the first retry is named: {text}"));
    assert!(
        hasty.contains(&format!(
            "after the answer to request #0 GET {}, the same request, asked it to wait {wait} s",
            first.uri
        )),
        "{hasty}"
    );
    assert!(
        text.contains(&format!("partial (SOURCE_UNAVAILABLE), wait {wait} s")),
        "the fault sequence shows the wait: {text}"
    );
    // Every failing run is one with a source unavailable: nothing else is wrong with the client.
    for failure in &report.failures {
        let unavailable = |record: &FaultRecord| record.reasons.contains(&"SOURCE_UNAVAILABLE".to_owned());
        assert!(failure.log.iter().any(unavailable), "{failure}");
        assert!(
            failure.violations.iter().all(|v| v.ends_with("a retry waits as long as it was asked to")),
            "{failure}"
        );
    }
}

/// What a hand-paging client does when a later page (one asked with a cursor) is refused with
/// an outage.
#[derive(Debug, Clone, Copy, PartialEq)]
enum OnLaterOutage {
    /// Takes it for the end of the list: "the service had nothing more to serve".
    TheEnd,
    /// Waits as asked and sends the same request, the same cursor, again.
    SendAgain,
}

/// Pages through the unowned accounts by hand, heeding every reason and warning, a traversal
/// restarted or looping and an answer to another question ([`read_page`]). An outage of its first page it waits out as asked (`Retry-After`) and asks again;
/// one of a later page it meets as `on_later` says. Three outages a run at most, then it gives
/// up with `Err`.
async fn hand_paging_client(target: Target, on_later: OnLaterOutage) -> Result<Conclusion, String> {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;
    let (mut ids, mut cursor, mut outages, mut handed_out) = (Vec::<String>::new(), None::<String>, 0, Vec::new());
    loop {
        let query = unowned_query(cursor.as_deref());
        let url = format!("{}{}", target.url, UNOWNED.0);
        let answer = client.get(url).bearer_auth("admin").query(&query).send().await.map_err(|e| e.to_string())?;
        if answer.status() == reqwest::StatusCode::SERVICE_UNAVAILABLE {
            if cursor.is_some() && on_later == OnLaterOutage::TheEnd {
                ids.sort();
                return Ok(Conclusion::Complete(format!("{ids:?}")));
            }
            outages += 1;
            if outages == 3 {
                return Err("still unavailable".to_owned());
            }
            let wait = answer.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok());
            let seconds = wait.ok_or("a 503 without Retry-After")?;
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            continue; // the same request again: the same cursor, or the first page
        }
        if !answer.status().is_success() {
            return Ok(Conclusion::Incomplete(vec![format!("refused: {}", answer.status())]));
        }
        let page: Value = answer.json().await.map_err(|e| e.to_string())?;
        match read_page(&page, cursor.is_some(), &mut ids, &mut handed_out, |_| true) {
            Read::Next(next) => cursor = Some(next),
            Read::Concluded(conclusion) => return Ok(conclusion),
        }
    }
}

/// Waits out a first page's outage, but takes an outage on a later page for the end of the
/// list, concluding complete with the pages before it: the outage on page 3 of 5 that hid the
/// rest.
async fn later_outage_is_the_end_client(target: Target) -> Result<Conclusion, String> {
    hand_paging_client(target, OnLaterOutage::TheEnd).await
}

/// Waits out an outage on any page as asked and sends the refused request again, the same
/// cursor on a later page: the retry continues the traversal.
async fn sends_a_refused_page_again_client(target: Target) -> Result<Conclusion, String> {
    hand_paging_client(target, OnLaterOutage::SendAgain).await
}

/// The second read of a run (the listing's second page, asked with a cursor) answered with
/// the outage, the others as they are.
fn outage_on_the_second_page() -> Schedule {
    Schedule::sequence([None, Some("SERVICE_UNAVAILABLE")])
}

/// `collect_all` over the unowned listing through the crate's own retrying page fetcher: a
/// page refused with an outage is asked again after its wait (contract §2.4).
async fn retrying_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let retries = Retries { attempts: 3, longest_wait: Duration::from_secs(6), unnamed_wait: Duration::from_secs(1) };
    let pages = client.pages::<Value>(UNOWNED.0, UNOWNED.1).retrying(retries);
    let limits = CollectLimits { max_pages: 50, ..CollectLimits::default() };
    let listing = collect_all(|cursor| pages.fetch(cursor), limits).await.map_err(|e| e.to_string())?;
    match (listing.completeness.is_complete(), stale(&listing).is_empty()) {
        (true, true) => Ok(Conclusion::Complete(format!("unowned {:?}", ids(&listing)))),
        _ => Ok(Conclusion::Incomplete([reasons(&listing), stale(&listing)].concat())),
    }
}

/// The crate's retrying fetcher keeps the client contract (its waits too, property 5) and goes
/// on past an outage on a later page to the complete answer, where `collect_all` alone ends with
/// the refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_crates_retrying_fetcher_goes_on_past_a_later_outage_and_keeps_the_client_contract() {
    let kit = kit().schedules(10);
    let truth = kit.replay(Schedule::header_only(), None, &retrying_client).await;
    let truth = truth.outcome.and_then(Result::ok);
    assert!(matches!(truth, Some(Conclusion::Complete(_))), "{truth:?}");
    let run = kit.replay(outage_on_the_second_page(), truth.as_ref(), &retrying_client).await;
    assert_eq!(run.violations, Vec::<String>::new(), "{:?}", run.log);
    assert_eq!(run.outcome.clone().and_then(Result::ok), truth, "the same complete answer: {:?}", run.log);
    let (refused, retry) = (&run.log[1], &run.log[2]);
    assert_eq!((refused.status, retry.status), (503, 200), "{:?}", run.log);
    assert_eq!(retry.uri, refused.uri, "the same cursor again: {:?}", run.log);
    let report = kit.run(retrying_client).await;
    report.assert_passes();
    assert!(report.applied.contains(&Fault::Unavailable), "{:?}", report.applied);
}

/// An outage on a later page taken for the end of the list is caught: replayed on the second
/// page, and by the kit's own seeded schedules, which now give a later page the outage too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_takes_an_outage_on_a_later_page_for_the_end() {
    let kit = kit().schedules(40);
    let truth = kit.replay(Schedule::header_only(), None, &later_outage_is_the_end_client).await;
    assert!(truth.violations.is_empty(), "{:?}", truth.violations);
    let truth = truth.outcome.and_then(Result::ok);
    let run = kit.replay(outage_on_the_second_page(), truth.as_ref(), &later_outage_is_the_end_client).await;
    let log: Vec<String> = run.log.iter().map(ToString::to_string).collect();
    assert_eq!(run.log.len(), 2, "{log:?}");
    assert_eq!((run.log[1].had_cursor, run.log[1].status), (true, 503), "{log:?}");
    assert!(run.violations.iter().any(|v| v.contains("took an incomplete answer for a complete one")), "{run:?}");
    let refused = format!("{} {} was answered with a problem (503)", run.log[1].method, run.log[1].uri);
    assert!(run.violations.iter().any(|v| v.contains(&refused)), "{refused}: {:?}", run.violations);

    let report = kit.run(later_outage_is_the_end_client).await;
    let later_outage =
        |failure: &Failure| failure.log.iter().any(|r| r.fault == Some(Fault::Unavailable) && r.had_cursor);
    assert!(
        report.failures.iter().any(|failure| failure.schedule.seed() != 0 && later_outage(failure)),
        "a seeded schedule catches it: {:?}",
        report.failures
    );
    // Nothing else is wrong with the client: every failing run had a later page's outage.
    for failure in &report.failures {
        assert!(later_outage(failure), "{failure}");
    }
}

/// A client that sends a later page refused with an outage again, after its wait, keeps the
/// client contract: the retry takes the refused request's place in its traversal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_a_refused_later_page_again_keeps_the_client_contract() {
    let kit = kit().schedules(10);
    let truth = kit.replay(Schedule::header_only(), None, &sends_a_refused_page_again_client).await;
    let truth = truth.outcome.and_then(Result::ok);
    let run = kit.replay(outage_on_the_second_page(), truth.as_ref(), &sends_a_refused_page_again_client).await;
    assert_eq!(run.violations, Vec::<String>::new(), "{:?}", run.log);
    let (refused, retry) = (&run.log[1], &run.log[2]);
    assert_eq!((refused.status, retry.status), (503, 200), "{:?}", run.log);
    assert!(refused.cursor.is_some() && retry.uri == refused.uri, "the same cursor again: {:?}", run.log);
    let report = kit.run(sends_a_refused_page_again_client).await;
    report.assert_passes();
    assert!(report.applied.contains(&Fault::Unavailable), "{:?}", report.applied);
}

/// A cursor refused with an outage is answered when sent again, by a kit's layer and by a
/// serving one ([`FaultLayer::serving`], the example's `--faults`), the page it would have
/// been; a traversal one page of which was faulted partial keeps the evidence off its last
/// page across the outage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_refused_with_an_outage_reads_its_page_when_sent_again() {
    use axum::body::{Body, to_bytes};
    use completeness::testing::faults::{FAULT_HEADER, FaultLayer};
    use tower::ServiceExt;
    let serving = service::Config { faults: Some(Schedule::header_only()), ..e2e_support::config(300) };
    let serving = service::build(serving, tokio_util::sync::CancellationToken::new()).await.expect("it builds").1;
    let kits = make_router().await.layer(FaultLayer::new(Schedule::header_only()));
    for (layer, app) in [("serving", serving), ("kit", kits)] {
        let get = |cursor: Option<&str>, fault: Option<&str>| {
            let mut uri = "/service-accounts?owner=none&page_size=3".to_owned();
            if let Some(cursor) = cursor {
                uri.push_str(&format!(
                    "&cursor={}",
                    form_urlencoded::byte_serialize(cursor.as_bytes()).collect::<String>()
                ));
            }
            let mut request =
                axum::http::Request::get(uri).header("Host", "localhost").header("Authorization", "Bearer admin");
            if let Some(fault) = fault {
                request = request.header(FAULT_HEADER, fault);
            }
            let app = app.clone();
            async move {
                let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
                let status = response.status().as_u16();
                let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
                (status, serde_json::from_slice::<Value>(&body).unwrap())
            }
        };
        let page_ids = |page: &Value| -> Vec<String> {
            page["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
        };
        // The second page, unfaulted.
        let (_, first) = get(None, None).await;
        let (_, second) = get(first["next_cursor"].as_str(), None).await;
        // A traversal whose first page is partial, whose second is refused, then asked again.
        let (_, partial) = get(None, Some("VISIBILITY_RESTRICTED")).await;
        let cursor = partial["next_cursor"].as_str().unwrap_or_else(|| panic!("{layer}: {partial}")).to_owned();
        let (status, refused) = get(Some(&cursor), Some("SERVICE_UNAVAILABLE")).await;
        assert_eq!((status, refused["code"].as_str()), (503, Some("SERVICE_UNAVAILABLE")), "{layer}: {refused}");
        let (status, again) = get(Some(&cursor), None).await;
        assert_eq!(status, 200, "{layer}: {again}");
        assert_eq!(again["page"]["resumed"], true, "{layer}: {again}");
        assert_eq!(page_ids(&again), page_ids(&second), "{layer}: the page the cursor asks");
        let mut last = again;
        while let Some(next) = last["next_cursor"].as_str().map(str::to_owned) {
            last = get(Some(&next), None).await.1;
        }
        assert_eq!(last["complete"], true, "{layer}: {last}");
        assert_eq!(last["evidence"], Value::Null, "{layer}: a partial traversal gets no evidence: {last}");
    }
}

/// Pages through the unowned accounts by hand, reading each page's `incomplete_reasons` as a
/// client generated from a closed list of codes (the standard ones, contract §3.2) with a lenient
/// decoder does:
/// a reason of any other code is skipped. It decides completeness from the reasons it kept, not
/// from `complete`: the list is whole when no kept reason but `MORE_PAGES_AVAILABLE` was on any
/// page and the last page named no next cursor. It heeds warnings, restarts, loops and
/// answers to another question ([`read_page`]). A newer
/// server's code is dropped by its decoder, and with it the only sign that items are missing.
async fn known_codes_only_client(target: Target) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let (mut ids, mut cursor, mut handed_out) = (Vec::<String>::new(), None::<String>, Vec::new());
    loop {
        let query = unowned_query(cursor.as_deref());
        let page: Value = client.get(UNOWNED.0, &query).await.map_err(|e| e.to_string())?;
        match read_page(&page, cursor.is_some(), &mut ids, &mut handed_out, |code| {
            ReasonCode::parse(code).is_standard()
        }) {
            Read::Next(next) => cursor = Some(next),
            Read::Concluded(conclusion) => return Ok(conclusion),
        }
    }
}

/// A client that skips the reason codes it does not know, and concludes complete without
/// them, is caught by the reason of a newer server (`FUTURE_REASON`), which the kit gives every
/// read it reads; nothing else catches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_skips_reason_codes_it_does_not_know() {
    let kit = kit().schedules(0);
    let report = kit.run(known_codes_only_client).await;
    assert!(names(report.offered.clone()).contains(&"FUTURE_REASON".to_owned()), "{:?}", report.offered);
    let future = report
        .failures
        .iter()
        .find(|failure| failure.schedule == Schedule::always("FUTURE_REASON"))
        .unwrap_or_else(|| panic!("the newer server's reason must catch it: {:?}", report.failures));
    let text = future.to_string();
    assert!(
        text.contains("answered incomplete (MORE_PAGES_AVAILABLE, FUTURE_REASON)")
            || text.contains("answered incomplete (FUTURE_REASON)"),
        "{text}"
    );
    for failure in &report.failures {
        assert!(failure.log.iter().any(|r| r.fault == Some(Fault::FutureReason)), "{failure}");
    }
    let truth = report.truth.clone().and_then(Result::ok);
    let replay = kit.replay(future.schedule.clone(), truth.as_ref(), &known_codes_only_client).await;
    assert_eq!(replay.violations, future.violations, "the replay breaks it the same way");
}

/// Reads every page as the listing's own declaration types it (its generated reason enum,
/// closed over the codes it declares), refusing the whole answer when a page does not read:
/// a strict typed client. It heeds a traversal restarted or looping, and a page over another
/// scope than the question's.
async fn strict_typed_client(target: Target) -> Result<Conclusion, String> {
    use service::inventory::ListServiceAccountsReason;
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let (mut ids, mut cursor, mut handed_out) = (Vec::<String>::new(), None::<String>, Vec::<String>::new());
    loop {
        let query = unowned_query(cursor.as_deref());
        let page: Value = client.get(UNOWNED.0, &query).await.map_err(|e| e.to_string())?;
        let page: completeness::Envelope<Value, ListServiceAccountsReason> =
            serde_json::from_value(page).map_err(|e| format!("an answer this client cannot read: {e}"))?;
        let block = &page.completeness;
        let (resource, filters) = UNOWNED_SCOPE;
        let filters: Vec<(&str, Value)> = filters.iter().map(|(name, value)| (*name, Value::from(*value))).collect();
        if let Some(difference) = block.scope().differs_from(resource, &filters) {
            return Ok(Conclusion::Incomplete(vec![difference]));
        }
        let reasons: Vec<String> = block.reason_codes().iter().map(ToString::to_string).collect();
        if reasons.iter().any(|code| code != "MORE_PAGES_AVAILABLE") || !block.warnings().is_empty() {
            return Ok(Conclusion::Incomplete(reasons));
        }
        if block.page().is_some_and(|facts| cursor.is_some() && facts.resumed == Some(false)) {
            return Ok(Conclusion::Incomplete(vec!["the traversal restarted".to_owned()]));
        }
        ids.extend(page.items.iter().filter_map(|i| i["id"].as_str().map(str::to_owned)));
        match block.next_cursor() {
            Some(next) if handed_out.iter().any(|before| before == next) => {
                return Ok(Conclusion::Incomplete(vec!["a cursor handed out twice: the traversal loops".to_owned()]));
            }
            Some(next) => {
                handed_out.push(next.to_owned());
                cursor = Some(next.to_owned());
            }
            None => {
                ids.sort();
                return Ok(Conclusion::Complete(format!("{ids:?}")));
            }
        }
    }
}

/// A strict typed client refuses a page with a code its types do not hold, and passes: it
/// concluded nothing from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strict_typed_client_that_refuses_an_unknown_code_keeps_the_client_contract() {
    let kit = kit().schedules(10);
    let report = kit.run(strict_typed_client).await;
    report.assert_passes();
    assert!(report.applied.contains(&Fault::FutureReason), "{:?}", report.applied);
    let truth = report.truth.clone().and_then(Result::ok);
    let run = kit.replay(Schedule::always("FUTURE_REASON"), truth.as_ref(), &strict_typed_client).await;
    let refused = matches!(&run.outcome, Some(Err(why)) if why.contains("an answer this client cannot read"));
    assert!(refused, "{:?}", run.outcome);
}

/// Trusts `complete: true` without checking the scope against the question: concludes whether
/// any unowned account exists from whatever the listing of unowned accounts answered.
async fn scope_blind_client(target: Target) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, &[("owner", "none"), ("page_size", "100")]).await?;
    match listing.completeness.is_complete() {
        true => Ok(Conclusion::Complete(format!("unowned accounts exist: {}", !listing.items.is_empty()))),
        false => Ok(Conclusion::Incomplete(reasons(&listing))),
    }
}

/// A listing answered without the filter it asked (a proxy that dropped `owner`) says
/// `complete: true` of the wider question, honestly: a client that takes it for the answer to
/// its own is caught by the scope it did not check, even where its conclusion happens to be
/// the fault-free one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_trusts_complete_over_a_dropped_filter() {
    let kit = kit();
    let baseline = kit.replay(Schedule::header_only(), None, &scope_blind_client).await;
    assert!(baseline.violations.is_empty(), "{:?}", baseline.violations);
    let truth = baseline.outcome.and_then(Result::ok);
    assert_eq!(truth, Some(Conclusion::Complete("unowned accounts exist: true".to_owned())));
    let run = kit.replay(Schedule::always("FILTER_DROPPED"), truth.as_ref(), &scope_blind_client).await;
    assert!(run.log.iter().any(|record| record.fault == Some(Fault::FilterDropped)), "{:?}", run.log);
    // Its conclusion is the fault-free one: only the scope tells.
    assert_eq!(run.outcome, Some(Ok(Conclusion::Complete("unowned accounts exist: true".to_owned()))));
    assert_eq!(run.violations.len(), 1, "{:?}", run.violations);
    assert!(
        run.violations[0].contains(
            "GET /service-accounts?owner=none&page_size=100 was answered over another question: its `scope` does \
             not echo the filter `owner` the request asked (dropped on the way, contract §8)"
        ),
        "{:?}",
        run.violations
    );
}

/// Pages through the unowned accounts by hand, into a set, checking every page's reasons. With
/// `notices`, it stops at a cursor it was handed out before, but concludes complete with what it
/// has; without, it follows it.
async fn loop_client(target: Target, notices: bool) -> Result<Conclusion, String> {
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let (mut ids, mut handed_out, mut cursor) = (std::collections::BTreeSet::new(), Vec::new(), None::<String>);
    loop {
        let mut query = vec![("owner".to_owned(), "none".to_owned()), ("page_size".to_owned(), "2".to_owned())];
        query.extend(cursor.take().map(|cursor| ("cursor".to_owned(), cursor)));
        let page: Value = client.get("/service-accounts", &query).await.map_err(|e| e.to_string())?;
        let reasons: Vec<String> = page["incomplete_reasons"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["code"].as_str().map(str::to_owned))
            .filter(|code| code != "MORE_PAGES_AVAILABLE")
            .collect();
        if !reasons.is_empty() {
            return Ok(Conclusion::Incomplete(reasons));
        }
        ids.extend(page["items"].as_array().into_iter().flatten().filter_map(|i| i["id"].as_str().map(str::to_owned)));
        match page["next_cursor"].as_str() {
            Some(next) if notices && handed_out.iter().any(|seen| seen == next) => {
                return Ok(Conclusion::Complete(format!("{ids:?}")));
            }
            Some(next) => {
                handed_out.push(next.to_owned());
                cursor = Some(next.to_owned());
            }
            None => return Ok(Conclusion::Complete(format!("{ids:?}"))),
        }
    }
}

/// A later page that hands out a cursor its traversal was handed out before (a server that
/// loops) leaves the traversal unfinished: a client that follows it and reads on to a complete
/// page is caught even when the set it collected is the whole one, and so is one that notices
/// the repeat but concludes complete all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_concludes_complete_over_a_cursor_handed_out_twice() {
    let loop_in = "handed out a cursor that GET /service-accounts?owner=none&page_size=2 had handed out before in \
                   the same traversal of /service-accounts?owner=none: a server that loops (contract §2.5)";
    let kit = kit();
    for notices in [false, true] {
        let client = move |target| loop_client(target, notices);
        let baseline = kit.replay(Schedule::header_only(), None, &client).await;
        assert!(baseline.violations.is_empty(), "{:?}", baseline.violations);
        let truth = baseline.outcome.and_then(Result::ok);
        // The second page hands out the first page's cursor again; nothing else is faulted.
        let schedule = Schedule::sequence([None, Some("CURSOR_REPEATED")]);
        let run = kit.replay(schedule, truth.as_ref(), &client).await;
        assert!(run.log.iter().any(|record| record.fault == Some(Fault::CursorRepeated)), "{:?}", run.log);
        assert!(run.violations.iter().any(|violation| violation.contains(loop_in)), "{notices}: {:?}", run.violations);
        if !notices {
            // Followed and read on: the set is the whole one, only the loop tells.
            assert_eq!(run.outcome.clone().and_then(Result::ok), truth, "{:?}", run.log);
            assert_eq!(run.violations.len(), 1, "{:?}", run.violations);
        }
    }
}

/// Reads the unowned accounts whole, then each one (`GET /service-accounts/{id}`), and concludes
/// which were never used: `last_used_at` is `null`. With `heeds_omissions`, a `last_used_at`
/// listed in `omitted_fields` (contract §2.7) ends it without a conclusion, naming it; without,
/// its `null` is read as "never used", the bug a field left out exists to prevent.
async fn never_used(target: Target, heeds_omissions: bool) -> Result<Conclusion, String> {
    let listing = collect(&target, UNOWNED.0, UNOWNED.1).await?;
    if let Some(other) = another_question(&listing, UNOWNED_SCOPE) {
        return Ok(Conclusion::Incomplete(vec![other]));
    }
    if !listing.completeness.is_complete() || !stale(&listing).is_empty() {
        return Ok(Conclusion::Incomplete([reasons(&listing), stale(&listing)].concat()));
    }
    let client =
        ServiceClient::with_timeout(&target.url, "admin", Duration::from_secs(30)).map_err(|e| e.to_string())?;
    let mut never = Vec::new();
    for id in ids(&listing) {
        let account: Value = client.get(&format!("/service-accounts/{id}"), &[]).await.map_err(|e| e.to_string())?;
        if let Some(why) = account["omitted_fields"].get("last_used_at").filter(|_| heeds_omissions) {
            return Ok(Conclusion::Incomplete(vec![format!("{id}: last_used_at left out ({why})")]));
        }
        if account["last_used_at"].is_null() {
            never.push(id);
        }
    }
    Ok(Conclusion::Complete(format!("never used {never:?} of {:?}", ids(&listing))))
}

/// [`never_used`], then deletes the accounts it found never used (`DELETE /service-accounts/{id}`).
async fn deletes_never_used(target: Target, heeds_omissions: bool) -> Result<Conclusion, String> {
    let conclusion = never_used(target.clone(), heeds_omissions).await?;
    let Conclusion::Complete(found) = &conclusion else { return Ok(conclusion) };
    let client = reqwest::Client::new();
    let never = found.split_once(" of ").map_or("", |(never, _)| never);
    for id in never.split('"').filter(|part| part.starts_with("sa-")) {
        let response = client
            .delete(format!("{}/service-accounts/{id}", target.url))
            .bearer_auth("admin")
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("DELETE {id}: {}", response.status()));
        }
    }
    Ok(conclusion)
}

/// A field of a single resource left out (`FIELD_OMITTED`) is caught when a client reads its
/// `null` as a genuine one: the accounts it calls never used are not those the service's whole
/// answer gives. A client that reads `omitted_fields` passes, the field left out among the
/// faults it met.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kit_catches_a_client_that_reads_a_field_left_out_as_a_genuine_null() {
    let careful = kit().schedules(10).run(|target| never_used(target, true)).await;
    careful.assert_passes();
    assert!(careful.applied.contains(&Fault::FieldOmitted), "applied: {:?}", names(careful.applied.clone()));
    assert!(careful.not_covered().is_empty(), "not covered: {:?}", names(careful.not_covered()));
    // The truth names accounts that were used: a field left out can change the answer.
    let Some(Ok(Conclusion::Complete(truth))) = &careful.truth else { panic!("no truth: {:?}", careful.truth) };
    let count = |list: &str| list.matches("sa-").count();
    let (never, all) = truth.split_once(" of ").unwrap();
    assert!(count(never) < count(all), "some unowned account was used: {truth}");

    let naive = kit().schedules(0).run(|target| never_used(target, false)).await;
    // Deleting on that reading is caught as a destructive action on a resource not seen whole,
    // whatever the conclusion; heeding `omitted_fields`, nothing is deleted on it.
    let deleting = kit().schedules(0).run(|target| deletes_never_used(target, false)).await;
    let caught = deleting.failures.iter().flat_map(|failure| &failure.violations);
    assert!(
        caught.clone().any(|violation| violation.contains("a destructive action on a resource it could not see whole")),
        "{:?}",
        caught.collect::<Vec<_>>()
    );
    kit().schedules(0).run(|target| deletes_never_used(target, true)).await.assert_passes();
    assert!(!naive.failures.is_empty(), "a null read as never used is caught");
    for failure in &naive.failures {
        // It handles every other fault as the careful client does.
        let left_out = failure.log.iter().find(|record| record.fault == Some(Fault::FieldOmitted));
        let record = left_out.unwrap_or_else(|| panic!("failed without a field left out:\n{failure}"));
        assert!(failure.to_string().contains("fields left out: "), "{failure}");
        assert!(record.omitted.as_ref().is_some_and(|omitted| !omitted.is_empty()), "{record}");
        assert!(failure.violations[0].contains("the client concluded complete with"), "{failure}");
    }
}

/// The example's account read back from its JSON, as `--faults` reads back a view it faulted for
/// the MCP tool: each `Field` as it was, filled, a genuine null, or left out with why (§2.7).
#[test]
fn an_account_view_reads_back_what_it_left_out() {
    use completeness::{Field, Omission};
    use service::account::AccountView;
    let view = AccountView {
        id: "sa-000001".into(),
        name: "svc-east-00001".into(),
        tenant: "east".into(),
        owner: None,
        owner_email: Field::Omitted(Omission::NoAccess),
        description: None,
        created_at: "2025-03-07T17:42:33Z".into(),
        last_used_at: Field::Null,
        secret_fingerprint: Field::Filled("fp".into()),
        archived: false,
        warnings: Vec::new(),
    };
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["omitted_fields"], serde_json::json!({"owner_email": "NO_ACCESS"}), "{json}");
    assert_eq!(serde_json::from_value::<AccountView>(json).unwrap(), view);
    // A field listed yet sent with a value reads as left out, the reading that claims less.
    let mut listed = serde_json::to_value(&view).unwrap();
    listed["omitted_fields"]["secret_fingerprint"] = "SOURCE_FAILED".into();
    let read = serde_json::from_value::<AccountView>(listed).unwrap();
    assert_eq!(read.secret_fingerprint, Field::Omitted(Omission::SourceFailed));
}
