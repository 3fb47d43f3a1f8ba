//! The router: products at the top of `/api`, warehouses nested from their own file.

mod products;
mod warehouses;

use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys, Exempt};

/// Every route of the service, with the framework's settings as the router state (ephemeral
/// keys: this service issues no cursor that must outlive it).
pub fn router() -> Router {
    let api = Router::new().merge(products::router()).nest("/warehouses", warehouses::router());
    Router::new()
        .route("/health", get(health).into())
        .nest("/api", api)
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
}

/// Not a list: exempt, and routed through `completeness::routing` like the rest.
async fn health() -> Exempt<&'static str> {
    Exempt::new("ok", "a liveness probe, not a list")
}
