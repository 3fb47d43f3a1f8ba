//! End to end: how the example's process stops. A stop signal turns `/ready` to 503 while the
//! replica still serves for `--stop-delay`, so that a balancer takes it out first; then the
//! listener closes and the open connections get at most `--stop-timeout` to finish (a request
//! head still arriving does not hold the exit for the read timeout); a second signal stops at
//! once; SIGHUP stops cleanly as SIGTERM does; a signal during the start-up is heard, and
//! honoured once it ends.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::built_example;

/// The example on a free loopback port with `args`, logging at `info`, its standard output
/// (the banner) and error (the log) piped.
fn example(args: &[&str]) -> Child {
    Command::new(built_example::binary("service_accounts"))
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts")
}

/// The example with `flags` and 20 accounts, started: the process, its URL and its whole log.
async fn start(flags: &[&str]) -> (Child, String, tokio::task::JoinHandle<String>) {
    let mut process = example(&[&["--accounts", "20"], flags].concat());
    let mut banner = BufReader::new(process.stdout.take().unwrap()).lines();
    let first = banner.next_line().await.unwrap().unwrap_or_else(|| panic!("the example did not start"));
    let url = first.split_whitespace().find(|w| w.starts_with("http://")).expect("a URL in the banner").to_owned();
    tokio::spawn(async move { while let Ok(Some(_)) = banner.next_line().await {} });
    let log = tokio::spawn(rest(BufReader::new(process.stderr.take().unwrap()).lines()));
    (process, url, log)
}

fn signal(process: &Child, signal: &str) {
    let pid = process.id().expect("a running process").to_string();
    let sent = std::process::Command::new("kill").args([signal, &pid]).status().unwrap();
    assert!(sent.success(), "kill {signal} {pid}");
}

/// Waits for the process to exit; it must within 30 s (far less than the read timeout of an
/// hour the tests give it, which a connection could otherwise hold the exit for).
async fn exit(mut process: Child) -> std::process::ExitStatus {
    tokio::time::timeout(Duration::from_secs(30), process.wait()).await.expect("it exits").unwrap()
}

/// A connection that sent half a request head, and keeps it open, accepted by the server: a
/// request on a connection opened after it is answered first (the listener hands connections
/// out in the order they came; one still in its queue when a stop signal closes it is never
/// served, and holds nothing).
async fn half_sent(url: &str) -> tokio::net::TcpStream {
    let mut tcp = tokio::net::TcpStream::connect(url.trim_start_matches("http://")).await.unwrap();
    tcp.write_all(b"GET /ready HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let after = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    assert_eq!(status(after.get(format!("{url}/ready"))).await, 200);
    tcp
}

async fn status(request: reqwest::RequestBuilder) -> u16 {
    request.send().await.expect("the replica answers").status().as_u16()
}

/// During `--stop-delay` the replica answers `/ready` 503 and serves everything else; then it
/// exits 0, having said so in its log.
#[cfg(unix)]
#[tokio::test]
async fn a_stopping_replica_is_unready_while_it_still_serves_for_the_stop_delay() {
    let (process, url, log) = start(&["--stop-delay", "20"]).await;
    let client = reqwest::Client::new();
    assert_eq!(status(client.get(format!("{url}/ready"))).await, 200);
    signal(&process, "-TERM");
    let mut ready = 200;
    for _ in 0..100 {
        ready = status(client.get(format!("{url}/ready"))).await;
        if ready != 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready, 503, "/ready turns 503 once the replica is stopping");
    let answer = client.get(format!("{url}/ready")).send().await.unwrap();
    assert_eq!(answer.headers()["retry-after"], "5");
    let problem: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(problem["code"], "SERVICE_UNAVAILABLE", "{problem}");
    assert!(problem["detail"].as_str().unwrap().contains("This replica is stopping"), "{problem}");
    let listed = client.get(format!("{url}/service-accounts?page_size=1")).bearer_auth("admin");
    assert_eq!(status(listed).await, 200, "every other request is still served during the delay");
    // The delay ends early with a second signal: at once, exit 1, saying why.
    signal(&process, "-TERM");
    let exited = exit(process).await;
    assert_eq!(exited.code(), Some(1), "{exited}");
    let log = log.await.unwrap();
    assert!(log.contains("stopping: /ready answers 503") && log.contains("delay_s=20"), "{log}");
    assert!(log.contains("SIGTERM again: stopping at once"), "{log}");
    // A 503 that says when to come back is the service's answer, not a failure of it.
    assert!(!log.contains("response failed"), "{log}");
}

/// A connection still sending its request head does not hold the exit for the read timeout
/// (an hour here): after `--stop-timeout` it is closed and the process exits 0. So does SIGHUP,
/// and SIGINT.
#[cfg(unix)]
#[tokio::test]
async fn a_half_sent_request_holds_the_exit_for_the_stop_timeout_only() {
    for stop in ["-TERM", "-HUP", "-INT"] {
        let (process, url, log) = start(&["--read-timeout", "3600", "--stop-timeout", "1"]).await;
        let held = half_sent(&url).await;
        signal(&process, stop);
        let exited = exit(process).await;
        assert!(exited.success(), "{stop}: {exited}");
        let log = log.await.unwrap();
        assert!(log.contains("stopping: connections still open after --stop-timeout are closed"), "{stop}: {log}");
        assert!(log.contains("open=1"), "{stop}: {log}");
        // Its last line says the stop is done, so that a log that ends elsewhere tells of a crash.
        assert!(log.lines().last().is_some_and(|line| line.ends_with(": stopped")), "{stop}: {log}");
        drop(held);
    }
}

/// An MCP tool call running when the replica is asked to stop is answered, as a REST request
/// in flight is, before the MCP sessions end: a stateless call (2026-07-28) and one in a session
/// (2025-11-25) each get their whole result, and the process exits 0.
#[cfg(unix)]
#[tokio::test]
async fn an_mcp_call_in_flight_is_answered_before_the_replica_stops() {
    let (process, url, log) = start(&["--slow-source", "audit=1500"]).await;
    let client = reqwest::Client::new();
    let mcp = |version: &str, session: Option<&str>| {
        let request = client
            .post(format!("{url}/mcp"))
            .bearer_auth("admin")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version);
        match session {
            Some(session) => request.header("mcp-session-id", session),
            None => request,
        }
    };
    // A 2025-11-25 session, initialized.
    let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = mcp("2025-11-25", None).json(&initialize).send().await.unwrap();
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    opened.text().await.unwrap();
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(mcp("2025-11-25", Some(&session)).json(&initialized).send().await.unwrap().status(), 202);

    let arguments = serde_json::json!({"q": "svc", "time_budget_ms": 20000});
    let in_session = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_service_accounts", "arguments": arguments}});
    let stateless = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}},
        "name": "search_service_accounts", "arguments": arguments}});
    let calls = [
        mcp("2025-11-25", Some(&session)).json(&in_session).send(),
        mcp("2026-07-28", None)
            .header("mcp-method", "tools/call")
            .header("mcp-name", "search_service_accounts")
            .json(&stateless)
            .send(),
    ];
    let calls: Vec<_> = calls
        .into_iter()
        .map(|call| {
            tokio::spawn(async move {
                let answer = call.await?;
                let status = answer.status().as_u16();
                answer.text().await.map(|text| (status, text))
            })
        })
        .collect();
    // Both calls wait on the slow source; the stop comes meanwhile.
    tokio::time::sleep(Duration::from_millis(500)).await;
    signal(&process, "-TERM");
    for call in calls {
        let (status, text) = call.await.unwrap().expect("an answer");
        // The whole result, not an empty event stream or a 500 of a call cut off.
        assert_eq!(status, 200, "{text}");
        assert!(text.contains(r#""structuredContent""#) && text.contains(r#""isError":false"#), "{text}");
    }
    let exited = exit(process).await;
    assert!(exited.success(), "{exited}");
    let log = log.await.unwrap();
    assert!(!log.contains("ended unanswered") && !log.contains("ERROR"), "{log}");
}

/// A request still running at `--stop-timeout` is cut by the replica, and its request line says
/// so (status 503), where it blamed the client (499, "the client went away").
#[cfg(unix)]
#[tokio::test]
async fn a_request_cut_at_the_stop_timeout_is_logged_as_cut_by_the_replica() {
    let (process, url, log) = start(&["--slow-source", "audit=8000", "--stop-timeout", "1"]).await;
    let search = reqwest::Client::new().get(format!("{url}/search?q=svc&time_budget_ms=20000")).bearer_auth("admin");
    let running = tokio::spawn(search.send());
    tokio::time::sleep(Duration::from_millis(500)).await;
    signal(&process, "-TERM");
    let exited = exit(process).await;
    assert!(exited.success(), "{exited}");
    assert!(running.await.unwrap().is_err(), "the connection was closed unanswered");
    let log = log.await.unwrap();
    let line = log.lines().find(|line| line.contains("aborted=true")).unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("the replica stopped before the answer") && line.contains("status=503"), "{line}");
    assert!(!log.contains("the client went away"), "{log}");
}

/// The example seeding a store of many accounts, with a long `--stop-delay`, logging at `info`
/// to a pipe: the process, its standard output and its log, read up to the line that says
/// seeding began (within two minutes, or the test fails saying so).
async fn seeding() -> (Child, tokio::process::ChildStdout, Log) {
    let mut process = example(&["--accounts", "150000", "--stop-delay", "600"]);
    let mut log = BufReader::new(process.stderr.take().unwrap()).lines();
    let began = until(&mut log, "seeding the empty store");
    tokio::time::timeout(Duration::from_secs(120), began).await.expect("the log says `seeding the empty store`");
    let stdout = process.stdout.take().expect("piped");
    (process, stdout, log)
}

/// The example's log, read line by line.
type Log = tokio::io::Lines<BufReader<tokio::process::ChildStderr>>;

/// Reads `log` up to the line that holds `needle`; fails when the log ends first.
async fn until(log: &mut Log, needle: &str) {
    loop {
        let line = log.next_line().await.unwrap().unwrap_or_else(|| panic!("the log ended before `{needle}`"));
        if line.contains(needle) {
            return;
        }
    }
}

/// What is left of `lines`, up to their end.
async fn rest(mut lines: tokio::io::Lines<impl tokio::io::AsyncBufRead + Unpin>) -> String {
    let mut text = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// A stop signal during a long start-up (seeding) is heard at once and honoured once the
/// start-up ends: exit 0, no banner, the store not cut halfway, and no `--stop-delay` for a
/// replica no balancer was told of. (The default action killed the process, 143, silently.) A
/// second one during the start-up stops at once, with status 1.
#[cfg(unix)]
#[tokio::test]
async fn a_stop_signal_during_the_start_up_stops_the_service_once_started() {
    let (mut process, stdout, log) = seeding().await;
    signal(&process, "-TERM");
    let log = tokio::spawn(rest(log));
    // The start-up's seconds, and no stop delay of ten minutes.
    let waited = tokio::time::timeout(Duration::from_secs(120), process.wait()).await;
    let status = waited.expect("it exits once started, without the stop delay").unwrap();
    let log = log.await.unwrap();
    assert_eq!(status.code(), Some(0), "{log}");
    let heard = log.find("stopping as soon as the start-up ends").unwrap_or_else(|| panic!("{log}"));
    let seeded = log.find("seeded").unwrap_or_else(|| panic!("{log}"));
    assert!(heard < seeded, "the signal is heard during the seeding, not after it:\n{log}");
    assert!(log.contains("stopping signal=\"SIGTERM\""), "{log}");
    assert!(log.lines().last().is_some_and(|line| line.ends_with(": stopped")), "{log}");
    let banner = rest(BufReader::new(stdout).lines()).await;
    assert!(banner.is_empty(), "no banner for a service that stops before serving: {banner}");

    let (process, _stdout, mut log) = seeding().await;
    signal(&process, "-TERM");
    until(&mut log, "stopping as soon as the start-up ends").await;
    signal(&process, "-INT");
    let log = tokio::spawn(rest(log));
    let status = exit(process).await;
    let log = log.await.unwrap();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("SIGINT again: stopping at once, during the start-up"), "{log}");
    assert!(!log.contains("seeded"), "it did not wait for the seeding: {log}");
}
