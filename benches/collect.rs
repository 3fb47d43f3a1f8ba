//! `collect_all` versus a hand-written cursor loop over the same in-memory pages.
//!
//! Both sides fetch identical pages (a clone of a prepared envelope, found by cursor)
//! on the same current-thread runtime; the difference is the collector's own work:
//! snapshot checks, carrying reasons and warnings, limits and the result's contract.
//! Prints the ratio of the medians and asserts that `collect_all` fetches exactly
//! ceil(N / page_size) pages, with no probe after an exactly full last page.
//!
//! Two item types: bare `u64` ids (the worst case for the ratio: a page costs little
//! more than a memcpy, so the collector's per-page bookkeeping shows)
//! and account records shaped like the example service's.
//!
//! Reading the account ratio: both sides spend most of their time in malloc and free (each
//! fetch clones a page of records, four strings each), and on glibc that cost moves with the
//! allocator's dynamic mmap threshold and heap trimming, which the two sides' different
//! allocation orders steer differently. On one machine the same binary read 1.42 to 1.56 (two
//! runs, both page sizes), and 1.02 and 0.98 with both thresholds fixed:
//! `GLIBC_TUNABLES=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=1073741824`.
//! When the ratio moves, run it both ways before looking for a cause in the collector.

use std::cell::Cell;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use completeness::client::{CollectLimits, FetchError, collect_all};
use completeness::testing::MemorySource;
use completeness::{Envelope, StandardReason};
use criterion::Criterion;

/// An account record like the example service's.
#[derive(Clone)]
#[allow(dead_code)] // read by nobody: only its cost matters
struct Account {
    id: String,
    name: String,
    tenant: String,
    owner: Option<String>,
}

fn account(n: u64) -> Account {
    let tenant = ["north", "south", "east"][(n % 3) as usize];
    Account { id: format!("sa-{n:06}"), name: format!("svc-{tenant}-{n:05}"), tenant: tenant.to_owned(), owner: None }
}

/// The pages of a traversal, by cursor (`""` for the first page).
struct Pages<T> {
    by_cursor: HashMap<String, Envelope<T, StandardReason>>,
    fetches: Cell<u64>,
}

impl<T: Clone> Pages<T> {
    fn new(count: u64, page_size: usize, item: impl Fn(u64) -> T) -> Pages<T> {
        let mut source = MemorySource::new(count, page_size);
        let mut by_cursor = HashMap::new();
        let mut cursor: Option<String> = None;
        loop {
            let (ids, completeness) =
                source.fetch(cursor.as_deref()).expect("the source serves every page").into_parts();
            let page = Envelope::new(ids.into_iter().map(&item).collect(), completeness);
            let next = page.completeness.next_cursor().map(str::to_owned);
            by_cursor.insert(cursor.unwrap_or_default(), page);
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        Pages { by_cursor, fetches: Cell::new(0) }
    }

    async fn fetch(&self, cursor: Option<String>) -> Result<Envelope<T, StandardReason>, FetchError> {
        self.fetches.set(self.fetches.get() + 1);
        let key = cursor.unwrap_or_default();
        self.by_cursor.get(&key).cloned().ok_or_else(|| FetchError::Contract(format!("no page for cursor {key}")))
    }
}

/// The plain alternative: follow `next_cursor` until `complete`, keep the items.
async fn hand_loop<T: Clone>(pages: &Pages<T>) -> Vec<T> {
    let mut items = Vec::new();
    let mut cursor = None;
    loop {
        let page = pages.fetch(cursor).await.expect("page");
        items.extend(page.items);
        if page.completeness.is_complete() {
            return items;
        }
        cursor = page.completeness.next_cursor().map(str::to_owned);
    }
}

async fn with_collector<T: Clone>(pages: &Pages<T>) -> Vec<T> {
    let limits = CollectLimits { max_pages: 100_000, max_items: 10_000_000, deadline: Duration::from_secs(3600) };
    let collected = collect_all(|cursor| pages.fetch(cursor), limits).await.expect("collected");
    assert!(collected.is_complete());
    collected.into_envelope().items
}

/// Median time of `runs` runs of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    for (count, page_size) in [(10_000_u64, 100_usize), (10_007, 250)] {
        compare(&runtime, &mut criterion, "ids", Pages::new(count, page_size, |n| n), count, page_size);
        compare(&runtime, &mut criterion, "accounts", Pages::new(count, page_size, account), count, page_size);
    }
    criterion.final_summary();
}

fn compare<T: Clone>(
    runtime: &tokio::runtime::Runtime,
    criterion: &mut Criterion,
    kind: &str,
    pages: Pages<T>,
    count: u64,
    page_size: usize,
) {
    let name = format!("collect/{kind}/{count}x{page_size}");
    let expected_fetches = count.div_ceil(page_size as u64);
    pages.fetches.set(0);
    let collected = runtime.block_on(with_collector(&pages));
    assert_eq!(collected.len() as u64, count);
    assert_eq!(pages.fetches.get(), expected_fetches, "collect_all fetched more pages than needed");
    println!("{name}: page fetches = {} = ceil({count} / {page_size}): OK", pages.fetches.get());

    let mut group = criterion.benchmark_group(&name);
    group.bench_function("hand_loop", |b| b.iter(|| black_box(runtime.block_on(hand_loop(&pages)))));
    group.bench_function("collect_all", |b| b.iter(|| black_box(runtime.block_on(with_collector(&pages)))));
    group.finish();

    // The ratio, measured interleaved in this same run: the median of ROUNDS rounds on
    // each side, so that a disturbance lasting a few rounds does not move it.
    const ROUNDS: usize = 15;
    let mut plain = Vec::new();
    let mut collector = Vec::new();
    for _ in 0..ROUNDS {
        plain.push(median(40, || {
            black_box(runtime.block_on(hand_loop(&pages)));
        }));
        collector.push(median(40, || {
            black_box(runtime.block_on(with_collector(&pages)));
        }));
    }
    plain.sort();
    collector.sort();
    let (plain, collector) = (plain[ROUNDS / 2], collector[ROUNDS / 2]);
    let ratio = collector.as_secs_f64() / plain.as_secs_f64();
    println!("{name}: collect_all {collector:?} vs hand loop {plain:?} (medians): ratio {ratio:.3} (target <= 1.05)");
}
