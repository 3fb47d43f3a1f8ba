//! Three replicas of the service_accounts example, as separate processes of the built example
//! binary, over one PostgreSQL database and one key ring, talked to over real HTTP: cursors,
//! evidence and revocations hold whichever replica answers.

use crate::built_example;
use crate::e2e_support::postgres as postgres_support;

use std::collections::BTreeSet;
use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const K2: &str = "k2:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA";

/// One replica: its process and its URL.
struct Replica {
    child: Child,
    url: String,
}

/// The command of one replica of the example on a free loopback port over `db`, with the key
/// ring `ring` and the flags `extra`, logging warnings.
fn replica_command(db: &str, ring: &str, extra: &[&str]) -> Command {
    let mut command = Command::new(built_example::binary("service_accounts"));
    command
        .args(["--addr", "127.0.0.1:0", "--db", db, "--accounts", "160"])
        .args(extra)
        .env("COMPLETENESS_CURSOR_KEYS", ring)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true);
    command
}

/// Starts replicas of the example on free loopback ports over `db`, one per key ring in
/// `rings`, all at once (they create and seed the empty database concurrently).
async fn replicas(db: &str, rings: &[&str], extra: &[&str]) -> Vec<Replica> {
    let mut children = Vec::new();
    for ring in rings {
        let child = replica_command(db, ring, extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the example starts");
        children.push(child);
    }
    let mut started = Vec::new();
    for mut child in children {
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let banner = lines.next_line().await.unwrap().unwrap_or_else(|| panic!("a replica exited: {child:?}"));
        let url = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in the banner '{banner}'"))
            .to_owned();
        // Keep reading the banner so the replica never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        started.push(Replica { child, url });
    }
    started
}

/// Three replicas on one fresh database, all with the key ring `K1`.
async fn three(extra: &[&str]) -> Vec<Replica> {
    let db = postgres_support::fresh_database().await;
    replicas(&db, &[K1, K1, K1], extra).await
}

struct Answer {
    status: StatusCode,
    body: Value,
}

impl Answer {
    fn ids(&self) -> Vec<String> {
        self.body["items"]
            .as_array()
            .map(|a| a.iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    }
    fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!((self.status.as_u16(), self.body["code"].as_str()), (status, Some(code)), "{}", self.body);
    }
}

async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.bearer_auth("admin").send().await.expect("the replica answers");
    let status = response.status();
    Answer { status, body: response.json().await.unwrap_or(Value::Null) }
}

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

async fn get(url: &str, path: &str) -> Answer {
    send(client().get(format!("{url}{path}"))).await
}

/// The first page of `/service-accounts?{query}` at `url`, and the path of the page after it.
async fn first_page(url: &str, query: &str) -> (Answer, String) {
    let first = get(url, &format!("/service-accounts?{query}")).await;
    let cursor = encode(first.body["next_cursor"].as_str().expect("a first page with a next one"));
    (first, format!("/service-accounts?{query}&cursor={cursor}"))
}

/// Percent-encodes a query value (`application/x-www-form-urlencoded`).
fn encode(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// The whole listing of `filter` in one page of 500, with its snapshot.
async fn listing(url: &str, filter: &str) -> (Vec<String>, Value, Value) {
    let page = get(url, &format!("/service-accounts?{filter}&page_size=500")).await;
    assert_eq!(page.body["complete"], true, "{}", page.body);
    (page.ids(), page.body["page"]["snapshot"].clone(), page.body["evidence"].clone())
}

/// Traverses `tenant=north` in pages of 7, page `i` from the next live replica in turn, while
/// writes go through every replica between pages. After `kill_after` pages one replica is
/// killed by its PID. Returns the ids seen and the expected ones.
async fn traverse_round_robin(nodes: &mut [Replica], kill_after: Option<usize>) -> (Vec<String>, Vec<String>) {
    let urls: Vec<String> = nodes.iter().map(|n| n.url.clone()).collect();
    let (expected, _, _) = listing(&urls[0], "tenant=north").await;
    assert!(expected.len() > 30);
    let mut live: Vec<usize> = (0..urls.len()).collect();
    let mut seen: Vec<String> = Vec::new();
    let mut snapshots = BTreeSet::new();
    let mut path = "/service-accounts?tenant=north&page_size=7".to_owned();
    let mut writes = 0;
    for turn in 0.. {
        if kill_after == Some(turn) {
            let pid = nodes[1].child.id().expect("a running replica");
            let killed = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
            assert!(killed.success());
            nodes[1].child.wait().await.unwrap();
            live.retain(|&i| i != 1);
        }
        let page = get(&urls[live[turn % live.len()]], &path).await;
        assert_eq!(page.status, 200, "{}", page.body);
        snapshots.insert(page.body["page"]["snapshot"].to_string());
        seen.extend(page.ids());
        let Some(cursor) = page.body["next_cursor"].as_str() else { break };
        // Between pages: an insert, deletes ahead of and behind the cursor, owner changes ahead,
        // each through another live replica.
        let writer = |k: usize| urls[live[(turn + k) % live.len()]].clone();
        let name = format!("svc-north-new{turn}");
        let created = send(
            client().post(format!("{}/service-accounts", writer(1))).json(&json!({"name": name, "tenant": "north"})),
        )
        .await;
        assert_eq!(created.status, 201, "{}", created.body);
        writes += 1;
        let ahead = &expected[seen.len().min(expected.len())..];
        if let Some(id) = ahead.first() {
            assert_eq!(send(client().delete(format!("{}/service-accounts/{id}", writer(2)))).await.status, 200);
            writes += 1;
        }
        if let Some(id) = seen.last() {
            let gone = send(client().delete(format!("{}/service-accounts/{id}", writer(0)))).await;
            assert!(gone.status == 200 || gone.status == 404, "{}", gone.body);
            writes += usize::from(gone.status == 200);
        }
        if let Some(id) = ahead.get(1) {
            let owner = send(
                client()
                    .patch(format!("{}/service-accounts/{id}", writer(1)))
                    .json(&json!({"owner": "newly-assigned"})),
            )
            .await;
            assert_eq!(owner.status, 200, "{}", owner.body);
            writes += 1;
        }
        path = format!("/service-accounts?tenant=north&page_size=7&cursor={}", encode(cursor));
    }
    assert_eq!(snapshots.len(), 1, "every page is read at the first page's snapshot: {snapshots:?}");
    assert!(writes > 10, "the writes really happened between pages: {writes}");
    let (now, _, _) = listing(&urls[live[0]], "tenant=north").await;
    assert_ne!(now, expected, "the writes changed the current listing");
    (seen, expected)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traversal_across_three_replicas_under_writes_returns_exactly_its_snapshot() {
    let mut nodes = three(&[]).await;
    // Each is ready, to a prober without a credential, and says which replica it is.
    let mut names = Vec::new();
    for node in &nodes {
        let ready = client().get(format!("{}/ready", node.url)).send().await.expect("the replica answers");
        assert_eq!(ready.status(), StatusCode::OK);
        let body: Value = ready.json().await.unwrap();
        let (status, name) = (body["status"].as_str(), body["replica"].as_str().unwrap_or_default().to_owned());
        let address = node.url.trim_start_matches("http://");
        assert!(status == Some("ready") && name.starts_with(address), "{} answered {body}", node.url);
        names.push(name);
    }
    names.dedup();
    assert_eq!(names.len(), 3, "three replicas, three names: {names:?}");
    let (seen, expected) = traverse_round_robin(&mut nodes, None).await;
    assert_eq!(seen, expected, "no item missed, none repeated, none added");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_traversal_goes_on_exactly_when_a_replica_is_killed_mid_way() {
    let mut nodes = three(&[]).await;
    let (seen, expected) = traverse_round_robin(&mut nodes, Some(3)).await;
    assert_eq!(seen, expected, "no item missed, none repeated, none added");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revocation_through_one_replica_refuses_cursors_and_evidence_on_the_others() {
    let nodes = three(&[]).await;
    let (_, next) = first_page(&nodes[2].url, "page_size=5").await;
    assert_eq!(get(&nodes[2].url, &next).await.status, 200, "the cursor works before the revocation");
    let (unowned, _, evidence) = listing(&nodes[1].url, "owner=none").await;

    let revoked = send(client().post(format!("{}/credentials/admin/revoke-tenant/east", nodes[0].url))).await;
    assert_eq!(revoked.status, 200, "{}", revoked.body);

    get(&nodes[2].url, &next).await.assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
    let archive = json!({"ids": [unowned[0]], "evidence": evidence});
    let refused = send(client().post(format!("{}/service-accounts/archive", nodes[1].url)).json(&archive)).await;
    refused.assert_problem(412, "EVIDENCE_CREDENTIAL_MISMATCH");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evidence_from_one_replica_archives_through_another_and_concurrent_archives_let_exactly_one_through() {
    let nodes = three(&[]).await;
    let (unowned, _, evidence) = listing(&nodes[1].url, "owner=none").await;
    assert!(unowned.len() >= 2);
    let archive = |url: &str, id: &str| {
        send(client().post(format!("{url}/service-accounts/archive")).json(&json!({"ids": [id], "evidence": evidence})))
    };
    let done = archive(&nodes[2].url, &unowned[0]).await;
    assert_eq!(done.status, 200, "{}", done.body);

    let (a, b, c) = tokio::join!(
        archive(&nodes[0].url, &unowned[1]),
        archive(&nodes[1].url, &unowned[1]),
        archive(&nodes[2].url, &unowned[1])
    );
    let statuses: Vec<u16> = [&a, &b, &c].iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 1, "exactly one archive succeeds: {statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 409).count(), 2, "the others are conflicts: {statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_through_one_replica_is_warned_about_then_gone_from_the_search_of_the_others() {
    let nodes = three(&[]).await;
    let name = get(&nodes[0].url, "/service-accounts/sa-000005").await.body["name"].as_str().unwrap().to_owned();
    let search = format!("/search?q={name}");
    let before = get(&nodes[1].url, &search).await;
    assert_eq!(before.ids(), ["sa-000005"], "{}", before.body);
    let deleted = send(client().delete(format!("{}/service-accounts/sa-000005", nodes[0].url))).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);

    let right_after = get(&nodes[1].url, &search).await;
    // Unless its refresh ran in between (then it is exact already, checked below), the other
    // replica still holds the account in its copies.
    let refreshed = right_after.ids().is_empty() && right_after.body["warnings"] == json!([]);
    assert!(refreshed || right_after.ids() == ["sa-000005"], "{}", right_after.body);
    let warned = |answer: &Answer, source: &str| {
        answer.body["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "STALE_INDEX" && w["source"] == source)
    };
    for hit in right_after.body["items"].as_array().unwrap() {
        let source = hit["source"].as_str().unwrap();
        assert!(
            warned(&right_after, source),
            "a copy still holding the deleted account says it may be stale: {}",
            right_after.body
        );
    }
    // Each replica copies its sources again at its audit refresh (every 5 s by default).
    let mut last = right_after;
    for _ in 0..60 {
        if last.ids().is_empty() && last.body["warnings"] == json!([]) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        last = get(&nodes[1].url, &search).await;
    }
    panic!("another replica's search still misses the delete after 15 s: {}", last.body);
}

/// A write through one replica opens snapshot n; an owner set again through another, which
/// changes nothing, is answered at n. The second replica's copies did not see the first write:
/// they must not take n for seen, or its search would answer from them, complete and without a
/// warning, with the deleted account, until a write through another replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_set_again_does_not_make_a_replicas_copies_claim_another_replicas_write() {
    let nodes = three(&[]).await;
    let name = get(&nodes[0].url, "/service-accounts/sa-000005").await.body["name"].as_str().unwrap().to_owned();
    let search = format!("/search?q={name}");
    let deleted = send(client().delete(format!("{}/service-accounts/sa-000005", nodes[0].url))).await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    let other = get(&nodes[1].url, "/service-accounts/sa-000006").await;
    let again = json!({"owner": other.body["owner"]});
    let patched = send(client().patch(format!("{}/service-accounts/sa-000006", nodes[1].url)).json(&again)).await;
    assert_eq!(patched.status, 200, "{}", patched.body);
    assert_eq!(patched.body["snapshot"], deleted.body["snapshot"], "nothing changed: the delete's snapshot");

    let after = get(&nodes[1].url, &search).await;
    assert_eq!(after.status, 200, "{}", after.body);
    let warned = |source: &str| {
        after.body["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "STALE_INDEX" && w["source"] == source)
    };
    // Unless the replica's refresh ran in between (then the search is exact), each copy still
    // holding the deleted account says it may be stale.
    let refreshed = after.ids().is_empty() && after.body["warnings"] == json!([]);
    assert!(refreshed || after.ids() == ["sa-000005"], "{}", after.body);
    for hit in after.body["items"].as_array().unwrap() {
        let source = hit["source"].as_str().unwrap();
        assert!(warned(source), "a copy holding the deleted account claims to be current: {}", after.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pruned_snapshot_answers_410_on_every_replica() {
    let nodes = three(&["--snapshot-retention", "1"]).await;
    let (first, next) = first_page(&nodes[0].url, "page_size=5").await;
    let id = &first.ids()[0];
    let changed =
        send(client().patch(format!("{}/service-accounts/{id}", nodes[1].url)).json(&json!({"owner": "someone-new"})))
            .await;
    assert_eq!(changed.status, 200);
    // The pruners of the replicas run every 50 ms with a retention of 1 s: wait until one has pruned.
    let mut tries = 0;
    while get(&nodes[2].url, &next).await.status != 410 {
        tries += 1;
        assert!(tries < 400, "the superseded snapshot is never pruned");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    for node in &nodes {
        let gone = get(&node.url, &next).await;
        gone.assert_problem(410, "CURSOR_EXPIRED");
        assert_eq!(gone.body["continuation"]["kind"], "restart");
    }
}

/// A replica started with a shorter retention than the others does not expire what they handed
/// out: the database keeps superseded snapshots for the longest retention among live replicas,
/// though the short one (1 s) prunes every 50 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_with_a_shorter_retention_does_not_expire_the_others_cursors() {
    let db = postgres_support::fresh_database().await;
    let keeping = replicas(&db, &[K1], &["--snapshot-retention", "900"]).await;
    let (_, next) = first_page(&keeping[0].url, "page_size=5").await;
    let pruning = replicas(&db, &[K1], &["--snapshot-retention", "1"]).await;
    let id = &first_page(&pruning[0].url, "page_size=1").await.0.ids()[0];
    let changed = send(
        client().patch(format!("{}/service-accounts/{id}", pruning[0].url)).json(&json!({"owner": "someone-new"})),
    )
    .await;
    assert_eq!(changed.status, 200);
    // Past the short replica's retention (1 s), and some thirty pruning rounds of it after.
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let resumed = get(&keeping[0].url, &next).await;
    assert_eq!(resumed.status, 200, "the snapshot the keeping replica promised is still there: {}", resumed.body);
    assert_eq!(resumed.body["page"]["resumed"], true, "{}", resumed.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_ring_accepts_old_tokens_until_the_old_key_is_removed() {
    let db = postgres_support::fresh_database().await;
    let rotated_ring = format!("{K2},{K1}");
    let nodes = replicas(&db, &[K1, &rotated_ring, K2], &[]).await;
    let (old, rotated, retired) = (&nodes[0].url, &nodes[1].url, &nodes[2].url);
    let (_, old_next) = first_page(old, "page_size=5").await;
    // A replica on the rotated ring (new key first, old key still in it) continues the old ring's cursor.
    let second = get(rotated, &old_next).await;
    assert_eq!(second.status, 200, "{}", second.body);
    let new_cursor = second.body["next_cursor"].as_str().unwrap();
    assert!(new_cursor.starts_with("c1.k2."), "new cursors are signed by the new key: {new_cursor}");
    // Once the old key is removed, the old ring's tokens are refused with the rotation message.
    let refused = get(retired, &old_next).await;
    refused.assert_problem(400, "INVALID_CURSOR");
    let detail = refused.body["detail"].as_str().unwrap();
    assert!(detail.contains("a key this server does not accept"), "{}", refused.body);
    assert!(detail.contains("start a new traversal"), "the client sent it as given: {}", refused.body);
    assert!(!detail.contains("exactly as the server returned it"), "{}", refused.body);
    // The new key's cursors go on on the retired ring.
    let third = get(retired, &format!("/service-accounts?page_size=5&cursor={}", encode(new_cursor))).await;
    assert_eq!(third.status, 200, "{}", third.body);
}

/// A replica started with a retention the others do not keep logs a warning saying so, and how
/// to fix it, on its start-up (the answers stay correct: each refusal is the replica's own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_whose_retention_differs_warns_in_its_log() {
    let db = postgres_support::fresh_database().await;
    let _first = replicas(&db, &[K1], &[]).await;
    let mut second = replica_command(&db, K1, &["--snapshot-retention", "300"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let mut log = BufReader::new(second.stderr.take().unwrap()).lines();
    let warning = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(line) = log.next_line().await.unwrap() {
            if line.contains("keeps superseded snapshots") {
                return line;
            }
        }
        panic!("the replica exited without the warning: {:?}", second.try_wait());
    })
    .await
    .expect("the warning within 30 s");
    assert!(warning.contains("WARN") && warning.contains("for 900 s, this one for 300 s"), "{warning}");
    assert!(warning.contains("start every replica with the same --snapshot-retention"), "{warning}");
}

/// Copies the test database at `url` into a new one (`CREATE DATABASE … TEMPLATE`: what a
/// restore of a backup taken now gives) and returns the copy's URL. Nobody may be connected to
/// the original while it is copied: the caller has stopped its replicas.
async fn copy_of(url: &str) -> String {
    let (base, original) = url.rsplit_once('/').unwrap();
    let copy = format!("{original}_restored");
    let mut tries = 0;
    // A stopped replica's sessions end a moment after it does.
    let create = format!("CREATE DATABASE {copy} TEMPLATE {original}");
    while let Err(error) = execute(postgres_support::server_url(), &create).await {
        tries += 1;
        assert!(tries < 200, "the database cannot be copied: {error}");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    format!("{base}/{copy}")
}

/// Runs `statements` on the database at `url`, on a connection of its own, as an operator would.
async fn execute(url: &str, statements: &str) -> Result<(), tokio_postgres::Error> {
    let (admin, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("PostgreSQL answers");
    let connection = tokio::spawn(connection);
    let done = admin.batch_execute(statements).await;
    drop(admin);
    let _ = connection.await;
    done
}

/// A database restored from a backup takes its predecessor's place (contract §2.5): the
/// predecessor went on writing after the backup, and the restored one, written to as much,
/// gives none of the names the predecessor gave since. A cursor and evidence the predecessor
/// issued after the backup are refused as of a snapshot that is gone, never read against the
/// restored state (where the evidence would archive an account it never listed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_database_refuses_the_cursors_and_evidence_its_predecessor_issued_after_the_backup() {
    let db = postgres_support::fresh_database().await;
    drop(replicas(&db, &[K1], &[]).await);
    let backup = copy_of(&db).await;

    let predecessor = replicas(&db, &[K1], &[]).await;
    let writes = |url: String| async move {
        for n in 0..3 {
            let account = json!({"name": format!("svc-after-backup-{n}"), "tenant": "east"});
            let created = send(client().post(format!("{url}/service-accounts")).json(&account)).await;
            assert_eq!(created.status, 201, "{}", created.body);
        }
    };
    writes(predecessor[0].url.clone()).await;
    let (unowned, snapshot, evidence) = listing(&predecessor[0].url, "owner=none").await;
    let (_, next) = first_page(&predecessor[0].url, "owner=none&page_size=5").await;
    drop(predecessor);

    let restored = replicas(&backup, &[K1], &[]).await;
    writes(restored[0].url.clone()).await;
    let (_, restored_snapshot, _) = listing(&restored[0].url, "owner=none").await;
    assert_ne!(restored_snapshot, snapshot, "the restored database names its own states");

    let archive = json!({"ids": [unowned[0]], "evidence": evidence});
    let refused = send(client().post(format!("{}/service-accounts/archive", restored[0].url)).json(&archive)).await;
    refused.assert_problem(412, "EVIDENCE_EXPIRED");
    let account = get(&restored[0].url, &format!("/service-accounts/{}", unowned[0])).await;
    assert_eq!(account.body["archived"], false, "nothing was archived: {}", account.body);
    get(&restored[0].url, &next).await.assert_problem(410, "CURSOR_EXPIRED");
}

/// A database loaded again in place under a running replica (`pg_restore --clean` recreates
/// its tables, `meta` among them, with the same rows) takes its predecessor's place too: the
/// replica finds it within a pruning round, though its connections live on, and the cursors
/// issued before are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_loaded_again_under_a_running_replica_refuses_the_cursors_issued_before() {
    let db = postgres_support::fresh_database().await;
    let node = replicas(&db, &[K1], &[]).await;
    let (first, next) = first_page(&node[0].url, "page_size=5").await;
    let reload = "BEGIN; CREATE TABLE meta_loaded AS SELECT * FROM meta; DROP TABLE meta; \
                  ALTER TABLE meta_loaded RENAME TO meta; ALTER TABLE meta ADD PRIMARY KEY (key); COMMIT;";
    execute(&db, reload).await.expect("meta is loaded again");
    let mut tries = 0;
    while get(&node[0].url, &next).await.status != 410 {
        tries += 1;
        assert!(tries < 600, "the replica never finds that the database took another's place");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    get(&node[0].url, &next).await.assert_problem(410, "CURSOR_EXPIRED");
    let again = get(&node[0].url, "/service-accounts?page_size=5").await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_ne!(again.body["page"]["snapshot"], first.body["page"]["snapshot"]);
}

/// A database whose `meta` records some of the identity's keys but not all (a copy restored from
/// before a key was added) is taken for another, and takes its predecessor's place: the names
/// it gave may be reused, so the cursors issued before are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_recorded_part_of_its_identity_is_taken_for_another() {
    let db = postgres_support::fresh_database().await;
    let node = replicas(&db, &[K1], &[]).await;
    let (_, next) = first_page(&node[0].url, "page_size=5").await;
    drop(node);
    execute(&db, "DELETE FROM meta WHERE key = 'meta_oid'").await.expect("a key is forgotten");
    let node = replicas(&db, &[K1], &[]).await;
    get(&node[0].url, &next).await.assert_problem(410, "CURSOR_EXPIRED");
}
