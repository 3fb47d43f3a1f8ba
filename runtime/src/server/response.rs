//! axum `IntoResponse` for envelopes, aggregates and problems.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::contract::aggregate::Aggregate;
use crate::contract::envelope::Envelope;
use crate::contract::reason::Reason;
use crate::server::observe;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::report::Reported;

pub use crate::contract::media::PROBLEM_JSON;

/// Serializes `value` as an `application/json` 200 response.
pub fn json_response<T: Serialize + ?Sized>(value: &T) -> Response {
    json_response_sized(value, 128)
}

/// [`json_response`] into a buffer that starts at `capacity` bytes.
fn json_response_sized<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Response {
    let mut body = Vec::with_capacity(capacity);
    match serde_json::to_writer(&mut body, value) {
        Ok(()) => ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response(),
        Err(error) => Problem::new(ProblemCode::Internal, format!("the response could not be serialized: {error}"))
            .into_response(),
    }
}

/// A first guess at an envelope's JSON size: the completeness block plus about
/// 128 bytes an item, so that a page of small records is written without regrowing
/// its buffer (a bigger page grows it as usual).
fn envelope_capacity(items: usize) -> usize {
    items.saturating_mul(128).saturating_add(1024).min(1 << 20)
}

impl<T: Serialize, R: Reason> IntoResponse for Envelope<T, R> {
    fn into_response(self) -> Response {
        // (`page.returned` counts the items that go out, R11: `Envelope`'s `Serialize` writes it.)
        let mut response = json_response_sized(&self, envelope_capacity(self.items.len()));
        if let Some(reported) = Reported::of_response(&self) {
            reported.attach(&mut response);
        }
        response
    }
}

impl<T: Serialize, R: Reason> IntoResponse for Aggregate<T, R> {
    fn into_response(self) -> Response {
        let mut response = json_response(&self);
        Reported::of(self.completeness(), None).attach(&mut response);
        response
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = serde_json::to_vec(&self).unwrap_or_else(|_| b"{\"code\":\"INTERNAL\"}".to_vec());
        let mut response =
            (status, [(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON))], body).into_response();
        observe::tag_problem(self.code(), self.cause(), &mut response);
        if let Some(seconds) = self.retry_after() {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}
