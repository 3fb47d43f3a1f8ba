//! In-process requests per second of the inventory list handler (100 items per page) versus a
//! bare axum handler returning `Json<Vec<Item>>` of the same rows; and of the list handler with
//! an operator's tracing subscriber (the request log and the framework's events, formatted at
//! `info` into a byte counter) and a Prometheus metrics recorder installed versus without them;
//! and of the bare handler, under the same request log, with versus without them, which is what
//! observing costs with nothing of completeness in the request. Prints the throughput ratios,
//! measured in the same run, each with a 95% interval of its median, and the bare handler
//! against itself: the ratio this run's noise alone produces. `benches/handler_instructions.sh`
//! counts the same sides in instructions instead.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::Request;
use axum::routing::get;
use axum::{Json, middleware};
use criterion::Criterion;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusRecorder};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tracing::Dispatch;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

#[path = "support/paired.rs"]
mod paired;
#[allow(dead_code)] // the bench drives the example service's router, not all of its parts
#[path = "../examples/service_accounts/service/mod.rs"]
mod service;

use paired::Paired;

use service::db::{Filter, ListItem, OwnerFilter};
use service::seed::TENANTS;
use service::{AppState, Config};

const PAGE: usize = 100;

/// The plain alternative: the same first 100 rows at the current snapshot, as a bare JSON array.
async fn bare(State(state): State<AppState>) -> Json<Vec<ListItem>> {
    let all = Filter { owner: OwnerFilter::Any, tenants: TENANTS.iter().map(|t| (*t).to_owned()).collect() };
    let snapshot = state.store.current_snapshot().await.unwrap();
    Json(state.store.page(snapshot, None, &all, PAGE).await.unwrap())
}

async fn call(router: &Router, uri: &str) -> usize {
    let request = Request::get(uri)
        .header("host", "localhost")
        .header("authorization", "Bearer admin")
        .body(Body::empty())
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert!(response.status().is_success());
    axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().len()
}

/// What an operator installs: a subscriber formatting `info` events (into a writer that only
/// counts the bytes, not a terminal) and a Prometheus recorder.
struct Observers {
    subscriber: Dispatch,
    recorder: PrometheusRecorder,
    logged: Arc<AtomicU64>,
}

/// A log writer that keeps nothing but the number of bytes written.
#[derive(Clone)]
struct CountingWriter(Arc<AtomicU64>);

impl std::io::Write for CountingWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Observers {
    fn new() -> Observers {
        let logged = Arc::new(AtomicU64::new(0));
        let writer = CountingWriter(logged.clone());
        let log = service::telemetry::human_layer(move || writer.clone(), false);
        let subscriber = Dispatch::new(tracing_subscriber::registry().with(log).with(LevelFilter::INFO));
        Observers { subscriber, recorder: PrometheusBuilder::new().build_recorder(), logged }
    }

    /// Bytes the subscriber has written so far.
    fn logged(&self) -> u64 {
        self.logged.load(Ordering::Relaxed)
    }

    /// Runs `f` with the subscriber and the recorder installed on this thread.
    fn installed<T>(&self, f: impl FnOnce() -> T) -> T {
        tracing::dispatcher::with_default(&self.subscriber, || metrics::with_local_recorder(&self.recorder, f))
    }
}

/// Mean time per request over `rounds` requests.
fn time_per_call(runtime: &tokio::runtime::Runtime, router: &Router, uri: &str, rounds: u32) -> Duration {
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..rounds {
            black_box(call(router, uri).await);
        }
        start.elapsed() / rounds
    })
}

/// Paired samples per comparison, and requests per sample.
const SAMPLES: u32 = 101;
const ROUNDS: u32 = 600;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let config = Config { addr: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
    let (state, annotated) =
        runtime.block_on(service::build(config, CancellationToken::new())).expect("the service builds");
    // The bare handler gets the example's middleware too (authentication, the refusals of bad
    // requests, their observation and the request log): only the handler differs.
    let plain = service::routes::outside(
        Router::new()
            .route("/bare", get(bare))
            .route_layer(middleware::from_fn(service::routes::refuse_unread_input))
            .route_layer(middleware::from_fn_with_state(state.clone(), service::routes::authenticate))
            .route_layer(middleware::map_response(service::routes::challenge)),
        state.config.read_timeout,
        state.stopping.clone(),
    )
    .with_state(state);
    let listed = "/service-accounts?page_size=100";
    runtime.block_on(async {
        let page: serde_json::Value = serde_json::from_slice(
            &axum::body::to_bytes(
                annotated
                    .clone()
                    .oneshot(
                        Request::get(listed)
                            .header("host", "localhost")
                            .header("authorization", "Bearer admin")
                            .body(Body::empty())
                            .unwrap(),
                    )
                    .await
                    .unwrap()
                    .into_body(),
                usize::MAX,
            )
            .await
            .unwrap(),
        )
        .unwrap();
        assert_eq!(page["items"].as_array().map(Vec::len), Some(PAGE), "the list handler returns 100 items");
        assert_eq!(page["complete"], false);
    });

    // `benches/handler_instructions.sh` counts one side at a time: no criterion, no pairs.
    if let Ok(side) = std::env::var("HANDLER_BENCH_SIDE") {
        let requests: u32 = std::env::var("HANDLER_BENCH_REQUESTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .expect("HANDLER_BENCH_REQUESTS is the number of requests to send");
        let (router, uri) = match side.trim_end_matches("_observed") {
            "bare" => (&plain, "/bare"),
            "list" => (&annotated, listed),
            other => panic!("HANDLER_BENCH_SIDE is bare, list, bare_observed or list_observed, not {other}"),
        };
        let run = || time_per_call(&runtime, router, uri, requests);
        if side.ends_with("_observed") {
            Observers::new().installed(run);
        } else {
            run();
        }
        return;
    }

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("list_100_items");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    group.bench_function("bare_json_vec", |b| b.iter(|| runtime.block_on(call(&plain, "/bare"))));
    group.bench_function("completeness_list", |b| b.iter(|| runtime.block_on(call(&annotated, listed))));
    let observers = Observers::new();
    observers.installed(|| {
        group.bench_function("completeness_list_observed", |b| b.iter(|| runtime.block_on(call(&annotated, listed))))
    });
    group.finish();

    let bare = || time_per_call(&runtime, &plain, "/bare", ROUNDS);
    let list = || time_per_call(&runtime, &annotated, listed, ROUNDS);
    let listed_vs_bare = Paired::measure(SAMPLES, bare, list);
    // Both sides the same: how far this run's noise alone moves a ratio.
    let bare_vs_bare = Paired::measure(SAMPLES, bare, bare);
    let logged_before = observers.logged();
    let observed_vs_quiet = Paired::measure(SAMPLES, list, || observers.installed(list));
    let logged_per_request = (observers.logged() - logged_before) / u64::from(SAMPLES * ROUNDS);
    assert!(logged_per_request > 0, "the subscriber formatted the request log of the observed requests");
    // The bare handler has the same request log: what observing costs with nothing of
    // completeness in the request.
    let bare_observed_vs_quiet = Paired::measure(SAMPLES, bare, || observers.installed(bare));
    let counted = observers.recorder.handle().render();
    assert!(counted.contains("completeness_responses_total"), "the recorder counted the answers:\n{counted}");

    let per_second = |d: Duration| 1.0 / d.as_secs_f64();
    let (bare_best, list_best) = (listed_vs_bare.best_a, listed_vs_bare.best_b);
    println!("\nin-process requests per second, 100 items per response (same run):");
    println!("  bare Json<Vec<Item>>       {:>10.0} req/s (best {bare_best:.2?} per request)", per_second(bare_best));
    println!("  completeness list handler  {:>10.0} req/s (best {list_best:.2?} per request)", per_second(list_best));
    println!("  throughput ratio list/bare: {}; target >= 0.95", listed_vs_bare.summary());
    println!(
        "  throughput ratio list/bare, fastest sample of each side: {:.3}",
        per_second(list_best) / per_second(bare_best)
    );
    println!("  the bare handler against itself (this run's noise): {}", bare_vs_bare.summary());
    let (quiet_best, observed_best) = (observed_vs_quiet.best_a, observed_vs_quiet.best_b);
    println!("\nthe list handler with a tracing subscriber and a metrics recorder installed (same run):");
    println!("  without                    {:>10.0} req/s (best {quiet_best:.2?} per request)", per_second(quiet_best));
    println!(
        "  with                       {:>10.0} req/s (best {observed_best:.2?} per request)",
        per_second(observed_best)
    );
    println!("  throughput ratio with/without: {}; target >= 0.97", observed_vs_quiet.summary());
    println!("  the subscriber wrote {logged_per_request} bytes of log per observed request");
    println!("  the bare handler, same request log, with/without: {}", bare_observed_vs_quiet.summary());
    criterion.final_summary();
}
