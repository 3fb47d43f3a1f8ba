//! End to end: scenarios over real HTTP (the example service with its `legacy` source failing;
//! partial answers and refusals over MCP), each followed by a scrape of `GET /metrics`
//! (Prometheus text, no credential) showing what went up.

mod e2e_support;
mod observe_support;

use e2e_support::{Harness, config};
use observe_support::value;
use serde_json::json;

/// The counters are the process's: the cases of this file take turns, so that each one's
/// deltas are its own.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How much a counter (by name and labels) went up between the scrapes `before` and `after`.
fn went_up<'a>(before: &'a str, after: &'a str) -> impl Fn(&str, &[(&str, &str)]) -> f64 + 'a {
    move |name, labels| value(after, name, labels) - value(before, name, labels)
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_failing_source_shows_in_the_counters() {
    let mut cfg = config(40);
    cfg.fail_sources = vec!["legacy".to_owned()];
    cfg.slow_sources.clear();
    let h = Harness::start(cfg).await;
    let _turn = TURN.lock().await;
    let before = h.metrics().await;

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
    h.get("/service-accounts/sa-999999", "admin").await.assert_problem(404, "NOT_FOUND");
    h.get("/service-accounts?page_size=0", "admin").await.assert_problem(400, "INVALID_PAGE_SIZE");
    h.get("/nowhere", "admin").await.assert_problem(404, "NOT_FOUND");
    // An archive with the evidence of a complete inventory: accepted, and counted.
    let inventory = h.get("/service-accounts?owner=none&page_size=500", "admin").await;
    let evidence = inventory.body["evidence"].clone();
    let unowned = inventory.ids();
    assert!(evidence.is_string() && !unowned.is_empty(), "{:?}", inventory.body);
    let accepted = h.post("/service-accounts/archive", "admin", &json!({"ids": &unowned[..1], "evidence": evidence})).await;
    assert_eq!(accepted.status.as_u16(), 200, "{:?}", accepted.body);
    // The service's own code, counted by its name: a method no route has.
    let refused = h.request(reqwest::Method::DELETE, "/service-accounts").bearer_auth("admin").send().await.unwrap();
    assert_eq!(refused.status(), 405);

    let after = h.metrics().await;
    let delta = went_up(&before, &after);
    let search_partial = [("route", "/search"), ("method", "GET"), ("complete", "false")];
    assert_eq!(delta("completeness_responses_total", &search_partial), 4.0, "three partial answers and one refused");
    assert_eq!(delta("completeness_reasons_total", &[("route", "/search"), ("method", "GET"), ("code", "SOURCE_UNAVAILABLE")]), 4.0);
    assert_eq!(delta("completeness_strict_refusals_total", &[("route", "/search"), ("method", "GET"), ("status", "503")]), 1.0);
    let list_complete = [("route", "/service-accounts"), ("method", "GET"), ("complete", "true")];
    assert_eq!(delta("completeness_responses_total", &list_complete), 2.0, "the clamped page and the inventory");
    assert_eq!(delta("completeness_page_size_reduced_total", &[("route", "/service-accounts"), ("method", "GET")]), 1.0);
    let reduced = [("route", "/service-accounts"), ("method", "GET"), ("code", "PAGE_SIZE_REDUCED")];
    assert_eq!(delta("completeness_warnings_total", &reduced), 1.0);
    let cursor = [("route", "/service-accounts"), ("method", "GET"), ("code", "INVALID_CURSOR")];
    assert_eq!(delta("completeness_cursor_refusals_total", &cursor), 1.0);
    let evidence = [("route", "/service-accounts/archive"), ("method", "POST"), ("code", "EVIDENCE_INVALID")];
    assert_eq!(delta("completeness_evidence_refusals_total", &evidence), 1.0);
    let accepted = [("route", "/service-accounts/archive"), ("method", "POST")];
    assert_eq!(delta("completeness_evidence_accepted_total", &accepted), 1.0, "{after}");
    assert!(after.contains("# HELP completeness_responses_total"), "counters are described:\n{after}");
    // Every other problem counts by route, method, status and code; a refused token or strict
    // demand only in its own counter.
    let problems = |route: &'static str, method: &'static str, status: &'static str, code: &'static str| {
        let labels = [("route", route), ("method", method), ("status", status), ("code", code)];
        delta("completeness_problems_total", &labels)
    };
    assert_eq!(problems("/service-accounts/{id}", "GET", "404", "NOT_FOUND"), 1.0, "{after}");
    assert_eq!(problems("/service-accounts", "GET", "400", "INVALID_PAGE_SIZE"), 1.0, "{after}");
    assert_eq!(problems("unmatched", "GET", "404", "NOT_FOUND"), 1.0, "{after}");
    assert_eq!(problems("/service-accounts", "DELETE", "405", "METHOD_NOT_ALLOWED"), 1.0, "{after}");
    assert_eq!(problems("/service-accounts", "GET", "405", "METHOD_NOT_ALLOWED"), 0.0, "by method: {after}");
    assert_eq!(problems("/service-accounts", "GET", "400", "INVALID_CURSOR"), 0.0);
    assert_eq!(problems("/search", "GET", "503", "COMPLETE_RESULT_UNAVAILABLE"), 0.0);
    // The service's own histogram of request durations counts every request, answered or
    // refused, by route template, method and status: the denominator of the counts above.
    let requests = |route: &'static str, method: &'static str, status: &'static str| {
        let labels = [("route", route), ("method", method), ("status", status)];
        delta("http_server_request_duration_seconds_count", &labels)
    };
    assert_eq!(requests("/search", "GET", "200"), 3.0, "{after}");
    assert_eq!(requests("/search", "GET", "503"), 1.0, "{after}");
    assert_eq!(requests("/service-accounts", "GET", "200"), 2.0, "{after}");
    assert_eq!(requests("/service-accounts/archive", "POST", "200"), 1.0, "{after}");
    assert_eq!(requests("/service-accounts", "GET", "400"), 2.0, "{after}");
    assert_eq!(requests("/service-accounts/{id}", "GET", "404"), 1.0, "{after}");
    assert_eq!(requests("/service-accounts/archive", "POST", "412"), 1.0, "{after}");
    assert_eq!(requests("unmatched", "GET", "404"), 1.0, "{after}");
    assert_eq!(requests("/service-accounts", "DELETE", "405"), 1.0, "{after}");
    let slowest = [("route", "/search"), ("method", "GET"), ("status", "200"), ("le", "+Inf")];
    assert_eq!(delta("http_server_request_duration_seconds_bucket", &slowest), 3.0, "{after}");
    assert!(after.contains("# HELP http_server_request_duration_seconds"), "{after}");
}
}

/// One MCP tool call as `token`, on the current protocol (no session): the JSON-RPC result.
async fn tool_call(h: &Harness, token: &str, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    let call = json!({"name": tool, "arguments": arguments});
    let answer = h.answer(h.mcp_request(token, 1, "tools/call", Some(tool), call)).await;
    assert_eq!(answer.status.as_u16(), 200, "{answer:?}");
    answer.body["result"].clone()
}

e2e_support::both_backends! {
#[tokio::test]
async fn partial_answers_and_refusals_over_mcp_show_in_the_counters_under_their_tool() {
    let h = Harness::start(config(40)).await;
    let _turn = TURN.lock().await;
    let before = h.metrics().await;

    // Incomplete and empty: north asks for a tenant it cannot read.
    let hidden = tool_call(&h, "north", "list_service_accounts", json!({"tenant": "south"})).await;
    assert_eq!((hidden["isError"].clone(), hidden["structuredContent"]["complete"].clone()), (json!(false), json!(false)));
    // The same demanded complete: refused (403, a visibility reason).
    let strict = tool_call(&h, "north", "count_service_accounts", json!({"tenant": "south", "require_complete": true})).await;
    assert_eq!(strict["isError"], true, "{strict}");
    // A forged cursor, and an archive without evidence.
    let forged = tool_call(&h, "admin", "list_service_accounts", json!({"cursor": "c1.k1.Zm9yZ2Vk.bWFj"})).await;
    assert_eq!(forged["isError"], true, "{forged}");
    let bare = tool_call(&h, "admin", "archive_service_accounts", json!({"ids": ["sa-000001"]})).await;
    assert_eq!(bare["isError"], true, "{bare}");
    // And with the evidence of a complete inventory: accepted.
    let inventory = tool_call(&h, "admin", "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    let listed = &inventory["structuredContent"];
    let first = listed["items"][0]["id"].clone();
    let archived = tool_call(
        &h,
        "admin",
        "archive_service_accounts",
        json!({"ids": [first], "evidence": listed["evidence"].clone()}),
    )
    .await;
    assert_eq!(archived["isError"], false, "{archived}");

    let after = h.metrics().await;
    let delta = went_up(&before, &after);
    let list_partial = [("route", "list_service_accounts"), ("method", "MCP"), ("complete", "false")];
    assert_eq!(delta("completeness_responses_total", &list_partial), 1.0);
    let hidden_reason = [("route", "list_service_accounts"), ("method", "MCP"), ("code", "VISIBILITY_RESTRICTED")];
    assert_eq!(delta("completeness_reasons_total", &hidden_reason), 1.0);
    let count_partial = [("route", "count_service_accounts"), ("method", "MCP"), ("complete", "false")];
    assert_eq!(delta("completeness_responses_total", &count_partial), 1.0, "the refused answer is counted too");
    let refused = [("route", "count_service_accounts"), ("method", "MCP"), ("status", "403")];
    assert_eq!(delta("completeness_strict_refusals_total", &refused), 1.0);
    let cursor = [("route", "list_service_accounts"), ("method", "MCP"), ("code", "INVALID_CURSOR")];
    assert_eq!(delta("completeness_cursor_refusals_total", &cursor), 1.0);
    let evidence = [("route", "archive_service_accounts"), ("method", "MCP"), ("code", "EVIDENCE_REQUIRED")];
    assert_eq!(delta("completeness_evidence_refusals_total", &evidence), 1.0);
    let accepted = [("route", "archive_service_accounts"), ("method", "MCP")];
    assert_eq!(delta("completeness_evidence_accepted_total", &accepted), 1.0, "{after}");
}
}

/// With fault injection on, the counters and the request log are those of the answer the
/// client received: the faults are applied inside the request log and observed as sent.
#[tokio::test]
async fn faulted_answers_are_counted_as_sent() {
    let mut cfg = config(40);
    cfg.slow_sources.clear();
    cfg.faults = Some(completeness::testing::faults::Schedule::header_only());
    let h = Harness::start(cfg).await;
    let _turn = TURN.lock().await;
    let before = h.metrics().await;

    let faulted = |path: &str| {
        h.request(reqwest::Method::GET, path).bearer_auth("admin").header("completeness-fault", "SOURCE_UNAVAILABLE")
    };
    let partial = faulted("/search?q=svc").send().await.unwrap();
    assert_eq!(partial.status(), 200);
    assert!(partial.headers().contains_key("x-request-id"), "a faulted answer carries its request id");
    let body: serde_json::Value = partial.json().await.unwrap();
    assert_eq!(body["complete"], false);
    let refused = faulted("/search?q=svc&require_complete=true").send().await.unwrap();
    assert_eq!(refused.status(), 503, "the faulted answer is refused under the demand");
    assert!(refused.headers().contains_key("x-request-id"), "a refusal the fault caused carries its request id");

    let after = h.metrics().await;
    let delta = went_up(&before, &after);
    let search = |complete| [("route", "/search"), ("method", "GET"), ("complete", complete)];
    assert_eq!(
        (
            delta("completeness_responses_total", &search("false")),
            delta("completeness_responses_total", &search("true"))
        ),
        (2.0, 0.0),
        "the two answers sent were partial; the complete ones the handler gave were replaced"
    );
    assert_eq!(
        delta("completeness_reasons_total", &[("route", "/search"), ("method", "GET"), ("code", "SOURCE_UNAVAILABLE")]),
        2.0
    );
    assert_eq!(
        delta("completeness_strict_refusals_total", &[("route", "/search"), ("method", "GET"), ("status", "503")]),
        1.0
    );
}

/// A single resource whose usage source failed leaves `last_used_at` out: over REST and over
/// MCP alike, it counts as missing data, with its omission by code.
#[tokio::test]
async fn a_resource_with_a_field_left_out_shows_in_the_counters_over_rest_and_mcp() {
    let mut cfg = config(10);
    cfg.fail_sources = vec!["usage".to_owned()];
    let h = Harness::start(cfg).await;
    let _turn = TURN.lock().await;
    let before = h.metrics().await;

    let rest = h.get("/service-accounts/sa-000001", "admin").await;
    assert_eq!(rest.body["omitted_fields"]["last_used_at"], "SOURCE_FAILED", "{rest:?}");
    let mcp = tool_call(&h, "admin", "get_service_account", json!({"id": "sa-000001"})).await;
    assert_eq!(mcp["structuredContent"]["omitted_fields"]["last_used_at"], "SOURCE_FAILED", "{mcp}");

    let after = h.metrics().await;
    let delta = went_up(&before, &after);
    for (route, method) in [("/service-accounts/{id}", "GET"), ("get_service_account", "MCP")] {
        let omitted = [("route", route), ("method", method), ("code", "SOURCE_FAILED")];
        assert_eq!(delta("completeness_omitted_fields_total", &omitted), 1.0, "{route}:\n{after}");
        let missing = [("route", route), ("method", method)];
        assert_eq!(delta("completeness_missing_data_total", &missing), 1.0, "{route}:\n{after}");
    }
}

/// Each background task's failure counter is there from the start, at whatever it counted:
/// an alert on its rate sees the first failure, which a series appearing at 1 would not show.
#[tokio::test]
async fn the_background_task_failures_are_counted_from_the_start() {
    let h = Harness::start(config(5)).await;
    let counted = h.metrics().await;
    for task in ["snapshot pruner", "source refresh"] {
        let series = format!("service_background_task_failures_total{{task=\"{task}\"}} ");
        assert!(counted.lines().any(|line| line.starts_with(&series)), "{series} in:\n{counted}");
    }
}

/// The counters that partial answers raise are there from the start, for every code each
/// operation declares in the OpenAPI document (`x-completeness`) and each MCP tool its route's,
/// so that the first partial answer of a route is an increase an alert sees.
#[tokio::test]
async fn the_counters_of_partial_answers_are_there_from_the_start() {
    let h = Harness::start(config(5)).await;
    let counted = h.metrics().await;
    let document = h.request(reqwest::Method::GET, "/openapi.json").send().await.unwrap();
    let document: serde_json::Value = document.json().await.unwrap();
    let exists = |name: &str, route: &str, method: &str, code: &str| {
        let labels = [("route", route), ("method", method), ("code", code)];
        assert!(observe_support::series(&counted, name, &labels).is_some(), "{name}{labels:?} in:\n{counted}");
    };
    let tools = [("/service-accounts", "list_service_accounts"), ("/search", "search_service_accounts")];
    let tools = tools.into_iter().chain([("/service-accounts/count", "count_service_accounts")]);
    let mut declaring = 0;
    for (path, tool) in tools {
        let declared = &document["paths"][path]["get"]["x-completeness"];
        let codes = |member: &str| -> Vec<String> {
            let codes = declared[member].as_array().unwrap_or_else(|| panic!("{path}: {declared}"));
            codes.iter().map(|code| code.as_str().unwrap().to_owned()).collect()
        };
        for (route, method) in [(path, "GET"), (tool, "MCP")] {
            for code in codes("reasons") {
                exists("completeness_reasons_total", route, method, &code);
                declaring += 1;
            }
            for code in codes("warnings") {
                exists("completeness_warnings_total", route, method, &code);
            }
            let partial = [("route", route), ("method", method), ("complete", "false")];
            assert!(observe_support::series(&counted, "completeness_responses_total", &partial).is_some(), "{route}");
            let missing = [("route", route), ("method", method)];
            assert!(
                observe_support::series(&counted, "completeness_missing_data_total", &missing).is_some(),
                "{route}"
            );
        }
    }
    assert!(declaring >= 12, "every route declares reasons: {declaring}");
    for (route, method) in [("/service-accounts/{id}", "GET"), ("get_service_account", "MCP")] {
        for code in ["NO_ACCESS", "SOURCE_FAILED", "NOT_REQUESTED"] {
            exists("completeness_omitted_fields_total", route, method, code);
        }
    }
}
