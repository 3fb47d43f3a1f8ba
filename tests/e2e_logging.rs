//! End to end: the example's request log. `RUST_LOG` is read strictly (a mistyped level is
//! refused, not a silenced log) and never lets rmcp write whole messages; the request id in
//! the log is the one echoed to the client; and the events of an MCP tool call are written in
//! the span of the HTTP request that carried it.
//!
//! A test binary of its own: each case reads its events through a subscriber of its thread,
//! and tracing caches per event site whether any subscriber wants it, for the whole process.
//! In the binary of the other tests, their servers (no subscriber, on other threads) hit the
//! same sites at the same time, and a case then missed the events of its own server.

mod e2e_support;

use std::ffi::OsStr;

use e2e_support::service::telemetry::{DEFAULT_FILTER, human_layer, log_filter};
use e2e_support::{Harness, LogBuffer, config};
use reqwest::header::HeaderValue;
use serde_json::json;
use tracing::Level;
use tracing_subscriber::layer::SubscriberExt;

fn filter(text: &str) -> Result<tracing_subscriber::filter::Targets, String> {
    log_filter(Some(OsStr::new(text)))
}

#[test]
fn rust_log_names_levels_and_targets_or_is_refused() {
    let default = log_filter(None).unwrap();
    assert!(default.would_enable("completeness", &Level::INFO) && !default.would_enable("rmcp", &Level::INFO));
    assert!(DEFAULT_FILTER.contains("rmcp=error"));
    assert!(!default.would_enable("rmcp", &Level::WARN), "rmcp's warnings carry values clients chose, whole");

    for (text, says) in [
        ("", "RUST_LOG is empty"),
        ("  ", "RUST_LOG is empty"),
        ("inof", "'inof' is not a level"),
        ("info,completeness", "completeness=debug"),
        ("{", "'{' filters by span or field"),
        ("info,[{x}]=trace", "'[{x}]=trace' filters by span or field"),
        ("completeness[list]=debug", "filters by span or field"),
        ("completeness=verbose", "RUST_LOG"),
    ] {
        let refused = filter(text).expect_err(text);
        assert!(refused.contains(says), "RUST_LOG={text:?}: {refused}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let refused = log_filter(Some(OsStr::from_bytes(b"\xff"))).unwrap_err();
        assert_eq!(refused, "RUST_LOG is not UTF-8");
    }

    let asked = filter("warn,completeness=debug").unwrap();
    assert!(asked.would_enable("completeness", &Level::DEBUG));
    assert!(!asked.would_enable("tower_http::trace", &Level::INFO));
    assert!(filter("INFO").unwrap().would_enable("tower_http::trace", &Level::INFO), "level names in any case");
}

#[test]
fn rmcp_never_logs_below_info_since_its_debug_events_carry_tokens() {
    // tracing matches a target by prefix: `rm`, `r`, the empty target and `rmcp:` reach rmcp too.
    for text in [
        "debug",
        "trace",
        "info,rmcp=trace",
        "rmcp::service=debug,info",
        "info,rm=debug",
        "info,r=trace",
        "=debug",
        "info,=debug",
        "info,rmcp:=debug",
        "warn,rmcp=debug,rm=trace",
    ] {
        let capped = filter(text).unwrap();
        assert!(!capped.would_enable("rmcp::service", &Level::DEBUG), "RUST_LOG={text}");
        assert!(capped.would_enable("rmcp::service", &Level::INFO), "RUST_LOG={text}");
    }
    assert!(filter("debug").unwrap().would_enable("completeness", &Level::DEBUG), "only rmcp is capped");
    let quiet = filter("completeness=debug").unwrap();
    assert!(!quiet.would_enable("rmcp", &Level::WARN), "a filter that names no default enables no rmcp");
    // The cap only ever lowers: a quieter filter stays as quiet.
    let warn = filter("warn,rm=error").unwrap();
    assert!(!warn.would_enable("rmcp::service", &Level::WARN) && warn.would_enable("rmcp::service", &Level::ERROR));
    assert!(!filter("info,rmcp=off").unwrap().would_enable("rmcp::service", &Level::ERROR));
}

/// The log lines written while `f` runs, in the example's human format.
fn human_log() -> (impl tracing::Subscriber + Send + Sync, LogBuffer) {
    human_log_filtered("info")
}

/// [`human_log`] with the `RUST_LOG` filter `rust_log`.
fn human_log_filtered(rust_log: &str) -> (impl tracing::Subscriber + Send + Sync, LogBuffer) {
    let log = LogBuffer::default();
    let writer = {
        let log = log.clone();
        move || log.clone()
    };
    let subscriber = tracing_subscriber::registry().with(filter(rust_log).unwrap()).with(human_layer(writer, false));
    (subscriber, log)
}

/// A background task's failed or panicking round is an `ERROR` event in the service's log, in
/// its format, naming the task and when it runs again: not a bare line on stderr that a log
/// pipeline reading JSON lines or alerting on levels would miss. A round failed by a database
/// outage already logged is no second `ERROR` line (a pruner running every 50 ms would write
/// twenty a second through the outage), but it is counted all the same.
#[test]
fn a_background_task_failure_is_an_error_event_in_the_log() {
    use e2e_support::service::chore;
    use e2e_support::service::db::StoreError;
    use e2e_support::service::store::watched::Health;
    let metrics = e2e_support::service::telemetry::install_metrics().expect("the service's recorder");
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let every = std::time::Duration::from_secs(5);
    let health = Health::reminding_every(std::time::Duration::from_secs(3600));
    let failed = || Err(StoreError::Postgres("relation \"replicas\" does not exist".into()));
    assert!(!chore("snapshot pruner", every, &health, failed));
    assert!(!chore("source refresh", every, &health, || panic!("boom")));
    let log = lines.text();
    let errors: Vec<&str> = log.lines().filter(|line| line.contains("ERROR")).collect();
    assert_eq!(errors.len(), 2, "{log}");
    assert!(errors[0].contains(r#"task="snapshot pruner""#) && errors[0].contains("does not exist"), "{log}");
    assert!(errors[0].contains("retry_in_ms=5000"), "{log}");
    assert!(errors[1].contains(r#"task="source refresh""#) && errors[1].contains(r#"panic="boom""#), "{log}");

    // In an outage: its one line when it began, then the rounds it fails are quiet at this level.
    let unreachable = || Err(StoreError::Unavailable("connection refused".into()));
    health.observe(&unreachable(), false);
    let began = lines.text();
    assert_eq!(began.lines().filter(|line| line.contains("ERROR")).count(), 3, "{began}");
    for _ in 0..3 {
        assert!(!chore("snapshot pruner", every, &health, unreachable));
    }
    assert_eq!(lines.text(), began, "no line per failed round in the outage");
    // A failure of another kind in the outage is news, and is said.
    assert!(!chore("snapshot pruner", every, &health, failed));
    assert_eq!(lines.text().lines().filter(|line| line.contains("ERROR")).count(), 4, "{}", lines.text());
    // Once it has ended, the same failure is news again.
    health.observe(&Ok(()), true);
    assert!(!chore("snapshot pruner", every, &health, unreachable));
    assert_eq!(lines.text().lines().filter(|line| line.contains("ERROR")).count(), 5, "{}", lines.text());

    // Every failed round is counted, by task, for an alert.
    let counted = metrics.render();
    for (task, failed) in [("snapshot pruner", 6), ("source refresh", 1)] {
        let line = format!("service_background_task_failures_total{{task=\"{task}\"}} {failed}");
        assert!(counted.lines().any(|l| l == line), "{line} in:\n{counted}");
    }
}

/// An MCP request at the current protocol, as `north`, of `method`, whose body is `text` as written.
fn mcp_text(h: &Harness, method: &str, text: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
    h.request(reqwest::Method::POST, "/mcp")
        .bearer_auth("north")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", rmcp::model::ProtocolVersion::V_2026_07_28.to_string())
        .header("mcp-method", method)
        .body(text)
}

/// An MCP request, as `north`, for a method that does not exist, with the JSON-RPC `id` given:
/// rmcp answers it with an error, and logs the id as sent.
async fn unknown_method_with_id(h: &Harness, id: &str) {
    let version = rmcp::model::ProtocolVersion::V_2026_07_28.to_string();
    let meta =
        json!({"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}});
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method", "params": {"_meta": meta}});
    let answer = h.answer(mcp_text(h, "no/such/method", message.to_string())).await;
    assert_eq!(answer.body["error"]["code"], -32601, "{answer:?}");
}

/// A value a client chose is logged with its control characters escaped: the `id` of an MCP
/// request, which rmcp logs as sent when it answers with an error, carrying a terminal escape,
/// a carriage return and a newline neither erases the line it is in nor starts one of its own.
#[tokio::test]
async fn a_value_a_client_chose_cannot_forge_or_erase_a_log_line() {
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(5)).await;

    let forged = "2026-12-03T19:20:00.000000Z  INFO request{id=\"0\"}: finished processing request status=200";
    unknown_method_with_id(&h, &format!("x\u{1b}[2K\r\n{forged}")).await;

    let log = lines.text();
    assert!(log.contains(r"x\u{1b}[2K\r\n2026-12-03T19:20:00"), "the id is logged, escaped:\n{log}");
    assert!(!log.lines().any(|line| line.starts_with(forged)), "a line of the client's own:\n{log}");
    assert!(!log.contains(['\u{1b}', '\r']), "a raw control character:\n{log}");
}

/// A value a client chose cannot add fields to the line it is logged in: rmcp writes the `id`
/// of a request it refuses with `Display`, and one holding spaces, quotes and `=` is quoted
/// whole, so `event="strict_refusal"` in it is no event of the service's own.
#[tokio::test]
async fn a_value_a_client_chose_cannot_add_fields_to_a_log_line() {
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(5)).await;

    let forged = r#"7 event="strict_refusal" status=503 credential="admin""#;
    unknown_method_with_id(&h, forged).await;

    let log = lines.text();
    assert!(log.contains(r#"id="7 event=\"strict_refusal\" status=503 credential=\"admin\"""#), "quoted whole:\n{log}");
    assert!(!log.contains(r#" event="strict_refusal""#), "a field of the client's own:\n{log}");
    assert!(!log.contains(r#" credential="admin""#), "a field of the client's own:\n{log}");
    // The service's own fields keep their form.
    assert!(log.contains(r#"method="POST""#) || log.contains("method=POST"), "{log}");
}

/// Each form a field value can take, as the human format writes it: a value recorded as a
/// string keeps its quotes; one recorded with `Display` is written as it is unless it holds a
/// space, a quote or an `=`, then it is quoted whole, its quotes and backslashes escaped; one
/// already in the form of a quoted string is kept; a control character is escaped either way.
#[test]
fn each_form_of_a_field_value_is_written_so_that_it_reads_back_as_one_value() {
    let (subscriber, lines) = human_log();
    let cases: [(&str, &dyn Fn()); 13] = [
        ("plain=abc", &|| tracing::info!(plain = %"abc", "m")),
        ("number=7", &|| tracing::info!(number = 7, "m")),
        ("flag=true", &|| tracing::info!(flag = true, "m")),
        (r#"recorded="two words""#, &|| tracing::info!(recorded = "two words", "m")),
        (r#"spaced="two words""#, &|| tracing::info!(spaced = %"two words", "m")),
        (r#"equals="a=b""#, &|| tracing::info!(equals = %"a=b", "m")),
        (r#"quoted="x y""#, &|| tracing::info!(quoted = %r#""x y""#, "m")),
        (r#"inner="\"a\"b\"""#, &|| tracing::info!(inner = %r#""a"b""#, "m")),
        (r#"trailing="\"a\\""#, &|| tracing::info!(trailing = %r#""a\"#, "m")),
        (r#"lone="\"""#, &|| tracing::info!(lone = %"\"", "m")),
        (r#"tab="a\tb""#, &|| tracing::info!(tab = %"a\tb", "m")),
        (r"control=a\u{1b}b", &|| tracing::info!(control = %"a\u{1b}b", "m")),
        (r#"separator="a\u{2028}b""#, &|| tracing::info!(separator = %"a\u{2028}b", "m")),
    ];
    tracing::subscriber::with_default(subscriber, || {
        for (_, emit) in &cases {
            emit();
        }
    });
    let log = lines.text();
    let written: Vec<&str> = log.lines().collect();
    assert_eq!(written.len(), cases.len(), "{log}");
    for ((expected, _), line) in cases.iter().zip(written) {
        assert!(line.ends_with(&format!(" {expected}")), "{expected} in:\n{line}");
    }
}

#[tokio::test]
async fn the_request_id_logged_is_the_one_echoed() {
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(20)).await;

    let sent = |id: HeaderValue| {
        h.request(reqwest::Method::GET, "/service-accounts/count").bearer_auth("admin").header("x-request-id", id)
    };
    let kept = sent(HeaderValue::from_static("client-id-7")).send().await.unwrap();
    assert_eq!(kept.headers()["x-request-id"], "client-id-7", "a printable id is kept");
    let long = "i".repeat(e2e_support::service::telemetry::MAX_REQUEST_ID_BYTES + 1);
    let longest = "i".repeat(e2e_support::service::telemetry::MAX_REQUEST_ID_BYTES);
    let kept = sent(HeaderValue::from_str(&longest).unwrap()).send().await.unwrap();
    assert_eq!(kept.headers()["x-request-id"], longest.as_str(), "an id of the longest length is kept");
    for unusable in [
        HeaderValue::from_static(""),
        HeaderValue::from_bytes(b"caf\xe9-id").unwrap(),
        HeaderValue::from_static("tab\there"),
        HeaderValue::from_str(&long).unwrap(),
    ] {
        let answer = sent(unusable.clone()).send().await.unwrap();
        let echoed = answer.headers()["x-request-id"].to_str().expect("the echoed id is printable").to_owned();
        assert!(!echoed.is_empty() && echoed.as_bytes() != unusable.as_bytes(), "{unusable:?} was replaced");
        let log = lines.text();
        assert!(log.contains(&format!("request{{id=\"{echoed}\"")), "the log names the echoed id {echoed}:\n{log}");
    }
    assert!(!lines.text().contains("id=\"-\""), "every request has an id in the log");
    // Two ids: neither is taken over the other.
    let twice = h
        .request(reqwest::Method::GET, "/service-accounts/count")
        .bearer_auth("admin")
        .header("x-request-id", "first-id")
        .header("x-request-id", "second-id")
        .send()
        .await
        .unwrap();
    let echoed: Vec<&str> = twice.headers().get_all("x-request-id").iter().map(|v| v.to_str().unwrap()).collect();
    assert!(echoed.len() == 1 && !["first-id", "second-id"].contains(&echoed[0]), "a fresh id: {echoed:?}");
    // Nor when a proxy combined the two into one field.
    let combined = sent(HeaderValue::from_static("first-id, second-id")).send().await.unwrap();
    let echoed = combined.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(!echoed.contains("first-id") && !echoed.contains("second-id"), "a fresh id: {echoed}");

    // A method of the client's own making is logged only when short.
    let method = "M".repeat(5000);
    let answer = h.request(reqwest::Method::from_bytes(method.as_bytes()).unwrap(), "/service-accounts").send().await;
    assert_eq!(answer.unwrap().status(), 405);
    let log = lines.text();
    assert!(!log.contains(&method[..100]) && log.contains("method=\"(long method)\""), "{log}");
}

/// A service whose search misses its `legacy` source and waits on its `audit` source (within
/// the search's budget, so a call ends well after rmcp has begun its answer), logging in the
/// human format to the buffer returned, on this thread while the guard lives.
async fn slow_partial_search() -> (Harness, LogBuffer, tracing::subscriber::DefaultGuard) {
    let (subscriber, lines) = human_log();
    let guard = tracing::subscriber::set_default(subscriber);
    let mut cfg = config(20);
    cfg.fail_sources = vec!["legacy".to_owned()];
    cfg.slow_sources = vec![("audit".to_owned(), std::time::Duration::from_millis(100))];
    (Harness::start(cfg).await, lines, guard)
}

#[tokio::test]
async fn the_events_of_an_mcp_tool_call_are_in_its_request_span() {
    let (h, lines, _log) = slow_partial_search().await;

    let call = json!({"name": "search_service_accounts", "arguments": {"q": "svc"}});
    let request = h.mcp_request("admin", 1, "tools/call", Some("search_service_accounts"), call);
    let answer = h.answer(request.header("x-request-id", "mcp-call-1")).await;
    assert_eq!(answer.status.as_u16(), 200, "{answer:?}");
    assert_eq!(answer.body["result"]["structuredContent"]["complete"], false, "the legacy source failed");

    let log = lines.text();
    let event = log
        .lines()
        .find(|line| line.contains("route=\"search_service_accounts\"") && line.contains("SOURCE_UNAVAILABLE"))
        .unwrap_or_else(|| panic!("the tool's incomplete answer is logged:\n{log}"));
    assert!(event.contains("request{id=\"mcp-call-1\" method=POST route=\"/mcp\"}"), "{event}");
    assert!(event.contains(" sources=legacy "), "the source that failed is named: {event}");
    // And why it failed, which the answer does not say, for the operator.
    let failed = log
        .lines()
        .find(|line| line.contains("a search source failed"))
        .unwrap_or_else(|| panic!("the source's failure is logged:\n{log}"));
    assert!(failed.contains("request{id=\"mcp-call-1\"") && failed.contains("source=\"legacy\""), "{failed}");
    assert!(failed.contains("cause=\"no such table"), "the driver's reason: {failed}");
    assert_finished_after_the_call(&log, "mcp-call-1");
}

/// The request's line is written when the tool call has been answered, not when rmcp began it:
/// after the call's own event, so its latency is the call's.
fn assert_finished_after_the_call(log: &str, request_id: &str) {
    let position = |wanted: &dyn Fn(&str) -> bool| log.lines().position(wanted);
    let answered =
        position(&|line| line.contains("route=\"search_service_accounts\"") && line.contains("SOURCE_UNAVAILABLE"));
    let finished = position(&|line| line.contains(request_id) && line.contains("finished processing request"));
    assert!(answered.is_some() && finished > answered, "the request line follows the call's event:\n{log}");
}

/// In a session (the protocol versions that have them), rmcp answers a call with an event
/// stream that it begins before the call has run: the request's line still waits for the
/// answer, so a slow call is not logged as a 200 in a millisecond.
#[tokio::test]
async fn a_tool_call_in_a_session_is_logged_when_it_has_been_answered() {
    let (h, lines, _log) = slow_partial_search().await;
    let post = |session: Option<&str>, id: &str, body: serde_json::Value| {
        let mut request = h
            .request(reqwest::Method::POST, "/mcp")
            .bearer_auth("admin")
            .header("accept", "application/json, text/event-stream")
            .header("x-request-id", id)
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
        }
        request.send()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let response = post(None, "mcp-init", initialize).await.unwrap();
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    response.text().await.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(Some(&session), "mcp-initialized", initialized).await.unwrap().status(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_service_accounts", "arguments": {"q": "svc"}}});
    let response = post(Some(&session), "mcp-session-call", call).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let body = response.text().await.unwrap();
    assert!(body.contains("SOURCE_UNAVAILABLE"), "{body}");
    assert_finished_after_the_call(&lines.text(), "mcp-session-call");
}

/// A strict demand refused with a 503 is the contract working, not the service failing: the
/// request log writes no `ERROR` line for it (its `strict_refusal` event says what happened),
/// while a 5xx that carries no answer still is a failure to the classifier.
#[tokio::test]
async fn a_refused_partial_answer_is_no_server_failure_in_the_log() {
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let mut cfg = config(10);
    cfg.fail_sources = vec!["legacy".to_owned()];
    cfg.slow_sources.clear();
    let h = Harness::start(cfg).await;
    h.get("/search?q=svc&require_complete=true", "admin").await.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    let log = lines.text();
    assert!(log.contains("event=\"strict_refusal\""), "{log}");
    assert!(!log.contains("ERROR") && !log.contains("response failed"), "{log}");

    use tower_http::classify::{ClassifiedResponse, ClassifyResponse};
    let failed = axum::http::Response::builder().status(503).body(()).unwrap();
    let classified = e2e_support::service::telemetry::ServerFailures.classify_response(&failed);
    assert!(matches!(classified, ClassifiedResponse::Ready(Err(_))), "a 503 without an answer is a failure");
}

/// Every refusal has one `problem` event with its code, in the span of its request: those made
/// outside the handlers (a missing credential, an unknown route, a body on a read, a body too
/// large: the service observes its router once more, around them) as much as a handler's own
/// (a bad page size, observed by its route's layer and not again), and a tool call over MCP
/// whose arguments cannot be read, under the tool's name (an unknown tool, whose name is the
/// client's, under `unmatched`, as a path no route matches). Over MCP, that holds for every
/// message refused as a JSON-RPC error, by the layers in front of rmcp or by the tools' handler:
/// under the tool's name for a `tools/call`, `/mcp` for another method (one of a capability the
/// service does not offer included), `unmatched` for an unknown method; a refused cursor with
/// its `cursor_refused` event instead.
#[tokio::test]
async fn every_refusal_has_one_problem_event_with_its_code() {
    use reqwest::Method;
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(5)).await;
    // A refused cursor has an event of its own, `cursor_refused`, as over REST.
    let refusal = |line: &&str| line.contains(r#"event="problem""#) || line.contains(r#"event="cursor_refused""#);
    let events = || lines.text().lines().filter(refusal).map(str::to_owned).collect();
    let too_large = vec![b'x'; e2e_support::service::refusals::MAX_BODY_BYTES + 1];
    let cases = [
        (
            h.request(Method::GET, "/service-accounts"),
            401,
            r#"route="/service-accounts" method="GET" code="UNAUTHENTICATED" cause="missing" status=401"#,
        ),
        (
            // A token mistyped or revoked, told from one never sent.
            h.request(Method::GET, "/service-accounts").bearer_auth("mallory"),
            401,
            r#"route="/service-accounts" method="GET" code="UNAUTHENTICATED" cause="unknown" status=401"#,
        ),
        (
            h.request(Method::GET, "/no/such/route").bearer_auth("admin"),
            404,
            r#"route="unmatched" method="GET" code="NOT_FOUND" status=404"#,
        ),
        (
            h.request(Method::GET, "/service-accounts").bearer_auth("admin").body(r#"{"owner":"none"}"#),
            400,
            r#"route="/service-accounts" method="GET" code="INVALID_BODY" status=400 credential="admin""#,
        ),
        (
            h.request(Method::POST, "/service-accounts/archive").bearer_auth("admin").body(too_large),
            413,
            r#"route="/service-accounts/archive" method="POST" code="INVALID_BODY" status=413"#,
        ),
        (
            // axum's own rejection of the path, in plain text, made a problem outside the route.
            h.request(Method::GET, "/service-accounts/%FF").bearer_auth("admin"),
            400,
            r#"route="/service-accounts/{id}" method="GET" code="INVALID_REQUEST" status=400 credential="admin""#,
        ),
        (
            h.request(Method::GET, "/service-accounts?page_size=0").bearer_auth("admin"),
            400,
            r#"route="/service-accounts" method="GET" code="INVALID_PAGE_SIZE" status=400 credential="admin""#,
        ),
        (
            h.mcp_request(
                "north",
                1,
                "tools/call",
                Some("list_service_accounts"),
                json!({
                    "name": "list_service_accounts", "arguments": {"page_size": "abc"}
                }),
            ),
            200,
            r#"route="list_service_accounts" method="MCP" code="INVALID_ARGUMENTS" status=400 credential="north""#,
        ),
        (
            h.mcp_request(
                "north",
                2,
                "tools/call",
                Some("no_such_tool"),
                json!({"name": "no_such_tool", "arguments": {}}),
            ),
            200,
            r#"route="unmatched" method="MCP" code="INVALID_ARGUMENTS" status=400 credential="north""#,
        ),
        // Refused as JSON-RPC errors before rmcp reads them, by the layers in front of it.
        (
            h.mcp_request(
                "north",
                3,
                "tools/call",
                Some("list_service_accounts"),
                json!({"name": "list_service_accounts", "arguments": null}),
            ),
            200,
            r#"route="list_service_accounts" method="MCP" code="INVALID_ARGUMENTS" status=400 credential="north""#,
        ),
        (
            h.mcp_request("north", 4, "tools/list", None, json!({"cursor": 5})),
            200,
            r#"event="cursor_refused" route="/mcp" method="MCP" code="INVALID_CURSOR" status=400 credential="north""#,
        ),
        (
            mcp_text(
                &h,
                "tools/call",
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count_service_accounts","arguments":{"owner":"none","owner":"any"}}}"#,
            ),
            200,
            r#"route="count_service_accounts" method="MCP" code="INVALID_BODY" status=400 credential="north""#,
        ),
        // Refused by the tools' handler after rmcp read them.
        (
            h.mcp_request("north", 6, "tools/list", None, json!({"cursor": "page-2"})),
            200,
            r#"event="cursor_refused" route="/mcp" method="MCP" code="INVALID_CURSOR" status=400 credential="north""#,
        ),
        (
            h.mcp_request("north", 7, "no/such/method", None, json!({})),
            404,
            r#"route="unmatched" method="MCP" code="NOT_FOUND" status=404 credential="north""#,
        ),
        (
            h.mcp_request("north", 8, "tools/call", Some("list_service_accounts"), json!({"arguments": []})),
            200,
            r#"route="unmatched" method="MCP" code="INVALID_ARGUMENTS" status=400 credential="north""#,
        ),
        // A method of a capability the service does not offer.
        (
            h.mcp_request("north", 9, "resources/list", None, json!({})),
            404,
            r#"route="/mcp" method="MCP" code="NOT_FOUND" status=404 credential="north""#,
        ),
    ];
    for (request, status, fields) in cases {
        let before: Vec<String> = events();
        let answer = h.answer(request).await;
        assert_eq!(answer.status.as_u16(), status, "{fields}: {answer:?}");
        let after: Vec<String> = events();
        assert_eq!(after.len(), before.len() + 1, "one problem event for {fields}:\n{}", lines.text());
        let event = after.last().unwrap();
        assert!(event.contains(fields), "{fields} in:\n{event}");
        assert!(event.contains("request{id="), "in the request's span: {event}");
    }
}

/// In JSON lines, the request's line keeps its latency as a number of milliseconds and its
/// status as a number, which a log pipeline can sum and compare without parsing text.
#[tokio::test]
async fn the_request_line_in_json_has_a_numeric_latency_and_status() {
    let log = LogBuffer::default();
    let writer = {
        let log = log.clone();
        move || log.clone()
    };
    let subscriber = tracing_subscriber::registry()
        .with(filter("info").unwrap())
        .with(tracing_subscriber::fmt::layer().json().flatten_event(true).with_writer(writer));
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(20)).await;
    let answer = h.get("/service-accounts?page_size=2", "admin").await;
    assert_eq!(answer.status.as_u16(), 200);
    let text = log.text();
    let line = text
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|line| line["message"] == "finished processing request" && line["span"]["route"] == "/service-accounts")
        .unwrap_or_else(|| panic!("the request's line:\n{text}"));
    assert_eq!(line["target"], "request_log", "{line}");
    assert_eq!(line["status"], 200, "{line}");
    assert!(line["latency_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{line}");
}

/// A request whose client goes away before its answer (a timeout of its own) still has its
/// line in the request log, at `WARN` with status 499 and `aborted`, in its span, and is counted
/// under that status: the create it carried was committed before its answer could be sent, and
/// nothing else would say it was ever made.
#[tokio::test]
async fn a_request_whose_client_went_away_is_logged_and_counted_as_aborted() {
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let mut cfg = config(20);
    // The usage source answers after the write is committed: the answer waits for it.
    cfg.slow_sources = vec![("usage".to_owned(), std::time::Duration::from_secs(3))];
    let h = Harness::start(cfg).await;
    let gone = h
        .request(reqwest::Method::POST, "/service-accounts")
        .bearer_auth("admin")
        .header("x-request-id", "gone-1")
        .json(&serde_json::json!({"name": "svc-north-gone", "tenant": "north"}))
        .timeout(std::time::Duration::from_millis(500))
        .send()
        .await;
    assert!(gone.is_err_and(|e| e.is_timeout()), "the client gives up before the answer");
    let mut line = None;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        line = lines
            .text()
            .lines()
            .find(|line| line.contains("gone-1") && line.contains("request_log"))
            .map(str::to_owned);
        if line.is_some() {
            break;
        }
    }
    let line = line.unwrap_or_else(|| panic!("the abandoned request's line:\n{}", lines.text()));
    assert!(line.contains("WARN") && line.contains("status=499") && line.contains("aborted=true"), "{line}");
    let found = h.get("/search?q=svc-north-gone", "admin").await;
    assert_eq!(found.body["items"].as_array().map(Vec::len), Some(1), "the write was made: {:?}", found.body);
    let metrics =
        h.request(reqwest::Method::GET, "/metrics").bearer_auth("admin").send().await.unwrap().text().await.unwrap();
    assert!(
        metrics.lines().any(|l| l.starts_with("http_server_request_duration_seconds_count")
            && l.contains("route=\"/service-accounts\"")
            && l.contains("method=\"POST\"")
            && l.contains("status=\"499\"")),
        "counted under 499:\n{metrics}"
    );
}

/// A readiness probe or a metrics scrape that succeeds, which a balancer and a scraper repeat
/// every few seconds on every replica, writes its request line at `DEBUG`: the log at `INFO`
/// keeps the requests that did something. One that fails is written at `INFO`, as every other.
#[tokio::test]
async fn a_successful_probe_or_scrape_is_logged_at_debug_and_a_failed_one_at_info() {
    use e2e_support::service::telemetry::{REQUEST_LOG, ResponseLine, Routine};
    use tower_http::trace::OnResponse;

    let (subscriber, log) = human_log_filtered("info,request_log=debug");
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(20)).await;
    assert_eq!(h.send(reqwest::Method::GET, "/ready", None, None).await.status, 200);
    assert_eq!(h.request(reqwest::Method::GET, "/metrics").send().await.unwrap().status(), 200);
    assert_eq!(h.get("/service-accounts?page_size=1", "admin").await.status, 200);
    let text = log.text();
    let level_of = |route: &str| {
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| line.contains(&format!("route=\"{route}\"")) && line.contains("finished processing request"))
            .collect();
        assert_eq!(lines.len(), 1, "one request line for {route}:\n{text}");
        ["DEBUG", "INFO"].into_iter().find(|level| lines[0].contains(level)).unwrap_or("other")
    };
    assert_eq!(level_of("/ready"), "DEBUG", "{text}");
    assert_eq!(level_of("/metrics"), "DEBUG", "{text}");
    assert_eq!(level_of("/service-accounts"), "INFO", "{text}");

    // A probe answered 503 (its database down) is a line at `INFO`.
    let failed = axum::http::Response::builder().status(503).extension(Routine).body(()).unwrap();
    let before = log.text().len();
    ResponseLine.on_response(&failed, std::time::Duration::from_millis(2), &tracing::Span::none());
    let line = log.text()[before..].to_owned();
    assert!(line.contains("INFO") && line.contains(REQUEST_LOG) && line.contains("status=503"), "{line}");
}

/// A database outage is logged when it begins, with its cause, and when it ends, with how long
/// it lasted and how many operations it failed; the failures in between are debug lines, not
/// one `ERROR` per request (a busy replica would write thousands a second), until it has lasted
/// the reminder's interval. Reads end an unreachable database's outage, only writes a read-only
/// one's; an answer that is a refusal (no such account) was an answer all the same.
#[test]
fn a_database_outage_is_logged_when_it_begins_and_ends_not_once_per_request() {
    use e2e_support::service::db::StoreError;
    use e2e_support::service::store::watched::Health;
    use std::time::Duration;
    let (subscriber, lines) = human_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let unreachable = || Err::<(), _>(StoreError::Unavailable("connection refused".into()));
    let errors = |log: &str| log.lines().filter(|line| line.contains("ERROR")).count();

    let health = Health::reminding_every(Duration::from_secs(3600));
    health.observe(&Ok(()), false);
    assert!(!health.in_outage() && lines.text().is_empty(), "{}", lines.text());
    for _ in 0..50 {
        health.observe(&unreachable(), false);
    }
    let log = lines.text();
    assert_eq!(errors(&log), 1, "{log}");
    assert!(log.contains(r#"outage="unreachable""#) && log.contains("connection refused"), "{log}");
    assert!(health.in_outage());
    health.observe(&Err::<(), _>(StoreError::NotFound), false);
    let log = lines.text();
    let ended: Vec<&str> = log.lines().filter(|line| line.contains("the database outage ended")).collect();
    assert_eq!(ended.len(), 1, "{log}");
    assert!(ended[0].contains(" INFO ") && ended[0].contains("failures=50"), "{log}");
    assert!(!health.in_outage());

    // Read-only: a read served does not end it; a write does.
    let read_only = || Err::<(), _>(StoreError::ReadOnly("cannot execute UPDATE in a read-only transaction".into()));
    health.observe(&read_only(), true);
    health.observe(&read_only(), true);
    health.observe(&Ok(()), false);
    assert!(health.in_outage(), "{}", lines.text());
    health.observe(&Ok(()), true);
    assert!(!health.in_outage());
    let log = lines.text();
    assert_eq!(errors(&log), 2, "{log}");
    assert!(log.contains(r#"outage="read_only""#) && log.contains("failures=2"), "{log}");

    // A wait for a connection in vain is this replica's load, not its database's outage: it
    // neither begins one nor ends one.
    let busy = || Err::<(), _>(StoreError::Busy("every pooled connection stayed busy for 10 s".into()));
    health.observe(&busy(), false);
    assert!(!health.in_outage(), "{}", lines.text());
    health.observe(&unreachable(), false);
    health.observe(&busy(), true);
    assert!(health.in_outage(), "{}", lines.text());
    health.observe(&Ok(()), false);
    assert_eq!(errors(&lines.text()), 3, "{}", lines.text());

    // An outage that lasts is said again once the interval has passed (here at once), with the
    // failures since the last line.
    let reminding = Health::reminding_every(Duration::ZERO);
    for _ in 0..3 {
        reminding.observe(&unreachable(), false);
    }
    let log = lines.text();
    assert_eq!(errors(&log), 6, "{log}");
    assert!(log.contains("the database outage goes on") && log.contains("failures=1"), "{log}");
}
