//! The trait every routed response implements: it reports completeness, or is explicitly not a list.

use serde_json::Value;

use crate::contract::aggregate::Aggregate;
use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{Reason, ReasonCode};
use crate::contract::scope::PageInfo;
use crate::contract::warning::WarningCode;
use crate::server::problem::{Problem, ProblemCode};

/// A type-erased view of a completeness block, for generic handling
/// (`require_complete`, scope filling) without knowing the endpoint's reason type.
pub trait CompletenessReport {
    /// True only when the response covers the whole requested scope.
    fn is_complete(&self) -> bool;
    /// The reason codes.
    fn reason_codes(&self) -> Vec<ReasonCode>;
    /// The reasons as wire objects.
    fn reasons_json(&self) -> Vec<Value>;
    /// The largest `retry_after` among the recoveries, when any is known.
    fn retry_after_seconds(&self) -> Option<u64>;
    /// Fills `scope.resource` when the handler left it empty.
    fn fill_resource(&mut self, resource: &str);
    /// The warning codes.
    fn warning_codes(&self) -> Vec<WarningCode> {
        Vec::new()
    }
    /// The page facts, when the response is a page.
    fn page(&self) -> Option<&PageInfo> {
        None
    }
}

impl<R: Reason> CompletenessReport for Completeness<R> {
    fn is_complete(&self) -> bool {
        Completeness::is_complete(self)
    }
    fn reason_codes(&self) -> Vec<ReasonCode> {
        Completeness::reason_codes(self)
    }
    fn reasons_json(&self) -> Vec<Value> {
        self.reasons().iter().map(|r| serde_json::to_value(r).unwrap_or(Value::Null)).collect()
    }
    fn retry_after_seconds(&self) -> Option<u64> {
        self.reasons()
            .iter()
            .filter_map(|r| match r.recovery() {
                Some(crate::Continuation::RetryAfter { seconds }) => Some(seconds),
                _ => None,
            })
            .max()
    }
    fn fill_resource(&mut self, resource: &str) {
        if self.scope().resource.is_empty() {
            self.scope_mut().resource = resource.to_owned();
        }
    }
    fn warning_codes(&self) -> Vec<WarningCode> {
        self.warnings().iter().map(|w| w.code().clone()).collect()
    }
    fn page(&self) -> Option<&PageInfo> {
        Completeness::page(self)
    }
}

/// The problem a demand for completeness meets (it lives here, beside the report it reads,
/// so that problems do not depend on reports).
impl Problem {
    /// The `COMPLETE_RESULT_UNAVAILABLE` problem of DESIGN §2.8 for an incomplete result:
    /// 403 when `VISIBILITY_RESTRICTED` is among the reasons, else 422 when
    /// `RESULT_LIMIT_REACHED` is, else 503 with `Retry-After` when known.
    pub fn complete_result_unavailable(report: &dyn CompletenessReport) -> Problem {
        let codes = report.reason_codes();
        let status = if codes.contains(&ReasonCode::VisibilityRestricted) {
            403
        } else if codes.contains(&ReasonCode::ResultLimitReached) {
            422
        } else {
            503
        };
        let listed = codes.iter().map(ReasonCode::as_str).collect::<Vec<_>>().join(", ");
        let mut problem = Problem::new(
            ProblemCode::CompleteResultUnavailable,
            format!("The request demanded a complete result; this one is incomplete ({listed})."),
        )
        .with_status(status)
        .with_extension("incomplete_reasons", report.reasons_json());
        if status == 503
            && let Some(seconds) = report.retry_after_seconds()
        {
            problem = problem.with_retry_after(seconds);
        }
        problem
    }
}

/// A response that states whether it covers the whole requested scope.
///
/// Every handler routed through `completeness::routing` and every handler under
/// `#[completeness]` must return a type implementing it. Collections implement it by
/// carrying a [`Completeness`] block; responses that are not lists (problems, status
/// codes, [`Exempt`]) implement it by saying so.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a list response without completeness metadata",
    label = "this response does not say whether it is complete",
    note = "return `completeness::Envelope<T, R>`, or a struct with `#[derive(ResultEnvelope)]` and a `#[envelope(completeness)]` field",
    note = "for a response that is not a list, wrap it in `completeness::Exempt::new(value, \"why it cannot be truncated\")`"
)]
pub trait ReportsCompleteness {
    /// The completeness block, or `None` for a response that is not a collection.
    fn completeness_report(&self) -> Option<&dyn CompletenessReport>;
    /// The completeness block, mutably.
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport>;
    /// How many items the response carries, when it knows (for operators' events).
    fn items_returned(&self) -> Option<usize> {
        None
    }
}

impl<T, R: Reason> ReportsCompleteness for Envelope<T, R> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(&self.completeness)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(&mut self.completeness)
    }
    fn items_returned(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

impl<T, R: Reason> ReportsCompleteness for Aggregate<T, R> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(self.completeness())
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(self.completeness_mut())
    }
}

/// Implements [`ReportsCompleteness`] for responses that are not collections.
macro_rules! not_a_collection {
    ($($ty:ty),*) => {$(
        impl ReportsCompleteness for $ty {
            fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
                None
            }
            fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
                None
            }
        }
    )*};
}

not_a_collection!(Problem, ());

#[cfg(feature = "axum")]
not_a_collection!(axum::http::StatusCode);

impl<T: ReportsCompleteness, E: ReportsCompleteness> ReportsCompleteness for Result<T, E> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        match self {
            Ok(value) => value.completeness_report(),
            Err(error) => error.completeness_report(),
        }
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        match self {
            Ok(value) => value.completeness_report_mut(),
            Err(error) => error.completeness_report_mut(),
        }
    }
    fn items_returned(&self) -> Option<usize> {
        match self {
            Ok(value) => value.items_returned(),
            Err(error) => error.items_returned(),
        }
    }
}

#[cfg(feature = "axum")]
impl<T: ReportsCompleteness> ReportsCompleteness for (axum::http::StatusCode, T) {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        self.1.completeness_report()
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        self.1.completeness_report_mut()
    }
    fn items_returned(&self) -> Option<usize> {
        self.1.items_returned()
    }
}

/// The explicit, justified escape hatch: a response that is not a list, or a
/// collection that cannot be truncated, with the reason written down.
///
/// ```
/// use completeness_runtime::Exempt;
/// let health = Exempt::new("ok", "a health probe returns one fixed value");
/// assert_eq!(health.why(), "a health probe returns one fixed value");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Exempt<T> {
    value: T,
    why: &'static str,
}

impl<T> Exempt<T> {
    /// Exempts `value`; `why` says why it needs no completeness metadata.
    pub fn new(value: T, why: &'static str) -> Self {
        Exempt { value, why }
    }

    /// The justification.
    pub fn why(&self) -> &'static str {
        self.why
    }

    /// The value.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> ReportsCompleteness for Exempt<T> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        None
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        None
    }
}

#[cfg(feature = "axum")]
impl<T: axum::response::IntoResponse> axum::response::IntoResponse for Exempt<T> {
    fn into_response(self) -> axum::response::Response {
        self.value.into_response()
    }
}
