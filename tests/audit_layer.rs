//! The audit layer through a real `Router`: bare arrays and unreported lists are flagged,
//! enveloped responses are not, large and streamed bodies, errors and empty bodies pass
//! untouched, bad JSON is counted, and the bytes a client receives are the same with and
//! without the layer.

use axum::body::{Body, Bytes};
use axum::http::{Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Json, Router};
use completeness::audit_layer::{AUDIT_HEADER, AuditLayer, AuditSnapshot, OTHER_METHOD, RouteCounts, UNMATCHED_ROUTE};
use completeness::reason::VisibilityRestricted;
use completeness::{Envelope, Scope};
use serde_json::json;
use tower::ServiceExt;

const LIMIT: usize = 1024;

fn scope() -> Scope {
    Scope::new("names", "every name")
}

fn json_response(text: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn app() -> Router {
    let users = Router::new().route("/{id}/groups", get(|| async { Json(vec!["admins"]) }));
    Router::new()
        .route("/bare", get(|| async { Json(vec![1, 2, 3]) }))
        .route("/empty-bare", get(|| async { Json(Vec::<u32>::new()) }))
        .route("/object", get(|| async { Json(json!({"items": [1, 2], "next": null})) }))
        .route("/single", get(|| async { Json(json!({"id": 1, "name": "a"})) }))
        .route("/complete", get(|| async { Envelope::<String>::complete(vec!["a".to_owned()], scope()) }))
        .route("/complete-empty", get(|| async { Envelope::<String>::complete(vec![], scope()) }))
        .route(
            "/incomplete",
            get(|| async {
                Envelope::<String>::incomplete(vec!["a".to_owned()], scope(), VisibilityRestricted::new())
            }),
        )
        .route(
            "/incomplete-empty",
            get(|| async { Envelope::<String>::incomplete(vec![], scope(), VisibilityRestricted::new()) }),
        )
        .route("/large", get(|| async { Json(vec![7u32; LIMIT]) }))
        .route(
            "/streamed",
            get(|| async {
                let chunks = vec![Ok::<_, std::io::Error>(Bytes::from_static(b"[1,")), Ok(Bytes::from_static(b"2]"))];
                ([(header::CONTENT_TYPE, "application/json")], Body::from_stream(futures_util::stream::iter(chunks)))
            }),
        )
        .route("/bad", get(|| async { json_response("[1, 2,") }))
        .route("/trailing", get(|| async { json_response("{} []") }))
        .route("/concatenated", get(|| async { json_response("[1] [2]") }))
        .route("/rejected", get(|| async { (StatusCode::UNPROCESSABLE_ENTITY, Json(vec!["bad field"])) }))
        .route("/no-content", get(|| async { (StatusCode::NO_CONTENT, json_response("")) }))
        .route("/text", get(|| async { "[1, 2, 3]" }))
        .route("/hal", get(|| async { ([(header::CONTENT_TYPE, "application/hal+json")], "[1, 2]").into_response() }))
        .route(
            "/problem",
            get(|| async { ([(header::CONTENT_TYPE, "application/problem+json")], "[1, 2]").into_response() }),
        )
        .nest("/users", users)
}

async fn fetch(app: &Router, path: &str) -> (StatusCode, Option<String>, Bytes) {
    send(app, Method::GET, path).await
}

async fn send(app: &Router, method: Method, path: &str) -> (StatusCode, Option<String>, Bytes) {
    let request = Request::builder().method(method).uri(path).body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let flag = response.headers().get(AUDIT_HEADER).map(|v| v.to_str().unwrap().to_owned());
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, flag, bytes)
}

fn audited() -> (AuditLayer, Router) {
    let audit = AuditLayer::new().max_bytes(LIMIT).with_header();
    (audit.clone(), app().layer(audit))
}

fn counts(snapshot: &AuditSnapshot, route: &str) -> RouteCounts {
    snapshot.routes.get(route).cloned().unwrap_or_else(|| panic!("no counts for {route}: {snapshot:#?}"))
}

#[tokio::test]
async fn arrays_and_unreported_lists_are_flagged_per_route() {
    let (audit, app) = audited();
    assert_eq!(fetch(&app, "/bare").await.1.as_deref(), Some("bare-array"));
    assert_eq!(fetch(&app, "/bare").await.1.as_deref(), Some("bare-array"));
    assert_eq!(
        fetch(&app, "/empty-bare").await.1.as_deref(),
        Some("bare-array"),
        "an empty bare list proves nothing either"
    );
    assert_eq!(fetch(&app, "/object").await.1.as_deref(), Some("array-without-complete"));
    assert_eq!(fetch(&app, "/users/7/groups").await.1.as_deref(), Some("bare-array"));
    let snapshot = audit.snapshot();
    assert_eq!(
        counts(&snapshot, "GET /bare"),
        RouteCounts { json_responses: 2, inspected: 2, bare_array: 2, ..Default::default() }
    );
    assert_eq!(counts(&snapshot, "GET /object").array_without_complete, 1);
    assert_eq!(counts(&snapshot, "GET /users/{id}/groups").bare_array, 1, "counted by matched route, not by URI");
    assert_eq!(snapshot.flagged(), 5);
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(json["routes"]["GET /bare"]["bare_array"], 2, "the snapshot serializes: {json}");
}

#[tokio::test]
async fn enveloped_and_single_responses_are_not_flagged() {
    let (audit, app) = audited();
    for path in ["/complete", "/complete-empty", "/incomplete", "/incomplete-empty", "/single"] {
        let (status, flag, _) = fetch(&app, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(flag, None, "{path}");
        let counts = counts(&audit.snapshot(), &format!("GET {path}"));
        assert_eq!(counts, RouteCounts { json_responses: 1, inspected: 1, ..Default::default() }, "{path}");
    }
    assert_eq!(audit.snapshot().flagged(), 0);
}

#[tokio::test]
async fn large_and_streamed_bodies_pass_untouched_and_are_counted_as_not_inspected() {
    let (audit, app) = audited();
    let (_, flag, large) = fetch(&app, "/large").await;
    assert_eq!(flag, None);
    assert!(large.len() > LIMIT);
    let (_, flag, streamed) = fetch(&app, "/streamed").await;
    assert_eq!(flag, None);
    assert_eq!(&streamed[..], b"[1,2]");
    let snapshot = audit.snapshot();
    for route in ["GET /large", "GET /streamed"] {
        assert_eq!(counts(&snapshot, route), RouteCounts { json_responses: 1, not_inspected: 1, ..Default::default() });
    }
}

#[tokio::test]
async fn bad_json_is_counted_never_an_error_to_the_client() {
    let (audit, app) = audited();
    for (path, body) in [("/bad", &b"[1, 2,"[..]), ("/trailing", &b"{} []"[..]), ("/concatenated", &b"[1] [2]"[..])] {
        let (status, flag, bytes) = fetch(&app, path).await;
        assert_eq!((status, flag, &bytes[..]), (StatusCode::OK, None, body), "{path}");
        assert_eq!(
            counts(&audit.snapshot(), &format!("GET {path}")),
            RouteCounts { json_responses: 1, inspected: 1, bad_json: 1, ..Default::default() },
            "{path}"
        );
    }
}

#[tokio::test]
async fn error_and_empty_responses_pass_untouched_and_are_counted_as_not_inspected() {
    let (audit, app) = audited();
    let (status, flag, bytes) = fetch(&app, "/rejected").await;
    assert_eq!((status, flag, &bytes[..]), (StatusCode::UNPROCESSABLE_ENTITY, None, &b"[\"bad field\"]"[..]));
    let (status, flag, bytes) = fetch(&app, "/no-content").await;
    assert_eq!((status, flag, &bytes[..]), (StatusCode::NO_CONTENT, None, &b""[..]));
    let snapshot = audit.snapshot();
    for route in ["GET /rejected", "GET /no-content"] {
        assert_eq!(
            counts(&snapshot, route),
            RouteCounts { json_responses: 1, not_inspected: 1, ..Default::default() },
            "{route}: no list, no bad JSON"
        );
    }
    assert_eq!(snapshot.flagged(), 0);
}

#[tokio::test]
async fn around_the_router_as_a_tower_service_every_route_is_unmatched() {
    // `Router::layer` runs the layer once the route is matched; an outer service runs before.
    let audit = AuditLayer::new();
    let outer = tower::Layer::layer(&audit, app());
    for path in ["/bare", "/users/7/groups"] {
        let request = Request::builder().uri(path).body(Body::empty()).unwrap();
        outer.clone().oneshot(request).await.unwrap();
    }
    let snapshot = audit.snapshot();
    let keys: Vec<&String> = snapshot.routes.keys().collect();
    assert_eq!(keys, [&format!("GET {UNMATCHED_ROUTE}")]);
    assert_eq!(counts(&snapshot, &format!("GET {UNMATCHED_ROUTE}")).bare_array, 2);
}

#[tokio::test]
async fn responses_that_are_not_json_are_not_counted() {
    let (audit, app) = audited();
    fetch(&app, "/text").await;
    fetch(&app, "/problem").await;
    assert!(!audit.snapshot().routes.contains_key("GET /text"));
    assert!(!audit.snapshot().routes.contains_key("GET /problem"), "a problem is no list");
    // Another JSON type (`application/hal+json`) is read as the JSON it is.
    assert_eq!(fetch(&app, "/hal").await.1.as_deref(), Some("bare-array"));
}

#[tokio::test]
async fn the_body_bytes_are_identical_with_and_without_the_layer() {
    let (_, with) = audited();
    let without = app();
    for path in [
        "/bare",
        "/empty-bare",
        "/object",
        "/single",
        "/complete",
        "/complete-empty",
        "/incomplete",
        "/incomplete-empty",
        "/large",
        "/streamed",
        "/bad",
        "/trailing",
        "/concatenated",
        "/rejected",
        "/no-content",
        "/text",
        "/users/1/groups",
    ] {
        let (status_with, _, bytes_with) = fetch(&with, path).await;
        let (status_without, _, bytes_without) = fetch(&without, path).await;
        assert_eq!(status_with, status_without, "{path}");
        assert_eq!(bytes_with, bytes_without, "{path}");
    }
}

#[tokio::test]
async fn without_with_header_no_header_is_added() {
    let audit = AuditLayer::new();
    let app = app().layer(audit.clone());
    assert_eq!(fetch(&app, "/bare").await.1, None);
    assert_eq!(audit.snapshot().flagged(), 1, "still counted");
}

#[tokio::test]
async fn a_route_declared_bounded_counts_objects_as_bounded_but_still_flags_bare_arrays() {
    let audit = AuditLayer::new().with_header().bounded("GET /object").bounded("GET /bare");
    let app = app().layer(audit.clone());
    assert_eq!(fetch(&app, "/object").await.1, None);
    assert_eq!(fetch(&app, "/bare").await.1.as_deref(), Some("bare-array"));
    let snapshot = audit.snapshot();
    assert_eq!(
        counts(&snapshot, "GET /object"),
        RouteCounts { json_responses: 1, inspected: 1, bounded: 1, ..Default::default() }
    );
    assert_eq!(snapshot.flagged(), 1);
}

#[tokio::test]
async fn requests_no_route_matched_share_one_entry_per_method_however_many_paths_are_scanned() {
    let audit = AuditLayer::new();
    // A fallback that answers a list (rule 1 inspects successes only).
    let app = app().fallback(|| async { Json(vec!["no such route"]) }).layer(audit.clone());
    for i in 0..200 {
        let (status, _, _) = fetch(&app, &format!("/scan/{i}.php")).await;
        assert_eq!(status, StatusCode::OK);
        send(&app, Method::POST, &format!("/scan/{i}.php")).await;
    }
    let snapshot = audit.snapshot();
    let keys: Vec<&String> = snapshot.routes.keys().collect();
    assert_eq!(keys, ["GET (unmatched)", "POST (unmatched)"], "the method, as for a matched route");
    assert_eq!(counts(&snapshot, &format!("GET {UNMATCHED_ROUTE}")).bare_array, 200);
    assert_eq!(counts(&snapshot, &format!("POST {UNMATCHED_ROUTE}")).bare_array, 200);
}

#[tokio::test]
async fn invented_methods_share_one_entry_matched_or_not() {
    let audit = AuditLayer::new();
    let app = app()
        .route("/anything", any(|| async { Json(vec![1]) }))
        .fallback(|| async { Json(vec!["no such route"]) })
        .layer(audit.clone());
    for i in 0..100 {
        let method = Method::from_bytes(format!("SCAN{i}").as_bytes()).unwrap();
        send(&app, method.clone(), "/anything").await;
        send(&app, method, &format!("/scan/{i}")).await;
    }
    send(&app, Method::PUT, "/anything").await;
    let snapshot = audit.snapshot();
    let keys: Vec<&String> = snapshot.routes.keys().collect();
    assert_eq!(keys, ["OTHER (unmatched)", "OTHER /anything", "PUT /anything"]);
    assert_eq!(counts(&snapshot, &format!("{OTHER_METHOD} /anything")).bare_array, 100);
    assert_eq!(counts(&snapshot, &format!("{OTHER_METHOD} {UNMATCHED_ROUTE}")).bare_array, 100);
}

/// A route mid-migration answers lists all day: every flag is counted, in the snapshot and in
/// `completeness_audit_flags_total` by route, method and problem. (That only the first flag of
/// a route for a problem is a warning is a unit test of the layer's: tracing's callsite cache is
/// the process's, which other tests of this binary fill from their threads.)
#[test]
fn every_flag_is_counted_by_route_method_and_problem() {
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let metrics = recorder.handle();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let (audit, app) = audited();
    metrics::with_local_recorder(&recorder, || {
        runtime.block_on(async {
            for _ in 0..3 {
                assert_eq!(fetch(&app, "/bare").await.1.as_deref(), Some("bare-array"));
            }
            assert_eq!(fetch(&app, "/object").await.1.as_deref(), Some("array-without-complete"));
        })
    });
    assert_eq!(counts(&audit.snapshot(), "GET /bare").bare_array, 3);
    let text = metrics.render();
    let line = r#"completeness_audit_flags_total{route="/bare",method="GET",problem="bare-array"} 3"#;
    assert!(text.contains(line), "{text}");
    let line = r#"completeness_audit_flags_total{route="/object",method="GET",problem="array-without-complete"} 1"#;
    assert!(text.contains(line), "{text}");
}
