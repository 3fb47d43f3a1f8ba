// `completeness::routing` checks handler functions; a service goes through `axum::routing`.
use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};

fn main() {
    let service = tower::service_fn(|_request: axum::extract::Request| async {
        Ok::<_, std::convert::Infallible>(axum::response::Response::new(axum::body::Body::empty()))
    });
    let _app: Router = Router::new()
        .route("/service-accounts", get(service).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
