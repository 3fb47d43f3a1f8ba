//! End to end on PostgreSQL: a statement on a live connection is bounded in time. A request
//! whose statement waits on a lock another session holds is answered 503 `SERVICE_UNAVAILABLE`
//! with `Retry-After` once the `statement_timeout` passes, and so is one whose server stops
//! answering altogether, once the client's deadline passes (the statement timeout plus a margin);
//! neither hangs. A write cut short changes nothing (over MCP too, where the tool error says when
//! to call again), and one whose COMMIT went out unconfirmed says its outcome is unknown, the pool serves again afterwards, and a connection abandoned at the deadline
//! is closed, not handed to the next request. The bound is the URL's
//! `options=-c statement_timeout=...` (10 s without one), refused at start-up (exit 2) when it is
//! not a positive duration. A write the server rolls back for a concurrent one (a serialization
//! failure, a deadlock) is a 503 as well, and a retention check the database cannot answer is
//! an outage, not an expired cursor or evidence.

use crate::built_example;
use crate::e2e_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use e2e_support::service::db::StoreError;
use e2e_support::service::store::postgres::url_statement_timeout;
use e2e_support::{Answer, Config, Harness, config};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A statement timeout of one second, in a URL's query.
const ONE_SECOND: &str = "options=-c%20statement_timeout%3D1s";

/// The MCP tool of `POST /service-accounts/archive`.
const ARCHIVE: &str = "archive_service_accounts";

/// No request may take longer than this: the guard against a hang, not a measure of the bound.
const HANG: Duration = Duration::from_secs(30);

/// Sends the request within [`HANG`], or fails saying it hung.
async fn within_hang(what: &str, request: impl Future<Output = Answer>) -> Answer {
    tokio::time::timeout(HANG, request).await.unwrap_or_else(|_| panic!("{what} did not answer within {HANG:?}"))
}

/// Asserts the answer to a request the database could not serve in time.
fn assert_outage(answer: &Answer, what: &str) {
    answer.assert_problem(503, "SERVICE_UNAVAILABLE");
    assert_eq!(answer.retry_after.as_deref(), Some("5"), "{what}: {answer:?}");
    let detail = answer.body["detail"].as_str().unwrap_or_default();
    for internal in ["statement_timeout", "57014", "cancel", "PostgreSQL"] {
        assert!(!detail.contains(internal), "{what} leaks '{internal}': {detail}");
    }
}

/// A session of its own on the database at `url` that holds `LOCK TABLE <table> IN <mode> MODE`
/// until [`Lock::release`], as a migration would.
struct Lock {
    client: tokio_postgres::Client,
    connection: tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>,
}

impl Lock {
    async fn take(url: &str, mode: &str) -> Lock {
        Lock::take_on(url, "accounts", mode).await
    }

    async fn take_on(url: &str, table: &str, mode: &str) -> Lock {
        let (client, connection) =
            tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("the test database");
        let connection = tokio::spawn(connection);
        client.batch_execute(&format!("BEGIN; LOCK TABLE {table} IN {mode} MODE")).await.expect("the lock");
        Lock { client, connection }
    }

    async fn release(self) {
        self.client.batch_execute("ROLLBACK").await.expect("the lock is released");
        drop(self.client);
        let _ = self.connection.await;
    }
}

/// The message of a store error that must be an outage.
fn unavailable<T: std::fmt::Debug>(result: Result<T, StoreError>) -> String {
    match result {
        Err(StoreError::Unavailable(message)) => message,
        other => panic!("expected StoreError::Unavailable, got {other:?}"),
    }
}

#[tokio::test]
async fn a_request_waiting_on_a_locked_table_is_a_503_and_the_same_request_succeeds_after() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config { db: Some(format!("{url}?{ONE_SECOND}").into()), ..config(20) }).await;
    let list = "/service-accounts?page_size=5";
    let before = h.get(list, "admin").await;
    assert_eq!(before.status, 200, "{:?}", before.body);
    assert_eq!(before.ids().len(), 5);

    let lock = Lock::take(&url, "ACCESS EXCLUSIVE").await;
    for path in [list, "/service-accounts/count", "/service-accounts/sa-000001"] {
        let answer = within_hang(path, h.get(path, "admin")).await;
        assert_outage(&answer, path);
    }
    // What the log says: the server cancelled the statement at the URL's bound.
    let message = unavailable(h.store().version_count().await);
    assert!(message.contains("did not finish within 1 s (statement_timeout)"), "{message}");
    assert!(message.contains("(57014)"), "{message}");
    lock.release().await;

    // The pool serves again, on the same connections.
    let after = within_hang(list, h.get(list, "admin")).await;
    assert_eq!(after.status, 200, "{:?}", after.body);
    assert_eq!(after.ids(), before.ids());
    assert_eq!(h.store().version_count().await.expect("a count after the lock"), 20);
}

/// A search stops work when its time budget is spent (contract §5.2), the read of the store's
/// current snapshot that tells whether its copies were current included. Without writes, a
/// search whose budget runs out (the `audit` source is slower than 50 ms) says nothing of stale
/// copies: the snapshot was read while the sources were asked. With the snapshot counter
/// locked for longer than any bound a request has, the same search is answered while the lock
/// is held, each copy that answered said to be possibly stale, since whether it was current
/// could not be learnt in time.
#[tokio::test]
async fn a_search_answers_within_its_time_budget_while_the_snapshot_counter_is_locked() {
    let url = e2e_support::postgres::fresh_database().await;
    let minute = "options=-c%20statement_timeout%3D60s";
    let h = Harness::start(Config { db: Some(format!("{url}?{minute}").into()), ..config(20) }).await;
    let search = "/search?q=svc-north&time_budget_ms=50";
    let sources = |answer: &Answer, code: &str| -> Vec<String> {
        let field = if code == "STALE_INDEX" { "warnings" } else { "incomplete_reasons" };
        let mut named: Vec<String> = answer.body[field]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == code)
            .filter_map(|w| w["source"].as_str().map(str::to_owned))
            .collect();
        named.sort();
        named
    };
    let unlocked = h.get(search, "admin").await;
    assert_eq!(unlocked.status, 200, "{:?}", unlocked.body);
    let budget_spent =
        unlocked.body["incomplete_reasons"].as_array().unwrap().iter().any(|r| r["code"] == "TIME_BUDGET_EXCEEDED");
    assert!(budget_spent, "the audit source is slower than the budget: {:?}", unlocked.body);
    assert_eq!(sources(&unlocked, "STALE_INDEX"), Vec::<String>::new(), "current copies: {:?}", unlocked.body);

    let lock = Lock::take_on(&url, "meta", "ACCESS EXCLUSIVE").await;
    let answer = within_hang(search, h.get(search, "admin")).await;
    lock.release().await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let answered: Vec<String> = ["directory", "legacy"].map(str::to_owned).to_vec();
    assert_eq!(
        sources(&answer, "STALE_INDEX"),
        answered,
        "copies whose freshness could not be read: {:?}",
        answer.body
    );
}

/// Whether a cursor's or an evidence token's snapshot is still retained is a question to the
/// database: when it cannot answer in time, the answer is the outage (503, call again), not
/// "expired" (410 or 412, start over), which would tell a client its traversal or its inventory
/// can never be used, while the snapshot is still there.
#[tokio::test]
async fn a_store_that_cannot_say_whether_a_snapshot_is_retained_is_an_outage_not_an_expiry() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config { db: Some(format!("{url}?{ONE_SECOND}").into()), ..config(300) }).await;
    let first = h.get("/service-accounts?page_size=2", "admin").await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    let cursor = first.body["next_cursor"].as_str().expect("a next page").to_owned();
    let next = format!("/service-accounts?page_size=2&cursor={cursor}");
    let pages = h.traverse("/service-accounts?owner=none&page_size=500", "admin").await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:?}", last.reasons());
    let targets: Vec<String> = pages.iter().flat_map(Answer::ids).take(2).collect();
    assert_eq!(targets.len(), 2, "enough unowned accounts");
    let archive = json!({"ids": targets, "evidence": last.body["evidence"]});
    let before = h.store().fingerprint().await.unwrap();

    let lock = Lock::take_on(&url, "snapshots", "ACCESS EXCLUSIVE").await;
    assert_outage(&within_hang("a resumed page", h.get(&next, "admin")).await, "a resumed page");
    let refused = within_hang("an archive", h.post("/service-accounts/archive", "admin", &archive)).await;
    assert_outage(&refused, "an archive");
    lock.release().await;
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");

    // The snapshot was retained all along: the same cursor and evidence serve now.
    let resumed = within_hang("a resumed page", h.get(&next, "admin")).await;
    assert_eq!(resumed.status, 200, "{:?}", resumed.body);
    let done = within_hang("the archive", h.post("/service-accounts/archive", "admin", &archive)).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
}

#[tokio::test]
async fn an_archive_under_a_lock_changes_nothing_and_succeeds_once_the_lock_is_gone() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config { db: Some(format!("{url}?{ONE_SECOND}").into()), ..config(300) }).await;
    let pages = h.traverse("/service-accounts?owner=none&page_size=500", "admin").await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:?}", last.reasons());
    let evidence = last.body["evidence"].clone();
    let targets: Vec<String> = pages.iter().flat_map(Answer::ids).take(3).collect();
    assert_eq!(targets.len(), 3, "enough unowned accounts");
    let before = h.store().fingerprint().await.unwrap();
    let snapshot = h.store().current_snapshot().await.unwrap();
    let archive = json!({"ids": targets, "evidence": evidence});

    // ACCESS EXCLUSIVE stops the archive at its first read of the table; EXCLUSIVE lets it read,
    // open a new snapshot (a row in `snapshots`, the counter in `meta`) and stops it at its first
    // write to the table: what it wrote before must be rolled back too.
    for mode in ["ACCESS EXCLUSIVE", "EXCLUSIVE"] {
        let lock = Lock::take(&url, mode).await;
        let answer = within_hang(mode, h.post("/service-accounts/archive", "admin", &archive)).await;
        assert_outage(&answer, mode);
        // The same archive as an MCP tool: a tool error that says nothing was archived and when
        // to call again (the route's `Retry-After`), not an approval request, which would mend
        // nothing here.
        let call =
            h.mcp_request("admin", 1, "tools/call", Some(ARCHIVE), json!({"name": ARCHIVE, "arguments": archive}));
        let answer = within_hang(mode, h.answer(call)).await;
        assert_eq!(answer.body["result"]["isError"], true, "{mode}: {answer:?}");
        let text = answer.body["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("REFUSED (SERVICE_UNAVAILABLE): "), "{mode}: {text}");
        assert!(text.contains("Nothing has been archived. Call again in 5 seconds."), "{mode}: {text}");
        assert!(!text.contains("NOT ARCHIVED"), "{mode}: {text}");
        lock.release().await;
        assert_eq!(h.store().fingerprint().await.unwrap(), before, "an archive under {mode} changed the database");
        assert_eq!(h.store().current_snapshot().await.unwrap(), snapshot, "under {mode}");
    }

    // The evidence still holds, nothing having changed: the same archive now goes through.
    let done = within_hang("the archive", h.post("/service-accounts/archive", "admin", &archive)).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.body["archived"], json!(targets));
    assert_ne!(h.store().fingerprint().await.unwrap(), before, "the archive is seen in the fingerprint");
    assert_eq!(h.store().current_snapshot().await.unwrap(), snapshot + 1);
}

#[tokio::test]
async fn without_one_in_the_url_the_statement_timeout_is_10_s_and_the_urls_options_are_kept() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config {
        db: Some(format!("{url}?options=-c%20application_name%3Dbounded_inventory").into()),
        ..config(5)
    })
    .await;
    let lock = Lock::take(&url, "ACCESS EXCLUSIVE").await;
    let cut = tokio::time::timeout(HANG, h.store().version_count()).await.expect("the count did not hang");
    let message = unavailable(cut);
    assert!(message.contains("did not finish within 10 s (statement_timeout)"), "{message}");
    let name = url.rsplit_once('/').unwrap().1;
    let named: i64 = lock
        .client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'bounded_inventory'",
            &[&name],
        )
        .await
        .unwrap()
        .get(0);
    assert!(named >= 1, "the service's connections lost the URL's own options");
    lock.release().await;
    assert_eq!(h.store().version_count().await.expect("a count after the lock"), 5);
}

/// A TCP proxy to the test server that can stop passing the server's replies on, as a server
/// that stops answering would (what the service sends still reaches the server).
struct Proxy {
    port: u16,
    silent: Arc<AtomicBool>,
    /// When set, the proxy falls silent as the COMMIT of a write (a transaction that opened a
    /// snapshot) passes: the server commits it, and its reply never comes.
    silent_at_commit: Arc<AtomicBool>,
    /// How many connections the service has closed.
    closed: Arc<AtomicUsize>,
}

impl Proxy {
    async fn to(server: (String, u16)) -> Proxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (silent, closed) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
        let silent_at_commit = Arc::new(AtomicBool::new(false));
        let proxy =
            Proxy { port, silent: silent.clone(), silent_at_commit: silent_at_commit.clone(), closed: closed.clone() };
        tokio::spawn(async move {
            while let Ok((service, _)) = listener.accept().await {
                let Ok(upstream) = tokio::net::TcpStream::connect(server.clone()).await else { continue };
                let (mut from_service, mut to_service) = service.into_split();
                let (mut from_server, mut to_server) = upstream.into_split();
                let (closed, silent_at_commit, falls_silent) =
                    (closed.clone(), silent_at_commit.clone(), silent.clone());
                tokio::spawn(async move {
                    let has = |chunk: &[u8], text: &[u8]| chunk.windows(text.len()).any(|w| w == text);
                    let mut buffer = vec![0; 16 * 1024];
                    let mut writing = false;
                    while let Ok(read @ 1..) = from_service.read(&mut buffer).await {
                        let chunk = &buffer[..read];
                        writing |= has(chunk, OPENS_SNAPSHOT);
                        if writing && has(chunk, b"COMMIT\0") {
                            writing = false;
                            if silent_at_commit.load(Ordering::SeqCst) {
                                falls_silent.store(true, Ordering::SeqCst);
                            }
                        }
                        if to_server.write_all(chunk).await.is_err() {
                            break;
                        }
                    }
                    closed.fetch_add(1, Ordering::SeqCst);
                });
                let silent = silent.clone();
                tokio::spawn(async move {
                    let mut buffer = vec![0; 16 * 1024];
                    while let Ok(read @ 1..) = from_server.read(&mut buffer).await {
                        while silent.load(Ordering::SeqCst) {
                            tokio::time::sleep(Duration::from_millis(10)).await;
                        }
                        if to_service.write_all(&buffer[..read]).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        proxy
    }
}

/// The statement of every write that opens a snapshot, as the service sends it.
const OPENS_SNAPSHOT: &[u8] = b"UPDATE meta SET value = $1 WHERE key = 'current'";

/// The test server behind a [`Proxy`], and the URL of a fresh database through it with a
/// statement timeout of one second.
async fn through_a_proxy() -> (Proxy, String) {
    let url = e2e_support::postgres::fresh_database().await;
    let server: tokio_postgres::Config = url.parse().unwrap();
    let host = match &server.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(host) => host.clone(),
        other => panic!("the test server is not on TCP: {other:?}"),
    };
    let proxy = Proxy::to((host, server.get_ports()[0])).await;
    let user = server.get_user().unwrap();
    let name = server.get_dbname().unwrap();
    // A short connect_timeout too: while the server is silent, new connections cannot be made either.
    let through = format!("postgres://{user}@127.0.0.1:{}/{name}?connect_timeout=2&{ONE_SECOND}", proxy.port);
    (proxy, through)
}

/// An archive whose COMMIT the server applied but whose reply never came is not answered as one
/// that changed nothing: a 503 with `"outcome": "unknown"` that says to read before sending it
/// again, over REST and as an MCP tool error; the accounts are archived indeed.
#[tokio::test]
async fn an_archive_whose_commit_is_not_confirmed_says_its_outcome_is_unknown() {
    let (proxy, through) = through_a_proxy().await;
    let h = Harness::start(Config { db: Some(through.into()), ..config(300) }).await;
    let inventory = h.get("/service-accounts?owner=none&page_size=500", "admin").await;
    assert_eq!(inventory.body["complete"], true, "{:?}", inventory.body);
    let ids = inventory.ids();
    assert!(ids.len() >= 2, "enough unowned accounts");
    let (rest, mcp) = (&ids[..1], &ids[1..2]);
    let evidence = inventory.body["evidence"].clone();

    proxy.silent_at_commit.store(true, Ordering::SeqCst);
    let archive = json!({"ids": rest, "evidence": evidence});
    let answer = within_hang("the archive", h.post("/service-accounts/archive", "admin", &archive)).await;
    answer.assert_problem(503, "SERVICE_UNAVAILABLE");
    assert_eq!(answer.body["outcome"], "unknown", "{:?}", answer.body);
    let detail = answer.body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("it may have been made, or not"), "{detail}");
    proxy.silent.store(false, Ordering::SeqCst);

    let call = h.mcp_request(
        "admin",
        1,
        "tools/call",
        Some(ARCHIVE),
        json!({"name": ARCHIVE, "arguments": {"ids": mcp, "evidence": evidence}}),
    );
    let answer = within_hang("the archive tool", h.answer(call)).await;
    proxy.silent_at_commit.store(false, Ordering::SeqCst);
    proxy.silent.store(false, Ordering::SeqCst);
    assert_eq!(answer.body["result"]["isError"], true, "{answer:?}");
    let text = answer.body["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("REFUSED (SERVICE_UNAVAILABLE): "), "{text}");
    assert!(text.contains("The archive may have been applied, or not"), "{text}");
    assert!(!text.contains("Nothing has been archived"), "{text}");

    // The server did commit both.
    for id in rest.iter().chain(mcp) {
        let account = within_hang("a read", h.get(&format!("/service-accounts/{id}"), "admin")).await;
        assert_eq!(account.body["archived"], true, "{id}: {:?}", account.body);
    }
}

#[tokio::test]
async fn a_server_that_stops_answering_is_cut_off_at_the_deadline_and_its_connection_closed() {
    let (proxy, through) = through_a_proxy().await;
    let h = Harness::start(Config { db: Some(through.into()), ..config(20) }).await;
    let list = "/service-accounts?page_size=5";
    assert_eq!(h.get(list, "admin").await.status, 200);
    // Several pooled connections, so that the operations below find an idle one.
    let warm: Vec<_> = (0..4).map(|_| h.store().fingerprint()).collect();
    for done in futures_util::future::join_all(warm).await {
        done.expect("a fingerprint");
    }

    let closed = proxy.closed.load(Ordering::SeqCst);
    proxy.silent.store(true, Ordering::SeqCst);
    let cut = tokio::time::timeout(HANG, h.store().current_snapshot()).await.expect("the store did not hang");
    let message = unavailable(cut);
    assert!(message.contains("PostgreSQL did not answer within 3 s (statement_timeout 1 s + 2 s)"), "{message}");
    let answer = within_hang(list, h.get(list, "admin")).await;
    assert_outage(&answer, list);
    // Each connection cut off was closed rather than put back into the pool.
    let waited = tokio::time::Instant::now();
    while proxy.closed.load(Ordering::SeqCst) < closed + 2 {
        assert!(waited.elapsed() < HANG, "the connections cut off were not closed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    proxy.silent.store(false, Ordering::SeqCst);
    let again = within_hang(list, h.get(list, "admin")).await;
    assert_eq!(again.status, 200, "{:?}", again.body);
    assert_eq!(again.ids().len(), 5);
}

#[test]
fn the_urls_statement_timeout_is_read_as_postgresql_reads_it() {
    let timeout = |options: &str| {
        let url = format!("postgres://nobody@db.example/inventory?options={options}");
        url_statement_timeout(&url.parse().unwrap())
    };
    let ms = Duration::from_millis;
    let cases = [
        ("-c%20statement_timeout%3D5s", Some(ms(5_000))),
        ("-cstatement_timeout=500ms", Some(ms(500))),
        ("--statement-timeout=2min", Some(ms(120_000))),
        ("-c%20Statement_Timeout=1500", Some(ms(1_500))),
        ("-c%20statement_timeout=1.5s", Some(ms(1_500))),
        ("-c%20statement_timeout=1%5C%20h", Some(ms(3_600_000))),
        ("-c%20statement_timeout=0%20-c%20statement_timeout=3s", Some(ms(3_000))),
        ("-c%20application_name=inventory%20-c%20lock_timeout=0", None),
        ("-c%20application_name=statement_timeout=0", None),
    ];
    for (options, expected) in cases {
        assert_eq!(timeout(options), Ok(expected), "{options}");
    }
    assert_eq!(url_statement_timeout(&"postgres://nobody@db.example/inventory".parse().unwrap()), Ok(None));
}

#[test]
fn a_statement_timeout_that_is_not_a_positive_duration_is_a_bad_db_flag() {
    let cases = [
        ("-c%20statement_timeout%3Dsoon", "statement_timeout to 'soon', which is not a duration"),
        ("-c%20statement_timeout=-5s", "which is not a duration"),
        ("-c%20statement_timeout=5sec", "whose unit 'sec' is none of us, ms, s, min, h and d"),
        ("-c%20statement_timeout=0", "turns the bound off"),
        ("-c%20statement_timeout=200us", "turns the bound off"),
        ("--statement-timeout=0", "turns the bound off"),
        ("-c%20statement_timeout=3s%20-c%20statement_timeout=0", "turns the bound off"),
        ("-c%20statement_timeout", "statement_timeout to '', which is not a duration"),
        ("-c%20statement_timeout=3000000000", "more than PostgreSQL accepts"),
    ];
    for (options, says) in cases {
        let db = format!("postgres://nobody@db.example/inventory?options={options}");
        let error = Config::from_args(["--db".to_owned(), db]).expect_err(options);
        assert!(error.starts_with("--db: the URL's options set statement_timeout to '"), "{options}: {error}");
        assert!(error.contains(says), "{options}: {error}");
    }
}

/// The built example refuses a bad bound as every bad flag: exit 2, the reason and the usage,
/// before it tries to connect (nothing listens at the URL's port).
#[tokio::test]
async fn the_example_exits_2_on_a_bad_statement_timeout() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let db = format!("postgres://nobody@127.0.0.1:{port}/inventory?options=-c%20statement_timeout%3D0");
    let child = tokio::process::Command::new(built_example::binary("service_accounts"))
        .args(["--db", &db])
        .env_remove(e2e_support::service::state::KEYS_VARIABLE)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let output = tokio::time::timeout(HANG, child.wait_with_output()).await.expect("the example exits").unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: --db: the URL's options set statement_timeout to '0'"), "{stderr}");
    assert!(stderr.contains("\nusage: service_accounts"), "{stderr}");
}

/// Under a stricter `default_transaction_isolation` (here `serializable`, set in the URL), a
/// write whose row another transaction changed since its snapshot is rolled back by the server
/// (40001). That is a conflict the same request retried can pass: 503 with `Retry-After`, never
/// a 500, and nothing written.
#[tokio::test]
async fn a_write_rolled_back_for_a_concurrent_one_is_a_503_to_retry() {
    let url = e2e_support::postgres::fresh_database().await;
    let serializable = "options=-c%20default_transaction_isolation%3Dserializable";
    let h = Harness::start(Config { db: Some(format!("{url}?{serializable}").into()), ..config(20) }).await;

    // Another session changes the row and holds its lock; the request's write waits on it, with
    // its snapshot taken, and is refused once that session commits.
    let (other, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("the test database");
    let connection = tokio::spawn(connection);
    other.batch_execute("BEGIN; UPDATE accounts SET owner = 'kim' WHERE id = 'sa-000001'").await.expect("the update");
    let body = json!({"owner": "dana"});
    let patch = h.patch("/service-accounts/sa-000001", "admin", &body);
    let commit = async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        other.batch_execute("COMMIT").await.expect("the commit");
    };
    let (answer, ()) = tokio::join!(within_hang("the patch", patch), commit);
    answer.assert_problem(503, "SERVICE_UNAVAILABLE");
    assert_eq!(answer.retry_after.as_deref(), Some("5"), "{answer:?}");
    drop(other);
    let _ = connection.await;
    let account = h.get("/service-accounts/sa-000001", "admin").await;
    assert_eq!(account.body["owner"], "kim", "the request wrote nothing: {:?}", account.body);
}

/// A revocation and an archive of the same credential are ordered on PostgreSQL too, across
/// replicas: an archive already waiting commits before the revocation answers, and an archive
/// authenticated before a revocation committed, but reaching the store after it, is refused
/// (the epoch it was authenticated at is no longer the credential's). Another session holds
/// the snapshot counter, as a long write would, so that both requests wait there.
#[tokio::test]
async fn a_revocation_and_an_archive_of_the_same_credential_are_ordered() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(300) }).await;
    let inventory = |tenant: &'static str| {
        let h = &h;
        async move {
            let pages =
                h.traverse(&format!("/service-accounts?owner=none&tenant={tenant}&page_size=500"), tenant).await;
            let last = pages.last().unwrap();
            assert_eq!(last.body["complete"], true, "{:?}", last.reasons());
            let targets: Vec<String> = pages.iter().flat_map(Answer::ids).take(2).collect();
            assert_eq!(targets.len(), 2, "enough unowned accounts in {tenant}");
            json!({"ids": targets, "evidence": last.body["evidence"]})
        }
    };
    let hold = async || {
        let (session, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("the database");
        let connection = tokio::spawn(connection);
        session.batch_execute("BEGIN; SELECT value FROM meta WHERE key = 'current' FOR UPDATE").await.expect("lock");
        (session, connection)
    };
    let later = |millis| tokio::time::sleep(Duration::from_millis(millis));

    // The archive waits first: the revocation answers only after it committed.
    let north = inventory("north").await;
    let (session, connection) = hold().await;
    let archive = async { within_hang("the archive", h.post("/service-accounts/archive", "north", &north)).await };
    let revoke = async {
        later(300).await;
        let answer =
            within_hang("the revocation", h.post("/credentials/north/revoke-tenant/north", "admin", &json!({}))).await;
        (answer, Instant::now())
    };
    let release = async {
        later(900).await;
        session.batch_execute("COMMIT").await.expect("the release");
        Instant::now()
    };
    let (archived, (revoked, revoked_at), released_at) = tokio::join!(archive, revoke, release);
    assert_eq!(archived.status, 200, "{:?}", archived.body);
    assert_eq!(revoked.status, 200, "{:?}", revoked.body);
    assert!(revoked_at > released_at, "the revocation did not wait for the archive in flight");
    drop(connection);

    // The revocation waits first: the archive, authenticated before it committed, is refused.
    let south = inventory("south").await;
    let before = h.store().fingerprint().await.unwrap();
    let (session, connection) = hold().await;
    let revoke = async {
        within_hang("the revocation", h.post("/credentials/south/revoke-tenant/south", "admin", &json!({}))).await
    };
    let archive = async {
        later(300).await;
        within_hang("the archive", h.post("/service-accounts/archive", "south", &south)).await
    };
    let release = async {
        later(900).await;
        session.batch_execute("COMMIT").await.expect("the release");
    };
    let (revoked, refused, ()) = tokio::join!(revoke, archive, release);
    assert_eq!(revoked.status, 200, "{:?}", revoked.body);
    refused.assert_problem(412, "EVIDENCE_CREDENTIAL_MISMATCH");
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");
    drop(connection);
}

/// A replica whose pooled connections are all held (here by reads waiting on a lock another
/// session holds) answers `/ready` with a 503 that says so, not that its database is down: the
/// database answers, and the outage gauge stays 0. So is a request that waited for a connection
/// past the pool's wait (10 s) in vain. `/metrics` shows the pool's gauges. Once the lock is
/// gone the held requests are answered and the replica is ready again.
#[tokio::test]
async fn a_replica_whose_connections_are_all_held_says_so_on_ready_not_that_its_database_is_down() {
    let url = e2e_support::postgres::fresh_database().await;
    // Statements wait on the lock longer than the pool's wait, which is what runs out first.
    let db = format!("{}{}options=-c%20statement_timeout%3D25s", url, if url.contains('?') { '&' } else { '?' });
    let h = Arc::new(Harness::start(Config { db: Some(db.into()), ..config(20) }).await);
    assert_eq!(h.send(reqwest::Method::GET, "/ready", None, None).await.status, 200);
    let max = h.store().connections().expect("a pool on PostgreSQL").max;

    let lock = Lock::take(&url, "ACCESS EXCLUSIVE").await;
    let held: Vec<_> = (0..max + 2)
        .map(|_| {
            let h = h.clone();
            tokio::spawn(async move { h.get("/service-accounts?page_size=1", "admin").await })
        })
        .collect();
    let started = Instant::now();
    while !h.store().connections().unwrap().exhausted() {
        assert!(started.elapsed() < HANG, "the pool was never exhausted: {:?}", h.store().connections());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ready = within_hang("/ready", h.send(reqwest::Method::GET, "/ready", None, None)).await;
    assert_outage(&ready, "/ready");
    let detail = ready.body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("Every one of this replica's connections to its database is in use"), "{detail}");
    assert!(!h.running.state.health.in_outage(), "the database answers: no outage");
    let metrics = h.request(reqwest::Method::GET, "/metrics").send().await.unwrap().text().await.unwrap();
    for series in [
        "service_database_pool_connections{state=\"in_use\"}",
        "service_database_pool_connections{state=\"idle\"}",
        "service_database_pool_max_connections",
        "service_database_pool_waiting",
    ] {
        assert!(metrics.contains(series), "{series} in:\n{metrics}");
    }

    // The requests beyond the pool's size (two, or three if the pruner waits on the lock too,
    // holding a connection) wait for one that does not come. They queued together, and give
    // up together: a second after the first two have, every one has.
    let mut held = held;
    let mut waited = Vec::new();
    let mut settled = None;
    while settled.is_none_or(|at: Instant| at.elapsed() < Duration::from_secs(1)) {
        assert!(started.elapsed() < HANG, "no request gave up waiting for a connection");
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (finished, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut held).into_iter().partition(|r| r.is_finished());
        waited.extend(finished);
        held = waiting;
        if waited.len() >= 2 && settled.is_none() {
            settled = Some(Instant::now());
        }
    }
    for request in waited {
        let answer = request.await.unwrap();
        assert_outage(&answer, "a list that waited for a connection");
        let detail = answer.body["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("Every one of this replica's connections to its database is in use"), "{detail}");
    }
    assert!(!h.running.state.health.in_outage(), "the database answers all the same: no outage");

    lock.release().await;
    for request in held {
        let answer = within_hang("a held list", async { request.await.unwrap() }).await;
        assert_eq!(answer.status, 200, "{:?}", answer.body);
    }
    assert_eq!(h.send(reqwest::Method::GET, "/ready", None, None).await.status, 200, "ready again");
}
