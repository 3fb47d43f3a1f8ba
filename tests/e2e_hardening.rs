//! End to end over HTTP: what an attacker and a schema fuzzer found, each fixed and held.
//! No field leaks through mutations; revocations are stored with the data; every refusal is a
//! problem; input rules are consistent; operator flags are bounded; the OpenAPI document
//! promises what the service does.

use crate::e2e_support;

use std::time::Duration;

use completeness::CursorKeys;
use e2e_support::service::config::limits;
use e2e_support::{Config, Harness, config};
use reqwest::Method;
use serde_json::{Value, json};

/// Asserts that `account` (a mutation's `account` member) hides what north's `GET` hides.
fn assert_north_view(account: &Value) {
    assert_eq!(account["owner_email"], Value::Null, "{account}");
    assert_eq!(account["omitted_fields"]["owner_email"], "NO_ACCESS", "{account}");
    assert_eq!(account["secret_fingerprint"], Value::Null, "{account}");
    assert_eq!(account["omitted_fields"]["secret_fingerprint"], "NOT_REQUESTED", "{account}");
    assert_eq!(account["warnings"][0]["code"], "PARTIAL_FIELD_SET", "{account}");
}

/// A client that sends requests and reads none of their answers is cut off once it has taken
/// nothing for the read timeout: it cannot hold a connection, and the kernel's buffers behind
/// it, by not reading. (Without the cut, the server waits to write for as long as it is let.)
#[tokio::test]
async fn a_client_that_reads_no_answer_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start(Config { read_timeout: Duration::from_secs(1), ..config(2_000) }).await;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(h.running.addr).await.unwrap();
    let asked = 150;
    let request = format!(
        "GET /service-accounts?page_size=500 HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer admin\r\n\r\n",
        h.running.addr
    );
    stream.write_all(request.repeat(asked).as_bytes()).await.unwrap();
    // Far more than the socket buffers hold is answered; nothing is read for three timeouts.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut answers = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answers)).await;
    let answers = String::from_utf8_lossy(&answers);
    let served = answers.matches("HTTP/1.1 200 ").count();
    assert!(closed.is_ok_and(|read| read.is_err() || served < asked), "served {served} of {asked}: not cut off");
    // Another client is served as ever.
    assert_eq!(h.get("/service-accounts/count", "admin").await.status, 200);
}

/// A well-formed id of any length that names no account is 404, and the detail quotes only its
/// beginning: the answer does not echo kilobytes the client sent.
#[tokio::test]
async fn a_long_id_that_names_no_account_is_not_echoed_whole() {
    let h = Harness::start(config(20)).await;
    let id = format!("sa-{}", "9".repeat(5_000));
    let answer = h.get(&format!("/service-accounts/{id}"), "admin").await;
    answer.assert_problem(404, "NOT_FOUND");
    let detail = answer.body["detail"].as_str().unwrap();
    assert!(detail.len() < 300 && detail.contains("sa-999") && detail.contains('…'), "{detail}");
}

/// A request head is buffered only up to a bound: one far over the service's own header limit
/// is refused by the server (431) as soon as it passes the bound, without waiting for its end
/// (hyper's default buffer held about 400 KiB of each such connection for the read timeout).
#[tokio::test]
async fn a_request_head_is_buffered_only_so_far() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start(config(20)).await;
    let addr = h.running.addr;
    // A head that goes on past the bound, and never ends, is refused while it is sent.
    let mut long = tokio::net::TcpStream::connect(addr).await.unwrap();
    long.write_all(format!("GET /service-accounts/count HTTP/1.1\r\nHost: {addr}\r\n").as_bytes()).await.unwrap();
    let header = format!("X-Filler: {}\r\n", "a".repeat(3_900));
    for _ in 0..40 {
        if long.write_all(header.as_bytes()).await.is_err() {
            break;
        }
    }
    let mut refused = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), long.read_to_end(&mut refused))
        .await
        .expect("refused before the read timeout");
    assert!(String::from_utf8_lossy(&refused).starts_with("HTTP/1.1 431 "), "{}", String::from_utf8_lossy(&refused));
}

e2e_support::both_backends! {
#[tokio::test]
async fn mutation_responses_apply_the_field_policy_of_get() {
    let h = Harness::start(config(30)).await;
    let created =
        h.post("/service-accounts", "north", &json!({"name": "svc-north-new", "tenant": "north", "owner": "li"})).await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    assert_north_view(&created.body["account"]);
    let id = created.body["account"]["id"].as_str().unwrap().to_owned();
    let got = h.get(&format!("/service-accounts/{id}"), "north").await;
    assert_eq!(got.body["omitted_fields"], created.body["account"]["omitted_fields"], "POST answers as GET does");

    let patched = h.patch(&format!("/service-accounts/{id}"), "north", &json!({"owner": "dana"})).await;
    assert_eq!(patched.status, 200, "{:?}", patched.body);
    assert_north_view(&patched.body["account"]);
    assert_eq!(patched.body["account"]["owner"], "dana");

    let deleted = h.delete(&format!("/service-accounts/{id}"), "north").await;
    assert_eq!(deleted.status, 200, "{:?}", deleted.body);
    assert_north_view(&deleted.body["account"]);

    // The admin credential reads e-mail addresses, in mutations as in GET.
    let by_admin =
        h.post("/service-accounts", "admin", &json!({"name": "svc-east-new", "tenant": "east", "owner": "li"})).await;
    assert_eq!(by_admin.body["account"]["owner_email"], "li@example.com");
    assert!(by_admin.body["account"]["omitted_fields"].get("owner_email").is_none());
}
}

/// A database that outlives one service: a SQLite file, or a fresh PostgreSQL database.
async fn database(name: &str) -> std::path::PathBuf {
    if e2e_support::backend() == e2e_support::Backend::Postgres {
        return e2e_support::postgres::fresh_database().await.into();
    }
    let dir = std::env::temp_dir().join(format!("service-accounts-hardening-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inventory.sqlite");
    let _ = std::fs::remove_file(&path);
    path
}

/// A SQLite file another process holds locked is an outage for the readiness check (503, the
/// balancer takes the replica out), and it waits for the lock on a thread of its own: the
/// routes that need no database (`/metrics`) still answer meanwhile. Once the lock is released
/// the replica is ready again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_file_locked_by_another_process_makes_the_replica_unready_until_released() {
    let dir = std::env::temp_dir().join(format!("service-accounts-hardening-{}-locked", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inventory.sqlite");
    let _ = std::fs::remove_file(&path);
    let h = Harness::start(e2e_support::Config { db: Some(path.clone()), ..config(20) }).await;
    assert_eq!(h.send(reqwest::Method::GET, "/ready", None, None).await.status, 200);

    let (locked, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
    let holder = std::thread::spawn({
        let path = path.clone();
        let (locked, release) = (locked.0, release.1);
        move || {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.execute_batch("BEGIN EXCLUSIVE").unwrap();
            locked.send(()).unwrap();
            release.recv().unwrap();
            conn.execute_batch("COMMIT").unwrap();
        }
    });
    locked.1.recv().unwrap();
    let (ready, metrics) = tokio::join!(
        h.send(reqwest::Method::GET, "/ready", None, None),
        h.request(reqwest::Method::GET, "/metrics").send()
    );
    ready.assert_problem(503, "SERVICE_UNAVAILABLE");
    assert_eq!(ready.retry_after.as_deref(), Some("5"), "{ready:?}");
    assert_eq!(metrics.expect("/metrics answers while the file is locked").status(), 200);
    assert!(h.running.state.health.in_outage(), "the outage is the service's to log and gauge");
    release.0.send(()).unwrap();
    holder.join().unwrap();
    assert_eq!(h.send(reqwest::Method::GET, "/ready", None, None).await.status, 200, "ready again");
    assert!(!h.running.state.health.in_outage(), "and the outage ended");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two processes on one SQLite file take turns at writing: a write waits for the other's to
/// end, where a transaction that read first and then wrote failed at once with "database is
/// locked" (the 503 of an unreachable database). Two stores here, each with its own
/// connection, as two processes have.
#[test]
fn two_stores_on_one_sqlite_file_take_turns_at_writing() {
    use e2e_support::service::db::SqliteStore;
    let dir = std::env::temp_dir().join(format!("service-accounts-hardening-{}-turns", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inventory.sqlite");
    let _ = std::fs::remove_file(&path);
    let open = || SqliteStore::open(Some(&path), Duration::from_secs(900)).unwrap();
    let (one, other) = (open(), open());
    one.seed(60).unwrap();
    // The seed archives some: an archived account is not written (409 `ACCOUNT_ARCHIVED`).
    let (_, accounts) = one.current_accounts().unwrap();
    let writable: Vec<String> = accounts.into_iter().filter(|account| !account.archived).map(|a| a.id).collect();
    assert!(writable.len() > 40, "most of the seed is unarchived: {}", writable.len());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let writers = [(&one, "one"), (&other, "other")].map(|(store, owner)| {
            let writable = &writable;
            scope.spawn(move || {
                writable
                    .iter()
                    .filter_map(|id| store.set_owner(None, id, Some(owner.to_owned())).err())
                    .map(|error| error.to_string())
                    .collect::<Vec<_>>()
            })
        });
        writers.into_iter().flat_map(|writer| writer.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} of {} writes failed: {:?}", failures.len(), 2 * writable.len(), failures.first());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A database that takes another's place (here, the in-memory one of a restarted service)
/// names none of its states as the old one named its own: a cursor and evidence of the old one,
/// signed with the same keys, are refused as of a snapshot that is gone, not served at the new
/// one's snapshot of the same name (which mixed two databases into one "complete" traversal, and
/// let an archive act on accounts the evidence never saw).
#[tokio::test]
async fn a_cursor_or_evidence_of_a_replaced_database_is_refused_not_read_in_the_new_one() {
    let keys = CursorKeys::parse(&format!("k1:{}", CursorKeys::generate_secret())).unwrap();
    let in_memory = || Config { cursor_keys: Some(keys.clone()), ..config(300) };

    let h = Harness::start(in_memory()).await;
    let first = h.get("/service-accounts?owner=none&page_size=3", "admin").await;
    let cursor = first.body["next_cursor"].as_str().expect("more pages follow").to_owned();
    let old_snapshot = first.body["scope"]["snapshot"].clone();
    let pages = h.traverse("/service-accounts?owner=none&page_size=500", "admin").await;
    let evidence = pages.last().unwrap().body["evidence"].as_str().expect("a complete inventory").to_owned();
    let unowned = pages[0].ids()[0].clone();
    h.running.stop().await.unwrap();

    let h = Harness::start(in_memory()).await;
    let now = h.get("/service-accounts?owner=none&page_size=3", "admin").await;
    assert_ne!(now.body["scope"]["snapshot"], old_snapshot, "the new database names its first state anew");
    let resumed = h.get(&format!("/service-accounts?owner=none&page_size=3&cursor={cursor}"), "admin").await;
    resumed.assert_problem(410, "CURSOR_EXPIRED");
    let archive = h.post("/service-accounts/archive", "admin", &json!({"ids": [unowned], "evidence": evidence})).await;
    archive.assert_problem(412, "EVIDENCE_EXPIRED");
    assert_eq!(h.get(&format!("/service-accounts/{unowned}"), "admin").await.body["archived"], false);
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_revocation_survives_a_restart_and_holds_in_another_process_on_the_same_database() {
    let path = database("revocation").await;
    let keys = CursorKeys::parse(&format!("k1:{}", CursorKeys::generate_secret())).unwrap();
    let with_file = || Config { db: Some(path.clone()), cursor_keys: Some(keys.clone()), ..config(400) };

    let h = Harness::start(with_file()).await;
    let pages = h.traverse("/service-accounts?owner=none&tenant=north&page_size=500", "north").await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:?}", last.body);
    let evidence = last.body["evidence"].clone();
    assert!(evidence.is_string(), "a complete inventory carries evidence");
    let ids: Vec<String> = pages.iter().flat_map(|p| p.ids()).collect();
    assert!(!ids.is_empty(), "the seed has unowned north accounts");
    let revoked = h.post("/credentials/north/revoke-tenant/north", "admin", &json!({})).await;
    assert_eq!(revoked.status, 200, "{:?}", revoked.body);
    h.running.stop().await.unwrap();

    // A restart on the same database and keys: north still cannot read north, and the evidence
    // it was issued before the revocation is refused.
    let h = Harness::start(with_file()).await;
    h.get(&format!("/service-accounts/{}", ids[0]), "north").await.assert_problem(404, "NOT_FOUND");
    let archive = h.post("/service-accounts/archive", "north", &json!({"ids": [ids[0]], "evidence": evidence})).await;
    assert_eq!(archive.status, 412, "{:?}", archive.body);
    assert_eq!(archive.content_type, "application/problem+json");
    let count = h.get("/service-accounts/count?tenant=north", "north").await;
    assert_eq!(count.body["count"], 0);
    assert_eq!(count.reasons(), ["VISIBILITY_RESTRICTED"]);

    // Another service on the same database sees a revocation made through this one at once.
    let other = Harness::start(with_file()).await;
    assert_eq!(other.get("/service-accounts/count?tenant=south", "south").await.reasons(), Vec::<String>::new());
    let revoked = h.post("/credentials/south/revoke-tenant/south", "admin", &json!({})).await;
    assert_eq!(revoked.body["permission_epoch"], 2);
    let after = other.get("/service-accounts/count?tenant=south", "south").await;
    assert_eq!(after.reasons(), ["VISIBILITY_RESTRICTED"], "{:?}", after.body);
    assert_eq!(after.body["count"], 0);
    drop(other);
    drop(h);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn every_refusal_outside_the_handlers_is_a_problem_with_a_stable_code() {
    let h = Harness::start(config(5)).await;
    let big = json!({"name": "svc-x", "tenant": "north", "owner": "a".repeat(100 * 1024)});
    h.post("/service-accounts", "admin", &big).await.assert_problem(413, "INVALID_BODY");
    h.patch("/service-accounts/sa-000001", "admin", &json!({"owner": "a".repeat(100 * 1024)}))
        .await
        .assert_problem(413, "INVALID_BODY");
    let evidence = "e".repeat(100 * 1024);
    h.post("/service-accounts/archive", "admin", &json!({"ids": ["sa-000001"], "evidence": evidence}))
        .await
        .assert_problem(413, "INVALID_BODY");

    let long_query = format!("/service-accounts?owner={}", "a".repeat(10_000));
    h.get(&long_query, "admin").await.assert_problem(414, "URI_TOO_LONG");
    let huge_header =
        h.request(Method::GET, "/service-accounts").bearer_auth("admin").header("x-filler", "f".repeat(20_000));
    h.answer(huge_header).await.assert_problem(431, "HEADERS_TOO_LARGE");

    h.send(Method::GET, "/nowhere", Some("admin"), None).await.assert_problem(404, "NOT_FOUND");
    let put = h.send(Method::PUT, "/service-accounts/sa-000001", Some("admin"), Some(b"{}".to_vec())).await;
    put.assert_problem(405, "METHOD_NOT_ALLOWED");
    let allow = h.request(Method::PUT, "/service-accounts/sa-000001").bearer_auth("admin").send().await.unwrap();
    let allow = allow.headers().get("allow").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert!(allow.contains("GET") && allow.contains("PATCH") && allow.contains("DELETE"), "Allow: {allow}");
    // A path parameter that is not UTF-8: axum's own rejection, answered as a problem.
    h.get("/service-accounts/%FF%FE", "admin").await.assert_problem(400, "INVALID_REQUEST");

    // HTTP/1.1 needs exactly one `Host` that is a host (RFC 9112 §3.2); HTTP/1.0 may leave it out.
    let count = |version: &str, host: &str| {
        format!("GET /service-accounts/count {version}\r\n{host}Authorization: Bearer admin\r\nConnection: close\r\n\r\n")
    };
    let not_hosts = [
        "",
        "Host: localhost\r\nHost: evil.example\r\n",
        "Host: \r\n",
        "Host: a b\r\n",
        "Host: user@localhost\r\n",
        // A port is a number up to 65535: `http`'s `Authority` parses these, and reads them as no port.
        "Host: localhost:abc\r\n",
        "Host: localhost:99999\r\n",
        "Host: [::1]:-1\r\n",
    ];
    for host in not_hosts {
        let (status, answer) = h.raw(&count("HTTP/1.1", host)).await;
        assert!(status.starts_with("HTTP/1.1 400 "), "{host:?}: {status}");
        assert!(answer.contains(r#""code":"INVALID_REQUEST""#) && answer.contains("`Host`"), "{host:?}: {answer}");
    }
    for (version, host) in [("HTTP/1.1", "Host: localhost:1\r\n"), ("HTTP/1.1", "Host: [::1]\r\n"), ("HTTP/1.1", "Host: localhost:\r\n"), ("HTTP/1.0", "")] {
        let (status, answer) = h.raw(&count(version, host)).await;
        assert!(status.starts_with(&format!("{version} 200 ")), "{version} {host:?}: {status} {answer}");
    }
    // A target in absolute form names the host that counts (RFC 9112, section 3.2.2): it must be the
    // `Host` field's, which the checks read.
    let absolute = |target: &str, host: &str| {
        format!("GET {target}/service-accounts/count HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer admin\r\nConnection: close\r\n\r\n")
    };
    for (target, host) in [
        ("http://evil.example", "localhost"),
        ("http://localhost:1", "localhost:2"),
        ("http://localhost", "evil.example"),
        // A target's port that is no TCP port is not the `Host`'s default one.
        ("http://localhost:99999", "localhost"),
    ] {
        let (status, answer) = h.raw(&absolute(target, host)).await;
        assert!(status.starts_with("HTTP/1.1 400 "), "{target} {host}: {status}");
        assert!(answer.contains(r#""code":"INVALID_REQUEST""#) && answer.contains("another host"), "{answer}");
    }
    // Nor another scheme, nor user information (RFC 9110, section 4.2.4).
    for (target, host, says) in [("ftp://localhost", "localhost", "scheme"), ("http://user@localhost", "localhost", "user")] {
        let (status, answer) = h.raw(&absolute(target, host)).await;
        assert!(status.starts_with("HTTP/1.1 400 "), "{target} {host}: {status}");
        assert!(answer.contains(r#""code":"INVALID_REQUEST""#) && answer.contains(says), "{answer}");
        // Also over HTTP/1.0 without a `Host` field.
        let old = format!("GET {target}/service-accounts/count HTTP/1.0\r\nAuthorization: Bearer admin\r\n\r\n");
        let (status, answer) = h.raw(&old).await;
        assert!(status.contains(" 400 "), "{target} over HTTP/1.0: {status}");
        assert!(answer.contains(says), "{answer}");
    }
    for (target, host) in [("http://LOCALHOST", "localhost"), ("http://localhost:80", "localhost"), ("https://localhost", "localhost:443")] {
        let (status, answer) = h.raw(&absolute(target, host)).await;
        assert!(status.starts_with("HTTP/1.1 200 "), "{target} {host}: {status} {answer}");
    }
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_write_body_not_sent_as_json_is_a_415_problem_and_changes_nothing() {
    let h = Harness::start(config(5)).await;
    let before = h.store().fingerprint().await.unwrap();
    let create = br#"{"name": "svc-north-typed", "tenant": "north"}"#.to_vec();
    let owner = br#"{"owner": "li"}"#.to_vec();
    let archive = br#"{"ids": ["sa-000001"], "evidence": "ev1.x.y.z"}"#.to_vec();
    let writes = [
        (Method::POST, "/service-accounts", &create),
        (Method::PATCH, "/service-accounts/sa-000001", &owner),
        (Method::POST, "/service-accounts/archive", &archive),
    ];
    for (method, path, body) in writes {
        for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("json"), None] {
            let mut request = h.request(method.clone(), path).bearer_auth("admin").body(body.clone());
            if let Some(content_type) = content_type {
                request = request.header("content-type", content_type);
            }
            let answer = h.answer(request).await;
            answer.assert_problem(415, "INVALID_BODY");
            let detail = answer.body["detail"].as_str().unwrap_or_default();
            assert!(detail.contains("application/json"), "{method} {path} {content_type:?}: {detail}");
        }
    }
    // A transfer coding before `chunked` stays on the bytes hyper hands on: refused, as a content coding is.
    let body = String::from_utf8(create.clone()).unwrap();
    let coded = format!(
        "POST /service-accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n\
         {:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    let (status, answer) = h.raw(&coded).await;
    assert!(status.starts_with("HTTP/1.1 415 "), "{status}: {answer}");
    assert!(answer.contains(r#""code":"INVALID_BODY""#) && answer.contains("Transfer-Encoding: gzip"), "{answer}");
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "no refused write changed anything");

    // Parameters and case do not matter; a write without a body needs no Content-Type.
    let typed = h
        .request(Method::POST, "/service-accounts")
        .bearer_auth("admin")
        .header("content-type", "Application/JSON; charset=utf-8")
        .body(create.clone());
    assert_eq!(h.answer(typed).await.status, 201);
    let deleted = h.answer(h.request(Method::DELETE, "/service-accounts/sa-000002").bearer_auth("admin")).await;
    assert_eq!(deleted.status, 200, "{:?}", deleted.body);
    let revoked = h.answer(h.request(Method::POST, "/credentials/south/revoke-tenant/south").bearer_auth("admin")).await;
    assert_eq!(revoked.status, 200, "{:?}", revoked.body);

    // The document says so.
    let doc = h.send(Method::GET, "/openapi.json", None, None).await.body;
    for (path, method) in [("/service-accounts", "post"), ("/service-accounts/{id}", "patch"), ("/service-accounts/archive", "post")] {
        let refused = &doc["paths"][path][method]["responses"]["415"]["description"];
        assert!(refused.as_str().is_some_and(|d| d.contains("INVALID_BODY")), "{method} {path}: {refused}");
    }
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_chunked_body_over_the_limit_is_a_413_problem_too() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start(config(5)).await;
    let mut stream = tokio::net::TcpStream::connect(h.running.addr).await.unwrap();
    let head = "POST /service-accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
                Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    let chunk = format!("{:x}\r\n{}\r\n", 8192, "a".repeat(8192));
    let (mut reader, mut writer) = stream.split();
    // The server may answer and close before the whole body is written; a failed write is expected then.
    let (_, answer) = tokio::join!(
        async {
            writer.write_all(head.as_bytes()).await?;
            for _ in 0..10 {
                writer.write_all(chunk.as_bytes()).await?;
            }
            writer.write_all(b"0\r\n\r\n").await
        },
        async {
            let mut answer = Vec::new();
            let _ = reader.read_to_end(&mut answer).await;
            String::from_utf8_lossy(&answer).into_owned()
        }
    );
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("content-type: application/problem+json"), "{answer}");
    assert!(answer.contains("\"code\":\"INVALID_BODY\""), "{answer}");
}
}

/// A body cut short by its client (its connection closed for writing before the length it
/// announced) is a 400 `INVALID_REQUEST` problem saying so, and the write it carried is not
/// made: the body is read whole before anything runs. It is logged and counted as a 400, as
/// nginx logs it, not as a client gone (`499`): the client may still read the answer.
#[tokio::test]
async fn a_body_cut_short_is_refused_and_nothing_is_done() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = Harness::start(config(5)).await;
    let before = h.get("/service-accounts?page_size=100", "admin").await.ids();
    let body = json!({"name": "svc-cut-short", "tenant": "east"}).to_string();
    let head = format!(
        "POST /service-accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(h.running.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body.as_bytes()[..body.len() - 5]).await.unwrap();
    stream.shutdown().await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("\"code\":\"INVALID_REQUEST\""), "{answer}");
    assert!(answer.contains("could not be read to its end"), "{answer}");
    assert_eq!(h.get("/service-accounts?page_size=100", "admin").await.ids(), before, "nothing was created");
    let whole = h.post("/service-accounts", "admin", &serde_json::from_str::<Value>(&body).unwrap()).await;
    assert_eq!(whole.status.as_u16(), 201, "the same body whole is served: {:?}", whole.body);
    assert_eq!(h.get("/service-accounts?page_size=100", "admin").await.ids().len(), before.len() + 1, "and listed");
}

/// A client that stops sending is cut off, however far it got, and nothing it began is done:
/// a connection that has not sent a whole request head within the read timeout is closed
/// without an answer (a new one, one halfway through its head, one kept alive after an
/// answer); a body that stops halfway is a 408 `REQUEST_TIMEOUT` problem, over REST and MCP,
/// and the write it carried is not made. A client that is slow but keeps within the timeout,
/// and a handler slower than it, are served.
#[tokio::test]
async fn a_client_that_stops_sending_is_cut_off_and_what_it_began_is_not_done() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let slow_audit = vec![("audit".to_owned(), Duration::from_millis(1_500))];
    let h =
        Harness::start(Config { read_timeout: Duration::from_secs(1), slow_sources: slow_audit, ..config(5) }).await;
    let addr = h.running.addr;
    // Everything the server sends on a connection that sends `parts` (a pause before each
    // after the first) and then waits, up to the server closing it.
    let exchange = |parts: Vec<String>, pause: Duration| async move {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        for (n, part) in parts.iter().enumerate() {
            if n > 0 {
                tokio::time::sleep(pause).await;
            }
            stream.write_all(part.as_bytes()).await.unwrap();
        }
        let mut answer = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
        assert!(closed.is_ok(), "the server still holds a connection that sent {parts:?} after 30 s");
        String::from_utf8_lossy(&answer).into_owned()
    };
    let head = |method: &str, path: &str, more: &str| {
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer admin\r\n{more}")
    };

    // No request head, or half of one: closed, without an answer.
    assert_eq!(exchange(vec![String::new()], Duration::ZERO).await, "");
    assert_eq!(exchange(vec![head("GET", "/service-accounts", "")], Duration::ZERO).await, "");
    // A connection kept alive after its answer is closed once it idles past the timeout.
    let kept = exchange(vec![head("GET", "/service-accounts/count", "\r\n")], Duration::ZERO).await;
    assert!(kept.starts_with("HTTP/1.1 200 "), "{kept}");
    assert_eq!(kept.matches("HTTP/1.1 ").count(), 1, "{kept}");

    // A body that stops halfway: 408 before any handler runs, so nothing is created.
    let json = "Content-Type: application/json\r\nContent-Length: 64\r\n\r\n";
    let half =
        exchange(vec![head("POST", "/service-accounts", json) + r#"{"name": "svc-half", "tenant""#], Duration::ZERO)
            .await;
    assert!(half.starts_with("HTTP/1.1 408 "), "{half}");
    assert!(half.contains("content-type: application/problem+json"), "{half}");
    assert!(half.contains(r#""code":"REQUEST_TIMEOUT""#), "{half}");
    let mcp = format!("Accept: application/json, text/event-stream\r\n{json}");
    let half = exchange(vec![head("POST", "/mcp", &mcp) + r#"{"jsonrpc": "2.0", "id": 1"#], Duration::ZERO).await;
    assert!(half.starts_with("HTTP/1.1 408 ") && half.contains(r#""code":"REQUEST_TIMEOUT""#), "{half}");
    let listed = h.get("/service-accounts?page_size=500", "admin").await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    assert_eq!(listed.body["complete"], true, "{:?}", listed.body);
    assert_eq!(listed.ids().len(), 5, "the half-sent account was not created: {:?}", listed.body);

    // Slow but within the timeout, at each step: served.
    let body = r#"{"name": "svc-slow", "tenant": "east"}"#;
    let length = format!("Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    let pause = Duration::from_millis(300);
    let slow =
        exchange(vec![head("POST", "/service-accounts", ""), length, "\r\n".to_owned(), body.to_owned()], pause).await;
    assert!(slow.starts_with("HTTP/1.1 201 "), "{slow}");
    // A handler slower than the timeout (the audit index answers after 1.5 s) is not cut.
    let searched = h.get("/search?q=svc&time_budget_ms=5000", "admin").await;
    assert_eq!(searched.status, 200, "{:?}", searched.body);
    assert!(searched.body["incomplete_reasons"].as_array().is_some_and(Vec::is_empty), "{:?}", searched.body);
}

e2e_support::both_backends! {
#[tokio::test]
async fn input_rules_are_consistent() {
    let h = Harness::start(config(20)).await;
    // A wrongly typed member is a body mistake, whichever member it is.
    for body in [json!({"evidence": {}, "ids": []}), json!({"evidence": 7, "ids": ["sa-000001"]})] {
        h.post("/service-accounts/archive", "admin", &body).await.assert_problem(400, "INVALID_BODY");
    }
    // One rule for account ids, on every route and over MCP alike (their schemas' pattern): text
    // that is not `sa-` and six or more digits is a mistake (400), never "not found" or "not in
    // the evidence".
    let before = h.store().fingerprint().await.unwrap();
    for id in ["bogus", "SA-000001", "sa-00001", "sa-000001x", "sa-1%0AX", "sa-%EF%BC%90%EF%BC%90%EF%BC%90%EF%BC%90%EF%BC%90%EF%BC%90"] {
        let path = format!("/service-accounts/{id}");
        for reply in [
            h.get(&path, "admin").await,
            h.patch(&path, "admin", &json!({"owner": "zed"})).await,
            h.delete(&path, "admin").await,
        ] {
            reply.assert_problem(400, "INVALID_REQUEST");
            assert!(reply.body["detail"].as_str().is_some_and(|d| d.contains("is not an account id")), "{id}: {reply:?}");
        }
    }
    let inventory = h.get("/service-accounts?owner=none&page_size=500", "admin").await;
    let evidence = inventory.body["evidence"].as_str().expect("a complete inventory carries evidence");
    let targets = json!({"ids": ["sa-000001", "bogus"], "evidence": evidence});
    let archive = h.post("/service-accounts/archive", "admin", &targets).await;
    archive.assert_problem(400, "INVALID_BODY");
    assert!(archive.body["detail"].as_str().is_some_and(|d| d.starts_with("`ids[1]`: 'bogus' is not an account id")), "{archive:?}");
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "a malformed id changes nothing");
    let id_pattern = regex::Regex::new(e2e_support::service::openapi::ACCOUNT_ID_PATTERN).unwrap();
    for text in ["sa-000001", "sa-1234567", "sa-00001", "sa-", "sa-00000a", "xsa-000001", "sa-٠٠٠٠٠٠", "sa-000001\n"] {
        let agrees = e2e_support::service::seed::is_account_id(text) == id_pattern.is_match(text);
        assert!(agrees, "{text:?}: the check and the documented pattern disagree");
    }
    // One rule for page sizes: any positive integer, however long, is clamped to the maximum.
    for huge in ["18446744073709551615", "99999999999999999999999"] {
        let page = h.get(&format!("/service-accounts?page_size={huge}"), "admin").await;
        assert_eq!(page.status, 200, "{huge}: {:?}", page.body);
        assert_eq!(page.body["warnings"][0]["code"], "PAGE_SIZE_REDUCED", "{huge}");
        assert_eq!(page.body["page"]["applied_size"], 500, "{huge}");
    }
    // A write takes no query parameter: `?dry_run=true` is refused before anything changes.
    let count = h.get("/service-accounts/count", "admin").await.body["count"].clone();
    h.delete("/service-accounts/sa-000002?dry_run=true", "admin").await.assert_problem(400, "INVALID_REQUEST");
    h.post("/service-accounts?dry_run=true", "admin", &json!({"name": "svc-q", "tenant": "north"}))
        .await
        .assert_problem(400, "INVALID_REQUEST");
    h.patch("/service-accounts/sa-000002?x", "admin", &json!({"owner": "zed"})).await.assert_problem(400, "INVALID_REQUEST");
    assert_eq!(h.get("/service-accounts/count", "admin").await.body["count"], count);
    assert_eq!(h.get("/service-accounts/sa-000002", "admin").await.status.as_u16(), 200, "the account is still there");
    // Nor, when it takes no body (a delete, a revocation), a body: `{"dry_run": true}` would
    // be ignored while the write went ahead.
    let before = h.store().fingerprint().await.unwrap();
    for (method, path) in [(Method::DELETE, "/service-accounts/sa-000002"), (Method::POST, "/credentials/south/revoke-tenant/south")] {
        for body in [&br#"{"dry_run": true}"#[..], br#" { "if_match": "s-1" } "#] {
            let reply = h.send(method.clone(), path, Some("admin"), Some(body.to_vec())).await;
            reply.assert_problem(400, "INVALID_BODY");
            let detail = reply.body["detail"].as_str().unwrap_or_default();
            assert!(detail.contains("takes no request body"), "{method} {path}: {detail}");
        }
        // A body that is not even JSON says so.
        let garbled = h.send(method.clone(), path, Some("admin"), Some(b"{dry_run".to_vec())).await;
        garbled.assert_problem(400, "INVALID_BODY");
    }
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was deleted or revoked");
    assert_eq!(h.get("/service-accounts/sa-000002", "south").await.status.as_u16(), 200, "south still reads south");
    // A read takes no body either: a filter sent there would be ignored and the answer given
    // for a wider scope than asked.
    let reads = ["/service-accounts?page_size=1", "/service-accounts/count", "/search?q=svc", "/service-accounts/sa-000002"];
    for path in reads.into_iter().chain(["/openapi.json", "/metrics", "/ready"]) {
        for method in [Method::GET, Method::HEAD] {
            let reply = h.send(method.clone(), path, Some("admin"), Some(br#"{"owner": "none"}"#.to_vec())).await;
            assert_eq!(reply.status.as_u16(), 400, "{method} {path} with a body: {reply:?}");
            if method == Method::GET {
                reply.assert_problem(400, "INVALID_BODY");
                let detail = reply.body["detail"].as_str().unwrap_or_default();
                assert!(detail.contains("A read takes its input from its path and query"), "{path}: {detail}");
            }
        }
    }
    // The open routes read no query either: a parameter there would be ignored.
    for path in ["/openapi.json?format=yaml", "/metrics?name[]=completeness_responses_total", "/ready?verbose=1"] {
        let reply = h.send(Method::GET, path, None, None).await;
        reply.assert_problem(400, "INVALID_REQUEST");
        assert!(reply.body["detail"].as_str().unwrap_or_default().contains("takes no query parameters"), "{reply:?}");
    }
    // A member given twice is refused, not resolved by taking the last; nothing changes.
    let owner = h.get("/service-accounts/sa-000001", "admin").await.body["account"]["owner"].clone();
    let twice = br#"{"owner": "zed", "owner": null}"#.to_vec();
    let reply = h.send(Method::PATCH, "/service-accounts/sa-000001", Some("admin"), Some(twice)).await;
    reply.assert_problem(400, "INVALID_BODY");
    assert_eq!(h.get("/service-accounts/sa-000001", "admin").await.body["account"]["owner"], owner);
    // `none` is how `owner=none` names unowned accounts: no owner may be called that.
    h.patch("/service-accounts/sa-000001", "admin", &json!({"owner": "none"}))
        .await
        .assert_problem(400, "INVALID_BODY");
    h.post("/service-accounts", "admin", &json!({"name": "svc-x", "tenant": "north", "owner": "none"}))
        .await
        .assert_problem(400, "INVALID_BODY");
    h.get("/service-accounts?owner=", "admin").await.assert_problem(400, "INVALID_REQUEST");
    h.get("/service-accounts?tenant=", "admin").await.assert_problem(400, "INVALID_REQUEST");
    h.get("/service-accounts/sa-000001?fields=", "admin").await.assert_problem(400, "INVALID_REQUEST");
    // An id or a name with a NUL character, on either engine (PostgreSQL's text cannot hold
    // one): an id is refused as one (400), a credential name names nothing (404), and an
    // archive of such an id is refused as a body mistake; nothing changes.
    let before = h.get("/service-accounts/count", "admin").await.body["count"].clone();
    h.get("/service-accounts/sa-0%00", "admin").await.assert_problem(400, "INVALID_REQUEST");
    h.patch("/service-accounts/sa-0%00", "admin", &json!({"owner": "zed"})).await.assert_problem(400, "INVALID_REQUEST");
    h.delete("/service-accounts/sa-0%00", "admin").await.assert_problem(400, "INVALID_REQUEST");
    h.post("/credentials/no%00rth/revoke-tenant/north", "admin", &json!({})).await.assert_problem(404, "NOT_FOUND");
    let pages = h.traverse("/service-accounts?owner=none&page_size=500", "admin").await;
    let evidence = pages.last().unwrap().body["evidence"].clone();
    assert!(evidence.is_string(), "a complete inventory carries evidence");
    h.post("/service-accounts/archive", "admin", &json!({"ids": ["sa-0\u{0}"], "evidence": evidence}))
        .await
        .assert_problem(400, "INVALID_BODY");
    assert_eq!(h.get("/service-accounts/count", "admin").await.body["count"], before);
    // The inventory takes no time budget, and says why, in the refusal's route and in its document.
    h.get("/service-accounts?time_budget_ms=100", "admin").await.assert_problem(400, "INVALID_REQUEST");
    let doc = h.send(Method::GET, "/openapi.json", None, None).await;
    let described = doc.body["paths"]["/service-accounts"]["get"]["description"].as_str().unwrap_or("");
    assert!(described.contains("time_budget_ms"), "{described}");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn operator_settings_are_bounded_at_start_up_and_background_tasks_report_and_carry_on() {
    for (args, says) in [
        (&["--result-limit", "18446744073709551615"][..], "--result-limit"),
        (&["--snapshot-retention", "18446744073709551615"], "--snapshot-retention"),
        (&["--cursor-ttl", "99999999999"], "--cursor-ttl"),
        (&["--accounts", "4000000000"], "--accounts"),
        (&["--max-page-size", "4294967295"], "--max-page-size"),
        (&["--slow-source", "audit=18446744073709551615"], "--slow-source"),
        (&["--read-timeout", "3601"], "--read-timeout"),
    ] {
        let refused = Config::from_args(args.iter().map(|a| (*a).to_owned())).unwrap_err();
        assert!(refused.contains(says) && refused.contains("largest accepted"), "{args:?}: {refused}");
    }
    // `--help` states each bound.
    let usage = e2e_support::service::config::USAGE;
    for bound in [limits::ACCOUNTS.to_string(), limits::RETENTION_SECS.to_string(), limits::RESULT_LIMIT.to_string()] {
        assert!(usage.contains(&format!("at most {bound}")), "--help states {bound}");
    }
    // Settings made in code are held to the same bounds.
    let unbounded = Config { result_limit: usize::MAX, ..config(5) };
    let refused = e2e_support::service::start(unbounded).await.err().expect("refused");
    assert!(matches!(&refused, e2e_support::service::StartError::Config(m) if m.contains("--result-limit")), "{refused}");
    for read_timeout in [Duration::ZERO, Duration::from_secs(limits::READ_TIMEOUT_SECS + 1)] {
        let refused = e2e_support::service::start(Config { read_timeout, ..config(5) }).await.err().expect("refused");
        assert!(matches!(&refused, e2e_support::service::StartError::Config(m) if m.contains("--read-timeout")), "{refused}");
    }

    // The largest accepted values serve, search and prune without overflowing.
    let largest = Config {
        result_limit: limits::RESULT_LIMIT,
        snapshot_retention: Duration::from_secs(limits::RETENTION_SECS),
        ..config(30)
    };
    let h = Harness::start(largest).await;
    let found = h.get("/search?q=svc&time_budget_ms=5000", "admin").await;
    assert_eq!(found.status, 200, "{:?}", found.body);
    assert_eq!(h.post("/service-accounts", "admin", &json!({"name": "svc-x", "tenant": "east"})).await.status, 201);
    assert!(h.store().prune().await.is_ok());

    // A failing or panicking round is reported and does not end its task.
    use e2e_support::service::chore;
    use e2e_support::service::db::StoreError;
    let every = Duration::from_secs(1);
    let health = &h.running.state.health;
    assert!(!chore("test chore", every, health, || panic!("boom")));
    assert!(!chore("test chore", every, health, || Err(StoreError::Postgres("the statement failed".into()))));
    assert!(chore("test chore", every, health, || Ok(())));
}
}

/// Every `enum` member anywhere in `value`.
fn enums(value: &Value, found: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if let Some(e) = map.get("enum") {
                found.push(e.clone());
            }
            map.values().for_each(|v| enums(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| enums(v, found)),
        _ => {}
    }
}

/// Every `$ref` in `value`, with where it was found.
fn references<'a>(value: &'a Value, at: String, found: &mut Vec<(String, &'a str)>) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                match (key.as_str(), member.as_str()) {
                    ("$ref", Some(target)) => found.push((at.clone(), target)),
                    _ => references(member, format!("{at}/{key}"), found),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                references(item, format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

/// What a client generated from the document needs, beside the statuses: every reference
/// resolves (the standard reasons' detail objects are components, not objects inline in a
/// `oneOf` branch, which generators name twice and drop), a problem's reasons keep their
/// details, the headers a completeness answer carries, integers past `int64`, every status an
/// operation can answer, the aggregate rule, and what `complete` and `evidence` mean on a page.
#[tokio::test]
async fn the_openapi_document_gives_a_generated_client_what_the_wire_carries() {
    let h = Harness::start(config(5)).await;
    let doc = h.send(Method::GET, "/openapi.json", None, None).await.body;
    let schemas = &doc["components"]["schemas"];

    let mut found = Vec::new();
    references(&doc, String::new(), &mut found);
    assert!(found.iter().any(|(_, target)| *target == "#/components/schemas/Progress"), "{found:?}");
    for (at, target) in &found {
        let name = target.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("{at}: {target}"));
        assert!(schemas[name].is_object(), "{at} refers to {target}, which the document does not list");
    }
    let text = doc.to_string();
    assert!(!text.contains("\"int64\""), "a u64 member is no int64: 18446744073709551615 is sent");
    assert_eq!(schemas["PageInfo"]["properties"]["requested_size"]["format"], "uint64");

    // A strict refusal's reasons keep their details: each standard code's branch names them,
    // and another code's carries its kind.
    let reasons = schemas["Problem"]["properties"]["incomplete_reasons"]["items"].to_string();
    for detail in ["limit", "source", "budget_ms", "progress", "kind"] {
        assert!(reasons.contains(&format!("\"{detail}\"")), "a problem's reasons describe `{detail}`: {reasons}");
    }

    let responses = |path: &str, method: &str| doc["paths"][path][method]["responses"].clone();
    for path in ["/service-accounts", "/service-accounts/count", "/search"] {
        let ok = &responses(path, "get")["200"]["headers"];
        assert!(ok["Vary"].is_object() && ok["Preference-Applied"].is_object(), "{path}: {ok}");
    }
    assert!(responses("/service-accounts", "get")["403"]["headers"]["Vary"].is_object(), "a strict refusal varies");
    for status in ["200", "400", "422", "503"] {
        assert!(responses("/search", "get")[status]["headers"]["time-budget-ms"].is_object(), "search {status}");
    }
    assert!(responses("/search", "get")["401"]["headers"]["time-budget-ms"].is_null(), "read after authentication");
    for (path, method) in [("/service-accounts/{id}", "patch"), ("/service-accounts/{id}", "delete")] {
        assert!(responses(path, method)["403"]["description"].as_str().unwrap().contains("FORBIDDEN"), "{method}");
    }
    // Header patterns are ECMA-262, as JSON Schema's are: no inline flags a JS validator refuses.
    let vary = responses("/service-accounts", "get")["200"]["headers"]["Vary"]["schema"]["pattern"].clone();
    assert!(!vary.as_str().unwrap().contains("(?"), "{vary}");
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            // Any operation meets a body that does not arrive within the read timeout (it is
            // read to be refused on a read too), answers with the request's id, and says how to
            // authenticate with its 401.
            for (status, response) in operation["responses"].as_object().unwrap() {
                assert!(response["headers"]["X-Request-Id"].is_object(), "{method} {path} {status}: x-request-id");
            }
            assert!(operation["responses"]["408"].is_object(), "{method} {path}: 408 REQUEST_TIMEOUT");
            if let Some(unauthenticated) = operation["responses"].get("401") {
                assert!(unauthenticated["headers"]["WWW-Authenticate"].is_object(), "{method} {path}");
            }
            // What reads the database answers its failures: every authenticated operation (the
            // credential is read there), and the readiness check.
            let reads_the_database = operation.get("security") != Some(&json!([])) || path == "/ready";
            let lists = |status: &str| operation["responses"][status].is_object();
            assert_eq!(lists("500"), reads_the_database, "{method} {path}: 500 INTERNAL");
            assert_eq!(lists("503"), reads_the_database, "{method} {path}: 503 SERVICE_UNAVAILABLE");
        }
    }

    // The headers are sent as documented.
    let search = h.request(Method::GET, "/search?q=svc").bearer_auth("admin").send().await.unwrap();
    assert_eq!(search.headers()["vary"], "prefer");
    assert!(search.headers().contains_key("time-budget-ms"));

    // An incomplete count is never exact (contract §2.6), in the document as on the wire.
    let root = json!({"$ref": "#/components/schemas/ServiceAccountCount", "components": doc["components"]});
    let count = jsonschema::draft202012::new(&root).unwrap();
    let hidden = h.get("/service-accounts/count?tenant=east", "north").await;
    assert_eq!(hidden.body["complete"], false, "{hidden:?}");
    assert!(count.is_valid(&hidden.body), "{:?}", count.validate(&hidden.body).err());
    let mut exact = hidden.body.clone();
    exact["relation"] = json!("exact");
    assert!(!count.is_valid(&exact), "an incomplete exact count: {exact}");

    let members = &schemas["ServiceAccountPage"]["properties"];
    assert!(members["complete"]["description"].as_str().unwrap().contains("page.resumed"), "{}", members["complete"]);
    assert!(members["evidence"]["description"].as_str().unwrap().contains("null otherwise"), "{}", members["evidence"]);
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_openapi_document_states_security_statuses_constraints_and_each_operations_contract() {
    let h = Harness::start(config(5)).await;
    let doc = h.send(Method::GET, "/openapi.json", None, None).await.body;
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
    assert_eq!(doc["security"], json!([{"bearer": []}]));
    assert_eq!(doc["paths"]["/openapi.json"]["get"]["security"], json!([]), "the document needs no credential");

    let mut found = Vec::new();
    enums(&doc, &mut found);
    assert!(!found.is_empty() && found.iter().all(|e| e.as_array().is_some_and(|a| !a.is_empty())), "{found:?}");

    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            assert!(operation["operationId"].is_string(), "{method} {path} has an operationId");
            assert!(operation["x-completeness"].is_object(), "{method} {path} has x-completeness");
            for (status, response) in operation["responses"].as_object().unwrap() {
                assert!(status.len() == 3 && status.bytes().all(|b| b.is_ascii_digit()), "{method} {path}: {status}");
                if status.starts_with('4') || status.starts_with('5') {
                    // The problem schema, narrowed to the codes the description names.
                    let schema = &response["content"]["application/problem+json"]["schema"]["allOf"];
                    assert_eq!(schema[0]["$ref"], "#/components/schemas/Problem", "{method} {path} {status}");
                    let codes = schema[1]["properties"]["code"]["enum"].as_array().unwrap();
                    let codes: Vec<&str> = codes.iter().map(|code| code.as_str().unwrap()).collect();
                    let described = response["description"].as_str().unwrap();
                    assert!(described.contains(&format!("codes: {}.", codes.join(", "))), "{method} {path} {status}");
                }
            }
            // Input an operation would not read is refused on every one of them: a body where
            // none is read (400 `INVALID_BODY`, 413 too large, 415 not plain JSON), a query
            // parameter on a write (400 `INVALID_REQUEST`).
            let responses = &operation["responses"];
            let bad_request = responses["400"]["description"].as_str().unwrap_or_default();
            for code in ["INVALID_BODY", "INVALID_REQUEST"] {
                assert!(bad_request.contains(code), "{method} {path}: 400 lists {code}: {bad_request}");
            }
            for status in ["413", "415"] {
                assert!(responses[status].is_object(), "{method} {path} lists {status}");
            }
        }
    }
    let statuses = |path: &str, method: &str| -> Vec<String> {
        doc["paths"][path][method]["responses"].as_object().unwrap().keys().cloned().collect()
    };
    for status in ["400", "401", "403", "414", "422", "431", "503"] {
        assert!(statuses("/search", "get").contains(&status.to_owned()), "search lists {status}");
    }
    for status in ["400", "401", "409", "412", "413", "428"] {
        assert!(statuses("/service-accounts/archive", "post").contains(&status.to_owned()), "archive lists {status}");
    }
    assert!(statuses("/service-accounts", "get").contains(&"410".to_owned()));

    // The declared reasons and warnings, from the handlers' declarations, in declaration order.
    let search = &doc["paths"]["/search"]["get"]["x-completeness"];
    assert_eq!(
        search["reasons"],
        json!(["RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED", "VISIBILITY_RESTRICTED"])
    );
    assert_eq!(search["warnings"], json!(["STALE_INDEX"]));
    assert_eq!(doc["paths"]["/service-accounts/count"]["get"]["x-completeness"]["warnings"], json!([]));

    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["NewServiceAccount"]["required"], json!(["name", "tenant"]), "owner is optional");
    assert_eq!(schemas["NewServiceAccount"]["additionalProperties"], false);
    assert_eq!(schemas["ArchiveRequest"]["properties"]["ids"]["maxItems"], 1000);
    let list = doc["paths"]["/service-accounts"]["get"]["parameters"].as_array().unwrap();
    let tenant = list.iter().find(|p| p["name"] == "tenant").unwrap();
    assert_eq!(tenant["schema"]["enum"], json!(["north", "south", "east"]));
    let page_size = list.iter().find(|p| p["name"] == "page_size").unwrap();
    assert_eq!(page_size["schema"]["minimum"], 1);

    // The problems the service sends, with their extensions, are what `Problem` describes; the
    // page facts and the continuation of an envelope are the library's schemas.
    for member in ["parameter", "continuation", "incomplete_reasons", "targets", "outcome"] {
        assert!(schemas["Problem"]["properties"][member].is_object(), "Problem describes `{member}`");
    }
    let strict = |schema: &str| {
        let root = json!({"$ref": format!("#/components/schemas/{schema}"), "components": doc["components"]});
        jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{schema}: {e}"))
    };
    let refused = h.get("/service-accounts?tenant=east&require_complete=true", "north").await;
    refused.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    assert!(refused.body["incomplete_reasons"].is_array(), "{refused:?}");
    let bad_size = h.get("/service-accounts?page_size=0", "admin").await;
    bad_size.assert_problem(400, "INVALID_PAGE_SIZE");
    for body in [&refused.body, &bad_size.body] {
        let errors: Vec<String> = strict("Problem").iter_errors(body).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{body}: {errors:?}");
    }
    // Each answer's code is one its operation lists for its status, and a code it does not list
    // fails the response's schema.
    let answered = |status: &str| {
        let response = &doc["paths"]["/service-accounts"]["get"]["responses"][status];
        let mut root = response["content"]["application/problem+json"]["schema"].clone();
        root["components"] = doc["components"].clone();
        jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{status}: {e}"))
    };
    for (status, body) in [("403", &refused.body), ("400", &bad_size.body)] {
        let errors: Vec<String> = answered(status).iter_errors(body).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{status} {body}: {errors:?}");
        let mut unlisted = body.clone();
        unlisted["code"] = json!("EVIDENCE_REQUIRED");
        assert!(!answered(status).is_valid(&unlisted), "{status} lists no EVIDENCE_REQUIRED");
    }
    for member in ["page", "continuation"] {
        let described = &schemas["ServiceAccountPage"]["properties"][member]["oneOf"];
        assert!(described.to_string().contains("#/components/schemas/"), "{member}: {described}");
    }
    let page = h.get("/service-accounts?page_size=2", "admin").await;
    let errors: Vec<String> = strict("ServiceAccountPage").iter_errors(&page.body).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{}: {errors:?}", page.body);
    // The rules of contract §2.2 a schema can state are in the document: a page that says it is
    // complete with more pages to come, or more pages without a cursor, is refused.
    assert_eq!(page.body["incomplete_reasons"][0]["code"], "MORE_PAGES_AVAILABLE");
    let mut complete = page.body.clone();
    complete["complete"] = json!(true);
    complete["status"] = json!("complete");
    let mut cursorless = page.body.clone();
    cursorless["next_cursor"] = Value::Null;
    for lie in [complete, cursorless] {
        assert!(!strict("ServiceAccountPage").is_valid(&lie), "accepted: {lie}");
    }
}
}

/// The document states the limits the service was started with, so that a generated client or
/// an agent knows them before its first request: the default and largest page size (the
/// default also as the schema's `default`), how long a cursor and evidence last, and the
/// search's default budget and cap. The MCP tools' output schemas come from the same document.
#[tokio::test]
async fn the_openapi_document_states_the_limits_the_service_applies() {
    let mut cfg = config(5);
    cfg.max_page_size = 120;
    cfg.default_page_size = 30;
    cfg.cursor_ttl = Duration::from_secs(90);
    cfg.evidence_ttl = Duration::from_secs(45);
    cfg.default_time_budget = Duration::from_millis(1500);
    cfg.max_time_budget = Duration::from_secs(12);
    let h = Harness::start(cfg).await;
    let doc = h.send(Method::GET, "/openapi.json", None, None).await.body;
    let parameter = |path: &str, name: &str| {
        let list = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        list.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{path} {name}")).clone()
    };
    let page_size = parameter("/service-accounts", "page_size");
    assert_eq!(page_size["schema"]["default"], 30, "{page_size}");
    let said = page_size["description"].as_str().unwrap();
    assert!(said.contains("(30 when not given)") && said.contains("above 120 is reduced to 120"), "{said}");
    let cursor = parameter("/service-accounts", "cursor");
    assert!(cursor["description"].as_str().unwrap().contains("expires 90 s after"), "{cursor}");
    let budget = parameter("/search", "time_budget_ms");
    assert_eq!(budget["schema"]["default"], 1500, "{budget}");
    assert!(budget["description"].as_str().unwrap().contains("above 12000 is capped"), "{budget}");
    let evidence = &doc["components"]["schemas"]["ArchiveRequest"]["properties"]["evidence"]["description"];
    assert!(evidence.as_str().unwrap().contains("expires 45 s after"), "{evidence}");
}

/// A handler that panics (a bug) is answered with the 500 `INTERNAL` problem by the layers every
/// route of the example runs in, where axum would drop the connection unanswered.
#[tokio::test]
async fn a_handler_that_panics_is_answered_with_the_internal_problem() {
    use tower::ServiceExt;
    async fn boom() -> &'static str {
        panic!("a bug")
    }
    let panicking = axum::Router::new().route("/boom", axum::routing::get(boom));
    let app = e2e_support::service::refusals::around(panicking, Duration::from_secs(5));
    let request = axum::http::Request::get("/boom").header("host", "localhost").body(axum::body::Body::empty());
    let response = app.oneshot(request.unwrap()).await.expect("answered");
    assert_eq!(response.status(), 500);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let problem: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(problem["code"], "INTERNAL", "{problem}");
    assert!(!problem.to_string().contains("a bug"), "the panic's words stay in the log: {problem}");
}
