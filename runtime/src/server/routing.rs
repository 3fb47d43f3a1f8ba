//! Drop-in replacements for `axum::routing::{get, post, put, patch, delete}` that accept only
//! handlers whose response implements [`ReportsCompleteness`].
//!
//! ```
//! use axum::Router;
//! use completeness_runtime::routing::get;
//! use completeness_runtime::{Envelope, Scope};
//!
//! async fn list() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "every name"))
//! }
//!
//! let app: Router = Router::new().route("/names", get(list));
//! # let _ = app;
//! ```
//!
//! A handler returning `Json<Vec<T>>` does not compile here: its response says
//! nothing about completeness.
//!
//! Each function returns axum's own `MethodRouter`, since `Router::route` takes no other. So
//! a method chained on it (`get(list).post(create)`) is axum's, and unchecked. Give each
//! method its own call instead: `.route("/names", get(list)).route("/names", post(create))`;
//! axum merges them. The repository's `clippy.toml` refuses the chained methods
//! (`disallowed-methods`), and `cargo completeness audit` reports them. Each route also gets the [`DemandLayer`], which applies a
//! caller's `require_complete` / `Prefer: handling=strict` to the handler's response, and the
//! [`observe`] layer: incomplete answers and refused tokens are traced and counted under the
//! route's template.

use std::future::Future;

use axum::handler::Handler;
use axum::routing::MethodRouter;

use crate::server::observe;
use crate::server::report::ReportsCompleteness;
use crate::server::require::DemandLayer;

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

/// Routes `GET` (and `HEAD`) requests to `handler`, whose response must report completeness.
pub fn get<H, T, S>(handler: H) -> MethodRouter<S>
where
    H: Handler<T, S> + HandlerResponse<T> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::get(handler.layer(DemandLayer)).layer(observe::layer())
}

/// Routes `POST` requests to `handler`, whose response must report completeness.
pub fn post<H, T, S>(handler: H) -> MethodRouter<S>
where
    H: Handler<T, S> + HandlerResponse<T> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::post(handler.layer(DemandLayer)).layer(observe::layer())
}

/// Routes `PUT` requests to `handler`, whose response must report completeness.
pub fn put<H, T, S>(handler: H) -> MethodRouter<S>
where
    H: Handler<T, S> + HandlerResponse<T> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::put(handler.layer(DemandLayer)).layer(observe::layer())
}

/// Routes `PATCH` requests to `handler`, whose response must report completeness.
pub fn patch<H, T, S>(handler: H) -> MethodRouter<S>
where
    H: Handler<T, S> + HandlerResponse<T> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::patch(handler.layer(DemandLayer)).layer(observe::layer())
}

/// Routes `DELETE` requests to `handler`, whose response must report completeness.
pub fn delete<H, T, S>(handler: H) -> MethodRouter<S>
where
    H: Handler<T, S> + HandlerResponse<T> + Clone + Send + Sync + 'static,
    <H as HandlerResponse<T>>::Response: ReportsCompleteness,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    axum::routing::delete(handler.layer(DemandLayer)).layer(observe::layer())
}
