//! The `cleanup_agent` binary when the service is refusing for a while (contract §5.4, §7).
//!
//! A read of the inventory refused with a 503 and `Retry-After` (the service's database went
//! away) is waited out as asked and the inventory read again from its first page, a new traversal
//! never merged with the pages read before the refusal (§2.4); an outage that lasts ends the tour
//! with exit 1 and nothing changed. An archive refused with a problem that does not say its
//! outcome is unknown changed nothing, and the agent says so, over REST and over MCP.
//!
//! The exact sequences run against a service of the test's own; the outages of the real service
//! run on PostgreSQL, whose database the test takes away (or whose table it locks).

use crate::built_example;
use crate::e2e_support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use completeness::reason::MorePagesAvailable;
use completeness::{Envelope, Scope, StandardReason};
use e2e_support::{Config, Harness, config};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The agent's exit code and output (standard output, then standard error), run against the
/// server at `url` with `args`.
async fn agent_at(url: &str, args: &[&str]) -> (i32, String) {
    let output = tokio::process::Command::new(built_example::binary("cleanup_agent"))
        .args(["--server", url])
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .expect("the agent runs");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code().expect("an exit code"), text)
}

/// A page of the unowned accounts `ids` at `snapshot`, as the service answers it: with the next
/// page's cursor `next`, or else complete with evidence of the snapshot.
fn page(snapshot: &str, ids: &[&str], next: Option<&str>) -> Value {
    let scope = Scope::new("service_accounts", "every account").with_snapshot(snapshot).with_filter("owner", "none");
    let items: Vec<Value> = ids.iter().map(|id| json!({"id": id, "owner": null})).collect();
    let envelope: Envelope<Value, StandardReason> = match next {
        Some(cursor) => Envelope::incomplete(items, scope, MorePagesAvailable::new(cursor)),
        None => Envelope::complete(items, scope),
    };
    let mut page = serde_json::to_value(envelope).unwrap();
    if next.is_none() {
        page["evidence"] = format!("ev.{snapshot}").into();
    }
    page
}

/// The service's answer while its database cannot be reached: 503 `SERVICE_UNAVAILABLE` with
/// `Retry-After: seconds`.
fn outage(seconds: u64) -> axum::response::Response {
    let problem = json!({"type": "urn:example:service-unavailable", "title": "Service Unavailable", "status": 503,
        "code": "SERVICE_UNAVAILABLE", "detail": "The service is unavailable. Its database cannot be reached."});
    let headers =
        [(header::CONTENT_TYPE, "application/problem+json".to_owned()), (header::RETRY_AFTER, seconds.to_string())];
    (StatusCode::SERVICE_UNAVAILABLE, headers, problem.to_string()).into_response()
}

/// An outage whose `Retry-After` says `header` seconds and whose body's `retry_after`
/// continuation says `body`.
fn outage_saying(header: u64, body: u64) -> axum::response::Response {
    let mut response = outage(header);
    let problem = json!({"type": "urn:example:service-unavailable", "title": "Service Unavailable", "status": 503,
        "code": "SERVICE_UNAVAILABLE", "detail": "The service is unavailable. Its database cannot be reached.",
        "continuation": {"kind": "retry_after", "seconds": body}});
    *response.body_mut() = axum::body::Body::from(problem.to_string());
    response.into_response()
}

/// What a service of the test's own was asked: each read's cursor (`None` for a first page) and
/// when it came, and each archive's body.
#[derive(Default)]
struct Asked {
    reads: Vec<(Option<String>, Instant)>,
    archives: Vec<Value>,
}

/// A service of the test's own on a loopback port: `GET /service-accounts` answers with
/// `answer(n, cursor)` for its `n`th read (from 0), and `POST /service-accounts/archive` archives
/// what it is asked, at snapshot `s-2`.
async fn service_answering(
    answer: fn(usize, Option<&str>) -> axum::response::Response,
) -> (String, Arc<Mutex<Asked>>, tokio::task::JoinHandle<()>) {
    service_archiving(answer, |_, body| axum::Json(json!({"archived": body["ids"], "snapshot": "s-2"})).into_response())
        .await
}

/// [`service_answering`], whose `n`th archive request (from 0) is answered with `archive(n, body)`.
async fn service_archiving(
    answer: fn(usize, Option<&str>) -> axum::response::Response,
    archive: fn(usize, &Value) -> axum::response::Response,
) -> (String, Arc<Mutex<Asked>>, tokio::task::JoinHandle<()>) {
    use axum::extract::{Query, State};
    use std::collections::HashMap;
    let asked = Arc::new(Mutex::new(Asked::default()));
    let read = move |State(asked): State<Arc<Mutex<Asked>>>, Query(query): Query<HashMap<String, String>>| async move {
        let cursor = query.get("cursor").cloned();
        let n = {
            let mut asked = asked.lock().unwrap();
            asked.reads.push((cursor.clone(), Instant::now()));
            asked.reads.len() - 1
        };
        answer(n, cursor.as_deref())
    };
    let archive = move |State(asked): State<Arc<Mutex<Asked>>>, axum::Json(body): axum::Json<Value>| async move {
        let n = {
            let mut asked = asked.lock().unwrap();
            asked.archives.push(body.clone());
            asked.archives.len() - 1
        };
        archive(n, &body)
    };
    let app = axum::Router::new()
        .route("/service-accounts", axum::routing::get(read))
        .route("/service-accounts/archive", axum::routing::post(archive))
        .with_state(asked.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, asked, server)
}

/// The database goes away after the first page (its cursor page is answered 503 with
/// `Retry-After: 1`) and comes back with one account owned meanwhile and another unowned: the
/// agent waits the second it was asked, reads the inventory again from its first page, and
/// archives exactly what the new traversal holds, with its evidence: nothing of the page read
/// before the outage (`sa-000002`) is merged into it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_out_an_outage_in_its_traversal_and_reads_the_inventory_again_from_the_start() {
    let (url, asked, server) = service_answering(|n, cursor| match (n, cursor) {
        (0, None) => axum::Json(page("s-1", &["sa-000001", "sa-000002"], Some("c1"))).into_response(),
        (1, Some("c1")) => outage(1),
        (2, None) => axum::Json(page("s-2", &["sa-000001"], Some("c2"))).into_response(),
        (3, Some("c2")) => axum::Json(page("s-2", &["sa-000003"], None)).into_response(),
        other => panic!("an unexpected read: {other:?}"),
    })
    .await;
    let (code, out) = agent_at(&url, &["--token", "admin", "--page-size", "2"]).await;
    server.abort();
    let asked = asked.lock().unwrap();
    let cursors: Vec<Option<&str>> = asked.reads.iter().map(|(cursor, _)| cursor.as_deref()).collect();
    assert_eq!(cursors, [None, Some("c1"), None, Some("c2")], "read again from its first page:\n{out}");
    assert_eq!(code, 0, "the outage was waited out:\n{out}");
    let waited = asked.reads[2].1 - asked.reads[1].1;
    assert!(waited >= Duration::from_secs(1), "the agent waited {waited:?}, not the Retry-After of 1 s:\n{out}");
    assert!(out.contains("waiting 1 s as asked, then reading it again from its first page"), "{out}");
    assert!(out.contains("503 SERVICE_UNAVAILABLE"), "the refusal is told: {out}");
    assert_eq!(
        asked.archives,
        [json!({"ids": ["sa-000001", "sa-000003"], "evidence": "ev.s-2"})],
        "the new traversal alone, with its evidence:\n{out}"
    );
    assert!(out.contains("archived 2 accounts with evidence from snapshot s-2"), "{out}");
}

/// A refusal that names two waits, `Retry-After: 1` and a `retry_after` continuation of 2 s in its
/// body, is waited out for the longer (contract §7), as the library's `Retries` reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_the_longer_of_the_two_waits_a_refusal_names() {
    let (url, asked, server) = service_answering(|n, cursor| match (n, cursor) {
        (0, None) => outage_saying(1, 2),
        (1, None) => axum::Json(page("s-2", &["sa-000001"], None)).into_response(),
        other => panic!("an unexpected read: {other:?}"),
    })
    .await;
    let (code, out) = agent_at(&url, &["--token", "admin"]).await;
    server.abort();
    assert_eq!(code, 0, "the outage was waited out:\n{out}");
    assert!(out.contains("waiting 2 s as asked"), "the longer wait:\n{out}");
    let asked = asked.lock().unwrap();
    let waited = asked.reads[1].1 - asked.reads[0].1;
    assert!(waited >= Duration::from_secs(2), "the agent waited {waited:?}, not the 2 s the body asked:\n{out}");
}

/// An outage that outlasts the agent's reads ends its tour with exit 1 after three reads and the
/// waits between them, and one that asks for a longer wait than the agent takes ends it at once;
/// either way nothing is archived.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_gives_up_on_an_outage_that_lasts_and_changes_nothing() {
    let (url, asked, server) = service_answering(|_, _| outage(1)).await;
    let started = Instant::now();
    let (code, out) = agent_at(&url, &["--token", "admin"]).await;
    let took = started.elapsed();
    server.abort();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the inventory was refused 3 times") && out.contains("nothing was changed"), "{out}");
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.reads.len(), 3, "three reads at most:\n{out}");
        assert!(asked.reads.iter().all(|(cursor, _)| cursor.is_none()), "each from the first page");
        assert!(asked.archives.is_empty(), "nothing archived:\n{out}");
    }
    assert!(took >= Duration::from_secs(2), "two waits of the second asked: {took:?}");

    let (url, asked, server) = service_answering(|_, _| outage(3600)).await;
    let (code, out) = agent_at(&url, &["--token", "admin"]).await;
    server.abort();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("asks to be asked again in 3600 s, longer than the agent waits (30 s)"), "{out}");
    let asked = asked.lock().unwrap();
    assert_eq!((asked.reads.len(), asked.archives.len()), (1, 0), "no wait of an hour, no archive:\n{out}");
}

/// A loopback proxy to `to` that stops the database `name` (no new connection, the service's
/// sessions ended) before it passes on the first request that carries a cursor (a traversal's
/// second page, over REST or MCP), and lets it connect again `outage` later.
async fn proxy_stopping_the_database_mid_traversal(to: std::net::SocketAddr, name: String, outage: Duration) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let stopped = Arc::new(tokio::sync::OnceCell::new());
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(service) = tokio::net::TcpStream::connect(to).await else { continue };
            let (mut from_client, mut to_client) = client.into_split();
            let (mut from_service, mut to_service) = service.into_split();
            let (stopped, name) = (stopped.clone(), name.clone());
            tokio::spawn(async move {
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read @ 1..) = from_client.read(&mut buffer).await {
                    let chunk = &buffer[..read];
                    if chunk.windows(6).any(|w| w == b"cursor") {
                        stopped
                            .get_or_init(|| async {
                                e2e_support::postgres::on_server(&format!(
                                    "ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false"
                                ))
                                .await;
                                e2e_support::postgres::on_server(&format!(
                                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
                                ))
                                .await;
                                let name = name.clone();
                                tokio::spawn(async move {
                                    tokio::time::sleep(outage).await;
                                    e2e_support::postgres::on_server(&format!(
                                        "ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true"
                                    ))
                                    .await;
                                });
                            })
                            .await;
                    }
                    if to_service.write_all(chunk).await.is_err() {
                        break;
                    }
                }
            });
            tokio::spawn(async move {
                let _ = tokio::io::copy(&mut from_service, &mut to_client).await;
            });
        }
    });
    url
}

/// The outside tester's case: the service's database stops while the agent pages through the
/// inventory one account a page (here: just before its second page) and is back a second later.
/// The agent is told 503 `SERVICE_UNAVAILABLE` with `Retry-After: 5`, waits the five seconds,
/// reads the inventory again from its first page and archives every unowned account on the new
/// traversal's evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_out_a_database_outage_in_the_middle_of_its_traversal() {
    for transport in ["rest", "mcp"] {
        let url = e2e_support::postgres::fresh_database().await;
        let name = url.rsplit_once('/').unwrap().1.to_owned();
        let h = Harness::start(Config { db: Some(url.clone().into()), ..config(300) }).await;
        let unowned: Vec<String> = h
            .traverse("/service-accounts?owner=none&page_size=100", "admin")
            .await
            .iter()
            .flat_map(e2e_support::Answer::ids)
            .collect();
        assert!(unowned.len() > 1, "more than one page of one account: {unowned:?}");
        let through = proxy_stopping_the_database_mid_traversal(h.running.addr, name, Duration::from_secs(1)).await;
        let started = Instant::now();
        let (code, out) = agent_at(&through, &["--transport", transport, "--token", "admin", "--page-size", "1"]).await;
        assert_eq!(code, 0, "over {transport}, the outage was waited out:\n{out}");
        assert!(started.elapsed() >= Duration::from_secs(5), "over {transport}, the agent waited:\n{out}");
        assert!(out.contains("503"), "over {transport}:\n{out}");
        assert!(
            out.contains("waiting 5 s as asked, then reading it again from its first page (read 2 of 3"),
            "over {transport}:\n{out}"
        );
        assert!(out.contains(&format!("archived {} accounts with evidence", unowned.len())), "{transport}:\n{out}");
        let left = h.traverse("/service-accounts?owner=none&page_size=100", "admin").await;
        assert!(left.iter().all(|page| page.ids().is_empty()), "over {transport}, no unowned account is left");
    }
}

/// The operators' case: the service's database is down when the agent starts, and back a
/// second later. Over REST its first read, and over MCP the `initialize` of its session (whose
/// authentication reads the database), is answered 503 `SERVICE_UNAVAILABLE` with
/// `Retry-After: 5`; the agent waits the five seconds, as over either transport, and takes its
/// tour (over MCP it exited 1 at once, rmcp's words its only message).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_out_a_database_outage_at_its_start_over_either_transport() {
    let url = e2e_support::postgres::fresh_database().await;
    let name = url.rsplit_once('/').unwrap().1.to_owned();
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(300) }).await;
    for (transport, refused) in [("rest", "reading the inventory"), ("mcp", "opening the MCP session")] {
        e2e_support::postgres::on_server(&format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false")).await;
        e2e_support::postgres::on_server(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .await;
        let back = {
            let name = name.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                e2e_support::postgres::on_server(&format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true")).await;
            })
        };
        let (code, out) = agent_at(&h.running.url(), &["--transport", transport, "--token", "north"]).await;
        back.await.unwrap();
        // `north` sees part of the inventory: asks for approval, changes nothing (exit 2).
        assert_eq!(code, 2, "over {transport}, the outage was waited out:\n{out}");
        assert!(out.contains(&format!("{refused} was refused (")), "over {transport}:\n{out}");
        assert!(out.contains("503") && out.contains("waiting 5 s as asked"), "over {transport}:\n{out}");
    }
}

/// A session of its own on the database at `url` that holds `LOCK TABLE accounts IN EXCLUSIVE
/// MODE` (reads pass, writes wait) until it is rolled back.
async fn lock_writes(
    url: &str,
) -> (tokio_postgres::Client, tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("the test database");
    let connection = tokio::spawn(connection);
    client.batch_execute("BEGIN; LOCK TABLE accounts IN EXCLUSIVE MODE").await.expect("the lock");
    (client, connection)
}

/// An archive the database could not serve in time (its table locked past the statement
/// timeout) is refused with 503 `SERVICE_UNAVAILABLE`, without `"outcome": "unknown"`: the
/// server changed nothing, as the database confirms, and the agent says nothing was archived,
/// with the problem's code and detail, never that it may have been; over REST and over MCP,
/// where the tool error carries the problem.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_refused_in_an_outage_is_reported_as_archiving_nothing_over_either_transport() {
    let url = e2e_support::postgres::fresh_database().await;
    let one_second = "options=-c%20statement_timeout%3D1s";
    let h = Harness::start(Config { db: Some(format!("{url}?{one_second}").into()), ..config(300) }).await;
    let before = h.store().fingerprint().await.unwrap();
    for transport in ["rest", "mcp"] {
        let (lock, connection) = lock_writes(&url).await;
        let (code, out) = agent_at(&h.running.url(), &["--transport", transport, "--token", "admin"]).await;
        lock.batch_execute("ROLLBACK").await.expect("the lock is released");
        drop(lock);
        let _ = connection.await;
        assert_eq!(code, 1, "over {transport}:\n{out}");
        assert!(out.contains("COMPLETE:"), "over {transport}, the inventory was read whole:\n{out}");
        assert!(
            out.contains("batch 1 of 1 was refused (503 SERVICE_UNAVAILABLE: ")
                && out.contains("Its database cannot be reached or did not answer in time.")
                && out.contains("nothing was archived"),
            "over {transport}:\n{out}"
        );
        assert!(!out.contains("may or may not"), "over {transport}, a refusal is not an unknown outcome:\n{out}");
        assert_eq!(h.store().fingerprint().await.unwrap(), before, "over {transport}, nothing was archived");
    }
}

/// A proxy's page in the service's place: a 503 with `Retry-After: 1` and a body that is no
/// problem (a load balancer's). It is no answer of the service's, and is waited out as asked, as
/// the service's own outage is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_waits_out_a_proxys_503_without_a_problem_body() {
    let (url, asked, server) = service_answering(|n, cursor| match (n, cursor) {
        (0, None) => {
            let headers = [(header::CONTENT_TYPE, "text/html"), (header::RETRY_AFTER, "1")];
            (StatusCode::SERVICE_UNAVAILABLE, headers, "<html>upstream unavailable</html>").into_response()
        }
        (1, None) => axum::Json(page("s-2", &["sa-000001"], None)).into_response(),
        other => panic!("an unexpected read: {other:?}"),
    })
    .await;
    let (code, out) = agent_at(&url, &["--token", "admin"]).await;
    server.abort();
    assert_eq!(code, 0, "the proxy's outage was waited out:\n{out}");
    assert!(out.contains("waiting 1 s as asked, then reading it again from its first page"), "{out}");
    let asked = asked.lock().unwrap();
    assert!(asked.reads[1].1 - asked.reads[0].1 >= Duration::from_secs(1), "it waited as asked:\n{out}");
    assert_eq!(asked.archives, [json!({"ids": ["sa-000001"], "evidence": "ev.s-2"})], "{out}");
}

/// `--max-items` bounds what one run changes: a complete inventory of more accounts (its one
/// page read whole) is shown complete, as it is, and not archived (exit 2), saying why; with
/// `--json`, the approval request says so in `over_max_items`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inventory_larger_than_max_items_is_not_archived_even_when_complete() {
    let (url, asked, server) = service_answering(|_, _| {
        axum::Json(page("s-1", &["sa-000001", "sa-000002", "sa-000003"], None)).into_response()
    })
    .await;
    for json in [false, true] {
        let mut args = vec!["--token", "admin", "--max-items", "2"];
        if json {
            args.push("--json");
        }
        let (code, out) = agent_at(&url, &args).await;
        assert_eq!(code, 2, "{out}");
        assert!(out.contains("COMPLETE: 3 service accounts") && !out.contains("CLIENT_LIMIT_REACHED"), "{out}");
        assert!(out.contains("The inventory holds 3 unowned accounts, more than --max-items 2"), "{out}");
        assert!(out.contains("decision for archiving: \"proceed\", held back by --max-items 2"), "{out}");
        assert!(out.contains("nothing was changed"), "{out}");
        if json {
            let document = &out[..out.find("\n}\n").expect("the JSON document") + 2];
            let document: Value = serde_json::from_str(document).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert_eq!(document["over_max_items"]["accounts"], 3, "{document}");
            assert_eq!(document["complete"], true, "{document}");
        }
    }
    let (code, out) = agent_at(&url, &["--token", "admin", "--max-items", "3"]).await;
    server.abort();
    assert_eq!(code, 0, "within the limit, it archives:\n{out}");
    assert_eq!(asked.lock().unwrap().archives.len(), 1, "only the run within its limit archived:\n{out}");

    // A read the limit stopped is incomplete, and says so itself: no claim of what it holds.
    let (url, asked, server) = service_answering(|_, cursor| match cursor {
        None => axum::Json(page("s-1", &["sa-000001", "sa-000002"], Some("c1"))).into_response(),
        Some(_) => axum::Json(page("s-1", &["sa-000003"], None)).into_response(),
    })
    .await;
    let (code, out) = agent_at(&url, &["--token", "admin", "--max-items", "1", "--json"]).await;
    server.abort();
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("CLIENT_LIMIT_REACHED") && !out.contains("over_max_items"), "{out}");
    assert!(!out.contains("The inventory holds") && !out.contains("held back"), "{out}");
    assert!(asked.lock().unwrap().archives.is_empty(), "{out}");
}

/// A batch refused after others were archived: the agent says which accounts the batches before
/// it archived, that the refused batch archived none (the service's "nothing was changed" is of
/// that request), and which accounts the refusal names; with `--json`, standard output is one
/// document saying the same: `{"error", "archived", "outcome": "partial"}`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_refused_after_others_is_told_with_what_was_archived_also_as_json() {
    let (url, _, server) = service_archiving(
        |_, _| {
            let ids: Vec<String> = (1..=1001).map(|n| format!("sa-{n:06}")).collect();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            axum::Json(page("s-1", &ids, None)).into_response()
        },
        |n, body| match n {
            0 => axum::Json(json!({"archived": body["ids"], "snapshot": "s-2"})).into_response(),
            _ => completeness::Evidence::targets_changed(["sa-001001"]).into_response(),
        },
    )
    .await;
    let output = tokio::process::Command::new(built_example::binary("cleanup_agent"))
        .args(["--server", &url, "--token", "admin", "--json"])
        .kill_on_drop(true)
        .output()
        .await
        .expect("the agent runs");
    server.abort();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("batch 2 of 2 was refused (409 TARGET_CHANGED: ")
            && stderr.contains(
                "that batch archived none of its accounts, but the 1000 accounts of the batches before it were archived"
            )
            && stderr.contains("The accounts it names: sa-001001"),
        "{stderr}"
    );
    assert!(stderr.contains("archived before the error (1000): sa-000001, sa-000002, "), "{stderr}");
    let document: Value = serde_json::from_str(&stdout).expect("standard output is one JSON document");
    assert_eq!(document["outcome"], "partial", "{document}");
    assert_eq!(document["archived"].as_array().unwrap().len(), 1000, "{document}");
    assert_eq!(document["archived"][0], "sa-000001", "{document}");
    assert!(document["error"].as_str().unwrap().contains("TARGET_CHANGED"), "{document}");
}

/// A loopback proxy to the service at `to` that answers the first MCP tool call with a `503`
/// before any tool runs (as a gateway in front of the endpoint would), its `Retry-After` an HTTP
/// date `wait` ahead; every other request it passes on as it is.
async fn proxy_refusing_the_first_tool_call(to: String, wait: Duration) -> (String, tokio::task::JoinHandle<()>) {
    let refused = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let http = reqwest::Client::new();
    let pass = move |request: axum::extract::Request| {
        let (refused, http, to) = (refused.clone(), http.clone(), to.clone());
        async move {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let tool_call = String::from_utf8_lossy(&body).contains("\"tools/call\"");
            if tool_call && !refused.swap(true, std::sync::atomic::Ordering::SeqCst) {
                let date = crate::client_http::httpdate_of(std::time::SystemTime::now() + wait);
                return (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, date)], "busy").into_response();
            }
            let url = format!("{to}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
            let mut headers = parts.headers.clone();
            headers.remove(header::HOST);
            let answer = http.request(parts.method, url).headers(headers).body(body).send().await.unwrap();
            let (status, headers) = (answer.status(), answer.headers().clone());
            let mut response = (status, answer.bytes().await.unwrap()).into_response();
            for (name, value) in &headers {
                if name != header::CONTENT_LENGTH && name != header::TRANSFER_ENCODING {
                    response.headers_mut().insert(name, value.clone());
                }
            }
            response
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().fallback(pass);
    (url, tokio::spawn(async move { axum::serve(listener, app).await.unwrap() }))
}

/// Over MCP, an HTTP refusal of a tool call whose `Retry-After` is an HTTP date (RFC 9110
/// section 10.2.3) is waited out until that date, as over REST, not as a wait left unnamed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mcp_a_retry_after_given_as_a_date_is_waited_out_as_asked() {
    let h = Harness::start(config(60)).await;
    let (through, proxy) = proxy_refusing_the_first_tool_call(h.running.url(), Duration::from_secs(2)).await;
    let started = Instant::now();
    let (code, out) = agent_at(&through, &["--transport", "mcp", "--token", "admin"]).await;
    proxy.abort();
    assert_eq!(code, 0, "the refusal was waited out:\n{out}");
    assert!(out.contains("HTTP 503") && out.contains(" s as asked, then reading it again"), "{out}");
    assert!(!out.contains("(no wait named)"), "the date names the wait:\n{out}");
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited until the date:\n{out}");
    assert!(out.contains("archived "), "{out}");
}
