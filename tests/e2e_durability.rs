//! End to end on PostgreSQL: a write the service confirmed survives a crash of the server,
//! whatever the server's `synchronous_commit` (the test cluster's is `off`). A write lost after
//! it was confirmed would set the snapshot counter back, and the next write would open the lost
//! snapshot's number again for another state, under which cursors and evidence of the lost one
//! would be read.
//!
//! The crash is made on a cluster of the test's own (crashing the shared one would fail other
//! tests): its WAL writer is paused, so that nothing but the committing session itself writes the
//! WAL out, and then killed, which makes PostgreSQL end every session and recover from the WAL on
//! disk. A commit that did not write its WAL before answering is gone after that, every time.
//! A `--db` URL that turns `synchronous_commit` off is refused.
//!
//! Each new connection's session is made as strict as the service needs, and no stricter than
//! the server, role or URL made it: `synchronous_commit` `off` becomes `on`, and a transaction
//! left idle (a replica paused between two statements of a write, holding the snapshot
//! counter's lock) is ended by the server once the service has given up on it.

use crate::e2e_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use e2e_support::service::store::postgres::{strengthen_session, url_durable_commits};
use e2e_support::{Config, Harness, config};
use serde_json::json;

/// A throwaway cluster of this test's own, from `scripts/postgres.sh` in a directory of its own
/// (the cluster and the script's lock file beside it); stopped and deleted when dropped.
struct OwnCluster {
    parent: PathBuf,
    dir: PathBuf,
    url: String,
}

impl OwnCluster {
    fn start() -> OwnCluster {
        let parent = std::env::temp_dir().join(format!("completeness-durability-{}", std::process::id()));
        let dir = parent.join("cluster");
        let output = OwnCluster::script(&dir, "start");
        let url = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        assert!(
            output.status.success() && !url.is_empty(),
            "`bash scripts/postgres.sh start` for a cluster of this test's own failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
        OwnCluster { parent, dir, url }
    }

    fn script(dir: &Path, command: &str) -> std::process::Output {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres.sh");
        Command::new("bash")
            .args([script, command])
            .env("COMPLETENESS_POSTGRES_DIR", dir)
            .output()
            .unwrap_or_else(|e| panic!("could not run {script}: {e}"))
    }

    /// A session on the cluster's `postgres` database, or the error while it recovers.
    async fn session(&self) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
        let (client, connection) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        Ok(client)
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = OwnCluster::script(&self.dir, "stop");
        let _ = std::fs::remove_dir_all(&self.parent);
    }
}

/// Sends `signal` (`STOP`, `KILL`) to the process `pid`.
fn signal(signal: &str, pid: i32) {
    let status = Command::new("kill").args([&format!("-{signal}"), &pid.to_string()]).status().expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

#[tokio::test]
async fn a_confirmed_write_survives_a_crash_of_the_server() {
    let cluster = OwnCluster::start();
    let admin = cluster.session().await.expect("the test's own cluster answers");
    let walwriter: i32 = admin
        .query_one("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'", &[])
        .await
        .expect("the cluster has a WAL writer")
        .get(0);
    let off: String = admin.query_one("SHOW synchronous_commit", &[]).await.unwrap().get(0);
    assert_eq!(off, "off", "the test cluster commits asynchronously by default: the case this test is about");
    admin.batch_execute("CREATE DATABASE durability").await.expect("a database for the service");
    let (base, _) = cluster.url.rsplit_once('/').expect("a URL ending in /DATABASE");
    let url = format!("{base}/durability");
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;

    // What the service wrote so far (its schema, its seed) is on disk before the WAL writer stops.
    admin.batch_execute("CHECKPOINT").await.expect("a checkpoint");
    signal("STOP", walwriter);
    let created = h.post("/service-accounts", "admin", &json!({"name": "svc-north-durable", "tenant": "north"})).await;
    signal("KILL", walwriter);
    assert_eq!(created.status, 201, "{created:?}");
    let id = created.body["account"]["id"].as_str().expect("the created account's id").to_owned();

    // PostgreSQL ends every session and recovers from the WAL on disk; then it answers again.
    let mut found = Err("no answer yet".to_owned());
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (client, connection) = match tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
            Ok(session) => session,
            Err(error) => {
                found = Err(error.to_string());
                continue;
            }
        };
        tokio::spawn(connection);
        found = client
            .query_one("SELECT count(*) FROM accounts WHERE id = $1", &[&id])
            .await
            .map(|row| row.get::<_, i64>(0))
            .map_err(|e| e.to_string());
        if found.is_ok() {
            break;
        }
    }
    let found = found.unwrap_or_else(|why| panic!("PostgreSQL answers again within 30 s of the crash: {why}"));
    assert!(found >= 1, "the account {id} the service confirmed (201) was lost in the crash");

    // And the service reads it again, once its connections are made anew.
    let mut answer = h.get(&format!("/service-accounts/{id}"), "admin").await;
    for _ in 0..100 {
        if answer.status != 503 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = h.get(&format!("/service-accounts/{id}"), "admin").await;
    }
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.body["name"], "svc-north-durable", "{answer:?}");
}

#[test]
fn a_url_that_turns_synchronous_commit_off_is_a_bad_db_flag() {
    let durable = |options: &str| {
        let url = format!("postgres://nobody@db.example/inventory?options={options}");
        url_durable_commits(&url.parse().unwrap())
    };
    for options in [
        "-c%20synchronous_commit%3Doff",
        "--synchronous-commit=OFF",
        "-csynchronous_commit=false",
        "-c%20synchronous_commit=0",
    ] {
        let refused = durable(options).expect_err(options);
        assert!(refused.contains("synchronous_commit") && refused.contains("remove it"), "{options}: {refused}");
    }
    for options in [
        "-c%20synchronous_commit%3Don",
        "-c%20synchronous_commit=local",
        "-c%20synchronous_commit=remote_apply",
        "-c%20application_name=synchronous_commit=off",
    ] {
        assert_eq!(durable(options), Ok(()), "{options}");
    }
    assert_eq!(url_durable_commits(&"postgres://nobody@db.example/inventory".parse().unwrap()), Ok(()));
}

/// A session on the shared test server with `options` in its start-up packet, as a URL's
/// `options` or the server's settings would give them.
async fn session_with(options: &str) -> tokio_postgres::Client {
    let mut config: tokio_postgres::Config =
        e2e_support::postgres::server_url().parse().expect("the test server's URL");
    config.options(options);
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.expect("the test server answers");
    tokio::spawn(connection);
    client
}

/// `synchronous_commit` and `idle_in_transaction_session_timeout` (in ms) of `client`'s session.
async fn strictness(client: &tokio_postgres::Client) -> (String, i64) {
    let row = client
        .query_one(
            "SELECT current_setting('synchronous_commit'), \
             (SELECT setting::bigint FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout')",
            &[],
        )
        .await
        .expect("the session's settings");
    (row.get(0), row.get(1))
}

#[tokio::test]
async fn a_weak_session_is_made_strict_and_a_stricter_one_stays() {
    let idle = Duration::from_secs(3);
    let cases = [
        // Weaker than the service needs on both counts: both are raised.
        ("-c synchronous_commit=off -c idle_in_transaction_session_timeout=0", ("on", 3000)),
        ("-c synchronous_commit=off -c idle_in_transaction_session_timeout=60000", ("on", 3000)),
        // Durable and shorter already: left as the server, role or URL set them.
        ("-c synchronous_commit=remote_write -c idle_in_transaction_session_timeout=1000", ("remote_write", 1000)),
        ("-c synchronous_commit=local -c idle_in_transaction_session_timeout=3000", ("local", 3000)),
    ];
    for (options, (commit, idle_ms)) in cases {
        let client = session_with(options).await;
        strengthen_session(&client, idle).await.expect("the session is strengthened");
        assert_eq!(strictness(&client).await, (commit.to_owned(), idle_ms), "a session started with {options}");
    }
}

#[tokio::test]
async fn a_transaction_left_idle_is_ended_and_its_locks_released() {
    let paused = session_with("-c idle_in_transaction_session_timeout=0").await;
    strengthen_session(&paused, Duration::from_secs(1)).await.expect("the session is strengthened");
    let other = session_with("-c lock_timeout=5000").await;
    // What a write does first: take a lock every other write waits for. Then the replica stops
    // answering between two statements.
    let key = i64::from(std::process::id());
    paused.batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({key})")).await.expect("the lock");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    other
        .batch_execute(&format!("BEGIN; SELECT pg_advisory_xact_lock({key}); COMMIT"))
        .await
        .expect("the idle transaction was ended and its lock released, not held until the paused replica resumes");
    let after = paused.batch_execute("SELECT 1").await.expect_err("the paused session was ended by the server");
    assert!(
        after.as_db_error().is_some_and(|e| e.code().code() == "25P03") || paused.is_closed(),
        "ended for being idle in a transaction: {after}"
    );
}
