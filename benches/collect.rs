//! `collect_all` versus a hand-written cursor loop over the same in-memory pages.
//!
//! Both sides fetch identical pages (a clone of a prepared envelope, found by cursor)
//! on the same current-thread runtime; the difference is the collector's own work:
//! snapshot checks, carrying reasons and warnings, limits and the result's contract.
//! Prints the ratio of the medians and asserts that `collect_all` fetches exactly
//! ceil(N / page_size) pages, with no probe after an exactly full last page.

use std::cell::Cell;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use completeness::client::{CollectLimits, FetchError, collect_all};
use completeness::testing::MemorySource;
use completeness::{Envelope, StandardReason};
use criterion::Criterion;

/// The pages of a traversal, by cursor (`""` for the first page).
struct Pages {
    by_cursor: HashMap<String, Envelope<u64, StandardReason>>,
    fetches: Cell<u64>,
}

impl Pages {
    fn new(count: u64, page_size: usize) -> Pages {
        let mut source = MemorySource::new(count, page_size);
        let mut by_cursor = HashMap::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = source.fetch(cursor.as_deref()).expect("the source serves every page");
            let next = page.completeness.next_cursor().map(str::to_owned);
            by_cursor.insert(cursor.unwrap_or_default(), page);
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        Pages { by_cursor, fetches: Cell::new(0) }
    }

    async fn fetch(&self, cursor: Option<String>) -> Result<Envelope<u64, StandardReason>, FetchError> {
        self.fetches.set(self.fetches.get() + 1);
        let key = cursor.unwrap_or_default();
        self.by_cursor.get(&key).cloned().ok_or_else(|| FetchError::Contract(format!("no page for cursor {key}")))
    }
}

/// The plain alternative: follow `next_cursor` until `complete`, keep the items.
async fn hand_loop(pages: &Pages) -> Vec<u64> {
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

async fn with_collector(pages: &Pages) -> Vec<u64> {
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
        let pages = Pages::new(count, page_size);
        let expected_fetches = count.div_ceil(page_size as u64);

        pages.fetches.set(0);
        let collected = runtime.block_on(with_collector(&pages));
        assert_eq!(collected.len() as u64, count);
        assert_eq!(pages.fetches.get(), expected_fetches, "collect_all fetched more pages than needed");
        println!(
            "collect/{count}x{page_size}: page fetches = {} = ceil({count} / {page_size}) = {expected_fetches}: OK",
            pages.fetches.get()
        );

        let mut group = criterion.benchmark_group(format!("collect/{count}x{page_size}"));
        group.bench_function("hand_loop", |b| b.iter(|| black_box(runtime.block_on(hand_loop(&pages)))));
        group.bench_function("collect_all", |b| b.iter(|| black_box(runtime.block_on(with_collector(&pages)))));
        group.finish();

        // The ratio, measured interleaved in this same run.
        let mut plain = Vec::new();
        let mut collector = Vec::new();
        for _ in 0..5 {
            plain.push(median(40, || {
                black_box(runtime.block_on(hand_loop(&pages)));
            }));
            collector.push(median(40, || {
                black_box(runtime.block_on(with_collector(&pages)));
            }));
        }
        plain.sort();
        collector.sort();
        let (plain, collector) = (plain[2], collector[2]);
        let ratio = collector.as_secs_f64() / plain.as_secs_f64();
        println!(
            "collect/{count}x{page_size}: collect_all {collector:?} vs hand loop {plain:?} (medians): ratio {ratio:.3} \
             (target <= 1.05)"
        );
    }
    criterion.final_summary();
}
