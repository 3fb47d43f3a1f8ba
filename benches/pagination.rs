//! Keyset pagination on 1,000,000 accounts: the page at depth 900,000 versus the first page,
//! with the OFFSET query beside it for contrast. Prints both ratios, measured in the same run.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;

#[path = "support/paired.rs"]
mod paired;
#[allow(dead_code)] // the bench uses the store of the example service, not its HTTP side
#[path = "../examples/service_accounts/service/mod.rs"]
mod service;

use paired::Paired;
use service::db::{Filter, ListItem, OwnerFilter, SqliteStore};
use service::seed::TENANTS;

const ROWS: u32 = 1_000_000;
const DEPTH: usize = 900_000;
const PAGE: usize = 50;

/// Mean time per call of `f` over `rounds` calls.
fn time_per_call(rounds: u32, mut f: impl FnMut() -> Vec<ListItem>) -> Duration {
    let start = Instant::now();
    for _ in 0..rounds {
        black_box(f());
    }
    start.elapsed() / rounds
}

fn main() {
    let started = Instant::now();
    let store = SqliteStore::open(None, Duration::from_secs(3600)).expect("an in-memory database");
    store.seed(ROWS).expect("seeding");
    println!("seeded {ROWS} accounts in {:.2?} (one transaction, one prepared statement)", started.elapsed());

    let all = Filter { owner: OwnerFilter::Any, tenants: TENANTS.iter().map(|t| (*t).to_owned()).collect() };
    let snapshot = store.current_snapshot().unwrap();
    // The keyset position of depth 900,000 is the id of the last row before it.
    let before_depth = store.page_by_offset(snapshot, DEPTH - 1, &all, 1).unwrap();
    let key = before_depth[0].id.clone();
    let first = || store.page(snapshot, None, &all, PAGE + 1).unwrap();
    let deep = || store.page(snapshot, Some(&key), &all, PAGE + 1).unwrap();
    let offset = || store.page_by_offset(snapshot, DEPTH, &all, PAGE + 1).unwrap();
    assert_eq!(deep(), offset(), "keyset and OFFSET read the same page at depth {DEPTH}");
    assert_eq!(first().len(), PAGE + 1);

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("page_of_1m_rows");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    group.bench_function("keyset_first_page", |b| b.iter(first));
    group.bench_function("keyset_depth_900000", |b| b.iter(deep));
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    group.bench_function("offset_depth_900000", |b| b.iter(offset));
    group.finish();

    depth_ratios("SQLite", 31, 200, first, deep, offset);
    criterion.final_summary();
    postgres(&all);
}

/// The environment variable naming a PostgreSQL server for the second half of this bench.
const POSTGRES_VARIABLE: &str = "COMPLETENESS_BENCH_POSTGRES_URL";

/// The same measurement on PostgreSQL, in a fresh database `completeness_bench` on the server
/// `COMPLETENESS_BENCH_POSTGRES_URL` names (e.g. `$(bash scripts/postgres.sh start)`).
fn postgres(all: &Filter) {
    use service::store::AccountStore;
    use service::store::postgres::PgStore;
    let Ok(url) = std::env::var(POSTGRES_VARIABLE) else {
        println!(
            "\nPostgreSQL part skipped: set {POSTGRES_VARIABLE} to a server URL, for example\n  \
             {POSTGRES_VARIABLE}=\"$(bash scripts/postgres.sh start)\" cargo bench --bench pagination"
        );
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let database = url.rsplit_once('/').map_or(url.clone(), |(server, _)| format!("{server}/completeness_bench"));
    let store = runtime.block_on(async {
        let (admin, connection) =
            tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("PostgreSQL answers");
        tokio::spawn(connection);
        admin.batch_execute("DROP DATABASE IF EXISTS completeness_bench").await.expect("drop the bench database");
        admin.batch_execute("CREATE DATABASE completeness_bench").await.expect("create the bench database");
        let started = Instant::now();
        let store = PgStore::connect(&database, Duration::from_secs(3600)).await.expect("connect");
        store.prepare(ROWS, &[]).await.expect("seeding");
        println!(
            "\nPostgreSQL: seeded {ROWS} accounts in {:.2?} (INSERT … SELECT unnest, 20,000 rows a statement)",
            started.elapsed()
        );
        store
    });
    let snapshot = runtime.block_on(store.current_snapshot()).unwrap();
    let key = runtime.block_on(store.page_by_offset(snapshot, DEPTH - 1, all, 1)).unwrap()[0].id.clone();
    let first = || runtime.block_on(store.page(snapshot, None, all, PAGE + 1)).unwrap();
    let deep = || runtime.block_on(store.page(snapshot, Some(&key), all, PAGE + 1)).unwrap();
    let offset = || runtime.block_on(store.page_by_offset(snapshot, DEPTH, all, PAGE + 1)).unwrap();
    assert_eq!(deep(), offset(), "keyset and OFFSET read the same page at depth {DEPTH}");
    depth_ratios("PostgreSQL", 21, 50, first, deep, offset);
}

/// Prints the keyset ratio depth/first of `engine`, measured in this run: `samples` adjacent
/// pairs of `calls` calls each, in alternating order (so load from other processes hits both
/// sides alike), the median of the pair ratios; and OFFSET at depth beside it, for contrast.
fn depth_ratios(
    engine: &str,
    samples: u32,
    calls: u32,
    mut first: impl FnMut() -> Vec<ListItem>,
    mut deep: impl FnMut() -> Vec<ListItem>,
    mut offset: impl FnMut() -> Vec<ListItem>,
) {
    let deep_vs_first =
        Paired::measure(samples, || time_per_call(calls, &mut deep), || time_per_call(calls, &mut first));
    let (deep_best, first_best) = (deep_vs_first.best_a, deep_vs_first.best_b);
    let mut offset_best = Duration::MAX;
    for _ in 0..3 {
        offset_best = offset_best.min(time_per_call(2, &mut offset));
    }
    println!("\n{engine}: page of {PAGE} at depth {DEPTH} of {ROWS} rows versus the first page (same run):");
    println!("  keyset first page        best {first_best:>10.2?}");
    println!("  keyset depth {DEPTH}     best {deep_best:>10.2?}");
    println!("  keyset ratio depth/first: {}; target <= 1.5", deep_vs_first.summary());
    println!(
        "  OFFSET depth {DEPTH}     best {offset_best:>10.2?}   ratio to the keyset first page {:.0} (for contrast)",
        ratio(offset_best, first_best)
    );
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}
