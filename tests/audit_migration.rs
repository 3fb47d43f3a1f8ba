//! The before-and-after example through the audit layer: the legacy service's lists are flagged,
//! the migrated one's counts are zero for the same requests.

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use completeness::audit_layer::{AuditLayer, AuditSnapshot};
use tower::ServiceExt;

#[allow(dead_code)]
#[path = "../examples/legacy_inventory/api/mod.rs"]
mod legacy;

#[allow(dead_code)]
#[path = "../examples/inventory_migrated/api/mod.rs"]
mod migrated;

const TOUR: [&str; 5] =
    ["/health", "/api/products", "/api/products/search?q=bolt", "/api/products/p-3", "/api/warehouses"];

async fn tour(app: Router, audit: &AuditLayer) -> AuditSnapshot {
    for path in TOUR {
        let response = app.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
        axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    }
    audit.snapshot()
}

#[tokio::test]
async fn the_legacy_service_is_flagged_on_every_list_route() {
    let audit = AuditLayer::new();
    let snapshot = tour(legacy::router().layer(audit.clone()), &audit).await;
    assert_eq!(
        snapshot.flagged_routes(),
        ["GET /api/products", "GET /api/products/search", "GET /api/products/{id}", "GET /api/warehouses"]
    );
    assert_eq!(snapshot.flagged(), 4);
}

#[tokio::test]
async fn the_migrated_service_counts_zero_flags() {
    let audit = AuditLayer::new().bounded("GET /api/products/{id}");
    let snapshot = tour(migrated::router().layer(audit.clone()), &audit).await;
    assert_eq!(snapshot.flagged(), 0, "{snapshot:#?}");
    assert_eq!(snapshot.routes["GET /api/products/{id}"].bounded, 1);
    assert_eq!(snapshot.routes.values().map(|c| c.inspected).sum::<u64>(), 4);
}

/// The migrated list pages for real: its first page stops at ten with `MORE_PAGES_AVAILABLE`,
/// and its cursor, given back, reads the other two products (where the legacy service gave a
/// cursor no route read back). A cursor it did not sign is refused.
#[tokio::test]
async fn the_migrated_list_pages_by_its_own_cursor() {
    let app = migrated::router();
    let get = |uri: String| {
        let app = app.clone();
        async move {
            let response = app.oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
            (status, serde_json::from_slice::<serde_json::Value>(&body).unwrap())
        }
    };
    let ids = |page: &serde_json::Value| -> Vec<String> {
        page["items"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_owned()).collect()
    };
    let (_, first) = get("/api/products".to_owned()).await;
    assert_eq!(ids(&first), (1..=10).map(|i| format!("p-{i}")).collect::<Vec<_>>());
    assert_eq!(first["incomplete_reasons"][0]["code"], "MORE_PAGES_AVAILABLE");
    let cursor = first["next_cursor"].as_str().unwrap();
    let (_, rest) = get(format!("/api/products?cursor={cursor}")).await;
    assert_eq!(ids(&rest), ["p-11", "p-12"]);
    assert_eq!((rest["complete"].clone(), rest["page"]["resumed"].clone()), (true.into(), true.into()), "{rest}");
    let (status, refused) = get("/api/products?cursor=after-p-10".to_owned()).await;
    assert_eq!((status.as_u16(), refused["code"].as_str()), (400, Some("INVALID_CURSOR")), "{refused}");
}

/// A client mistake on the migrated service is a problem with a stable code: the search read
/// without its `q`, and a cursor sent to the search or the warehouses, which never page.
#[tokio::test]
async fn the_migrated_service_answers_a_missing_parameter_with_a_problem() {
    for (uri, code) in [
        ("/api/products/search", "INVALID_REQUEST"),
        ("/api/products/search?q=bolt&cursor=x", "CURSOR_QUERY_MISMATCH"),
        ("/api/warehouses?cursor=x", "CURSOR_QUERY_MISMATCH"),
    ] {
        let response = migrated::router().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status().as_u16(), 400, "{uri}");
        assert_eq!(response.headers()["content-type"], "application/problem+json", "{uri}");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let problem: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(problem["code"], code, "{uri}: {problem}");
    }
}

/// The before-and-after examples take `--tour` or nothing: another argument (an `--addr` they do
/// not take) is refused with the usage and exit code 2, never ignored while they listen on their
/// own port. The tour itself runs on a port the system picks and prints every route's line.
#[tokio::test]
async fn the_examples_refuse_an_argument_they_do_not_take_and_tour_on_their_own() {
    for name in ["legacy_inventory", "inventory_migrated"] {
        let refused = run_bounded(name, &["--addr", "127.0.0.1:1"], 30).await;
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains("unexpected arguments") && stderr.contains("usage: [--tour]"), "{name}: {stderr}");
        let toured = run_bounded(name, &["--tour"], 60).await;
        let stdout = String::from_utf8_lossy(&toured.stdout);
        assert_eq!(toured.status.code(), Some(0), "{name}: {stdout}");
        for path in TOUR {
            assert!(stdout.contains(&format!("GET {path}")), "{name} toured {path}: {stdout}");
        }
    }
}

/// The built example `name` run with `args` to its end; a panic past `seconds` (an example that
/// ignored an argument would serve until stopped).
async fn run_bounded(name: &str, args: &[&str], seconds: u64) -> std::process::Output {
    let run = tokio::process::Command::new(crate::built_example::binary(name)).args(args).kill_on_drop(true).output();
    tokio::time::timeout(std::time::Duration::from_secs(seconds), run)
        .await
        .unwrap_or_else(|_| panic!("{name} {args:?} did not end within {seconds} s"))
        .expect("the example runs")
}
