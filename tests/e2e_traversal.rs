//! End to end over HTTP: traversals pinned to a snapshot under concurrent writes, cursor
//! expiry without silent restart, and cursors bound to filters and to the credential's permissions.

use crate::e2e_support;

use std::collections::BTreeSet;
use std::time::Duration;

use e2e_support::{Harness, config, encode};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// A round of writes the mutator performs between two pages.
struct Round {
    /// Ids the traversal has not reached yet.
    ahead: Vec<String>,
    /// Ids the traversal already returned.
    behind: Vec<String>,
    /// Ids ahead of the cursor that the traversal's filter does not select (yet).
    outside_ahead: Vec<String>,
}

/// Another task that inserts, deletes and reassigns owners whenever it is told to.
fn spawn_mutator(url: String) -> (mpsc::Sender<(Round, mpsc::Sender<usize>)>, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::channel::<(Round, mpsc::Sender<usize>)>(1);
    let task = tokio::spawn(async move {
        let client = reqwest::Client::new();
        let mut serial = 0;
        while let Some((round, done)) = rx.recv().await {
            let mut writes = 0;
            let mut send = |request: reqwest::RequestBuilder| {
                writes += 1;
                async move {
                    let status = request.bearer_auth("admin").send().await.unwrap().status();
                    assert!(status.is_success(), "a mutation failed with {status}");
                }
            };
            serial += 1;
            // An insert: its id sorts after every existing one, exactly where the traversal is heading.
            let name = format!("svc-north-new{serial}");
            send(client.post(format!("{url}/service-accounts")).json(&json!({"name": name, "tenant": "north"}))).await;
            // Deletes ahead of and behind the cursor.
            if let Some(id) = round.ahead.first() {
                send(client.delete(format!("{url}/service-accounts/{id}"))).await;
            }
            if let Some(id) = round.behind.last() {
                send(client.delete(format!("{url}/service-accounts/{id}"))).await;
            }
            // Owner changes ahead: set one owner and clear another, moving rows in and out of `owner=none`.
            if let Some(id) = round.ahead.get(1) {
                send(client.patch(format!("{url}/service-accounts/{id}")).json(&json!({"owner": "newly-assigned"})))
                    .await;
            }
            if let Some(id) = round.ahead.get(2).or(round.outside_ahead.first()) {
                send(client.patch(format!("{url}/service-accounts/{id}")).json(&json!({"owner": null}))).await;
            }
            if let Some(id) = round.outside_ahead.first() {
                send(client.patch(format!("{url}/service-accounts/{id}")).json(&json!({"owner": null}))).await;
            }
            done.send(writes).await.unwrap();
        }
    });
    (tx, task)
}

/// Traverses `filter` with page size 7 while the mutator writes between pages; returns the ids.
async fn traverse_under_writes(h: &Harness, filter: &str, expected: &[String], others: &[String]) -> Vec<String> {
    let (mutator, task) = spawn_mutator(h.running.url());
    let mut seen: Vec<String> = Vec::new();
    let mut path = format!("/service-accounts?{filter}&page_size=7");
    let mut snapshots = BTreeSet::new();
    let mut total_writes = 0;
    loop {
        let page = h.get(&path, "admin").await;
        assert_eq!(page.status, 200, "{:?}", page.body);
        snapshots.insert(page.body["page"]["snapshot"].as_str().unwrap().to_owned());
        // Every page but the first says it was reached with a cursor: its items are the tail.
        assert_eq!(page.body["page"]["resumed"], path.contains("&cursor="), "{:?}", page.body);
        assert!(page.ids().len() <= 7);
        seen.extend(page.ids());
        let Some(cursor) = page.body["next_cursor"].as_str() else {
            assert_eq!(page.body["complete"], true);
            break;
        };
        assert_eq!(page.reasons(), ["MORE_PAGES_AVAILABLE"]);
        // Between pages: inserts, deletes and owner changes, ahead of and behind the cursor,
        // on rows of this traversal and on rows outside its filter.
        let position = seen.len();
        let ahead: Vec<String> = expected[position.min(expected.len())..].to_vec();
        let outside_ahead = others.iter().filter(|id| *id > seen.last().unwrap()).take(1).cloned().collect();
        let round = Round { ahead, behind: seen.clone(), outside_ahead };
        let (done, mut finished) = mpsc::channel(1);
        mutator.send((round, done)).await.unwrap();
        total_writes += finished.recv().await.unwrap();
        path = format!("/service-accounts?{filter}&page_size=7&cursor={}", encode(cursor));
    }
    drop(mutator);
    task.await.unwrap();
    assert_eq!(snapshots.len(), 1, "every page is read at the first page's snapshot: {snapshots:?}");
    assert!(total_writes > 10, "the writes really happened between pages");
    seen
}

/// The whole listing of `filter`, in pages of 500, and its snapshot.
async fn snapshot_listing(h: &Harness, filter: &str) -> (Vec<String>, Value) {
    let pages = h.traverse(&format!("/service-accounts?{filter}&page_size=500"), "admin").await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:?}", last.reasons());
    assert!(pages.iter().all(|p| p.body["scope"]["snapshot"] == last.body["scope"]["snapshot"]));
    (pages.iter().flat_map(|p| p.ids()).collect(), last.body["scope"]["snapshot"].clone())
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_size_7_traversal_under_concurrent_writes_returns_exactly_its_snapshot() {
    let h = Harness::start(config(160)).await;
    let (expected, snapshot) = snapshot_listing(&h, "tenant=north").await;
    assert!(expected.len() > 30);
    let seen = traverse_under_writes(&h, "tenant=north", &expected, &[]).await;
    assert_eq!(seen, expected, "no item missed, none repeated, none added");
    // The writes are visible to a new traversal, which is therefore a different set.
    let (now, now_snapshot) = snapshot_listing(&h, "tenant=north").await;
    assert_ne!(now_snapshot, snapshot);
    assert_ne!(now, expected);
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unowned_traversal_ignores_owner_changes_made_while_it_runs() {
    let mut cfg = config(1000);
    cfg.max_page_size = 500;
    let h = Harness::start(cfg).await;
    let (expected, _) = snapshot_listing(&h, "owner=none").await;
    let (everyone, _) = snapshot_listing(&h, "").await;
    let owned: Vec<String> = everyone.into_iter().filter(|id| !expected.contains(id)).collect();
    assert!(expected.len() >= 7, "enough unowned accounts for several pages: {}", expected.len());
    let seen = traverse_under_writes(&h, "owner=none", &expected, &owned).await;
    assert_eq!(seen, expected);
    let (now, _) = snapshot_listing(&h, "owner=none").await;
    assert_ne!(now, expected, "owners really changed");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn an_expired_snapshot_answers_410_and_the_traversal_is_never_restarted() {
    let mut cfg = config(50);
    cfg.snapshot_retention = Duration::from_millis(150);
    let h = Harness::start(cfg).await;
    let first = h.get("/service-accounts?page_size=5", "admin").await;
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    let next = format!("/service-accounts?page_size=5&cursor={}", encode(&cursor));
    // Still retained: the snapshot is current.
    assert_eq!(h.get(&next, "admin").await.status, 200);
    // A write supersedes the snapshot; after the retention it is gone.
    let versions = h.store().version_count().await.unwrap();
    let id = &first.ids()[0];
    let changed = h.patch(&format!("/service-accounts/{id}"), "admin", &json!({"owner": "someone-new"})).await;
    assert_eq!(changed.status, 200);
    assert_eq!(h.store().version_count().await.unwrap(), versions + 1, "the old version is kept while retained");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        h.store().version_count().await.unwrap(),
        versions,
        "the pruner dropped the version only the old snapshot saw"
    );
    for _ in 0..2 {
        let gone = h.get(&next, "admin").await;
        gone.assert_problem(410, "CURSOR_EXPIRED");
        assert_eq!(gone.body["continuation"]["kind"], "restart");
        assert!(gone.body.get("items").is_none(), "no page of a new traversal is passed off as the old one's");
    }
    // The retained history was pruned, and a new traversal starts at the current snapshot.
    let fresh = h.get("/service-accounts?page_size=5", "admin").await;
    assert_ne!(fresh.body["page"]["snapshot"], first.body["page"]["snapshot"]);
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_cursor_past_its_lifetime_answers_410() {
    let mut cfg = config(30);
    cfg.cursor_ttl = Duration::from_millis(200);
    let h = Harness::start(cfg).await;
    let first = h.get("/service-accounts?page_size=4", "admin").await;
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let late = h.get(&format!("/service-accounts?page_size=4&cursor={}", encode(&cursor)), "admin").await;
    late.assert_problem(410, "CURSOR_EXPIRED");
    assert_eq!(late.body["continuation"]["kind"], "restart");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn revoking_a_tenant_mid_traversal_refuses_the_cursor() {
    let h = Harness::start(config(60)).await;
    let first = h.get("/service-accounts?page_size=5", "admin").await;
    let admin_next =
        format!("/service-accounts?page_size=5&cursor={}", encode(first.body["next_cursor"].as_str().unwrap()));
    let north = h.get("/service-accounts?tenant=north&page_size=2", "north").await;
    let north_next = format!(
        "/service-accounts?tenant=north&page_size=2&cursor={}",
        encode(north.body["next_cursor"].as_str().unwrap())
    );

    // Only admin changes permissions.
    h.post("/credentials/admin/revoke-tenant/east", "north", &json!({})).await.assert_problem(403, "FORBIDDEN");
    let revoked = h.post("/credentials/admin/revoke-tenant/east", "admin", &json!({})).await;
    assert_eq!(revoked.status, 200);
    assert_eq!(revoked.body["tenants"], json!(["north", "south"]));
    assert_eq!(revoked.body["permission_epoch"], 2);

    h.get(&admin_next, "admin").await.assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
    // north's permissions did not change: its traversal goes on.
    assert_eq!(h.get(&north_next, "north").await.status, 200);
    // A new admin traversal is honest about what admin can no longer see.
    let again = h.get("/service-accounts?page_size=500", "admin").await;
    assert_eq!(again.reasons(), ["VISIBILITY_RESTRICTED"]);
    assert!(again.body["items"].as_array().unwrap().iter().all(|i| i["tenant"] != "east"));
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_cursor_is_bound_to_its_filters_and_credential_but_not_to_the_page_size() {
    let h = Harness::start(config(60)).await;
    let first = h.get("/service-accounts?tenant=north&page_size=3", "north").await;
    let cursor = encode(first.body["next_cursor"].as_str().unwrap());
    let bigger = h.get(&format!("/service-accounts?tenant=north&page_size=9&cursor={cursor}"), "north").await;
    assert_eq!(bigger.status, 200, "page_size may change between pages");
    assert_eq!(bigger.body["page"]["applied_size"], 9);
    h.get(&format!("/service-accounts?tenant=north&owner=none&page_size=3&cursor={cursor}"), "north")
        .await
        .assert_problem(400, "CURSOR_QUERY_MISMATCH");
    h.get(&format!("/service-accounts?page_size=3&cursor={cursor}"), "north")
        .await
        .assert_problem(400, "CURSOR_QUERY_MISMATCH");
    h.get(&format!("/service-accounts?tenant=north&page_size=3&cursor={cursor}"), "admin")
        .await
        .assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
    // Sent to a read that never pages, a cursor cannot be one of its pages (contract §2.5).
    for read in ["/service-accounts/count?tenant=north", "/search?q=svc", "/service-accounts/sa-000001?fields=id"] {
        let sent = h.get(&format!("{read}&cursor={cursor}"), "north").await;
        sent.assert_problem(400, "CURSOR_QUERY_MISMATCH");
        assert_eq!(sent.body["parameter"], "cursor", "{read}");
    }
}
}
