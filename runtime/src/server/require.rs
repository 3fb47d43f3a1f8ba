//! `require_complete=true` / `Prefer: handling=strict`: an incomplete result becomes an error (DESIGN §2.8).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use crate::contract::reason::ReasonCode;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::query::query_pairs;
use crate::server::report::ReportsCompleteness;

/// Whether the caller demanded a complete result.
///
/// Read from the `require_complete` query parameter (`true`/`false`) or a
/// `Prefer: handling=strict` header. A malformed `require_complete` value is a
/// 400 `INVALID_REQUEST` problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequireComplete(pub bool);

impl RequireComplete {
    /// Reads the demand from request parts.
    pub fn from_parts(parts: &Parts) -> Result<Self, Problem> {
        let mut demanded = false;
        for (key, value) in query_pairs(&parts.uri)? {
            if key == "require_complete" {
                demanded = match &*value {
                    "true" | "1" => true,
                    "false" | "0" => demanded,
                    other => {
                        return Err(Problem::new(
                            ProblemCode::InvalidRequest,
                            format!("require_complete must be true or false, got '{other}'"),
                        )
                        .with_extension("parameter", "require_complete"));
                    }
                };
            }
        }
        for prefer in parts.headers.get_all(axum::http::header::HeaderName::from_static("prefer")) {
            let Ok(text) = prefer.to_str() else { continue };
            if text.split(',').flat_map(|p| p.split(';')).any(|p| p.trim().eq_ignore_ascii_case("handling=strict")) {
                demanded = true;
            }
        }
        Ok(RequireComplete(demanded))
    }

    /// True when the caller demanded a complete result.
    pub fn is_demanded(self) -> bool {
        self.0
    }

    /// Checks a response: when completeness was demanded and the response is an
    /// incomplete collection, returns the `COMPLETE_RESULT_UNAVAILABLE` problem.
    ///
    /// `MORE_PAGES_AVAILABLE` alone is not a failure of a paginated endpoint.
    pub fn check<T: ReportsCompleteness + ?Sized>(self, response: &T) -> Result<(), Problem> {
        if !self.0 {
            return Ok(());
        }
        match response.completeness_report() {
            Some(report) if !report.is_complete() => {
                let codes = report.reason_codes();
                if codes.iter().all(|c| *c == ReasonCode::MorePagesAvailable) {
                    Ok(())
                } else {
                    Err(Problem::complete_result_unavailable(report))
                }
            }
            _ => Ok(()),
        }
    }

    /// [`RequireComplete::check`], then the response itself or the problem.
    pub fn apply<T: ReportsCompleteness + IntoResponse>(self, response: T) -> Response {
        match self.check(&response) {
            Ok(()) => response.into_response(),
            Err(problem) => crate::server::observe::strict_refusal(problem.into_response(), &response),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequireComplete {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        RequireComplete::from_parts(parts)
    }
}
