//! End to end over HTTP: malformed requests each get a 4xx problem with a stable code, and
//! the database is exactly as it was afterwards.

use crate::e2e_support;

use e2e_support::{Harness, config, encode};
use reqwest::Method;

e2e_support::both_backends! {
#[tokio::test]
async fn every_malformed_request_gets_a_4xx_problem_with_a_stable_code_and_changes_nothing() {
    let h = Harness::start(config(40)).await;
    let before = h.store().fingerprint().await.unwrap();
    let versions = h.store().version_count().await.unwrap();

    let first = h.get("/service-accounts?page_size=3", "admin").await;
    let cursor = first.body["next_cursor"].as_str().unwrap().to_owned();
    let mut tampered = cursor.clone().into_bytes();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    // Longer than the service's URI limit, within what an HTTP/1 client can send (64 KiB).
    let big_cursor = "c1.k1.".to_owned() + &"A".repeat(60_000);

    let get =
        |path: String, code: &'static str, status: u16| (Method::GET, path, Some("admin"), None::<&str>, status, code);
    let body = |method: Method, path: &str, json: &'static str, code: &'static str, status: u16| {
        (method, path.to_owned(), Some("admin"), Some(json), status, code)
    };
    let cases = vec![
        get("/service-accounts?page_size=0".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?page_size=-5".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?page_size=ten".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?page_size=1.5".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?page_size=".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?cursor=garbage".into(), "INVALID_CURSOR", 400),
        get("/service-accounts?cursor=".into(), "INVALID_CURSOR", 400),
        get(format!("/service-accounts?page_size=3&cursor={}", encode(&tampered)), "INVALID_CURSOR", 400),
        get(format!("/service-accounts?cursor={big_cursor}"), "URI_TOO_LONG", 414),
        get("/search?q=svc&time_budget_ms=-1".into(), "INVALID_TIME_BUDGET", 400),
        get("/search?q=svc&time_budget_ms=0".into(), "INVALID_TIME_BUDGET", 400),
        get("/search?q=svc&time_budget_ms=soon".into(), "INVALID_TIME_BUDGET", 400),
        get("/search".into(), "INVALID_REQUEST", 400),
        // A `q` no name can contain (names are lower-case letters, digits and '-', at most 64):
        // not "0 results, complete", read as "no such account".
        get("/search?q=SVC-north".into(), "INVALID_REQUEST", 400),
        get("/search?q=svc-north%20".into(), "INVALID_REQUEST", 400),
        get("/search?q=svc_north".into(), "INVALID_REQUEST", 400),
        get(format!("/search?q={}", "a".repeat(65)), "INVALID_REQUEST", 400),
        // Escapes a decoder would have to guess at: not read as text the client never sent.
        get("/search?q=%FF".into(), "INVALID_REQUEST", 400),
        get("/search?q=svc%zz".into(), "INVALID_REQUEST", 400),
        get("/search?q=svc%".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?owner=%C3".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?page_size=%FF".into(), "INVALID_REQUEST", 400),
        get("/service-accounts/count?tenant=north&x%FF=1".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?require_complete=maybe".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?ownr=none".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?tenant=west".into(), "INVALID_REQUEST", 400),
        get("/service-accounts?page_size=2&page_size=3".into(), "INVALID_PAGE_SIZE", 400),
        get("/service-accounts?owner=none&owner=none".into(), "INVALID_REQUEST", 400),
        get("/service-accounts/sa-000001?fields=password".into(), "INVALID_REQUEST", 400),
        get("/no-such-route".into(), "NOT_FOUND", 404),
        body(Method::POST, "/service-accounts", r#"{"name": "svc-x", "tenant":"#, "INVALID_BODY", 400),
        body(Method::POST, "/service-accounts", "not json at all", "INVALID_BODY", 400),
        body(Method::POST, "/service-accounts", r#"{"name": 5, "tenant": "north"}"#, "INVALID_BODY", 400),
        body(Method::POST, "/service-accounts", r#"{"name": "svc-x", "tenant": "west"}"#, "INVALID_BODY", 400),
        body(Method::POST, "/service-accounts", r#"{"name": "Not Valid!", "tenant": "north"}"#, "INVALID_BODY", 400),
        body(
            Method::POST,
            "/service-accounts",
            r#"{"name": "svc-x", "tenant": "north", "admin": true}"#,
            "INVALID_BODY",
            400,
        ),
        body(Method::POST, "/service-accounts", r#"[1, 2, 3]"#, "INVALID_BODY", 400),
        // The members as an array in field order, which serde's derive would take for the object.
        body(Method::POST, "/service-accounts", r#"["svc-array", "north"]"#, "INVALID_BODY", 400),
        body(Method::POST, "/service-accounts", r#"{"name": "svc-x", "name": "svc-y", "tenant": "north"}"#, "INVALID_BODY", 400),
        body(Method::PATCH, "/service-accounts/sa-000001", r#"{}"#, "INVALID_BODY", 400),
        body(Method::PATCH, "/service-accounts/sa-000001", r#"{"owner": 42}"#, "INVALID_BODY", 400),
        body(Method::PATCH, "/service-accounts/sa-000001", r#"{"owner": "x", "tenant": "east"}"#, "INVALID_BODY", 400),
        body(Method::PATCH, "/service-accounts/sa-999999", r#"{"owner": "x"}"#, "NOT_FOUND", 404),
        body(Method::POST, "/service-accounts/archive", r#"{"ids": ["sa-000001"], "evidence":"#, "INVALID_BODY", 400),
        body(
            Method::POST,
            "/service-accounts/archive",
            r#"{"ids": "sa-000001", "evidence": "ev1.x.y.z"}"#,
            "INVALID_BODY",
            400,
        ),
        body(Method::POST, "/service-accounts/archive", r#"{"ids": ["sa-000001"]}"#, "EVIDENCE_REQUIRED", 428),
        body(
            Method::POST,
            "/service-accounts/archive",
            r#"{"ids": ["sa-000001"], "evidence": "forged"}"#,
            "EVIDENCE_INVALID",
            412,
        ),
        body(Method::POST, "/credentials/admin/revoke-tenant/west", "{}", "INVALID_REQUEST", 400),
        body(Method::POST, "/credentials/mallory/revoke-tenant/east", "{}", "NOT_FOUND", 404),
        (Method::DELETE, "/service-accounts/sa-999999".into(), Some("admin"), None, 404, "NOT_FOUND"),
        (Method::PUT, "/service-accounts".into(), Some("admin"), None, 405, "METHOD_NOT_ALLOWED"),
        (Method::GET, "/service-accounts".into(), None, None, 401, "UNAUTHENTICATED"),
        (Method::GET, "/service-accounts".into(), Some("root"), None, 401, "UNAUTHENTICATED"),
        (Method::DELETE, "/service-accounts/sa-000001".into(), None, None, 401, "UNAUTHENTICATED"),
        (
            Method::POST,
            "/service-accounts".into(),
            Some("north"),
            Some(r#"{"name": "svc-x", "tenant": "south"}"#),
            403,
            "FORBIDDEN",
        ),
        (Method::POST, "/credentials/north/revoke-tenant/north".into(), Some("south"), Some("{}"), 403, "FORBIDDEN"),
    ];
    assert!(cases.len() >= 20);
    for (method, path, token, json, status, code) in cases {
        let answer = h.send(method.clone(), &path, token, json.map(|j| j.as_bytes().to_vec())).await;
        let shown: String = path.chars().take(80).collect();
        assert_eq!(answer.status.as_u16(), status, "{method} {shown}: {:?}", answer.body);
        answer.assert_problem(status, code);
        assert!(answer.body["detail"].as_str().is_some_and(|d| !d.is_empty()), "{method} {shown} explains itself");
        // RFC 9110, section 11.6.1: a 401 names the scheme to authenticate with.
        let challenge = (status == 401).then_some("Bearer");
        assert_eq!(answer.www_authenticate.as_deref(), challenge, "{method} {shown}");
    }

    // A 1 MB cursor cannot even be put in a URI by an HTTP client library; sent raw, the HTTP
    // layer refuses the oversized request head with a bodiless 4xx before the application sees
    // it (a refusal that cannot carry a problem; see `refusals`).
    let huge = format!(
        "GET /service-accounts?cursor=c1.k1.{} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
         Connection: close\r\n\r\n",
        "A".repeat(1 << 20)
    );
    let (status, _) = h.raw(&huge).await;
    assert!(status.starts_with("HTTP/1.1 4"), "{status}");
    // Likewise a body length the HTTP layer cannot read (documented with the refusals): a 400
    // without a body.
    for length in ["Content-Length: abc", "Content-Length: -1", "Content-Length: 2\r\nContent-Length: 3"] {
        let request = format!(
            "POST /service-accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
             Content-Type: application/json\r\n{length}\r\nConnection: close\r\n\r\n{{}}"
        );
        let (status, rest) = h.raw(&request).await;
        assert!(status.starts_with("HTTP/1.1 400"), "{length}: {status}");
        assert!(rest.to_ascii_lowercase().contains("content-length: 0\r\n"), "{length}: {rest}");
    }

    // A PATCH naming a member that cannot change is told which, before it is told that `owner`
    // is missing: an attempt to rename is not answered "must name `owner`".
    for (json, member) in [(r#"{"name": "svc-renamed"}"#, "name"), (r#"{"owner": "x", "tenant": "east"}"#, "tenant")] {
        let answer =
            h.send(Method::PATCH, "/service-accounts/sa-000001", Some("admin"), Some(json.as_bytes().to_vec())).await;
        answer.assert_problem(400, "INVALID_BODY");
        let detail = answer.body["detail"].as_str().unwrap_or_default();
        assert!(detail.starts_with(&format!("`{member}` cannot be changed")), "{json}: {detail}");
    }

    assert_eq!(h.store().fingerprint().await.unwrap(), before, "no malformed request changed the database");
    assert_eq!(h.store().version_count().await.unwrap(), versions);
}
}
