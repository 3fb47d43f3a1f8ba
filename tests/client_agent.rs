//! End to end: the `cleanup_agent` binary against the real service_accounts service.
//!
//! `cargo test` builds the examples before running tests; this test runs the built
//! agent binary as a user would, against the service started in-process on a free
//! loopback port.

use crate::built_example;
use crate::e2e_support;

use std::os::unix::ffi::OsStrExt;
use std::process::Output;

use e2e_support::Harness;
use serde_json::{Value, json};

async fn agent(harness: &Harness, args: &[&str]) -> (i32, String) {
    agent_at(&harness.running.url(), args).await
}

/// The agent's exit code and output, run against the server at `url`.
async fn agent_at(url: &str, args: &[&str]) -> (i32, String) {
    let output = run_agent(url, args).await;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code().expect("an exit code"), text)
}

async fn run_agent(url: &str, args: &[&str]) -> Output {
    tokio::process::Command::new(built_example::binary("cleanup_agent"))
        .args(["--server", url])
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .expect("the agent runs")
}

async fn unowned_ids(harness: &Harness, token: &str) -> Vec<String> {
    harness.traverse("/service-accounts?owner=none&page_size=100", token).await.iter().flat_map(|p| p.ids()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_archives_only_on_complete_evidence_and_otherwise_asks_for_approval() {
    let harness = Harness::start(e2e_support::config(600)).await;
    let unowned = unowned_ids(&harness, "admin").await;
    assert!(!unowned.is_empty(), "the seed has unowned accounts");

    // north cannot read every tenant: incomplete evidence, an approval request, no change.
    let before = harness.store().fingerprint().await.unwrap();
    let (code, out) = agent(&harness, &["--token", "north"]).await;
    assert_eq!(code, 2, "approval required:\n{out}");
    assert!(out.contains("INCOMPLETE (VISIBILITY_RESTRICTED"), "{out}");
    assert!(out.contains("APPROVAL REQUIRED: archive every unowned service account"), "{out}");
    assert!(out.contains("[VISIBILITY_RESTRICTED] the credential cannot read every record in scope"), "{out}");
    assert!(out.contains("abandon the action; nothing has been changed"), "{out}");
    assert!(!out.contains("returned ids"), "the archive takes evidence only, never ids alone:\n{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before, "north changed nothing");

    // admin's own client limit stops the collection early: incomplete, nothing changed.
    let (code, out) = agent(&harness, &["--token", "admin", "--page-size", "5", "--max-pages", "1"]).await;
    assert_eq!(code, 2, "a client limit is not complete evidence:\n{out}");
    assert!(out.contains("INCOMPLETE (CLIENT_LIMIT_REACHED)"), "{out}");
    assert!(out.contains("continue collecting from cursor"), "{out}");
    // How to continue a collection a limit stopped: `resume`, not a new one from the cursor.
    assert!(out.contains("with `resume` on its result"), "{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before, "a limited admin run changed nothing");

    // admin reads everything: complete evidence, every unowned account archived.
    let (code, out) = agent(&harness, &["--token", "admin", "--page-size", "7"]).await;
    assert_eq!(code, 0, "archived:\n{out}");
    assert!(out.contains("COMPLETE:"), "{out}");
    assert!(out.contains(&format!("archived {} accounts with evidence", unowned.len())), "{out}");
    assert!(unowned_ids(&harness, "admin").await.is_empty(), "no unowned account is left");

    // Again: the complete inventory is empty, which is evidence of absence; nothing to do.
    let (code, out) = agent(&harness, &["--token", "admin"]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("nothing to archive"), "{out}");

    // north now sees nothing, and its empty, incomplete answer still authorizes nothing.
    let before = harness.store().fingerprint().await.unwrap();
    let output = run_agent(&harness.running.url(), &["--token", "north", "--json"]).await;
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    // Standard output is one JSON document, the approval request; the story is on stderr.
    let request: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON alone");
    assert!(request.to_string().contains(r#""code":"VISIBILITY_RESTRICTED""#), "{request}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing was changed."), "{output:?}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before);
    harness.running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_exits_1_on_errors_and_changes_nothing() {
    let harness = Harness::start(e2e_support::config(60)).await;
    let before = harness.store().fingerprint().await.unwrap();
    let (code, out) = agent(&harness, &["--token", "mallory"]).await;
    assert_eq!(code, 1, "an unknown credential is an error:\n{out}");
    assert!(out.contains("UNAUTHENTICATED"), "{out}");
    let (code, out) = agent(&harness, &["--token", "admin", "--max-pages", "many"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("--max-pages: 'many' is not a whole number"), "{out}");
    let huge = "9".repeat(60);
    for (value, says) in
        [("-1", "is negative"), ("99999999999999999999999", "is too large"), (huge.as_str(), "is too large")]
    {
        let (code, out) = agent(&harness, &["--token", "admin", "--page-size", value]).await;
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("--page-size: '{value}' {says}")), "{out}");
    }
    for flag in ["--timeout-secs", "--max-pages", "--max-items", "--deadline-secs", "--page-size"] {
        let (code, out) = agent(&harness, &["--token", "admin", flag, "0"]).await;
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("{flag} must be at least 1")), "{out}");
    }
    // A user or password in the URL would go to the server beside the Bearer credential.
    for server in [
        "http://someone:hunter2@127.0.0.1:9/",
        "http://someone:hunter2@127.0.0.1:9/?x=1",
        "ftp://someone:hunter2@127.0.0.1:9/",
    ] {
        let (code, out) = agent_at(server, &["--token", "admin"]).await;
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("--server: the URL carries a user or password"), "{out}");
        assert!(!out.contains("hunter2"), "the password is not repeated: {out}");
    }
    let (code, out) = agent_at("http://someone:hunter2@/", &["--token", "admin"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("hunter2"), "nor in a URL that does not parse: {out}");
    // Zero however written is zero; a whole number too large says so.
    let (code, out) = agent(&harness, &["--token", "admin", "--page-size", "-0"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("--page-size must be at least 1"), "{out}");
    for server in ["notaurl", "ftp://127.0.0.1/", "http://"] {
        let (code, out) = agent_at(server, &["--token", "admin"]).await;
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("--server: '{server}' is not an http:// or https:// URL")), "{out}");
    }
    // The routes go after the base URL: a query or fragment there would come before them.
    let url = harness.running.url();
    for server in [format!("{url}?"), format!("{url}/?x=1"), format!("{url}#top")] {
        let (code, out) = agent_at(&server, &["--token", "admin"]).await;
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("has a query or fragment; give the service's base URL"), "{server}: {out}");
    }
    // A flag given twice is refused, never read as its last value: the archive would run as
    // a credential the operator may not have meant.
    let (code, out) = agent(&harness, &["--token", "north", "--token", "admin"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("--token is given twice; give it once"), "{out}");
    // Asked for JSON, standard output says so too, as one document.
    let (code, out) = agent(&harness, &["--json", "--token", "north", "--token", "admin"]).await;
    assert_eq!(code, 1, "{out}");
    let document: Value = serde_json::from_str(&out[..out.find("\n}\n").expect("a JSON document") + 2]).unwrap();
    assert_eq!(
        document,
        json!({"error": "--token is given twice; give it once", "archived": [], "outcome": "unchanged"})
    );
    let (code, out) = agent(&harness, &["--token", "ad\nmin"]).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("--token: a credential name is visible ASCII"), "a flag error, not the server's: {out}");
    let not_utf8 = std::ffi::OsStr::from_bytes(b"adm\xffin");
    let output = tokio::process::Command::new(built_example::binary("cleanup_agent"))
        .args(["--server", url.as_str(), "--token"])
        .arg(not_utf8)
        .env_remove("RUST_BACKTRACE")
        .output()
        .await
        .expect("the agent runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("argument 4 (adm\u{fffd}in) is not valid UTF-8"), "{stderr}");
    // Asked for, the usage is an answer, not an error.
    let (code, out) = agent(&harness, &["--help"]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("usage: cleanup_agent"), "{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before);
    harness.running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mcp_the_agent_takes_the_same_tour_with_the_same_exit_codes() {
    let harness = Harness::start(e2e_support::config(600)).await;
    let unowned = unowned_ids(&harness, "admin").await;
    assert!(!unowned.is_empty(), "the seed has unowned accounts");

    // north: incomplete evidence, an approval request, exit 2, no change.
    let before = harness.store().fingerprint().await.unwrap();
    let (code, out) = agent(&harness, &mcp(&["--token", "north"])).await;
    assert_eq!(code, 2, "approval required:\n{out}");
    assert!(out.contains("INCOMPLETE (VISIBILITY_RESTRICTED"), "{out}");
    assert!(out.contains("APPROVAL REQUIRED: archive every unowned service account"), "{out}");
    assert!(out.contains("abandon the action; nothing has been changed"), "{out}");
    assert!(!out.contains("returned ids"), "the archive takes evidence only, never ids alone:\n{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before, "north changed nothing");

    // A client limit: exit 2, no change.
    let (code, out) = agent(&harness, &mcp(&["--token", "admin", "--page-size", "5", "--max-pages", "1"])).await;
    assert_eq!(code, 2, "a client limit is not complete evidence:\n{out}");
    assert!(out.contains("INCOMPLETE (CLIENT_LIMIT_REACHED)"), "{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before, "a limited admin run changed nothing");

    // admin, paging by cursor over MCP: complete evidence, every unowned account archived, exit 0.
    let (code, out) = agent(&harness, &mcp(&["--token", "admin", "--page-size", "7"])).await;
    assert_eq!(code, 0, "archived:\n{out}");
    assert!(out.contains("COMPLETE:"), "{out}");
    assert!(out.contains(&format!("archived {} accounts with evidence", unowned.len())), "{out}");
    assert!(unowned_ids(&harness, "admin").await.is_empty(), "no unowned account is left");

    // An unknown credential gets no session: exit 1, no change.
    let before = harness.store().fingerprint().await.unwrap();
    let (code, out) = agent(&harness, &mcp(&["--token", "mallory"])).await;
    assert_eq!(code, 1, "{out}");
    // Said as over REST: a refusal with its problem, not a server that did not answer.
    let refused = "the server refused the request: 401 UNAUTHENTICATED: The credential is not known to this service.";
    assert!(out.contains(refused) && !out.contains("no answer"), "{out}");
    let (rest_code, rest_out) = agent(&harness, &["--token", "mallory"]).await;
    assert_eq!(rest_code, 1, "{rest_out}");
    assert!(rest_out.contains(refused), "{rest_out}");
    let (code, out) = agent(&harness, &["--transport", "carrier-pigeon", "--token", "admin"]).await;
    assert_eq!(code, 1, "{out}");
    assert_eq!(harness.store().fingerprint().await.unwrap(), before);
    harness.running.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_gives_up_on_a_server_that_accepts_and_never_answers() {
    // A loopback server that takes every connection and never writes a byte.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = listener.accept().await {
            held.push(connection);
        }
    });
    for transport in ["rest", "mcp"] {
        let args = ["--transport", transport, "--token", "admin", "--timeout-secs", "1"];
        // Without a timeout the agent would wait forever; this bound only turns that into a failure.
        let (code, out) = tokio::time::timeout(std::time::Duration::from_secs(120), agent_at(&url, &args))
            .await
            .unwrap_or_else(|_| panic!("over {transport}, the agent still waits on a server that never answers"));
        assert_eq!(code, 1, "over {transport}, no answer is an error:\n{out}");
        assert!(out.contains("timed out after 1 s"), "over {transport}:\n{out}");
    }
    silent.abort();
}

/// A server that is not there: exit 1 over both transports, saying so as the HTTP client says
/// it, not in the words of rmcp's types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_says_plainly_that_no_server_listens() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    for transport in ["rest", "mcp"] {
        let (code, out) = agent_at(&url, &["--transport", transport, "--token", "admin"]).await;
        assert_eq!(code, 1, "over {transport}:\n{out}");
        assert!(
            out.contains("error sending request for url") && out.contains("Connection refused"),
            "over {transport}:\n{out}"
        );
        assert!(!out.contains("rmcp::") && !out.contains("Transport ["), "over {transport}:\n{out}");
    }
}

/// The agent's arguments for the MCP transport.
fn mcp<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [&["--transport", "mcp"], args].concat()
}

/// More unowned accounts than one archive request may name: the agent archives them all, in
/// batches the service accepts, on the one complete inventory's evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_archives_more_than_one_request_holds_in_batches() {
    let harness = Harness::start(e2e_support::config(32_000)).await;
    let unowned = unowned_ids(&harness, "admin").await;
    assert!(unowned.len() > 1000, "the seed has more unowned accounts than one request may archive: {}", unowned.len());
    let (code, out) = agent(&harness, &["--token", "admin", "--page-size", "500"]).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("archived {} accounts with evidence", unowned.len())), "{out}");
    assert!(unowned_ids(&harness, "admin").await.is_empty(), "no unowned account is left");
    harness.running.stop().await.unwrap();
}

/// A service of the test's own on a loopback port: `GET /service-accounts` answers `page`
/// whatever the query, and `POST /service-accounts/archive` answers `archived` and is counted.
async fn fake_service(
    page: serde_json::Value,
    archived: (u16, &'static str, String),
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>, tokio::task::JoinHandle<()>) {
    use axum::http::{StatusCode, header};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let posts = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = posts.clone();
    let app = axum::Router::new()
        .route("/service-accounts", axum::routing::get(move || async move { axum::Json(page) }))
        .route(
            "/service-accounts/archive",
            axum::routing::post(move || async move {
                counted.fetch_add(1, Ordering::SeqCst);
                let (status, content_type, body) = archived;
                (StatusCode::from_u16(status).unwrap(), [(header::CONTENT_TYPE, content_type)], body)
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, posts, server)
}

/// A complete inventory with evidence of two unowned accounts, as the service answers it.
fn complete_inventory() -> serde_json::Value {
    serde_json::json!({
        "status": "complete", "complete": true, "truncated": false, "incomplete_reasons": [],
        "continuation": null, "next_cursor": null, "warnings": [], "evidence": "ev1.fake",
        "page": {"returned": 2, "requested_size": null, "applied_size": 100, "ordering": "id ascending",
                 "snapshot": "s-1", "cursor": null, "resumed": false},
        "scope": {"resource": "service_accounts", "visibility": "every account", "snapshot": "s-1",
                  "filters": {"owner": "none"}},
        "items": [{"id": "sa-000001", "owner": null}, {"id": "sa-000002", "owner": null}],
    })
}

/// A change to a page.
type Change = fn(&mut serde_json::Value);

/// An answer that calls itself a complete inventory but is not the one the agent asked for
/// (another resource, a filter dropped or added, the rest of a traversal, an account twice, an
/// owned account) is an error: the agent archives nothing on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_archives_nothing_on_an_answer_to_another_question() {
    let archived =
        || (200, "application/json", r#"{"archived": ["sa-000001", "sa-000002"], "snapshot": "s-2"}"#.to_owned());
    let (url, posts, server) = fake_service(complete_inventory(), archived()).await;
    let (code, out) = agent_at(&url, &["--token", "admin"]).await;
    assert_eq!(
        (code, posts.load(std::sync::atomic::Ordering::SeqCst)),
        (0, 1),
        "the fake's own answer is archived:\n{out}"
    );
    server.abort();

    let cases: [(&str, Change, &str); 7] = [
        ("another resource", |p| p["scope"]["resource"] = "users".into(), "the resource is `users`"),
        (
            "no filter",
            |p| p["scope"]["filters"] = serde_json::json!({}),
            "the filter `owner` was asked as \"none\" but not applied",
        ),
        (
            "a filter more",
            |p| p["scope"]["filters"]["tenant"] = "north".into(),
            "the filter `tenant` = \"north\" was applied but not asked",
        ),
        ("a tail", |p| p["page"]["resumed"] = true.into(), "the rest of a traversal"),
        ("an account twice", |p| p["items"][1]["id"] = "sa-000001".into(), "holds 'sa-000001' twice"),
        (
            "an owned account",
            |p| p["items"][1]["owner"] = "alice".into(),
            "holds 'sa-000002', whose owner is \"alice\"",
        ),
        (
            "an account without its owner",
            |p| drop(p["items"][1].as_object_mut().map(|item| item.remove("owner"))),
            "'sa-000002' without its owner",
        ),
    ];
    for (case, change, said) in cases {
        let mut page = complete_inventory();
        change(&mut page);
        let (url, posts, server) = fake_service(page, archived()).await;
        let (code, out) = agent_at(&url, &["--token", "admin"]).await;
        assert_eq!(code, 1, "{case}:\n{out}");
        assert!(out.contains(said) && out.contains("nothing was changed"), "{case}:\n{out}");
        assert_eq!(posts.load(std::sync::atomic::Ordering::SeqCst), 0, "{case}: no archive was sent");
        server.abort();
    }
}

/// An archive the service refused (a problem that does not say its outcome is unknown, a 4xx or
/// a 5xx: contract §5.4) changed nothing of its batch, and the agent says so with the problem's
/// code and detail; one whose problem says `"outcome": "unknown"`, or that got no readable answer
/// (a 500 without a problem, a success that does not read), may have been applied, and the agent
/// says so rather than calling it a refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_tells_a_refused_archive_from_one_whose_outcome_is_unknown() {
    let refusal = serde_json::json!({"type": "about:blank", "title": "Precondition Failed", "status": 412,
        "code": "EVIDENCE_INVALID", "detail": "The evidence was refused: it expired."});
    let outage = serde_json::json!({"type": "urn:example:service-unavailable", "title": "Service Unavailable",
        "status": 503, "code": "SERVICE_UNAVAILABLE", "detail": "Its database cannot be reached."});
    let mut unconfirmed = outage.clone();
    unconfirmed["outcome"] = "unknown".into();
    unconfirmed["detail"] = "The database did not confirm the change in time: it may have been made, or not.".into();
    let answers = [
        (
            (412, "application/problem+json", refusal.to_string()),
            "412 EVIDENCE_INVALID: The evidence was refused: it expired.)",
        ),
        (
            (503, "application/problem+json", outage.to_string()),
            "was refused (503 SERVICE_UNAVAILABLE: Its database cannot be reached.): nothing was archived",
        ),
        (
            (503, "application/problem+json", unconfirmed.to_string()),
            "outcome is unknown (503 SERVICE_UNAVAILABLE: The database did not confirm the change in time: it may \
             have been made, or not.): it may or may not have been archived",
        ),
        ((500, "text/plain", "upstream went away".to_owned()), "may or may not have been archived"),
        ((200, "application/json", "{\"archived\": [".to_owned()), "may or may not have been archived"),
    ];
    for (answer, said) in answers {
        let status = answer.0;
        let (url, posts, server) = fake_service(complete_inventory(), answer).await;
        let (code, out) = agent_at(&url, &["--token", "admin"]).await;
        assert_eq!(code, 1, "{status}:\n{out}");
        assert!(out.contains(said), "{status}:\n{out}");
        // A refusal is never told as an archive that may have been applied.
        let applied = said.contains("may or may not");
        assert_eq!(out.contains("may or may not"), applied, "{status}:\n{out}");
        assert_eq!(posts.load(std::sync::atomic::Ordering::SeqCst), 1, "{status}: one archive was sent");
        server.abort();
    }
}
