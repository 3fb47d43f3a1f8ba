//! End to end: label values stay bounded. A thousand requests naming a thousand distinct ids,
//! queries, cursors and evidence tokens add to the counters but add no series.

mod e2e_support;
mod observe_support;

use std::collections::BTreeSet;

use e2e_support::{Harness, config};
use observe_support::{samples, value};
use reqwest::Method;
use serde_json::json;

async fn scrape(h: &Harness) -> String {
    h.request(Method::GET, "/metrics").send().await.expect("the service answers").text().await.unwrap()
}

/// Every series of the framework's counters, by name and labels.
fn series(text: &str) -> BTreeSet<String> {
    samples(text)
        .into_iter()
        .filter(|s| s.name.starts_with("completeness_"))
        .map(|s| format!("{}{:?}", s.name, s.labels))
        .collect()
}

/// One request of each kind, naming `i`.
async fn requests_naming(h: &Harness, i: usize) {
    h.get(&format!("/service-accounts/sa-{i:06}"), "admin").await;
    let search = h.get(&format!("/search?q=svc-{i}"), "admin").await;
    assert_eq!(search.reasons(), ["SOURCE_UNAVAILABLE"]);
    h.get(&format!("/service-accounts?cursor=c1.k1.forged{i}.mac"), "admin")
        .await
        .assert_problem(400, "INVALID_CURSOR");
    let forged = json!({"ids": [format!("sa-{i:06}")], "evidence": format!("ev1.k1.forged{i}.mac")});
    h.post("/service-accounts/archive", "admin", &forged).await.assert_problem(412, "EVIDENCE_INVALID");
}

#[tokio::test]
async fn a_thousand_requests_to_distinct_ids_add_no_series() {
    let mut cfg = config(20);
    cfg.fail_sources = vec!["legacy".to_owned()];
    cfg.slow_sources.clear();
    let h = Harness::start(cfg).await;
    // (An id that exists first: a read account counts its omitted fields and warnings too; and
    // one that does not, whose 404 counts as a problem.)
    requests_naming(&h, 1).await;
    requests_naming(&h, 999_999).await;
    let before = scrape(&h).await;
    for i in 2..=250 {
        requests_naming(&h, i).await;
    }
    let after = scrape(&h).await;
    assert_eq!(series(&after), series(&before), "no new series");
    let partial = [("route", "/search"), ("method", "GET"), ("complete", "false")];
    assert_eq!(value(&after, "completeness_responses_total", &partial), 251.0, "the counters did count");
    let cursor = [("route", "/service-accounts"), ("method", "GET"), ("code", "INVALID_CURSOR")];
    assert_eq!(value(&after, "completeness_cursor_refusals_total", &cursor), 251.0);
    for sample in samples(&after).iter().filter(|s| s.name.starts_with("completeness_")) {
        for label in sample.labels.values() {
            assert!(!label.contains("sa-") && !label.contains("forged"), "an id or token in a label: {sample:?}");
        }
    }
}
