//! The response of a `#[completeness]` handler: the handler's own response with
//! `scope.resource` filled and the caller's `require_complete` demand applied (DESIGN §2.8).

use crate::report::{CompletenessReport, ReportsCompleteness};

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
}

#[cfg(feature = "axum")]
impl<T: ReportsCompleteness + axum::response::IntoResponse> axum::response::IntoResponse for CheckedResponse<T> {
    fn into_response(self) -> axum::response::Response {
        self.demand.apply(self.response)
    }
}
