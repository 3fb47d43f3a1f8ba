//! End to end over HTTP on PostgreSQL: a database loaded again in place (`pg_restore --clean`
//! into the same database) under a running service, whose pooled connection lives on across
//! the restore. The service must find out at its next request that the database is another one
//! (its `meta` table has another OID), before that request opens a snapshot or reads at one:
//! a write must not open a snapshot under a name the predecessor gave, and a cursor or evidence
//! the predecessor issued must be refused (410, 412) rather than read against the restored state.
//!
//! The same for tables emptied and loaded again in place (`TRUNCATE`, or `DELETE`, then
//! `pg_restore --data-only` or `COPY`), which keeps every OID: while they are being loaded the
//! service answers 503 (a credential not copied in yet is not "unknown", an accounts table not
//! copied in yet is not an empty inventory), and once they are, it takes the predecessor's
//! place as after a restore.
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

/// Saves every table of the service's state, as a dump taken now would hold it (`pg_dump
/// --data-only`).
const DUMP: &str = "CREATE TABLE dump_accounts AS SELECT * FROM accounts;
    CREATE TABLE dump_snapshots AS SELECT * FROM snapshots;
    CREATE TABLE dump_meta AS SELECT * FROM meta;
    CREATE TABLE dump_credentials AS SELECT * FROM credentials;
    CREATE TABLE dump_grants AS SELECT * FROM grants;";

/// Empties the tables as an operator does before loading a dump into them.
const TRUNCATE: &str = "TRUNCATE accounts, snapshots, meta, grants, credentials, replicas";

/// Copies `table`'s rows from the dump back in, as `pg_restore --data-only` (or `COPY`) does:
/// each table in a transaction of its own.
fn load(table: &str) -> String {
    format!("INSERT INTO {table} SELECT * FROM dump_{table}")
}

/// The whole dump loaded again into the tables emptied first, in one transaction
/// (`pg_restore --single-transaction`).
fn reload(empty: &str) -> String {
    let tables = ["meta", "credentials", "grants", "snapshots", "accounts"];
    let loads: Vec<String> = tables.iter().map(|table| load(table)).collect();
    format!("BEGIN; {empty}; {}; COMMIT;", loads.join("; "))
}

/// The service on a fresh database, served without its background tasks.
struct Served {
    url: String,
    db: String,
    state: service::AppState,
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
    retry_after: Option<String>,
    body: Value,
}

impl Answer {
    fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!((self.status.as_u16(), self.body["code"].as_str()), (status, Some(code)), "{}", self.body);
    }

    /// Asserts the answer of a store that cannot serve now: 503 with `Retry-After`.
    fn assert_outage(&self) {
        self.assert_problem(503, "SERVICE_UNAVAILABLE");
        assert!(self.retry_after.is_some(), "a 503 without Retry-After: {}", self.body);
    }
}

impl Served {
    async fn start() -> Served {
        Served::start_with(config(20)).await
    }

    /// The service on a fresh database with `config` (whose `db` it sets).
    async fn start_with(config: Config) -> Served {
        let db = postgres::fresh_database().await;
        let config = Config { db: Some(db.as_str().into()), ..config };
        let (state, router) = service::build(config, tokio_util::sync::CancellationToken::new())
            .await
            .unwrap_or_else(|e| panic!("the service opens its store: {e}"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(service::serve::serve(
            listener,
            router,
            Duration::from_secs(30),
            Duration::from_secs(15),
            std::future::pending(),
        ));
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        Served { url, client, server, state, _database: postgres::Release::of(&db), db }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.bearer_auth("admin").send().await.expect("the service answers");
        let status = response.status();
        let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
        Answer { status, retry_after, body: response.json().await.unwrap_or(Value::Null) }
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

    /// Takes a dump of the tables, loads it again into them (see [`reload`]), and reads a page.
    async fn dump_and_reload(&self) -> Answer {
        self.execute(&format!(
            "DROP TABLE IF EXISTS dump_accounts, dump_snapshots, dump_meta, dump_credentials, dump_grants; {DUMP}"
        ))
        .await;
        self.execute(&reload(TRUNCATE)).await;
        self.get("/service-accounts?page_size=5").await
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
    the_old_tokens_are_refused_after(BACKUP, RESTORE, "restore").await;
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

/// Tables emptied under the running service and loaded again table by table (`TRUNCATE`, then
/// `pg_restore --data-only`, each table in a transaction of its own, `meta` first): until the
/// last table is in, every request is an outage (503 with `Retry-After`), not a refusal of a
/// credential not copied in yet (401, which a client takes for a revocation) nor an empty
/// inventory of an accounts table not copied in yet (with evidence that would archive the
/// accounts copied in a moment later). Once it is, the database takes its predecessor's place:
/// the cursor and the evidence issued before are refused, and nothing reuses their snapshots.
#[tokio::test]
async fn tables_loaded_again_in_place_are_an_outage_until_loaded_and_then_refuse_the_old_tokens() {
    let s = Served::start().await;
    s.create("svc-unowned").await;
    s.execute(DUMP).await;
    let mut given = BTreeSet::new();
    for n in 0..3 {
        given.insert(s.create(&format!("svc-predecessor-{n}")).await.1);
    }
    let (listed, snapshot, evidence) = s.unowned().await;
    assert!(given.contains(&snapshot), "{snapshot} among {given:?}");
    let (next, _) = s.cursor().await;

    s.execute(TRUNCATE).await;
    let one = format!("/service-accounts/{}", listed[0]);
    for path in ["/service-accounts?owner=none&page_size=500", "/service-accounts/count", one.as_str()] {
        s.get(path).await.assert_outage();
    }
    for table in ["meta", "snapshots", "credentials", "grants"] {
        s.execute(&load(table)).await;
        s.get("/service-accounts?owner=none&page_size=500").await.assert_outage();
        s.get("/service-accounts/count").await.assert_outage();
        s.get(&one).await.assert_outage();
        s.get(&next).await.assert_outage();
        s.archive(&[&listed[0]], &evidence).await.assert_outage();
    }
    s.execute(&load("accounts")).await;

    s.get(&next).await.assert_problem(410, "CURSOR_EXPIRED");
    s.archive(&[&listed[0]], &evidence).await.assert_problem(412, "EVIDENCE_EXPIRED");
    let account = s.get(&one).await;
    assert_eq!(account.body["archived"], false, "nothing was archived: {}", account.body);
    let (relisted, snapshot, _) = s.unowned().await;
    assert!(!given.contains(&snapshot), "the inventory reads at {snapshot}, a name the predecessor gave");
    assert!(relisted.contains(&listed[0]), "{relisted:?}");
    let (_, opened) = s.create("svc-restored").await;
    assert!(!given.contains(&opened), "a write after the reload opened {opened}, a name the predecessor gave");
}

/// The operator's case for tables emptied by `empty` and loaded again from a dump taken before
/// three writes, in one transaction: the snapshot counter goes back to the dump's, yet a write
/// first opens none of the predecessor's snapshots, and the cursor and the evidence issued at
/// the last are refused (the evidence would otherwise archive an account the predecessor's
/// inventory never had, given one of its ids again).
async fn the_old_tokens_are_refused_after_tables_loaded_again_by(empty: &str) {
    the_old_tokens_are_refused_after(DUMP, &reload(empty), "reload").await;
}

/// Saves the database with `save`, makes three writes (the predecessor's snapshots) and takes a
/// cursor and evidence at the last, loads the saved state with `load` (a `what`), then writes
/// first: the writes open none of the predecessor's snapshots, and its cursor and evidence are
/// refused, and nothing is archived with the evidence.
async fn the_old_tokens_are_refused_after(save: &str, load: &str, what: &str) {
    let s = Served::start().await;
    let (_, saved, _) = s.unowned().await;
    s.execute(save).await;
    let mut given = BTreeSet::from([saved]);
    for n in 0..3 {
        given.insert(s.create(&format!("svc-predecessor-{n}")).await.1);
    }
    let (listed, snapshot, evidence) = s.unowned().await;
    assert!(given.contains(&snapshot), "{snapshot} among {given:?}");
    let (next, _) = s.cursor().await;

    s.execute(load).await;
    let mut created = Vec::new();
    for n in 0..3 {
        let (id, opened) = s.create(&format!("svc-after-{what}-{n}")).await;
        assert!(!given.contains(&opened), "a write after the {what} opened {opened}, a name the predecessor gave");
        created.push(id);
    }
    s.get(&next).await.assert_problem(410, "CURSOR_EXPIRED");
    // The loaded database gave its new accounts the predecessor's ids, under other names.
    assert!(listed.contains(&created[0]), "{} among {listed:?}", created[0]);
    s.archive(&[&created[0]], &evidence).await.assert_problem(412, "EVIDENCE_EXPIRED");
    let account = s.get(&format!("/service-accounts/{}", created[0])).await;
    assert_eq!(account.body["archived"], false, "nothing was archived: {}", account.body);
}

/// `TRUNCATE` keeps every table's OID, and gives each another file.
#[tokio::test]
async fn tables_truncated_and_loaded_again_refuse_the_old_tokens() {
    the_old_tokens_are_refused_after_tables_loaded_again_by(TRUNCATE).await;
}

/// `DELETE` keeps every table's OID and file: the rows of `meta` copied in again are written
/// by another transaction than the one its record names.
#[tokio::test]
async fn tables_emptied_by_delete_and_loaded_again_refuse_the_old_tokens() {
    let empty = "DELETE FROM accounts; DELETE FROM snapshots; DELETE FROM meta; DELETE FROM grants; \
                 DELETE FROM credentials";
    the_old_tokens_are_refused_after_tables_loaded_again_by(empty).await;
}

/// A database whose accounts table is empty and says so (none seeded, or every account deleted
/// and pruned) is not taken for one being loaded: loaded again, it serves.
#[tokio::test]
async fn an_empty_accounts_table_loaded_again_serves() {
    let s = Served::start_with(Config { snapshot_retention: Duration::from_millis(150), ..config(0) }).await;
    let page = s.dump_and_reload().await;
    assert_eq!((page.status.as_u16(), &page.body["complete"], &page.body["items"]), (200, &json!(true), &json!([])));

    let (id, _) = s.create("svc-short-lived").await;
    let deleted = s.send(s.client.delete(format!("{}/service-accounts/{id}", s.url))).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    tokio::time::sleep(Duration::from_millis(400)).await;
    s.state.store.prune().await.expect("a pruning round");
    assert_eq!(s.state.store.version_count().await.unwrap(), 0, "the deleted account is pruned");
    let page = s.dump_and_reload().await;
    assert_eq!((page.status.as_u16(), &page.body["complete"], &page.body["items"]), (200, &json!(true), &json!([])));
}
