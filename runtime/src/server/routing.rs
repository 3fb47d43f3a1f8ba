//! Checked counterparts of `axum::routing::{get, post, put, patch, delete, on}`: they accept
//! only handlers whose response implements [`ReportsCompleteness`], first method or chained.
//!
//! ```
//! use axum::Router;
//! use completeness_runtime::routing::get;
//! use completeness_runtime::{CompletenessConfig, CursorKeys, Envelope, Scope};
//!
//! async fn list() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "every name"))
//! }
//! async fn search() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "names matching a query"))
//! }
//!
//! let app: Router = Router::new()
//!     .route("/names", get(list).post(search).into())
//!     .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
//! # let _ = app;
//! ```
//!
//! A handler returning `Json<Vec<T>>` does not compile here, first or chained: its response
//! says nothing about completeness. Nor does a list go out from the error side of a `Result`:
//! an error type that answers with a success status and no block (`Err(Json(vec![..]))` is a
//! 200) gets the 500 `INTERNAL` problem instead, since a client would read it as the answer.
//! Behind `Result<Envelope<T>, E>` any such success is refused
//! ([`ReportsCompleteness::ANSWERS_WITH_BLOCK`]); behind any other response type, a JSON success
//! without a block that its type does not vouch for ([`Exempt`](crate::Exempt), a derived single
//! resource): so also a list behind `Result<(), E>` or `Result<StatusCode, E>`, and the answer of
//! a type that implements [`ReportsCompleteness`] by hand to report nothing. An answer with a
//! block goes out as JSON with the status 200 (201 for a creation, never for a read): one the
//! handler framed otherwise (`(StatusCode::NO_CONTENT, envelope)`, a 206, a redirect, a
//! `text/plain` or `application/problem+json` body) gets the 500 `INTERNAL` problem too, since a
//! client would lose it or not read it as the answer.
//! And a read that sends a `cursor` to an endpoint that never pages (its `#[completeness]`
//! reasons offer no next page, or it answers a single resource) and reads none gets the 400
//! `CURSOR_QUERY_MISMATCH` problem, not
//! its first page in place of a next one. (A handler that pages by hand, declaring
//! `MorePagesAvailable` without taking `PageRequest`, is trusted to read its own cursors.)
//!
//! Each function returns a [`CheckedMethods`], whose chained methods are checked like the
//! first; `.into()` turns it into the axum `MethodRouter` that `Router::route` takes. A
//! method that must stay unchecked gets its own `.route(path, axum::routing::post(create))`;
//! axum merges routes of one path. Each checked method also gets the demand layer
//! ([`DemandLayer`](crate::server::require::DemandLayer)), which applies a caller's
//! `require_complete` / `Prefer: handling=strict` to the handler's response and echoes the
//! time budget the handler took (what [`echo_layer`](crate::server::budget::echo_layer) does on
//! an unchecked route), and the [`observe`] layer: incomplete answers and refused tokens are
//! traced and counted under the route's template.
//!
//! The router's state must carry the settings ([`CompletenessState`]): a router without them
//! is refused when it is compiled, at the checked route ("the router state `()` does not carry
//! the completeness settings").

use std::future::Future;

use std::convert::Infallible;

use axum::extract::Request;
use axum::handler::Handler;
use axum::response::IntoResponse;
use axum::routing::{MethodFilter, MethodRouter, Route};
use tower::layer::util::Stack;
use tower::{Layer, Service};

use crate::server::config::CompletenessState;
use crate::server::credential::Credential;
use crate::server::observe;
use crate::server::report::ReportsCompleteness;
use crate::server::require::RouteDemandLayer;

/// Names the response type of an async handler function (axum's `Handler` does not).
///
/// `T` is axum's extractor tuple (`((),)` for no arguments, `(M, T1, …, Tn)` otherwise),
/// so it is inferred together with `Handler<T, S>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an async handler function whose response can be checked",
    label = "expected an `async fn` taking at most 16 extractors",
    note = "`completeness::routing` checks the response type of handler functions; route services, \
            layered handlers and method routers with `axum::routing` after checking their responses"
)]
pub trait HandlerResponse<T> {
    /// What the handler's future resolves to.
    type Response;
}

impl<F, Fut> HandlerResponse<((),)> for F
where
    F: FnOnce() -> Fut,
    Fut: Future,
{
    type Response = Fut::Output;
}

macro_rules! impl_handler_response {
    ($($ty:ident),+) => {
        impl<F, Fut, M, $($ty,)+> HandlerResponse<(M, $($ty,)+)> for F
        where
            F: FnOnce($($ty,)+) -> Fut,
            Fut: Future,
        {
            type Response = Fut::Output;
        }
    };
}

impl_handler_response!(T1);
impl_handler_response!(T1, T2);
impl_handler_response!(T1, T2, T3);
impl_handler_response!(T1, T2, T3, T4);
impl_handler_response!(T1, T2, T3, T4, T5);
impl_handler_response!(T1, T2, T3, T4, T5, T6);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15);
impl_handler_response!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16);

/// A method router whose every method is checked: what [`get`], [`post`], [`put`], [`patch`],
/// [`delete`] and [`on`] return, and what their chained forms (`get(list).post(search)`)
/// extend. A layer for the route goes on it (`get(list).layer(..)`), around the checks.
///
/// axum's `Router::route` takes only axum's own `MethodRouter`, so hand it over with `.into()`:
/// `.route("/names", get(list).post(search).into())`. To chain a method deliberately left
/// unchecked, convert first: `axum::routing::MethodRouter::from(get(list)).post(create)`.
#[must_use = "a method router does nothing until it is routed: `.route(path, methods.into())`"]
pub struct CheckedMethods<S = ()> {
    router: MethodRouter<S>,
}

impl<S> std::fmt::Debug for CheckedMethods<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckedMethods").finish_non_exhaustive()
    }
}

impl<S> From<CheckedMethods<S>> for MethodRouter<S> {
    fn from(methods: CheckedMethods<S>) -> MethodRouter<S> {
        methods.router
    }
}

/// `handler` behind the demand layer (which on a checked route also echoes the time budget)
/// and the observe layer outside it, routed for `filter` only. The two are one stack under one
/// `Handler::layer`, so the handler is wrapped once.
fn checked<H, T, S>(filter: MethodFilter, handler: H) -> MethodRouter<S>
where
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: CompletenessState + Clone + 'static,
{
    let demand = RouteDemandLayer {
        block_required: <<H as HandlerResponse<T>>::Response as ReportsCompleteness>::ANSWERS_WITH_BLOCK,
    };
    let layered = handler.layer(Stack::new(demand, observe::layer()));
    axum::routing::on(filter, Configured(layered))
}

/// A checked handler's outermost part, the one that has the router's state: a request that
/// brings no [`Credential`] gets the configured anonymous one here, so that the observe layer
/// inside names it in its events. (The extractors need no such help: [`Credential::from_parts`]
/// falls back to the anonymous credential itself, on any route.)
#[derive(Clone)]
struct Configured<H>(H);

impl<H, T, S> Handler<T, S> for Configured<H>
where
    H: Handler<T, S>,
    S: CompletenessState + Clone + 'static,
{
    type Future = H::Future;

    fn call(self, mut request: Request, state: S) -> Self::Future {
        if request.extensions().get::<Credential>().is_none()
            && let Some(anonymous) = state.completeness().anonymous_credential()
        {
            request.extensions_mut().insert(anonymous.clone());
        }
        self.0.call(request, state)
    }
}

/// Routes `GET` (and `HEAD`) requests to `handler`, whose response must report completeness.
pub fn get<H, T, S>(handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(MethodFilter::GET, handler) }
}

/// Routes `POST` requests to `handler`, whose response must report completeness.
pub fn post<H, T, S>(handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(MethodFilter::POST, handler) }
}

/// Routes `PUT` requests to `handler`, whose response must report completeness.
pub fn put<H, T, S>(handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(MethodFilter::PUT, handler) }
}

/// Routes `PATCH` requests to `handler`, whose response must report completeness.
pub fn patch<H, T, S>(handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(MethodFilter::PATCH, handler) }
}

/// Routes `DELETE` requests to `handler`, whose response must report completeness.
pub fn delete<H, T, S>(handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(MethodFilter::DELETE, handler) }
}

/// Routes requests of the methods of `filter` to `handler`, whose response must report
/// completeness: `on(MethodFilter::GET.or(MethodFilter::POST), search)`, as axum's `on`.
pub fn on<H, T, S>(filter: MethodFilter, handler: H) -> CheckedMethods<S>
where
    S: CompletenessState + Clone + 'static,
    H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
{
    CheckedMethods { router: checked(filter, handler) }
}

// The chained forms are written out like the free functions above, rather than generated,
// so that a refused handler's error points at a plain function signature.
impl<S: CompletenessState + Clone + 'static> CheckedMethods<S> {
    /// Also routes `GET` (and `HEAD`) requests to `handler`, checked like the first method
    /// (panics, as axum does, if `GET` is routed already).
    pub fn get<H, T>(self, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(MethodFilter::GET, handler)) }
    }

    /// Also routes `POST` requests to `handler`, checked like the first method
    /// (panics, as axum does, if `POST` is routed already).
    pub fn post<H, T>(self, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(MethodFilter::POST, handler)) }
    }

    /// Also routes `PUT` requests to `handler`, checked like the first method
    /// (panics, as axum does, if `PUT` is routed already).
    pub fn put<H, T>(self, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(MethodFilter::PUT, handler)) }
    }

    /// Also routes `PATCH` requests to `handler`, checked like the first method
    /// (panics, as axum does, if `PATCH` is routed already).
    pub fn patch<H, T>(self, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(MethodFilter::PATCH, handler)) }
    }

    /// Also routes `DELETE` requests to `handler`, checked like the first method
    /// (panics, as axum does, if `DELETE` is routed already).
    pub fn delete<H, T>(self, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(MethodFilter::DELETE, handler)) }
    }

    /// Also routes requests of the methods of `filter` to `handler`, checked like the first
    /// method (panics, as axum does, if one of them is routed already).
    pub fn on<H, T>(self, filter: MethodFilter, handler: H) -> CheckedMethods<S>
    where
        H: HandlerResponse<T> + Handler<T, S> + Clone + Send + Sync + 'static,
        <H as HandlerResponse<T>>::Response: ReportsCompleteness,
        T: 'static,
    {
        CheckedMethods { router: self.router.merge(checked(filter, handler)) }
    }

    /// Applies `layer` around every method routed so far, as axum's `MethodRouter::layer`: the
    /// checks stay inside it, on the handlers' own responses. (What the layer makes of a
    /// response is its own: one that rewrites an answer into a list without its block undoes
    /// what the checks held.)
    pub fn layer<L>(self, layer: L) -> CheckedMethods<S>
    where
        L: Layer<Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request, Error = Infallible> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        CheckedMethods { router: self.router.layer(layer) }
    }

    /// Applies `layer` around every method routed so far, only when one of them matches, as
    /// axum's `MethodRouter::route_layer` (a method not routed stays a 405, not the layer's).
    pub fn route_layer<L>(self, layer: L) -> CheckedMethods<S>
    where
        L: Layer<Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request, Error = Infallible> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        CheckedMethods { router: self.router.route_layer(layer) }
    }
}
