//! End to end over HTTP on PostgreSQL: a database loaded again in place (`pg_restore --clean`
//! into the same database) under a running service, whose pooled connection lives on across
//! the restore. The service must find out at its next request that the database is another one
//! (its `meta` table has another OID), before that request opens a snapshot or reads at one:
//! a write must not open a snapshot under a name the predecessor gave, and a cursor or evidence
//! the predecessor issued must be refused (410, 412) rather than read against the restored state.
//!
//! The service is served without its background tasks, so that no pruning round (which finds
//! the restore too, within 5 s) can come first: what each case shows is the request's own check.

use crate::e2e_support;

use std::collections::BTreeSet;
use std::time::Duration;

use e2e_support::{Config, config, encode, postgres, service};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Saves the tables a restore brings back, as a backup taken now would hold them.
const BACKUP: &str = "CREATE TABLE backup_accounts AS SELECT * FROM accounts;
    CREATE TABLE backup_snapshots AS SELECT * FROM snapshots;
    CREATE TABLE backup_meta AS SELECT * FROM meta;";

/// Loads the backup again in place, as `pg_restore --clean` does: every row as it was, and
/// `meta` dropped and created again (under another OID).
const RESTORE: &str = "BEGIN;
    DELETE FROM accounts; INSERT INTO accounts SELECT * FROM backup_accounts;
    DELETE FROM snapshots; INSERT INTO snapshots SELECT * FROM backup_snapshots;
    DROP TABLE meta; CREATE TABLE meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
    INSERT INTO meta SELECT * FROM backup_meta;
    COMMIT;";

/// The service on a fresh database, served without its background tasks.
struct Served {
    url: String,
    db: String,
    client: reqwest::Client,
    server: tokio::task::JoinHandle<()>,
    _database: postgres::Release,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.server.abort();
    }
}

struct Answer {
    status: StatusCode,
    body: Value,
}

impl Answer {
    fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!((self.status.as_u16(), self.body["code"].as_str()), (status, Some(code)), "{}", self.body);
    }
}

impl Served {
    async fn start() -> Served {
        let db = postgres::fresh_database().await;
        let config = Config { db: Some(db.as_str().into()), ..config(20) };
        let (_, router) = service::build(config, tokio_util::sync::CancellationToken::new())
            .await
            .unwrap_or_else(|e| panic!("the service opens its store: {e}"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server =
            tokio::spawn(service::serve::serve(listener, router, Duration::from_secs(30), std::future::pending()));
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        Served { url, client, server, _database: postgres::Release::of(&db), db }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.bearer_auth("admin").send().await.expect("the service answers");
        let status = response.status();
        Answer { status, body: response.json().await.unwrap_or(Value::Null) }
    }

    async fn get(&self, path: &str) -> Answer {
        self.send(self.client.get(format!("{}{path}", self.url))).await
    }

    /// Creates an account named `name`; returns its id and the snapshot label the write opened.
    async fn create(&self, name: &str) -> (String, String) {
        let body = json!({"name": name, "tenant": "east"});
        let created = self.send(self.client.post(format!("{}/service-accounts", self.url)).json(&body)).await;
        assert_eq!(created.status, 201, "{}", created.body);
        let id = created.body["account"]["id"].as_str().expect("an id").to_owned();
        (id, created.body["snapshot"].as_str().expect("a snapshot").to_owned())
    }

    async fn archive(&self, ids: &[&str], evidence: &Value) -> Answer {
        let body = json!({"ids": ids, "evidence": evidence});
        self.send(self.client.post(format!("{}/service-accounts/archive", self.url)).json(&body)).await
    }

    /// The unowned accounts in one page: their ids, the snapshot label and the evidence.
    async fn unowned(&self) -> (Vec<String>, String, Value) {
        let page = self.get("/service-accounts?owner=none&page_size=500").await;
        assert_eq!(page.body["complete"], true, "{}", page.body);
        let ids = page.body["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned());
        (ids.collect(), page.body["page"]["snapshot"].as_str().unwrap().to_owned(), page.body["evidence"].clone())
    }

    /// The path of the page after a first page of five, and the first page's snapshot label.
    async fn cursor(&self) -> (String, String) {
        let first = self.get("/service-accounts?page_size=5").await;
        let cursor = encode(first.body["next_cursor"].as_str().expect("a next page"));
        (
            format!("/service-accounts?page_size=5&cursor={cursor}"),
            first.body["page"]["snapshot"].as_str().unwrap().into(),
        )
    }

    /// Runs `statements` on the service's database, as an operator would.
    async fn execute(&self, statements: &str) {
        let (admin, connection) = tokio_postgres::connect(&self.db, tokio_postgres::NoTls).await.expect("PostgreSQL");
        let connection = tokio::spawn(connection);
        admin.batch_execute(statements).await.unwrap_or_else(|e| panic!("{statements}: {e}"));
        drop(admin);
        let _ = connection.await;
    }
}

/// The operator's case: backup, three writes (the predecessor's snapshots), a cursor and
/// evidence at the last, the backup loaded again in place, then a write first. The write opens
/// none of the predecessor's snapshots, and the cursor and the evidence are refused: the
/// evidence would otherwise archive an account the predecessor's inventory never had.
#[tokio::test]
async fn a_write_after_an_in_place_restore_reuses_no_snapshot_and_the_old_tokens_are_refused() {
    let s = Served::start().await;
    let (_, backed_up, _) = s.unowned().await;
    s.execute(BACKUP).await;
    let mut given = BTreeSet::from([backed_up]);
    for n in 0..3 {
        given.insert(s.create(&format!("svc-predecessor-{n}")).await.1);
    }
    let (listed, snapshot, evidence) = s.unowned().await;
    assert!(given.contains(&snapshot), "{snapshot} among {given:?}");
    let (next, _) = s.cursor().await;

    s.execute(RESTORE).await;
    let mut created = Vec::new();
    for n in 0..3 {
        let (id, opened) = s.create(&format!("svc-restored-{n}")).await;
        assert!(!given.contains(&opened), "a write after the restore opened {opened}, a name the predecessor gave");
        created.push(id);
    }
    s.get(&next).await.assert_problem(410, "CURSOR_EXPIRED");
    // The restored database gave its new accounts the predecessor's ids, under other names.
    assert!(listed.contains(&created[0]), "{} among {listed:?}", created[0]);
    s.archive(&[&created[0]], &evidence).await.assert_problem(412, "EVIDENCE_EXPIRED");
    let account = s.get(&format!("/service-accounts/{}", created[0])).await;
    assert_eq!(account.body["archived"], false, "nothing was archived: {}", account.body);
}

/// A cursor the predecessor issued at the snapshot the backup holds, resumed first after the
/// restore: refused, although the restored database's counter stands at that number again; and
/// a new traversal starts past every name the predecessor gave.
#[tokio::test]
async fn a_cursor_resumed_first_after_an_in_place_restore_is_refused() {
    let s = Served::start().await;
    let (next, backed_up) = s.cursor().await;
    s.execute(BACKUP).await;
    let (_, given) = s.create("svc-predecessor").await;

    s.execute(RESTORE).await;
    s.get(&next).await.assert_problem(410, "CURSOR_EXPIRED");
    let (_, first) = s.cursor().await;
    assert!(first != backed_up && first != given, "a new traversal reads at {first}, a name the predecessor gave");
}

/// Evidence the predecessor issued at the snapshot the backup holds, presented first after the
/// restore: refused, and nothing is archived.
#[tokio::test]
async fn evidence_presented_first_after_an_in_place_restore_is_refused() {
    let s = Served::start().await;
    s.create("svc-unowned").await;
    let (listed, backed_up, evidence) = s.unowned().await;
    s.execute(BACKUP).await;
    let (_, given) = s.create("svc-predecessor").await;

    s.execute(RESTORE).await;
    s.archive(&[&listed[0]], &evidence).await.assert_problem(412, "EVIDENCE_EXPIRED");
    let account = s.get(&format!("/service-accounts/{}", listed[0])).await;
    assert_eq!(account.body["archived"], false, "nothing was archived: {}", account.body);
    let (_, snapshot, _) = s.unowned().await;
    assert!(
        snapshot != backed_up && snapshot != given,
        "the inventory reads at {snapshot}, a name the predecessor gave"
    );
}
