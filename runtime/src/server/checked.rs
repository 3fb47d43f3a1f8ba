//! The response of a `#[completeness]` handler: the handler's own response with
//! `scope.resource` filled and the caller's `require_complete` demand applied (DESIGN §2.8).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::server::report::{CompletenessReport, ReportsCompleteness};

/// What a `#[completeness]` handler returns: its declared response, checked.
///
/// The macro fills `scope.resource` when the handler left it empty and, when the
/// caller demanded a complete result (`require_complete=true` or
/// `Prefer: handling=strict`), turns an incomplete response into the
/// `COMPLETE_RESULT_UNAVAILABLE` problem when it is sent.
///
/// Calling an annotated handler directly (in a test) gives this wrapper;
/// [`CheckedResponse::into_inner`] returns the declared response.
#[derive(Debug, Clone)]
pub struct CheckedResponse<T> {
    response: T,
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // without axum nothing is sent
    demand: crate::__private::Demand,
}

impl<T: ReportsCompleteness> CheckedResponse<T> {
    /// Wraps `response` of an endpoint over `resource`, to be checked against `demand`.
    #[doc(hidden)]
    pub fn new(mut response: T, resource: &str, demand: crate::__private::Demand) -> Self {
        if let Some(report) = response.completeness_report_mut() {
            report.fill_resource(resource);
        }
        CheckedResponse { response, demand }
    }
}

impl<T> CheckedResponse<T> {
    /// The handler's declared response.
    pub fn into_inner(self) -> T {
        self.response
    }

    /// The handler's declared response, by reference.
    pub fn get(&self) -> &T {
        &self.response
    }
}

impl<T: ReportsCompleteness> ReportsCompleteness for CheckedResponse<T> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        self.response.completeness_report()
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        self.response.completeness_report_mut()
    }
    fn items_returned(&self) -> Option<usize> {
        self.response.items_returned()
    }
}

#[cfg(feature = "axum")]
impl<T: ReportsCompleteness + axum::response::IntoResponse> axum::response::IntoResponse for CheckedResponse<T> {
    fn into_response(self) -> axum::response::Response {
        self.demand.apply(self.response)
    }
}

/// The future a `#[completeness]` handler returns: the handler's own future, whose
/// response is wrapped in a [`CheckedResponse`] when it is ready.
///
/// One boxed future and no second state machine: the annotated handler costs the compiler
/// about what the plain one does.
pub struct CheckedFuture<F> {
    inner: Pin<Box<F>>,
    resource: &'static str,
    demand: crate::__private::Demand,
}

impl<F: Future> CheckedFuture<F> {
    /// Wraps the future of a handler over `resource`.
    #[doc(hidden)]
    pub fn new(inner: F, resource: &'static str, demand: crate::__private::Demand) -> Self {
        CheckedFuture { inner: Box::pin(inner), resource, demand }
    }
}

impl<F> fmt::Debug for CheckedFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckedFuture").field("resource", &self.resource).finish_non_exhaustive()
    }
}

impl<F: Future> Future for CheckedFuture<F>
where
    F::Output: ReportsCompleteness,
{
    type Output = CheckedResponse<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match this.inner.as_mut().poll(cx) {
            Poll::Ready(response) => Poll::Ready(CheckedResponse::new(response, this.resource, this.demand)),
            Poll::Pending => Poll::Pending,
        }
    }
}
