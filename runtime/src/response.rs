//! axum `IntoResponse` for envelopes, aggregates and problems.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::aggregate::Aggregate;
use crate::envelope::Envelope;
use crate::problem::{Problem, ProblemCode};
use crate::reason::Reason;

/// The media type of problem responses.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Serializes `value` as an `application/json` 200 response.
pub fn json_response<T: Serialize + ?Sized>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(body) => ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response(),
        Err(error) => Problem::new(ProblemCode::Internal, format!("the response could not be serialized: {error}"))
            .into_response(),
    }
}

impl<T: Serialize, R: Reason> IntoResponse for Envelope<T, R> {
    fn into_response(self) -> Response {
        json_response(&self)
    }
}

impl<T: Serialize, R: Reason> IntoResponse for Aggregate<T, R> {
    fn into_response(self) -> Response {
        json_response(&self)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self).unwrap_or_else(|_| b"{\"code\":\"INTERNAL\"}".to_vec());
        let mut response =
            (status, [(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON))], body).into_response();
        if let Some(seconds) = self.retry_after() {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
