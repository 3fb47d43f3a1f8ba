//! [`FaultLayer::fault_answer`]: the layer's faults on an answer a service gives outside HTTP,
//! such as an MCP tool's.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use tower::{Layer, ServiceExt};

use super::layer::{FaultLayer, without_cursor};
use crate::contract::field::OmittedFields;
use crate::contract::media::retry_after_seconds;
use crate::server::budget::TimeBudget;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::report::{ReportsCompleteness, SingleReport};

/// The route's answer to the request without its cursor.
type FirstPage = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = Response> + Send>> + Send>;

/// What the route [`FaultLayer::fault_answer`] stands in for answers, each once: the request,
/// then (for `TRAVERSAL_RESTARTED`) the same request without its cursor, at `first_uri`, as the
/// layer asks for it ([`without_cursor`]).
struct StandIn {
    answer: Option<Response>,
    first_page: Option<FirstPage>,
    first_uri: Uri,
}

impl StandIn {
    /// The answer to a request for `asked`: the call's, then its first page; a problem for anything else.
    async fn answer(stand_in: &Mutex<StandIn>, asked: &Uri) -> Response {
        let first_page = {
            let mut stand_in = stand_in.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(answer) = stand_in.answer.take() {
                return answer;
            }
            if *asked == stand_in.first_uri { stand_in.first_page.take() } else { None }
        };
        match first_page {
            Some(first_page) => first_page().await,
            None => Problem::new(
                ProblemCode::Internal,
                "the fault layer asked another question than the call's, or asked it twice: a fault only the route \
                 itself can answer (FILTER_DROPPED, which a kit's layer offers) cannot be applied outside HTTP",
            )
            .into_response(),
        }
    }
}

impl FaultLayer {
    /// Faults `answer`, which the service gave outside HTTP to a call that stands for `request`
    /// (an MCP tool call that reads what a `GET` of one of its routes reads), as this layer
    /// faults that route's answer, and returns what to answer the call with instead: `answer`
    /// itself, a faulted copy of it, or the problem of an outage or an expired cursor (its
    /// `Retry-After` as [`Problem::retry_after`]). The draw is the layer's: such calls and the
    /// requests it serves take their faults from one schedule, in the order they come.
    ///
    /// `request` is the `GET` the call stands for: its path, and its query with the call's
    /// filters, `cursor`, `page_size` and `time_budget_ms`, as the route would read them (leave
    /// out `require_complete`, and check the call's demand on the answer returned, so that a
    /// refusal is observed as the call's), and among its extensions the [`TimeBudget`] the answer
    /// was read under, when it was, as the route's answer carries it: a `TIME_BUDGET_EXCEEDED`
    /// then states that budget and its real recovery. `first_page` gives the route's answer to it without
    /// its cursor, for the fault that answers a cursor with the first page again (a single
    /// resource has none: give a closure that is never called). A single resource with a `Field`
    /// member is faulted as its `GET` is (a field left out, an outage): the type it is read back
    /// as must read a field listed in `omitted_fields` as left out (`#[envelope(deserialize)]`
    /// on its `#[derive(ResultEnvelope)]`, or a `Deserialize` of its own that restores its
    /// `Field`s with [`OmittedFields::restore`]); one that reads the `null` as a genuine one
    /// gets a `500` problem that says so, rather than an answer that lost what was left out. An
    /// answer whose declarations offer no fault comes back as it was. A fault
    /// that asks the route another question (`FILTER_DROPPED`, which only a kit's layer offers,
    /// [`Fault::is_kit_only`](super::Fault::is_kit_only)) cannot be answered here, and gets a
    /// `500` problem that says so.
    pub async fn fault_answer<A, F, Fut>(&self, request: Request, answer: A, first_page: F) -> Result<A, Problem>
    where
        A: IntoResponse + DeserializeOwned + ReportsCompleteness,
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<A, Problem>> + Send + 'static,
    {
        let first_page: FirstPage = Box::new(move || Box::pin(async move { first_page().await.into_response() }));
        let mut answer = answer.into_response();
        if let Some(budget) = request.extensions().get::<TimeBudget>().copied() {
            answer.extensions_mut().insert(budget);
        }
        let stand_in = Arc::new(Mutex::new(StandIn {
            answer: Some(answer),
            first_page: Some(first_page),
            first_uri: without_cursor(request.uri()),
        }));
        let route = tower::service_fn(move |asked: Request| {
            let stand_in = Arc::clone(&stand_in);
            let asked = asked.uri().clone();
            async move { Ok::<_, Infallible>(StandIn::answer(&stand_in, &asked).await) }
        });
        let Ok(response) = self.layer(route).oneshot(request).await;
        read_back(response).await
    }
}

/// The answer the layer sent, read as the route's own type, or the problem it sent. A single
/// resource read back must report the fields its body left out.
async fn read_back<A: DeserializeOwned + ReportsCompleteness>(response: Response) -> Result<A, Problem> {
    let status = response.status();
    // A single resource with a `Field` member, as the route's answer said.
    let single = response.extensions().get::<SingleReport>().is_some_and(|single| !single.fields.is_empty());
    let wait = response
        .headers()
        .get(header::RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| retry_after_seconds(value, SystemTime::now()));
    let unread = |what: String| Problem::new(ProblemCode::Internal, format!("the fault layer's answer {what}"));
    let bytes = to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(|error| unread(format!("could not be read: {error}")))?;
    if status == StatusCode::OK {
        let answer: A =
            serde_json::from_slice(&bytes).map_err(|error| unread(format!("does not read as the route's: {error}")))?;
        let sent =
            serde_json::from_slice::<Listed>(&bytes).ok().filter(|_| single).and_then(|sent| sent.omitted_fields);
        let read = answer.single_report().map(|single| single.omitted).unwrap_or_default();
        return match sent {
            // Left out by the fault or by the service itself: either way the type loses it.
            Some(sent) if sent != read => Err(Problem::new(
                ProblemCode::Internal,
                format!(
                    "the answer leaves out {}, but its type reads back {} left out: read a field listed in \
                     `omitted_fields` as left out (`OmittedFields::restore`), not as a genuine null",
                    listed(&sent),
                    listed(&read)
                ),
            )),
            _ => Ok(answer),
        };
    }
    let problem: Problem =
        serde_json::from_slice(&bytes).map_err(|error| unread(format!("(status {status}) is no problem: {error}")))?;
    Err(match wait {
        Some(seconds) => problem.with_retry_after(seconds),
        None => problem,
    })
}

/// The `omitted_fields` of a single resource's body, when it has one (contract §2.7).
#[derive(serde::Deserialize)]
struct Listed {
    omitted_fields: Option<OmittedFields>,
}

/// The fields of `omitted` with why, or `none`.
fn listed(omitted: &OmittedFields) -> String {
    if omitted.is_empty() { "none".to_owned() } else { omitted.to_string() }
}
