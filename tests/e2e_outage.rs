//! End to end over HTTP on PostgreSQL: while the database cannot be reached, every request that
//! needs it is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After` (a client mistake and an
//! unknown credential too, since authentication reads the database first), never a 500 and
//! never with the driver's text; the service answers again once the database does.

use crate::e2e_support;

use e2e_support::{Config, Harness, config};
use reqwest::Method;
use serde_json::Value;

#[tokio::test]
async fn a_database_outage_is_a_503_with_retry_after_without_the_drivers_text() {
    let url = e2e_support::postgres::fresh_database().await;
    let name = url.rsplit_once('/').unwrap().1.to_owned();
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;
    assert_eq!(h.get("/service-accounts?page_size=1", "admin").await.status, 200);

    // The outage: the database takes no new connection, and the pool's sessions are ended.
    e2e_support::postgres::on_server(&format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false")).await;
    e2e_support::postgres::on_server(&format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
    ))
    .await;

    let create: &[u8] = br#"{"name": "svc-north-new", "tenant": "north"}"#;
    let cases = [
        (Method::GET, "/service-accounts?page_size=1", Some("admin"), None),
        // A client mistake: authentication runs first, and it cannot read the credential either.
        (Method::GET, "/service-accounts?page_size=0", Some("admin"), None),
        (Method::GET, "/service-accounts", Some("root"), None),
        (Method::GET, "/service-accounts/count", Some("north"), None),
        (Method::GET, "/service-accounts/sa-000001", Some("admin"), None),
        (Method::POST, "/service-accounts", Some("admin"), Some(create)),
        (Method::DELETE, "/service-accounts/sa-000002", Some("admin"), None),
        // The readiness check: a balancer takes the replica out of rotation.
        (Method::GET, "/ready", None, None),
    ];
    for (method, path, token, body) in cases {
        let answer = h.send(method.clone(), path, token, body.map(<[u8]>::to_vec)).await;
        answer.assert_problem(503, "SERVICE_UNAVAILABLE");
        assert_eq!(answer.retry_after.as_deref(), Some("5"), "{method} {path}");
        // The wait in the body too, for a client that reads only the problem (an MCP tool error).
        let wait = serde_json::json!({"kind": "retry_after", "seconds": 5});
        assert_eq!(answer.body["continuation"], wait, "{method} {path}");
        let detail = answer.body["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("database cannot be reached"), "{method} {path}: {detail}");
        for internal in [name.as_str(), "FATAL", "pool", "accepting connections", "127.0.0.1"] {
            assert!(!detail.contains(internal), "{method} {path} leaks '{internal}': {detail}");
        }
    }
    // What does not need the database is still served.
    assert_eq!(h.send(Method::GET, "/openapi.json", None, None).await.status, 200);
    assert!(h.running.state.health.in_outage(), "the outage is the service's to log and gauge");

    // The end of the outage ends the refusals: the pool connects again.
    e2e_support::postgres::on_server(&format!("ALTER DATABASE {name} WITH ALLOW_CONNECTIONS true")).await;
    let again = h.get("/service-accounts?page_size=1", "admin").await;
    assert_eq!(again.status, 200, "{:?}", again.body);
    let ready = h.send(Method::GET, "/ready", None, None).await;
    assert_eq!((ready.status.as_u16(), &ready.body["status"]), (200, &serde_json::json!("ready")), "ready again");
    assert!(!h.running.state.health.in_outage(), "and the outage ended");
}

/// A database dropped and created again (empty) under the running service is an outage too, not
/// an internal error: every table the service reads is missing (SQLSTATE 42P01), and each request
/// is answered 503 with `Retry-After` until the schema is back (here: another replica started on
/// the database, which creates and seeds it).
#[tokio::test]
async fn a_database_dropped_and_created_again_is_a_503_until_its_schema_is_back() {
    let url = e2e_support::postgres::fresh_database().await;
    let name = url.rsplit_once('/').unwrap().1.to_owned();
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;
    assert_eq!(h.get("/service-accounts?page_size=1", "admin").await.status, 200);

    e2e_support::postgres::on_server(&format!("DROP DATABASE {name} WITH (FORCE)")).await;
    e2e_support::postgres::on_server(&format!("CREATE DATABASE {name}")).await;

    let create: &[u8] = br#"{"name": "svc-north-new", "tenant": "north"}"#;
    let cases = [
        (Method::GET, "/service-accounts?page_size=1", Some("admin"), None),
        (Method::GET, "/service-accounts/count", Some("north"), None),
        (Method::GET, "/service-accounts/sa-000001", Some("admin"), None),
        (Method::POST, "/service-accounts", Some("admin"), Some(create)),
        (Method::GET, "/service-accounts?page_size=1", Some("admin"), None),
    ];
    for (method, path, token, body) in cases {
        let answer = h.send(method.clone(), path, token, body.map(<[u8]>::to_vec)).await;
        answer.assert_problem(503, "SERVICE_UNAVAILABLE");
        assert_eq!(answer.retry_after.as_deref(), Some("5"), "{method} {path}");
        let detail = answer.body["detail"].as_str().unwrap_or_default();
        for internal in [name.as_str(), "does not exist", "relation", "42P01"] {
            assert!(!detail.contains(internal), "{method} {path} leaks '{internal}': {detail}");
        }
    }

    let other = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;
    assert_eq!(other.get("/service-accounts?page_size=1", "admin").await.status, 200);
    let again = h.get("/service-accounts?page_size=1", "admin").await;
    assert_eq!(again.status, 200, "{:?}", again.body);
}

/// A database caught while it is loaded again (`pg_restore --clean` has created `meta` but not
/// yet copied its rows) has no snapshot counter: an outage, answered 503 with `Retry-After`, not
/// an internal error, until the counter is back.
#[tokio::test]
async fn a_database_without_its_snapshot_counter_is_a_503_until_it_is_back() {
    let url = e2e_support::postgres::fresh_database().await;
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;
    assert_eq!(h.get("/service-accounts?page_size=1", "admin").await.status, 200);
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("the test database");
    let connection = tokio::spawn(connection);
    let current: i64 = client.query_one("SELECT value FROM meta WHERE key = 'current'", &[]).await.unwrap().get(0);
    client.execute("DELETE FROM meta WHERE key = 'current'", &[]).await.unwrap();
    let create: &[u8] = br#"{"name": "svc-north-new", "tenant": "north"}"#;
    for (method, path, body) in [
        (Method::GET, "/service-accounts?page_size=1", None),
        (Method::GET, "/service-accounts/count", None),
        (Method::POST, "/service-accounts", Some(create)),
    ] {
        let answer = h.send(method.clone(), path, Some("admin"), body.map(<[u8]>::to_vec)).await;
        answer.assert_problem(503, "SERVICE_UNAVAILABLE");
        assert_eq!(answer.retry_after.as_deref(), Some("5"), "{method} {path}");
    }
    client.execute("INSERT INTO meta (key, value) VALUES ('current', $1)", &[&current]).await.unwrap();
    assert_eq!(h.get("/service-accounts?page_size=1", "admin").await.status, 200);
    drop(client);
    let _ = connection.await;
}

#[tokio::test]
async fn the_openapi_document_declares_the_outage_answer_of_every_authenticated_operation() {
    let h = Harness::start(config(5)).await;
    let doc = h.send(Method::GET, "/openapi.json", None, None).await.body;
    let mut authenticated = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            if operation["security"] == Value::Array(Vec::new()) {
                continue;
            }
            authenticated += 1;
            let outage = &operation["responses"]["503"];
            let description = outage["description"].as_str().unwrap_or_default();
            assert!(description.contains("SERVICE_UNAVAILABLE"), "{method} {path}: {outage}");
            assert!(outage["headers"]["Retry-After"].is_object(), "{method} {path}: {outage}");
        }
    }
    assert!(authenticated >= 8, "{authenticated} authenticated operations");
}

/// A server that turns read-only under the running service (a failover to a standby, here
/// `default_transaction_read_only`) still answers reads, and refuses each write with the 503 of
/// an outage and `Retry-After`, never a 500, writing nothing; writes pass again once it takes
/// them.
#[tokio::test]
async fn a_server_turned_read_only_refuses_writes_with_a_503_until_it_takes_them_again() {
    let url = e2e_support::postgres::fresh_database().await;
    let name = url.rsplit_once('/').unwrap().1.to_owned();
    let h = Harness::start(Config { db: Some(url.clone().into()), ..config(20) }).await;
    let read_only = |on: bool| {
        let name = name.clone();
        async move {
            let setting = if on { "on" } else { "off" };
            e2e_support::postgres::on_server(&format!(
                "ALTER DATABASE {name} SET default_transaction_read_only = {setting}"
            ))
            .await;
            // Sessions take the setting when they start: end the pool's.
            e2e_support::postgres::on_server(&format!(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
            ))
            .await;
        }
    };
    let account = "/service-accounts/sa-000001";
    let owner = serde_json::json!({"owner": "li"});
    read_only(true).await;
    let before = past_ended_connections(|| h.get(account, "admin")).await;
    assert_eq!(before.status, 200, "reads still work: {:?}", before.body);
    let patched = past_ended_connections(|| h.patch(account, "admin", &owner)).await;
    patched.assert_problem(503, "SERVICE_UNAVAILABLE");
    assert_eq!(patched.retry_after.as_deref(), Some("5"), "{patched:?}");
    // Said as it is, not as a database that cannot be reached: an operator looks for a failover.
    let detail = patched.body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("takes no writes now") && detail.contains("reads are still served"), "{detail}");
    assert!(!detail.contains("cannot be reached"), "{detail}");
    let after = past_ended_connections(|| h.get(account, "admin")).await;
    assert_eq!(after.body, before.body, "nothing was written");
    // A write the database never saw (a credential name it could not hold) does not end the
    // outage, in the log or the gauge.
    assert!(h.running.state.health.in_outage(), "the read-only outage is under way");
    h.post("/credentials/no%00rth/revoke-tenant/north", "admin", &serde_json::json!({}))
        .await
        .assert_problem(404, "NOT_FOUND");
    assert!(h.running.state.health.in_outage(), "a write the database never saw does not end it");

    read_only(false).await;
    let patched = past_ended_connections(|| h.patch(account, "admin", &owner)).await;
    assert_eq!(patched.status, 200, "{:?}", patched.body);
}

/// The answer of `send` once it meets none of the pool's connections the test ended itself (as a
/// failover does: the pool finds each dead on its next use, and that request gets the outage's
/// 503 with `Retry-After`): asked again, as a client does, at most ten times, without the wait.
async fn past_ended_connections<F, Sent>(send: F) -> e2e_support::Answer
where
    F: Fn() -> Sent,
    Sent: std::future::Future<Output = e2e_support::Answer>,
{
    let mut answer = send().await;
    for _ in 0..10 {
        let cut =
            answer.status == 503 && answer.body["detail"].as_str().unwrap_or_default().contains("cannot be reached");
        if !cut {
            break;
        }
        answer = send().await;
    }
    answer
}
