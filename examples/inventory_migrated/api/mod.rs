//! The router: products at the top of `/api`, warehouses nested from their own file.

mod products;
mod warehouses;

use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys, Exempt};

/// Every route of the service, with the framework's settings as the router state: ephemeral
/// keys (its cursors need not outlive it), pages of ten unless a client asks for another size
/// (at most 100), and every caller the anonymous one (the legacy service has no authentication;
/// cursors are still bound to the caller they were issued to).
pub fn router() -> Router {
    let api = Router::new().merge(products::router()).nest("/warehouses", warehouses::router());
    let settings =
        CompletenessConfig::new(CursorKeys::ephemeral()).with_page_sizes(10, 100).with_anonymous_credential();
    Router::new().route("/health", get(health).into()).nest("/api", api).with_state(settings)
}

/// Not a list: exempt, and routed through `completeness::routing` like the rest.
async fn health() -> Exempt<&'static str> {
    Exempt::new("ok", "a liveness probe, not a list")
}
