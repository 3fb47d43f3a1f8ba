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

use crate::e2e_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use e2e_support::service::store::postgres::url_durable_commits;
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
