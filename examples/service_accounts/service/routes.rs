//! The router: every route of the service, authentication, request limits, and problem answers
//! for every refusal outside the handlers.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::HttpBody;
use axum::extract::{Request, State};
use axum::http::header::WWW_AUTHENTICATE;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use completeness::routing::{get, post};
use completeness::{Problem, ProblemCode};
use tokio_util::sync::CancellationToken;

use super::state::AppState;
use super::{account, archive, auth, credentials, http, inventory, mcp, openapi, ready, refusals, search, telemetry};

/// Resolves the bearer credential; 401 problem when it is missing or unknown. A refusal made
/// after it carries the credential back, for the observe layer around it (its `problem` event
/// names who was refused).
pub async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    match auth::authenticate(&state.store, &parts).await {
        Ok(caller) => {
            let credential = caller.credential();
            parts.extensions.insert(credential.clone());
            parts.extensions.insert(Arc::new(caller));
            request = Request::from_parts(parts, body);
            let mut response = next.run(request).await;
            if !response.status().is_success() {
                response.extensions_mut().insert(credential);
            }
            response
        }
        Err(problem) => problem.into_response(),
    }
}

/// RFC 9110, section 11.6.1: a 401 of the REST routes names the scheme to authenticate with.
/// (Not on `/mcp`: there an MCP client takes the header for the start of an OAuth flow this
/// server does not offer, and no longer shows the problem that says what is wrong.)
pub async fn challenge(mut response: Response) -> Response {
    if response.status() == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

/// Input a route would not read is refused before it runs. A write takes its input from its
/// path and a JSON body only: a query parameter on one is refused (400 `INVALID_REQUEST`), so
/// that `DELETE ...?dry_run=true` cannot delete while the client believes it only asked; a body not declared as JSON is refused
/// before the route reads it (415, see [`http::json_content_type`]), so that every write route
/// (the archive's evidence extractor included) holds to the media type the OpenAPI document
/// declares. A read takes its input from its path and query only: a body on one is refused
/// (400 `INVALID_BODY`), since what it asked for (`{"owner": "none"}`) would be ignored and the
/// read answered for a wider scope. One layer for both.
pub async fn refuse_unread_input(request: Request, next: Next) -> Response {
    if matches!(request.method(), &Method::GET | &Method::HEAD) {
        if !request.body().is_end_stream() {
            let detail = "A read takes its input from its path and query; this request carries a body, which would \
                          not be read. Send the filters as query parameters, and no body.";
            return Problem::new(ProblemCode::InvalidBody, detail).into_response();
        }
    } else if request.method() != Method::OPTIONS {
        let has_body = !request.body().is_end_stream();
        let checked = http::query(request.uri(), &[])
            .map(drop)
            .and_then(|()| http::json_content_type(request.headers(), has_body));
        if let Err(problem) = checked {
            return problem.into_response();
        }
    }
    next.run(request).await
}

/// Refuses a request with a query parameter (400 `INVALID_REQUEST`), for a route that reads
/// none: a parameter it would ignore must not look honoured.
async fn refuse_any_query(request: Request, next: Next) -> Response {
    match http::query(request.uri(), &[]) {
        Ok(_) => next.run(request).await,
        Err(problem) => problem.into_response(),
    }
}

async fn not_found() -> Problem {
    refusals::refusal(StatusCode::NOT_FOUND)
}

async fn method_not_allowed() -> Problem {
    refusals::refusal(StatusCode::METHOD_NOT_ALLOWED)
}

/// Every route of the example's README, `GET /metrics`, `GET /ready` and the MCP endpoint, behind the
/// refusals, their observation and the request log. Cancelling `mcp_sessions` ends the MCP sessions. With
/// `--faults`, answers are faulted inside the request log, so that the log, the request id and
/// the events are those of the answer sent (the MCP tools fault theirs with the same layer).
pub fn router(state: AppState, mcp_sessions: CancellationToken) -> Router {
    let authenticated = Router::new()
        .route("/service-accounts", get(inventory::list_service_accounts).post(account::create_account).into())
        .route("/service-accounts/count", get(inventory::count_service_accounts).into())
        .route("/service-accounts/archive", post(archive::archive).into())
        .route(
            "/service-accounts/{id}",
            get(account::get_account).patch(account::patch_account).delete(account::delete_account).into(),
        )
        .route("/search", get(search::search).into())
        .route("/credentials/{name}/revoke-tenant/{tenant}", post(credentials::revoke_tenant).into())
        .route_layer(middleware::from_fn(refuse_unread_input))
        .route_layer(middleware::from_fn_with_state(state.clone(), authenticate))
        .route_layer(middleware::map_response(challenge));
    // The open routes read nothing from the request: a query parameter or a body is refused,
    // as on every other read.
    let open = Router::new()
        .route("/openapi.json", get(openapi::document).into())
        .route("/metrics", get(telemetry::metrics).into())
        .route("/ready", get(ready::ready).into())
        .route_layer(middleware::from_fn(refuse_unread_input))
        .route_layer(middleware::from_fn(refuse_any_query));
    let router = Router::new()
        .merge(open)
        .merge(authenticated)
        .merge(mcp::router(state.clone(), mcp_sessions))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed);
    let router = match &state.faults {
        Some(faults) => router.layer(faults.clone()),
        None => router,
    };
    let (read_timeout, stopping) = (state.config.read_timeout, state.stopping.clone());
    outside(router, read_timeout, stopping).with_state(state)
}

/// Starts at zero, under the templates [`router`] routes, the counters that partial answers
/// raise, and those of the MCP tools, so that the first partial answer after a start is an
/// increase an alert sees, not a new series at 1 (`completeness::observe`, "Series from zero").
pub fn zero_counters() {
    use completeness::observe::{zero_counters, zero_single_resource_counters};
    zero_counters::<inventory::ListServiceAccountsReason>("/service-accounts", "GET");
    zero_counters::<inventory::CountServiceAccountsReason>("/service-accounts/count", "GET");
    zero_counters::<search::SearchReason>("/search", "GET");
    zero_single_resource_counters("/service-accounts/{id}", "GET");
    mcp::zero_counters();
}

/// What every route runs in, outside its own layers: the refusals made before any handler runs,
/// their observation and the request log. The observe layer comes once more, around those
/// refusals (a missing credential, a store that is down while authenticating, an unknown route,
/// a body too large), so that each gets its `problem` event too, inside the request's span; what
/// the routes' own layers observed is not observed again. `stopping` is the replica's (see
/// [`telemetry::request_log`]).
pub fn outside<S: Clone + Send + Sync + 'static>(
    router: Router<S>,
    read_timeout: Duration,
    stopping: CancellationToken,
) -> Router<S> {
    telemetry::request_log(refusals::around(router, read_timeout).layer(completeness::observe::layer()), stopping)
}
