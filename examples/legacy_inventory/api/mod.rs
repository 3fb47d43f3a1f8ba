//! The router: products at the top of `/api`, warehouses nested from their own file.

mod products;
mod warehouses;

use axum::Router;
use axum::routing::get;

/// Every route of the service.
pub fn router() -> Router {
    let api = Router::new().merge(products::router()).nest("/warehouses", warehouses::router());
    Router::new().route("/health", get(health)).nest("/api", api)
}

async fn health() -> &'static str {
    "ok"
}
