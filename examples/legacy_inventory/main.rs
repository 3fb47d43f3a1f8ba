//! The legacy_inventory example: an axum service before its migration to completeness. Its
//! lists are bare arrays and hand-rolled pages; nothing tells a client whether they are whole.
//! `examples/inventory_migrated` is the same service after the migration; the README here walks
//! from one to the other.
//!
//! `cargo run --example legacy_inventory` serves it on 127.0.0.1:3001;
//! `cargo run --example legacy_inventory -- --tour` requests every route over loopback and
//! prints what the audit layer counted.

mod api;
mod tour;

use completeness::audit_layer::AuditLayer;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // The audit layer around the whole router: it counts the JSON lists without completeness.
    let audit = AuditLayer::new().with_header();
    let app = api::router().layer(audit.clone());
    tour::main(app, audit, "127.0.0.1:3001").await
}
