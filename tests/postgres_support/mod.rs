//! A PostgreSQL server for the tests, and a fresh database on it per test.
//!
//! The server is `COMPLETENESS_TEST_POSTGRES_URL` when set, otherwise the throwaway cluster
//! `scripts/postgres.sh start` starts (or reuses). When neither works the test fails with the
//! script's reason: PostgreSQL tests are never skipped.

#![allow(dead_code)] // each test file uses a different part

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// The variable that names a running server instead of the script's cluster.
pub const URL_VARIABLE: &str = "COMPLETENESS_TEST_POSTGRES_URL";

/// The server's URL (its `postgres` database), found once per test binary.
pub fn server_url() -> &'static str {
    static URL: OnceLock<Result<String, String>> = OnceLock::new();
    let found = URL.get_or_init(|| {
        if let Ok(url) = std::env::var(URL_VARIABLE) {
            return Ok(url);
        }
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres.sh");
        let output = std::process::Command::new("bash")
            .args([script, "start"])
            .output()
            .map_err(|e| format!("could not run {script}: {e}"))?;
        let url = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if output.status.success() && !url.is_empty() {
            Ok(url)
        } else {
            Err(format!("`bash scripts/postgres.sh start` failed: {}", String::from_utf8_lossy(&output.stderr).trim()))
        }
    });
    match found {
        Ok(url) => url,
        Err(why) => {
            panic!("PostgreSQL is needed by this test and could not be started ({URL_VARIABLE} is unset): {why}")
        }
    }
}

/// Runs `sql` on the database at `url`, as an operator would; panics with the statement and
/// the server's error when it fails.
pub async fn execute(url: &str, sql: &str) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("PostgreSQL");
    let connection = tokio::spawn(connection);
    client.batch_execute(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    drop(client);
    let _ = connection.await;
}

/// How many tables the database at `url` holds in its `public` schema: none, for a database
/// that a refused start neither created tables in nor seeded.
pub async fn public_tables(url: &str) -> i64 {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("PostgreSQL");
    let connection = tokio::spawn(connection);
    let row = client
        .query_one("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", &[])
        .await
        .expect("the count of the database's tables");
    drop(client);
    let _ = connection.await;
    row.get(0)
}

/// [`execute`] as the test server's superuser, on its maintenance database.
pub async fn on_server(sql: &str) {
    execute(server_url(), sql).await;
}

/// The databases [`Release`]d and not dropped yet.
static RELEASED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The start of every test database's name; the creating process's pid follows it.
const PREFIX: &str = "test_";

/// Owns a database that [`fresh_database`] made: once it is dropped nobody uses the database,
/// and the next call of [`fresh_database`] drops it. The tests run as one process, which would
/// otherwise hold every database it made until it ends.
pub struct Release(String);

impl Release {
    /// Takes over the database at `url`, a URL [`fresh_database`] returned.
    pub fn of(url: &str) -> Release {
        let (_, name) = url.rsplit_once('/').expect("a URL ending in /DATABASE");
        Release(name.to_owned())
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        RELEASED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(std::mem::take(&mut self.0));
    }
}

/// Creates an empty database with a name no other test uses and returns its URL.
///
/// It also drops the databases [`Release`]d since the last call and, on the first call in a
/// test process, those that test processes which have ended left behind (see
/// [`drop_databases_of_ended_processes`]).
pub async fn fresh_database() -> String {
    static SERIAL: AtomicU32 = AtomicU32::new(0);
    static RECLAIMED: AtomicBool = AtomicBool::new(false);
    let server = server_url();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let name = format!("{PREFIX}{}_{}_{nanos}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed));
    let (client, connection) = tokio_postgres::connect(server, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {server} does not answer: {e}"));
    let connection = tokio::spawn(connection);
    if !RECLAIMED.swap(true, Ordering::Relaxed) {
        drop_databases_of_ended_processes(&client).await;
    }
    let released = std::mem::take(&mut *RELEASED.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    for name in released {
        drop_database(&client, &name).await;
    }
    client.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("a fresh database");
    drop(client);
    let _ = connection.await;
    let (base, _) = server.rsplit_once('/').expect("a URL ending in /DATABASE");
    format!("{base}/{name}")
}

/// Drops every test database whose creating process (the pid in its name) has ended.
///
/// Databases a test makes by hand and passes on are not [`Release`]d, and a process that ends
/// keeps the ones it released last; left alone they add up (8 MB each), and a CI machine has
/// only so much disk. Whether a process has ended is read from `/proc`; without it (not Linux)
/// nothing is dropped. A pid reused by a live process keeps its databases until a later run:
/// never a live test's.
async fn drop_databases_of_ended_processes(client: &tokio_postgres::Client) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let rows = client.query("SELECT datname FROM pg_database", &[]).await.expect("the list of databases");
    for row in rows {
        let name: String = row.get(0);
        let Some(pid) = name.strip_prefix(PREFIX).and_then(|rest| rest.split('_').next()?.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            drop_database(client, &name).await;
        }
    }
}

/// Drops the test database `name`. `FORCE`: a stopped service's pool may not have closed its
/// connections yet. Another test process may be dropping the same one: losing that race is fine.
async fn drop_database(client: &tokio_postgres::Client, name: &str) {
    let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
}
