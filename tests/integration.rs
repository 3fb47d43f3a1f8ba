//! The integration tests, one module per file of `tests/`, built as one test binary: each
//! binary links every dependency and, for the end-to-end files, the whole example service, so
//! forty binaries took forty links and a gigabyte of disk where one takes one.
//!
//! Four files are test binaries of their own (`[[test]]` in `Cargo.toml`): `ui.rs` (the
//! compile-fail cases), the two that read the process's metrics recorder (`e2e_metrics.rs`,
//! `e2e_metric_labels.rs`), whose counts every other service in the process would add to, and
//! `e2e_logging.rs`, whose cases read their own server's events through a subscriber of their
//! thread (its module doc says why that needs a process of its own).
//! Run one file's cases with `cargo test --all-features --test integration <file>::`.

mod axum_common;
mod built_example;
mod e2e_support;
mod observe_support;

mod audit_layer;
mod audit_migration;
mod axum_anonymous;
mod axum_budget;
mod axum_cursor_tampering;
mod axum_evidence;
mod axum_extract;
mod axum_paging;
mod axum_require_complete;
mod client_agent;
mod client_agent_outage;
mod client_approval;
mod client_collect;
mod client_collect_properties;
mod client_decisions;
mod client_http;
mod client_invariants;
mod client_mcp;
mod completeness_attribute;
mod contract;
mod contract_references;
mod custom_reasons;
mod dates;
mod declared_by_macros;
mod derive_serde;
mod e2e_archive;
mod e2e_demo;
mod e2e_durability;
mod e2e_flags;
mod e2e_hardening;
mod e2e_malformed;
mod e2e_mcp;
mod e2e_outage;
mod e2e_replica_settings;
mod e2e_replicas;
mod e2e_restore;
mod e2e_shutdown;
mod e2e_statement_timeout;
mod e2e_states;
mod e2e_traversal;
mod faults;
mod faults_kit;
mod generated_code_lints;
mod observe_events;
mod routing_error_side;
mod runtime_types;

/// `autotests = false` means cargo no longer finds a test file by itself: a file of `tests/`
/// that is neither a module above nor a `[[test]]` of its own would never run.
#[test]
fn every_test_file_is_built() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let this = std::fs::read_to_string(root.join("tests/integration.rs")).expect("tests/integration.rs");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/") {
        let path = entry.expect("a directory entry").path();
        let (Some(stem), Some("rs")) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
        else {
            continue;
        };
        let module = format!("\nmod {stem};\n");
        let target = format!("path = \"tests/{stem}.rs\"");
        if !this.contains(&module) && !manifest.contains(&target) {
            missing.push(format!("tests/{stem}.rs"));
        }
    }
    assert!(missing.is_empty(), "not built by any test target (add `mod NAME;` here): {missing:?}");
}

/// The facade's features, each with whether this build has it.
const FEATURES: [(&str, bool); 9] = [
    ("axum", cfg!(feature = "axum")),
    ("openapi", cfg!(feature = "openapi")),
    ("json-schema", cfg!(feature = "json-schema")),
    ("client", cfg!(feature = "client")),
    ("mcp", cfg!(feature = "mcp")),
    ("testing", cfg!(feature = "testing")),
    ("faults", cfg!(feature = "faults")),
    ("audit", cfg!(feature = "audit")),
    ("metrics", cfg!(feature = "metrics")),
];

/// The suite runs with every feature (`cargo test --workspace --all-features`, the README's
/// command): the cases of a feature left off are compiled out, and would pass unseen. This fails
/// instead, naming them; and it fails when the manifest gains a feature this list lacks.
#[test]
fn the_tests_run_with_every_feature() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let section = manifest.split("\n[features]\n").nth(1).expect("a [features] section");
    let section = section.split("\n[").next().unwrap_or(section);
    let declared: Vec<&str> = section
        .lines()
        .filter_map(|line| line.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|name| *name != "default" && !name.starts_with('#'))
        .collect();
    let listed: Vec<&str> = FEATURES.iter().map(|(name, _)| *name).collect();
    assert_eq!(listed, declared, "FEATURES lists the manifest's features, in its order");
    let off: Vec<&str> = FEATURES.iter().filter(|(_, on)| !on).map(|(name, _)| *name).collect();
    assert!(off.is_empty(), "run the tests with --all-features: the cases of {off:?} were compiled out");
}
