//! The router: every route of the service, authentication, and problem answers for unknown routes.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use completeness::routing::{delete, get, patch, post};
use completeness::{Problem, ProblemCode};

use super::state::AppState;
use super::{account, archive, credentials, inventory, openapi, search, telemetry};

/// Resolves the bearer credential; 401 problem when it is missing or unknown.
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    match state.credentials.authenticate(&parts) {
        Ok(caller) => {
            parts.extensions.insert(caller.credential());
            parts.extensions.insert(Arc::new(caller));
            request = Request::from_parts(parts, body);
            next.run(request).await
        }
        Err(problem) => problem.into_response(),
    }
}

async fn not_found() -> Problem {
    Problem::new(ProblemCode::NotFound, "No such route. See /openapi.json for the routes this service serves.")
}

async fn method_not_allowed() -> Problem {
    Problem::new(ProblemCode::Other("METHOD_NOT_ALLOWED".to_owned()), "This route does not accept that method.")
        .with_status(405)
}

/// Every route of DESIGN §6, `GET /metrics`, and the request log.
pub fn router(state: AppState) -> Router {
    let authenticated = Router::new()
        .route("/service-accounts", get(inventory::list_service_accounts).merge(post(account::create_account)))
        .route("/service-accounts/count", get(inventory::count_service_accounts))
        .route("/service-accounts/archive", post(archive::archive))
        .route(
            "/service-accounts/{id}",
            get(account::get_account).merge(patch(account::patch_account)).merge(delete(account::delete_account)),
        )
        .route("/search", get(search::search))
        .route("/credentials/{name}/revoke-tenant/{tenant}", post(credentials::revoke_tenant))
        .route_layer(middleware::from_fn_with_state(state.clone(), authenticate));
    let router = Router::new()
        .route("/openapi.json", get(openapi::document))
        .route("/metrics", get(telemetry::metrics))
        .merge(authenticated)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(state.completeness.layer());
    telemetry::request_log(router).with_state(state)
}
