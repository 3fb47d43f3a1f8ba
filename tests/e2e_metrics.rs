//! End to end: the example service with its `legacy` source failing, a scenario over real
//! HTTP, then a scrape of `GET /metrics` (Prometheus text, no credential) showing what went up.

mod e2e_support;
mod observe_support;

use e2e_support::{Harness, config};
use observe_support::value;
use reqwest::Method;
use serde_json::json;

async fn scrape(h: &Harness) -> String {
    let response = h.request(Method::GET, "/metrics").send().await.expect("the service answers");
    assert_eq!(response.status(), 200, "/metrics needs no credential");
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    response.text().await.unwrap()
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_failing_source_shows_in_the_counters() {
    let mut cfg = config(40);
    cfg.fail_sources = vec!["legacy".to_owned()];
    cfg.slow_sources.clear();
    let h = Harness::start(cfg).await;
    let before = scrape(&h).await;

    for q in ["svc-north", "svc-south", "svc-east"] {
        let answer = h.get(&format!("/search?q={q}"), "admin").await;
        assert_eq!((answer.status.as_u16(), answer.reasons()), (200, vec!["SOURCE_UNAVAILABLE".to_owned()]));
    }
    h.get("/search?q=svc&require_complete=true", "admin").await.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    let clamped = h.get("/service-accounts?page_size=100000", "admin").await;
    assert_eq!(clamped.body["complete"], true, "40 accounts fit one clamped page");
    h.get("/service-accounts?cursor=c1.k1.Zm9yZ2Vk.bWFj", "admin").await.assert_problem(400, "INVALID_CURSOR");
    let forged = json!({"ids": ["sa-000001"], "evidence": "ev1.k1.Zm9yZ2Vk.bWFj"});
    h.post("/service-accounts/archive", "admin", &forged).await.assert_problem(412, "EVIDENCE_INVALID");

    let after = scrape(&h).await;
    let delta = |name: &str, labels: &[(&str, &str)]| value(&after, name, labels) - value(&before, name, labels);
    let search_partial = [("route", "/search"), ("method", "GET"), ("complete", "false")];
    assert_eq!(delta("completeness_responses_total", &search_partial), 4.0, "three partial answers and one refused");
    assert_eq!(delta("completeness_reasons_total", &[("route", "/search"), ("code", "SOURCE_UNAVAILABLE")]), 4.0);
    assert_eq!(delta("completeness_strict_refusals_total", &[("route", "/search"), ("status", "503")]), 1.0);
    let list_complete = [("route", "/service-accounts"), ("method", "GET"), ("complete", "true")];
    assert_eq!(delta("completeness_responses_total", &list_complete), 1.0);
    assert_eq!(delta("completeness_page_size_reduced_total", &[("route", "/service-accounts")]), 1.0);
    let reduced = [("route", "/service-accounts"), ("code", "PAGE_SIZE_REDUCED")];
    assert_eq!(delta("completeness_warnings_total", &reduced), 1.0);
    let cursor = [("route", "/service-accounts"), ("code", "INVALID_CURSOR")];
    assert_eq!(delta("completeness_cursor_refusals_total", &cursor), 1.0);
    let evidence = [("route", "/service-accounts/archive"), ("code", "EVIDENCE_INVALID")];
    assert_eq!(delta("completeness_evidence_refusals_total", &evidence), 1.0);
    assert!(after.contains("# HELP completeness_responses_total"), "counters are described:\n{after}");
}
}
