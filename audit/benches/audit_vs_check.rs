//! The audit's time against `cargo check` of the same generated workspace, measured in the same
//! run: 10 member crates of 10 files with 10 handlers each (1,000 handlers in 100 files).
//! Dependencies are checked once first (offline, from this repository's `Cargo.lock`); then every
//! source file is touched and checked again, interleaved with audits. Prints the median times
//! and their ratio (target: audit / check <= 0.1).
//!
//! `AUDIT_BENCH_DIR=DIR` keeps the generated workspace in DIR.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CRATES: usize = 10;
const FILES: usize = 10;
const HANDLERS: usize = 10;
const ROUNDS: usize = 5;

fn main() {
    let keep = std::env::var_os("AUDIT_BENCH_DIR").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("audit-bench-{}", std::process::id())));
    generate(&dir);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());

    let cold = check(&cargo, &dir);
    let mut checks = Vec::new();
    let mut audits = Vec::new();
    let mut findings = 0;
    for _ in 0..ROUNDS {
        touch_sources(&dir);
        checks.push(check(&cargo, &dir));
        let start = Instant::now();
        let report = cargo_completeness::audit(&dir, &mut |_| {}).expect("the audit runs");
        audits.push(start.elapsed());
        findings = report.findings.len();
        assert_eq!(report.files, CRATES * (FILES + 1), "every file parsed");
    }
    assert_eq!(findings, CRATES * FILES * HANDLERS, "every handler found");
    let (check, audit) = (median(checks), median(audits));
    println!("{findings} handlers in {} files (same run):", CRATES * FILES);
    println!("  cargo check, dependencies included (first run)  {cold:>10.2?}");
    println!("  cargo check after touching every source (median) {check:>10.2?}");
    println!("  cargo completeness audit (median)               {audit:>10.2?}");
    println!(
        "  ratio audit / cargo check: {:.4} (first run {:.4}); target <= 0.1",
        audit.as_secs_f64() / check.as_secs_f64(),
        audit.as_secs_f64() / cold.as_secs_f64()
    );
    if keep.is_none() {
        let _ = fs::remove_dir_all(&dir);
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn check(cargo: &str, dir: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(cargo)
        .args(["check", "--offline", "--quiet", "--workspace"])
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo check of the generated workspace failed");
    start.elapsed()
}

fn touch_sources(dir: &Path) {
    for c in 0..CRATES {
        for f in 0..FILES {
            let file = dir.join(format!("crates/c{c}/src/m{f}.rs"));
            let text = fs::read_to_string(&file).unwrap();
            fs::write(&file, text).unwrap();
        }
    }
}

/// The workspace: shapes alternate between bare lists, plain resources and nested routers.
fn generate(dir: &Path) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    fs::create_dir_all(dir.join("crates")).unwrap();
    fs::write(dir.join("Cargo.toml"), "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"3\"\n").unwrap();
    fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    for c in 0..CRATES {
        let root = dir.join(format!("crates/c{c}"));
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(
            root.join("Cargo.toml"),
            format!(
                "[package]\nname = \"c{c}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n\
                 axum = {{ version = \"0.8\", default-features = false, features = [\"json\"] }}\n\
                 serde = {{ version = \"1\", features = [\"derive\"] }}\n"
            ),
        )
        .unwrap();
        let mut lib = String::from("//! Generated.\n\nuse axum::Router;\n\n");
        for f in 0..FILES {
            let _ = writeln!(lib, "pub mod m{f};");
        }
        lib.push_str("\npub fn router() -> Router {\n    Router::new()");
        for f in 0..FILES {
            let _ = write!(lib, "\n        .nest(\"/m{f}\", m{f}::router())");
        }
        lib.push_str("\n}\n");
        fs::write(root.join("src/lib.rs"), lib).unwrap();
        for f in 0..FILES {
            let mut module = String::from(
                "use axum::routing::get;\nuse axum::{Json, Router};\nuse serde::Serialize;\n\n\
                 #[derive(Serialize)]\npub struct Item {\n    pub id: u64,\n    pub name: String,\n}\n\n\
                 #[derive(Serialize)]\npub struct Page {\n    pub items: Vec<Item>,\n    pub next_cursor: Option<String>,\n}\n\n",
            );
            for h in 0..HANDLERS {
                let body = match h % 3 {
                    0 => format!(
                        "pub async fn h{h}() -> Json<Vec<Item>> {{\n    Json((0..{h}).map(|id| Item {{ id, name: format!(\"item {{id}}\") }}).collect())\n}}\n\n"
                    ),
                    1 => format!(
                        "pub async fn h{h}() -> Json<Item> {{\n    Json(Item {{ id: {h}, name: String::from(\"one\") }})\n}}\n\n"
                    ),
                    _ => format!(
                        "pub async fn h{h}() -> Json<Page> {{\n    Json(Page {{ items: Vec::new(), next_cursor: None }})\n}}\n\n"
                    ),
                };
                module.push_str(&body);
            }
            module.push_str("pub fn router() -> Router {\n    Router::new()");
            for h in 0..HANDLERS {
                let _ = write!(module, "\n        .route(\"/h{h}\", get(h{h}))");
            }
            module.push_str("\n}\n");
            fs::write(root.join(format!("src/m{f}.rs")), module).unwrap();
        }
    }
}
