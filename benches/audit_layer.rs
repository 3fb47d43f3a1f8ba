//! In-process requests per second of a 100-item JSON list handler with and without the audit
//! layer around the router. Prints the throughput ratio, measured in the same run (target >= 0.9).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::Request;
use axum::routing::get;
use axum::{Json, Router};
use completeness::audit_layer::AuditLayer;
use serde::Serialize;
use tower::ServiceExt;

#[path = "support/paired.rs"]
mod paired;

use paired::Paired;

#[derive(Clone, Serialize)]
struct Item {
    id: String,
    name: String,
    tenant: String,
    owner: Option<String>,
    created_at: String,
}

fn items() -> Vec<Item> {
    (0..100)
        .map(|i| Item {
            id: format!("svc-north-{i:05}"),
            name: format!("deploy-bot-{i}"),
            tenant: "north".to_owned(),
            owner: (i % 3 == 0).then(|| "dana".to_owned()),
            created_at: "2026-01-01T00:00:00Z".to_owned(),
        })
        .collect()
}

/// The handler reads its 100 rows from shared state, as a handler reads a store.
async fn list(State(rows): State<Arc<Vec<Item>>>) -> Json<Vec<Item>> {
    Json(rows.as_ref().clone())
}

fn router() -> Router {
    Router::new().route("/items", get(list)).with_state(Arc::new(items()))
}

async fn call(router: &Router) -> usize {
    let response = router.clone().oneshot(Request::get("/items").body(Body::empty()).unwrap()).await.unwrap();
    assert!(response.status().is_success());
    axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().len()
}

/// Mean time per request over `rounds` requests.
fn time_per_call(runtime: &tokio::runtime::Runtime, router: &Router, rounds: u32) -> Duration {
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..rounds {
            black_box(call(router).await);
        }
        start.elapsed() / rounds
    })
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let plain = router();
    let audit = AuditLayer::new().with_header();
    let audited = router().layer(audit.clone());
    let size = runtime.block_on(call(&audited));
    assert_eq!(audit.snapshot().flagged(), 1, "the layer inspects and flags the list");
    assert_eq!(size, runtime.block_on(call(&plain)), "same bytes with and without the layer");

    let plain_vs_audited =
        Paired::measure(31, || time_per_call(&runtime, &plain, 800), || time_per_call(&runtime, &audited, 800));
    let (plain_best, audited_best) = (plain_vs_audited.best_a, plain_vs_audited.best_b);
    let per_second = |d: Duration| 1.0 / d.as_secs_f64();
    println!("in-process requests per second, a 100-item JSON list of {size} bytes (same run):");
    println!("  without the audit layer  {:>10.0} req/s (best {plain_best:.2?} per request)", per_second(plain_best));
    println!(
        "  with the audit layer     {:>10.0} req/s (best {audited_best:.2?} per request)",
        per_second(audited_best)
    );
    println!("  throughput ratio with/without: {}; target >= 0.9", plain_vs_audited.summary());
}
