//! Serializing `Envelope<Item>` versus a bare `Vec<Item>` of the same items.
//!
//! Prints the envelope/bare time ratio for 10, 1,000 and 100,000 items.

use std::hint::black_box;
use std::time::{Duration, Instant};

use completeness::reason::MorePagesAvailable;
use completeness::warning::PageSizeReduced;
use completeness::{Completeness, CursorBinding, CursorContract, Envelope, PageInfo, Scope, StandardReason};
use criterion::{BenchmarkId, Criterion};
use serde::Serialize;

#[allow(dead_code)] // this bench reports the fastest samples, not the median of the pair ratios
#[path = "support/paired.rs"]
mod paired;

use paired::Paired;

#[derive(Serialize, Clone)]
struct Item {
    id: String,
    name: String,
    tenant: &'static str,
    owner: Option<String>,
    archived: bool,
}

fn items(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            id: format!("sa-{i:06}"),
            name: format!("svc-north-{i:05}"),
            tenant: "north",
            owner: (i % 30 != 0).then(|| format!("owner-{}", i % 97)),
            archived: false,
        })
        .collect()
}

fn envelope(items: Vec<Item>) -> Envelope<Item> {
    let returned = items.len() as u64;
    let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'")
        .with_snapshot("s-1042")
        .with_filter("owner", "none");
    let completeness = Completeness::<StandardReason>::incomplete(scope, MorePagesAvailable::new("c1.k1.AAAB.c2ln"))
        .with_page(
            PageInfo::new(returned, Some(returned), returned, "id ascending")
                .with_snapshot("s-1042")
                .with_cursor(CursorContract::new(
                    true,
                    "2026-11-29T20:15:00Z",
                    vec![CursorBinding::Filters, CursorBinding::Ordering, CursorBinding::Credential],
                ))
                .with_resumed(false),
        )
        .with_warning(PageSizeReduced::new(500, 100));
    Envelope::new(items, completeness)
}

/// Mean time per serialization of `value` into a reused buffer, over `rounds` rounds.
fn time_per_call<T: Serialize>(value: &T, rounds: u32) -> Duration {
    let mut buffer = Vec::with_capacity(1 << 20);
    let start = Instant::now();
    for _ in 0..rounds {
        buffer.clear();
        serde_json::to_writer(&mut buffer, black_box(value)).unwrap();
        black_box(&buffer);
    }
    start.elapsed() / rounds
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("serialize");
    group.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    let mut ratios = Vec::new();
    for n in [10usize, 1_000, 100_000] {
        // The same items in memory for both sides: only the envelope differs.
        let wrapped = envelope(items(n));
        let bare = &wrapped.items;
        let mut buffer = Vec::with_capacity(1 << 20);
        group.bench_with_input(BenchmarkId::new("bare_vec", n), bare, |b, v| {
            b.iter(|| {
                buffer.clear();
                serde_json::to_writer(&mut buffer, v).unwrap();
            })
        });
        group.bench_with_input(BenchmarkId::new("envelope", n), &wrapped, |b, v| {
            b.iter(|| {
                buffer.clear();
                serde_json::to_writer(&mut buffer, v).unwrap();
            })
        });
        // The ratio, measured in this run: alternating samples so drift hits both sides alike,
        // and the fastest sample of each side, which other load on the machine can only slow down.
        let rounds = (200_000 / n.max(1)).clamp(5, 20_000) as u32;
        let paired = Paired::measure(30, || time_per_call(bare, rounds), || time_per_call(&wrapped, rounds));
        let (bare_best, env_best) = (paired.best_a, paired.best_b);
        ratios.push((n, env_best.as_secs_f64() / bare_best.as_secs_f64(), bare_best, env_best));
    }
    group.finish();
    println!("\nenvelope/bare serialization time ratio (same run):");
    for (n, ratio, bare, env) in ratios {
        println!("  {n:>7} items: bare {bare:>12.2?}  envelope {env:>12.2?}  ratio {ratio:.4}");
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
