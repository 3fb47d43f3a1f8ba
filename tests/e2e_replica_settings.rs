//! Replicas of one PostgreSQL database whose settings break a promise to clients say so: a
//! replica keeping snapshots for another time, or signing tokens with a key another's ring
//! lacks, or holding another secret under one key id. Replicas that agree, a key rotation in
//! progress among them, say nothing.

use crate::e2e_support;

use std::time::Duration;

use completeness::CursorKeys;
use e2e_support::service::replicas::{ReplicaSettings, disagreements};
use e2e_support::service::{AppState, build};
use e2e_support::{Config, config};
use tokio_util::sync::CancellationToken;

const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
const K2: &str = "k2:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA";
/// Key id `k1` holding another secret.
const K1_OTHER: &str = "k1:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8";

/// A replica on `db` keeping snapshots for `retention` s, with the key ring `ring`.
async fn replica(db: &str, retention: u64, ring: &str) -> AppState {
    let settings = Config {
        db: Some(db.into()),
        snapshot_retention: Duration::from_secs(retention),
        cursor_keys: Some(CursorKeys::parse(ring).expect("a key ring")),
        ..config(10)
    };
    build(settings, CancellationToken::new()).await.expect("the replica starts").0
}

#[tokio::test]
async fn replicas_that_agree_say_nothing_even_while_a_key_rotates() {
    let db = e2e_support::postgres::fresh_database().await;
    // The rotation's first step: every ring accepts the new key `k2`, `k1` still signs.
    let both = format!("{K1},{K2}");
    let first = replica(&db, 60, &both).await;
    assert_eq!(first.check_in().await.unwrap(), Vec::<String>::new(), "alone");
    let same = replica(&db, 60, &both).await;
    // Its second step, on one replica: `k2` signs.
    let rotated = replica(&db, 60, &format!("{K2},{K1}")).await;
    for state in [&first, &same, &rotated] {
        assert_eq!(state.check_in().await.unwrap(), Vec::<String>::new());
    }
}

#[tokio::test]
async fn each_setting_that_breaks_a_promise_is_named_by_both_sides() {
    let db = e2e_support::postgres::fresh_database().await;
    let first = replica(&db, 60, K1).await;
    let other = replica(&db, 300, K2).await;
    let found = other.check_in().await.unwrap();
    assert_eq!(found.len(), 3, "{found:#?}");
    let who = &first.replica.replica;
    assert!(found[0].contains(&format!("replica {who} keeps superseded snapshots for 60 s, this one for 300 s")));
    assert!(found[1].contains("signs cursors and evidence with key 'k1', which this replica's ring lacks"));
    assert!(found[2].contains("this replica signs cursors and evidence with key 'k2'"), "{}", found[2]);
    // The first replica sees the same, from its side, at its next check-in.
    let seen = first.check_in().await.unwrap();
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert!(seen.iter().all(|line| line.contains(&other.replica.replica)), "{seen:#?}");

    // Another secret under the same key id.
    let forged = replica(&db, 60, K1_OTHER).await;
    let found = forged.check_in().await.unwrap();
    let about_first: Vec<&String> = found.iter().filter(|line| line.contains(who.as_str())).collect();
    assert_eq!(about_first.len(), 1, "{found:#?}");
    assert!(about_first[0].contains("holds another secret under key id 'k1'"), "{}", about_first[0]);
}

/// A replica that stopped is forgotten at once: the process started in its place with another
/// setting is not compared with it.
#[tokio::test]
async fn a_replica_that_stopped_is_no_longer_compared() {
    let db = e2e_support::postgres::fresh_database().await;
    let settings = |retention: u64| Config {
        db: Some(db.as_str().into()),
        snapshot_retention: Duration::from_secs(retention),
        cursor_keys: Some(CursorKeys::parse(K1).unwrap()),
        ..config(10)
    };
    let before = e2e_support::service::start(settings(900)).await.expect("the first process starts");
    let watching = replica(&db, 300, K1).await;
    assert_eq!(watching.check_in().await.unwrap().len(), 1, "the first process keeps another retention");
    before.stop().await.unwrap();
    assert_eq!(watching.check_in().await.unwrap(), Vec::<String>::new(), "it checked out");
    let after = build(settings(300), CancellationToken::new()).await.expect("its successor starts").0;
    assert_eq!(after.check_in().await.unwrap(), Vec::<String>::new());
}

/// The example's process stopped with SIGTERM (what `kill`, systemd and Kubernetes send) or
/// SIGINT (Ctrl-C) stops cleanly: it exits with 0 and checks out, so a replica keeping another
/// retention is no longer compared with it. Also when the signal comes as soon as the banner is
/// read: the service listens for it before it prints one.
#[cfg(unix)]
#[tokio::test]
async fn a_process_stopped_by_a_signal_checks_out() {
    use tokio::io::{AsyncBufReadExt, BufReader};

    let db = e2e_support::postgres::fresh_database().await;
    let watching = replica(&db, 300, K1).await;
    for (signal, at_once) in [("-TERM", false), ("-INT", false), ("-HUP", false), ("-TERM", true), ("-INT", true)] {
        let mut process = tokio::process::Command::new(crate::built_example::binary("service_accounts"))
            .args(["--addr", "127.0.0.1:0", "--db", &db, "--accounts", "10", "--snapshot-retention", "900"])
            .env("COMPLETENESS_CURSOR_KEYS", K1)
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the example starts");
        let mut banner = BufReader::new(process.stdout.take().unwrap()).lines();
        let first = banner.next_line().await.unwrap();
        assert!(first.is_some_and(|line| line.contains("listening on")), "the example did not start");
        tokio::spawn(async move { while let Ok(Some(_)) = banner.next_line().await {} });
        if !at_once {
            assert_eq!(watching.check_in().await.unwrap().len(), 1, "{signal}: the process keeps another retention");
        }

        let pid = process.id().expect("a running process").to_string();
        let sent = std::process::Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(sent.success());
        let status = tokio::time::timeout(Duration::from_secs(30), process.wait()).await.expect("it stops").unwrap();
        assert!(status.success(), "{signal} (at once: {at_once}): {status}");
        assert_eq!(watching.check_in().await.unwrap(), Vec::<String>::new(), "{signal}: it checked out");
    }
}

/// A replica that fails to start leaves no trace among the replicas: one that cannot listen
/// (its port is taken) exits 1 and the others never compare with it, as they once did for 30 s
/// (warning about a replica that never served).
#[tokio::test]
async fn a_replica_that_cannot_listen_is_not_compared() {
    let db = e2e_support::postgres::fresh_database().await;
    let watching = replica(&db, 300, K1).await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();

    let settings = Config {
        addr,
        db: Some(db.as_str().into()),
        snapshot_retention: Duration::from_secs(900),
        cursor_keys: Some(CursorKeys::parse(K1).unwrap()),
        ..config(10)
    };
    let error = e2e_support::service::start(settings).await.err().expect("the port is taken");
    assert!(matches!(&error, e2e_support::service::StartError::Failed(why) if why.contains("could not listen")));
    assert_eq!(watching.check_in().await.unwrap(), Vec::<String>::new(), "in process: {error}");

    let process = tokio::process::Command::new(crate::built_example::binary("service_accounts"))
        .args(["--addr", &addr.to_string(), "--db", &db, "--accounts", "10", "--snapshot-retention", "900"])
        .env("COMPLETENESS_CURSOR_KEYS", K1)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let output = tokio::time::timeout(Duration::from_secs(30), process.wait_with_output()).await.expect("it exits");
    let output = output.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("could not listen on {addr}")), "{stderr}");
    assert_eq!(watching.check_in().await.unwrap(), Vec::<String>::new(), "the process: {stderr}");
    drop(taken);
}

/// Each replica's usage source knows the accounts the database was seeded with, whatever the
/// replica's own `--accounts`: two replicas give one account the same `last_used_at`, and an
/// account created later was never used, on every replica.
#[tokio::test]
async fn replicas_started_with_other_account_counts_agree_on_usage() {
    use e2e_support::Harness;
    use e2e_support::service::seed;

    let db = e2e_support::postgres::fresh_database().await;
    let on = |accounts: u32| Config { db: Some(db.as_str().into()), ..config(accounts) };
    let seeding = Harness::start(on(20)).await;
    let fewer = Harness::start(on(5)).await;
    let more = Harness::start(on(100)).await;
    for n in [3, 12, 20] {
        let id = format!("sa-{n:06}");
        let expected = serde_json::json!(seed::seeded(n).last_used_at);
        for replica in [&seeding, &fewer, &more] {
            let account = replica.get(&format!("/service-accounts/{id}"), "admin").await;
            assert_eq!(account.body["last_used_at"], expected, "{id}: {}", account.body);
        }
    }
    let created =
        more.post("/service-accounts", "admin", &serde_json::json!({"name": "svc-new", "tenant": "north"})).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["account"]["id"].as_str().unwrap().to_owned();
    assert_eq!(id, "sa-000021");
    assert!(seed::seeded(21).last_used_at.is_some(), "the seed would have given it a usage record");
    for replica in [&seeding, &fewer, &more] {
        let account = replica.get(&format!("/service-accounts/{id}"), "admin").await;
        assert_eq!(account.body["last_used_at"], serde_json::Value::Null, "{}", account.body);
        assert!(account.body.get("omitted_fields").is_none_or(|omitted| omitted.get("last_used_at").is_none()));
    }
}

/// Settings of replica `replica`, written out.
fn settings(replica: &str, retention_s: i64, keys: &[(&str, &str)]) -> ReplicaSettings {
    let keys = keys.iter().map(|(id, check)| ((*id).to_owned(), (*check).to_owned())).collect();
    ReplicaSettings { replica: replica.to_owned(), retention_ms: retention_s * 1000, keys }
}

#[test]
fn replicas_with_the_same_settings_agree() {
    let a = settings("a", 900, &[("k1", "c1")]);
    assert!(disagreements(&a, &settings("b", 900, &[("k1", "c1")])).is_empty());
}

#[test]
fn a_rotation_in_progress_is_no_disagreement() {
    // Every ring holds both keys; one replica already signs with the new one.
    let old = settings("a", 900, &[("k1", "c1"), ("k2", "c2")]);
    let new = settings("b", 900, &[("k2", "c2"), ("k1", "c1")]);
    assert!(disagreements(&old, &new).is_empty());
    assert!(disagreements(&new, &old).is_empty());
}

#[test]
fn each_broken_promise_is_named_with_its_fix() {
    let me = settings("a", 60, &[("k1", "c1"), ("k3", "c3")]);
    let other = settings("b", 900, &[("k2", "c2"), ("k3", "another")]);
    let found = disagreements(&me, &other);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].contains("for 900 s, this one for 60 s") && found[0].contains("--snapshot-retention"));
    assert!(found[1].starts_with("replica b signs") && found[1].contains("'k2'") && found[1].contains("refused here"));
    assert!(found[2].starts_with("this replica signs") && found[2].contains("'k1'"), "{}", found[2]);
    assert!(found[2].contains("ring of replica b lacks: they are refused there"), "{}", found[2]);
    assert!(found[3].contains("another secret under key id 'k3'"), "{}", found[3]);
}

#[test]
fn the_stored_ring_reads_back() {
    let me = settings("a", 1, &[("k1", "00ff"), ("k-2", "ab12")]);
    assert_eq!(ReplicaSettings::from_stored("a".into(), 1000, &me.keys_text()), me);
    assert!(settings("a", 1, &[]).keys_text().is_empty());
}

/// A replica is named by the address it listens on (the port it bound, where `--addr` asked for
/// any), so that another replica's warning points at the replica an operator can find.
#[tokio::test]
async fn a_replica_is_named_by_the_address_it_listens_on() {
    let db = e2e_support::postgres::fresh_database().await;
    let settings = Config {
        db: Some(db.as_str().into()),
        snapshot_retention: Duration::from_secs(60),
        cursor_keys: Some(CursorKeys::parse(K1).unwrap()),
        ..config(10)
    };
    let running = e2e_support::service::start(settings).await.expect("the replica starts");
    let name = running.state.replica.replica.clone();
    let addr = running.addr.to_string();
    assert_ne!(running.addr.port(), 0);
    assert!(name.starts_with(&format!("{addr}, pid ")) || name.starts_with(&format!("{addr} on ")), "{name}");
    let other = replica(&db, 300, K1).await;
    let found = other.check_in().await.unwrap();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains(&format!("replica {addr}")), "{}", found[0]);
}
