//! contract §5.2 and fan-out through a real Router: time budgets, their echo, and honest merging.

use crate::axum_common;

use axum::body::Body;
use axum_common::*;
use serde_json::json;

async fn with_timeout_header(app: &axum::Router, uri: &str, seconds: &str) -> Reply {
    let request = axum::http::Request::get(uri)
        .header("authorization", "Bearer admin")
        .header("request-timeout", seconds)
        .body(Body::empty())
        .unwrap();
    send(app, request).await
}

#[tokio::test]
async fn the_applied_budget_is_the_default_the_request_or_the_cap_and_is_echoed() {
    let (app, _) = app(config(K1));
    let default = get_as(&app, "admin", "/budget").await;
    assert_eq!(default.body, json!({"applied_ms": 200, "capped": false}));
    assert_eq!(default.headers["time-budget-ms"], "200");
    let asked = get_as(&app, "admin", "/budget?time_budget_ms=350").await;
    assert_eq!(asked.body["applied_ms"], 350);
    assert_eq!(asked.headers["time-budget-ms"], "350");
    let capped = get_as(&app, "admin", "/budget?time_budget_ms=60000").await;
    assert_eq!(capped.body, json!({"applied_ms": 1000, "capped": true}));
    assert_eq!(capped.headers["time-budget-ms"], "1000");
    let huge = get_as(&app, "admin", "/budget?time_budget_ms=99999999999999999999999999").await;
    assert_eq!(huge.body["applied_ms"], 1000);
}

#[tokio::test]
async fn a_request_timeout_header_sets_the_budget_and_the_smaller_of_both_applies() {
    let (app, _) = app(config(K1));
    let header = with_timeout_header(&app, "/budget", "0.5").await;
    assert_eq!(header.body["applied_ms"], 500);
    let both = with_timeout_header(&app, "/budget?time_budget_ms=300", "0.5").await;
    assert_eq!(both.body["applied_ms"], 300);
    assert_eq!(both.headers["time-budget-ms"], "300");
}

#[tokio::test]
async fn zero_negative_and_garbage_budgets_are_400_invalid_time_budget() {
    let (app, _) = app(config(K1));
    for bad in ["0", "-5", "abc", "", "1.5", "10ms", "5&time_budget_ms=6"] {
        get_as(&app, "admin", &format!("/budget?time_budget_ms={bad}"))
            .await
            .assert_problem(400, "INVALID_TIME_BUDGET");
    }
    for bad in ["0", "-1", "soon", "1e3", "", "1."] {
        with_timeout_header(&app, "/budget", bad).await.assert_problem(400, "INVALID_TIME_BUDGET");
    }
    // Two headers, as two query parameters, leave the client unsure which one applied.
    let twice = axum::http::Request::get("/budget")
        .header("authorization", "Bearer admin")
        .header("request-timeout", "2")
        .header("request-timeout", "1")
        .body(Body::empty())
        .unwrap();
    let twice = send(&app, twice).await;
    twice.assert_problem(400, "INVALID_TIME_BUDGET");
    assert_eq!(twice.body["parameter"], "Request-Timeout");
    // A positive time under a millisecond is the smallest budget, not refused as zero.
    assert_eq!(with_timeout_header(&app, "/budget", "0.0001").await.body["applied_ms"], 1);
}

#[tokio::test]
async fn a_fan_out_where_every_source_answers_is_complete() {
    let (app, _) = app(config(K1));
    let reply = get_as(&app, "admin", "/search").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["complete"], true);
    assert_eq!(reply.ids(), ["directory-1", "audit-1", "legacy-1"]);
}

#[tokio::test]
async fn a_failing_source_is_source_unavailable_and_the_other_items_are_kept() {
    let (app, _) = app(config(K1));
    let reply = get_as(&app, "admin", "/search?fail=legacy").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["complete"], false);
    assert_eq!(reply.ids(), ["directory-1", "audit-1"]);
    assert_eq!(
        reply.body["incomplete_reasons"],
        json!([{"code": "SOURCE_UNAVAILABLE", "message": "Source 'legacy' did not respond.", "source": "legacy"}])
    );
    assert!(!reply.body.to_string().contains("refused the connection"), "the source's error stays on the server");
}

#[tokio::test]
async fn a_source_out_of_budget_is_time_budget_exceeded_with_progress() {
    let (app, _) = app(config(K1));
    let reply = get_as(&app, "admin", "/search?slow=audit&fail=legacy&time_budget_ms=30").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["complete"], false);
    assert_eq!(reply.ids(), ["directory-1"]);
    let reasons = reply.body["incomplete_reasons"].as_array().unwrap();
    assert_eq!(reasons[0]["code"], "SOURCE_UNAVAILABLE");
    assert_eq!(reasons[1]["code"], "TIME_BUDGET_EXCEEDED");
    assert_eq!(reasons[1]["budget_ms"], 30);
    assert_eq!(reasons[1]["progress"], json!({"completed": 1, "planned": 3, "unit": "sources"}));
    assert_eq!(reply.headers["time-budget-ms"], "30");
}

#[tokio::test]
async fn an_incomplete_and_empty_fan_out_is_reported_not_mistaken_for_absence() {
    let (app, _) = app(config(K1));
    let reply = get_as(&app, "admin", "/search?fail=legacy,audit&slow=directory&time_budget_ms=20").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["complete"], false);
    assert_eq!(reply.body["items"], json!([]));
    let codes: Vec<&str> =
        reply.body["incomplete_reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["SOURCE_UNAVAILABLE", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED"]);
    assert_eq!(reply.body["incomplete_reasons"][2]["progress"]["completed"], 0);
    assert_eq!(reply.body["continuation"]["kind"], "retry_with_deadline", "a larger budget is allowed up to the cap");
    let strict = get_as(&app, "admin", "/search?fail=audit&require_complete=true").await;
    strict.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
}

/// The OpenAPI pattern of `Request-Timeout` is what the server takes: every value it matches is a
/// budget, and every value it refuses is a 400, so a client that validates against the document
/// is never refused for a value the document allows.
#[cfg(feature = "openapi")]
#[tokio::test]
async fn the_described_request_timeout_pattern_is_what_the_server_accepts() {
    use completeness::schema::parameters::{self, POSITIVE_SECONDS};
    let described = serde_json::to_value(&parameters::time_budget()[1]).unwrap();
    assert_eq!(described["name"], "request-timeout");
    assert_eq!(described["schema"]["pattern"], POSITIVE_SECONDS);
    let pattern = regex::Regex::new(POSITIVE_SECONDS).unwrap();
    let (app, _) = app(config(K1));
    let values = [
        "1", "2.5", "0.5", "0.0001", "10.000", "007", " 3 ", "\t1", "0", "0.0", "00.000", "", " ", "-1", "+1", "1.",
        ".5", "1e3", "1,5", "2 s", "0x10", "1..2",
    ];
    for value in values {
        let reply = with_timeout_header(&app, "/budget", value).await;
        let accepted = reply.status == 200;
        assert!(accepted || reply.status == 400, "'{value}': {}", reply.body);
        assert_eq!(pattern.is_match(value), accepted, "'{value}': the pattern and the server disagree: {}", reply.body);
    }
}
