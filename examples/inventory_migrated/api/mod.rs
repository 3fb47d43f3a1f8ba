//! The router: products at the top of `/api`, warehouses nested from their own file.

mod products;
mod warehouses;

use axum::Router;
use completeness::Exempt;
use completeness::routing::get;

/// Every route of the service.
pub fn router() -> Router {
    let api = Router::new().merge(products::router()).nest("/warehouses", warehouses::router());
    Router::new().route("/health", get(health).into()).nest("/api", api)
}

/// Not a list: exempt, and routed through `completeness::routing` like the rest.
async fn health() -> Exempt<&'static str> {
    Exempt::new("ok", "a liveness probe, not a list")
}
