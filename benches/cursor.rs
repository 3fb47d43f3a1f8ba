//! Cursor encode and verify cost, against the physical floor: one bare HMAC-SHA256 of the
//! same signed bytes (key setup included, as a plain `Hmac::new_from_slice` call does).
//!
//! `cargo bench --bench cursor` prints criterion's estimates, then a same-run comparison:
//! the best of several interleaved rounds of each operation, and the ratio verify / bare
//! HMAC (target: at most 2×). The key ring keeps each key's HMAC state already keyed, so
//! verify skips the key setup a bare call pays; the ratio to a pre-keyed HMAC of the same
//! bytes (the floor for this design) is printed too.

use std::hint::black_box;
use std::time::{Duration, Instant};

use completeness::Credential;
use completeness::cursor::{CursorClaims, CursorKeys, DEFAULT_MAX_TOKEN_LEN, QueryBinding};
use criterion::Criterion;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const SECRET: [u8; 32] = *b"bench-secret-0123456789abcdefghi";

struct Fixture {
    keys: CursorKeys,
    claims: CursorClaims,
    cursor: String,
    query: [u8; 32],
    credential: [u8; 32],
    now_ms: u64,
}

fn fixture() -> Fixture {
    let keys = CursorKeys::new([("k1", SECRET)]).unwrap();
    let query = QueryBinding::new("service_accounts", "id ascending")
        .with_filter("owner", "none")
        .with_filter("tenant", "north")
        .fingerprint();
    let credential = Credential::new("north", 3).with_tenant("north").fingerprint();
    let now_ms = 1_795_983_300_000;
    let claims = CursorClaims::at(query, credential, Some("1042"), "sa-000042", now_ms, now_ms + 900_000);
    let cursor = claims.encode(&keys);
    Fixture { keys, claims, cursor, query, credential, now_ms }
}

fn encode(f: &Fixture) -> String {
    f.claims.encode(&f.keys)
}

fn verify(f: &Fixture) -> CursorClaims {
    let claims = CursorClaims::decode(&f.keys, &f.cursor, DEFAULT_MAX_TOKEN_LEN).unwrap();
    claims.check(&f.query, &f.credential, f.now_ms).unwrap();
    claims
}

/// The signed bytes of the cursor (everything before the MAC).
fn signed(f: &Fixture) -> &[u8] {
    f.cursor.rsplit_once('.').unwrap().0.as_bytes()
}

fn bare_hmac(bytes: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&SECRET).unwrap();
    mac.update(bytes);
    mac.finalize().into_bytes().into()
}

fn prekeyed_hmac(keyed: &Hmac<Sha256>, bytes: &[u8]) -> [u8; 32] {
    let mut mac = keyed.clone();
    mac.update(bytes);
    mac.finalize().into_bytes().into()
}

/// Nanoseconds per call: the best of `rounds` rounds of `iterations` calls.
fn per_call<T>(rounds: usize, iterations: u32, mut op: impl FnMut() -> T) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(op());
            }
            start.elapsed().as_nanos() as f64 / f64::from(iterations)
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let f = fixture();
    let bytes = signed(&f).to_vec();
    println!("cursor: {} bytes ({} signed bytes)", f.cursor.len(), bytes.len());

    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    criterion.bench_function("cursor/encode", |b| b.iter(|| encode(black_box(&f))));
    criterion.bench_function("cursor/verify", |b| b.iter(|| verify(black_box(&f))));
    criterion.bench_function("hmac_sha256/bare", |b| b.iter(|| bare_hmac(black_box(&bytes))));
    criterion.final_summary();

    // Same-run comparison, interleaved so drift hits all three alike.
    let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(&SECRET).unwrap();
    let (mut enc, mut ver, mut bare, mut pre) = (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        enc = enc.min(per_call(3, 20_000, || encode(&f)));
        ver = ver.min(per_call(3, 20_000, || verify(&f)));
        bare = bare.min(per_call(3, 20_000, || bare_hmac(black_box(&bytes))));
        pre = pre.min(per_call(3, 20_000, || prekeyed_hmac(&keyed, black_box(&bytes))));
    }
    println!("encode per cursor:            {enc:8.0} ns");
    println!("verify per cursor:            {ver:8.0} ns");
    println!("bare HMAC-SHA256 (same bytes):{bare:8.0} ns");
    println!("pre-keyed HMAC (same bytes):  {pre:8.0} ns");
    println!("ratio verify / bare HMAC:     {:8.2}x (target <= 2x)", ver / bare);
    println!("ratio verify / pre-keyed HMAC: {:7.2}x", ver / pre);
    println!("ratio encode / bare HMAC:     {:8.2}x", enc / bare);
}
