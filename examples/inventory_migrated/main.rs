//! The inventory_migrated example: `legacy_inventory` after its migration. Every list reports
//! completeness, the single product declares its tags bounded, and every route is registered
//! through `completeness::routing`, so a list that stops reporting does not compile.
//!
//! `cargo run --example inventory_migrated -- --tour` requests every route over loopback and
//! prints what the audit layer counted: no flags.

mod api;
#[path = "../legacy_inventory/tour.rs"]
mod tour;

use completeness::audit_layer::AuditLayer;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // The product's tags are bounded (`#[envelope(bounded = ..)]`): say so to the layer too.
    let audit = AuditLayer::new().with_header().bounded("GET /api/products/{id}");
    let app = api::router().layer(audit.clone());
    tour::main(app, audit, "127.0.0.1:3002").await
}
