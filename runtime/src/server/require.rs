//! `require_complete=true` / `Prefer: handling=strict`: an incomplete result becomes an error
//! (contract §5.3).
//!
//! The demand is applied on the way out by [`DemandLayer`], which `completeness::routing`
//! installs on every route it builds: the handler stays the function its author wrote. A
//! response that reports completeness leaves a [`Reported`] in its extensions; when it is
//! incomplete, the layer turns it into the `COMPLETE_RESULT_UNAVAILABLE` problem if the
//! request demanded a complete result.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::{FromRequestParts, Request};
use axum::http::header::VARY;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::contract::media::{declares_answer, declares_json};
use crate::contract::params::{CURSOR, REQUIRE_COMPLETE};
use crate::contract::reason::ReasonCode;
use crate::server::budget::BudgetEcho;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::query::query_pairs;
use crate::server::report::{IncompleteReport, Reported, ReportsCompleteness};

/// The request header of RFC 7240 preferences.
pub(crate) const PREFER: HeaderName = HeaderName::from_static("prefer");
/// The response header naming the preferences a server honoured (RFC 7240).
pub(crate) const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");

/// Whether the caller demanded a complete result.
///
/// Read from the `require_complete` query parameter (`true` or `1`; `false` or `0`) or a
/// `Prefer: handling=strict` header. A malformed `require_complete` value, or the parameter
/// given more than once, is a 400 `INVALID_REQUEST` problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequireComplete(pub bool);

impl RequireComplete {
    /// Reads the demand from request parts.
    pub fn from_parts(parts: &Parts) -> Result<Self, Problem> {
        Ok(RequireComplete(demanded_by_query(parts)?.demanded || prefers_strict(&parts.headers)))
    }

    /// True when the caller demanded a complete result.
    pub fn is_demanded(self) -> bool {
        self.0
    }

    /// Checks a response: when completeness was demanded and the response is an
    /// incomplete collection, returns the `COMPLETE_RESULT_UNAVAILABLE` problem.
    ///
    /// `MORE_PAGES_AVAILABLE` alone is not a failure of a page of a collection (one with items
    /// or page facts), nor is alone a service's own truncation whose continuation is the next
    /// cursor (pagination by its own name); of an aggregate it is.
    pub fn check<T: ReportsCompleteness + ?Sized>(self, response: &T) -> Result<(), Problem> {
        match IncompleteReport::of_response(response) {
            Some(report) => self.check_report(&report),
            None => Ok(()),
        }
    }

    /// [`RequireComplete::check`] on what a sent response reported.
    pub fn check_report(self, report: &IncompleteReport) -> Result<(), Problem> {
        if !self.0 || report.codes.is_empty() {
            return Ok(());
        }
        // (A report built by hand may leave `only_the_next_page` out: its codes say the first case.)
        let only_the_next_page =
            report.only_the_next_page || report.codes.iter().all(|code| *code == ReasonCode::MorePagesAvailable);
        if report.paged && only_the_next_page { Ok(()) } else { Err(Problem::complete_result_unavailable(report)) }
    }

    /// [`RequireComplete::check`], then the response itself or the problem. (Routes of
    /// `completeness::routing` apply the demand themselves, and also say
    /// `Preference-Applied: handling=strict` when it came as a `Prefer` header.)
    /// A response that reports completeness says `Vary: Prefer`, as the routes' layer does.
    pub fn apply<T: ReportsCompleteness + IntoResponse>(self, response: T) -> Response {
        let Some(reported) = Reported::of_response(&response) else {
            return match self.check(&response) {
                Ok(()) => response.into_response(),
                Err(problem) => problem.into_response(),
            };
        };
        let mut response = match self.check(&response) {
            Ok(()) => response.into_response(),
            Err(problem) => reported.refused_by(problem.into_response()),
        };
        vary_by_preference(&mut response);
        response
    }
}

/// Says that the answer to this URL depends on `Prefer` (RFC 7240, section 2): a cache must not
/// hand a lenient partial answer to a strict caller, or the reverse.
pub(crate) fn vary_by_preference(response: &mut Response) {
    let named = response.headers().get_all(VARY).iter().any(|value| {
        value.to_str().is_ok_and(|value| value.split(',').any(|name| name.trim().eq_ignore_ascii_case("prefer")))
    });
    if !named {
        response.headers_mut().append(VARY, HeaderValue::from_static("prefer"));
    }
}

/// What a request's query says to the demand layer.
struct QueryDemand {
    /// `require_complete` demands a complete result.
    demanded: bool,
    /// The query has a `cursor`.
    has_cursor: bool,
}

/// The `require_complete` query parameter, read into [`QueryDemand`] with whether the query has
/// a `cursor`; a malformed value, or the parameter given twice, is the 400 problem (like
/// `page_size` and `cursor`: which of two answers the client meant is not ours to guess).
fn demanded_by_query(parts: &Parts) -> Result<QueryDemand, Problem> {
    let refused = |detail: String| Problem::new(ProblemCode::InvalidRequest, detail).with_parameter(REQUIRE_COMPLETE);
    let mut demanded = None;
    let mut cursor = false;
    for (key, value) in query_pairs(&parts.uri)? {
        if key == CURSOR {
            cursor = true;
        }
        if key != REQUIRE_COMPLETE {
            continue;
        }
        if demanded.is_some() {
            return Err(refused("require_complete was given more than once".to_owned()));
        }
        demanded = Some(match &*value {
            "true" | "1" => true,
            "false" | "0" => false,
            other => return Err(refused(format!("require_complete must be true or false (or 1 or 0), got '{other}'"))),
        });
    }
    Ok(QueryDemand { demanded: demanded.unwrap_or(false), has_cursor: cursor })
}

/// True when a `Prefer` header of `headers` holds `handling=strict`. A value is read as bytes:
/// a byte outside ASCII, which RFC 9110 allows inside a quoted string, does not hide the
/// preferences beside it.
pub(crate) fn prefers_strict(headers: &HeaderMap) -> bool {
    // Only the first `handling` preference counts, across the headers in order (RFC 7240, section 2).
    let mut values = headers.get_all(PREFER).iter();
    values.find_map(|value| handling_preference(&String::from_utf8_lossy(value.as_bytes()))) == Some(Handling::Strict)
}

/// What the first `handling` preference of a `Prefer` header value (RFC 7240) asks, if it holds
/// one (a later one is not considered, as the RFC says): its preferences are comma-separated,
/// each `name [= value]` followed by `;` parameters (which are not preferences), with optional
/// whitespace around `=`; a value may be a quoted string, whose commas, semicolons and equals
/// signs are its own and whose quoted pairs (`\"`, `\i`) stand for the character they quote,
/// and which, left open, runs to the end of the value (`handling="strict` demands). Names and the value `strict` compare case-insensitively.
fn handling_preference(header: &str) -> Option<Handling> {
    let mut preference = Preference::default();
    let mut chars = header.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => text.extend(chars.next()),
                        c => text.push(c),
                    }
                }
                preference.quoted(&text);
            }
            ',' => match preference.handling() {
                Some(handling) => return Some(handling),
                None => preference = Preference::default(),
            },
            ';' => preference.in_parameters = true,
            '=' => preference.equals(),
            c if c.is_whitespace() => {}
            c => preference.push(c),
        }
    }
    preference.handling()
}

/// What a `handling` preference asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handling {
    /// `handling=strict`.
    Strict,
    /// `handling=lenient`, or a value this reader does not know.
    Other,
}

/// One preference of a `Prefer` header as [`prefers_strict_handling`] reads it: whitespace
/// outside quoted strings dropped, its parameters skipped.
#[derive(Default)]
struct Preference {
    name: String,
    /// `Some` once its `=` was read.
    value: Option<String>,
    /// After its first `;`: what follows is parameters, not this preference.
    in_parameters: bool,
    /// A second `=`, or a quoted name: not a preference this reader takes.
    malformed: bool,
}

impl Preference {
    fn push(&mut self, c: char) {
        if !self.in_parameters {
            self.value.as_mut().unwrap_or(&mut self.name).push(c);
        }
    }

    fn quoted(&mut self, text: &str) {
        match (&mut self.value, self.in_parameters) {
            (_, true) => {}
            (Some(value), false) => value.push_str(text),
            (None, false) => self.malformed = true,
        }
    }

    fn equals(&mut self) {
        if !self.in_parameters {
            self.malformed |= self.value.is_some();
            self.value.get_or_insert_default();
        }
    }

    /// What it asks, when it is a well-formed `handling` preference.
    fn handling(&self) -> Option<Handling> {
        if self.malformed || !self.name.eq_ignore_ascii_case("handling") {
            return None;
        }
        match self.value.as_deref() {
            Some(value) if value.eq_ignore_ascii_case("strict") => Some(Handling::Strict),
            _ => Some(Handling::Other),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for RequireComplete {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        RequireComplete::from_parts(parts)
    }
}

/// Applies the caller's demand for a complete result to every response of the routes it
/// wraps; `completeness::routing` installs it on each route. A malformed (or repeated)
/// `require_complete` is answered with the 400 problem before the handler runs. When the demand came as
/// `Prefer: handling=strict` and met an answer with completeness metadata, the response (the
/// answer, or the problem that replaced it) says `Preference-Applied: handling=strict`
/// (RFC 7240). An answer with completeness metadata in a frame a client would lose or misread
/// (a status other than 200, where 201 answers only a write, never a `GET` or `HEAD`; a body
/// not declared JSON, or declared a problem) is replaced with the 500 `INTERNAL` problem
/// (contract §5.4).
#[derive(Debug, Clone, Copy, Default)]
pub struct DemandLayer;

impl<S> tower::Layer<S> for DemandLayer {
    type Service = DemandService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        DemandService { inner, checked: None }
    }
}

/// [`DemandLayer`] on a route of `completeness::routing`, told whether the handler's success
/// value always carries a completeness block ([`ReportsCompleteness::ANSWERS_WITH_BLOCK`]): a
/// success without a block that its types did not vouch for is not sent
/// ([`answers_without_saying`], [`unreported_success`]). It also echoes the time budget the
/// handler took, as [`echo_layer`](crate::server::budget::echo_layer) does, on the answer that
/// goes out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RouteDemandLayer {
    pub(crate) block_required: bool,
}

impl<S> tower::Layer<S> for RouteDemandLayer {
    type Service = DemandService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        DemandService { inner, checked: Some(self.block_required) }
    }
}

/// The service of [`DemandLayer`].
#[derive(Debug, Clone)]
pub struct DemandService<S> {
    inner: S,
    /// On a route of `completeness::routing` ([`RouteDemandLayer`]): whether the route's success
    /// value always carries a block. `None` on a route the types did not check.
    checked: Option<bool>,
}

impl<S> tower::Service<Request> for DemandService<S>
where
    S: tower::Service<Request, Response = Response> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let (mut parts, body) = request.into_parts();
        let query = match demanded_by_query(&parts) {
            Err(problem) => return Box::pin(std::future::ready(Ok(problem.into_response()))),
            Ok(query) => query,
        };
        let preferred = prefers_strict(&parts.headers);
        let read = matches!(parts.method, axum::http::Method::GET | axum::http::Method::HEAD);
        let demand = Demand { required: RequireComplete(query.demanded || preferred), preferred, read };
        // A read of a checked route that carries a cursor: was it read?
        let cursor_read = (query.has_cursor && self.checked.is_some() && read).then(CursorRead::default);
        if let Some(read) = &cursor_read {
            parts.extensions.insert(read.clone());
        }
        // A checked route echoes its budget here, on the final answer: a strict refusal, which
        // replaces the answer, echoes the budget the answer was given too (contract §5.2).
        let echo = self.checked.is_some().then(|| BudgetEcho::expect(&mut parts.extensions));
        let response = self.inner.call(Request::from_parts(parts, body));
        let checked = self.checked;
        Box::pin(async move {
            let mut response = demand.apply(response.await?, checked, cursor_read);
            if let Some(echo) = echo {
                echo.onto(&mut response);
            }
            Ok(response)
        })
    }
}

/// What a request demanded of its answer, read before the handler ran.
#[derive(Debug, Clone, Copy)]
struct Demand {
    required: RequireComplete,
    /// The demand came as `Prefer: handling=strict`.
    preferred: bool,
    /// The request is a `GET` or `HEAD`.
    read: bool,
}

impl Demand {
    /// The response that goes out for the handler's `response`, on a route whose success value
    /// always (`Some(true)`) or not always (`Some(false)`) carries a block, or unchecked (`None`).
    fn apply(self, response: Response, checked: Option<bool>, cursor_read: Option<CursorRead>) -> Response {
        let Some(reported) = response.extensions().get::<Reported>() else {
            if checked.is_some_and(|block_required| answers_without_saying(&response, block_required)) {
                return unreported_success(response.status());
            }
            // A single resource never pages: a cursor sent to it is no page of it.
            if cursor_read.is_some_and(|read| !read.was_read()) && is_single_resource(&response) {
                return cursor_not_read();
            }
            return response;
        };
        // A strict refusal carries the report of the answer it replaced, with its
        // error status (under a second demand layer): it is framed as a problem.
        if reported.refused_with.is_none()
            && let Some(problem) = misframed(&response, self.read)
        {
            return problem;
        }
        if cursor_read.is_some_and(|read| !read.was_read()) && never_pages(reported) {
            return cursor_not_read();
        }
        let mut response = match self.required.check_report(&reported.incomplete) {
            Err(problem) => reported.clone().refused_by(problem.into_response()),
            Ok(()) => response,
        };
        if self.preferred {
            response.headers_mut().insert(PREFERENCE_APPLIED, HeaderValue::from_static("handling=strict"));
        }
        vary_by_preference(&mut response);
        response
    }
}

/// True when `response`, which carries no completeness block, is a success a client would read
/// as an answer with no word on its completeness: on a route whose success value always carries
/// a block (`block_required`), any success; on any other, a JSON success (a list could be in it)
/// that does not carry its type's mark of needing no block ([`Exempt`](crate::Exempt), a derived
/// single resource). `Err(Json(vec![..]))` of `Result<(), _>` is a 200 with a list, and so is a
/// service's own type that implements `ReportsCompleteness` by hand; `()` and a bare
/// `StatusCode` send no body, and a text error no list.
fn answers_without_saying(response: &Response, block_required: bool) -> bool {
    if !response.status().is_success() {
        return false;
    }
    if block_required {
        return true;
    }
    let marked = response.extensions().get::<crate::server::report::WithoutBlock>().is_some();
    !marked && is_json(response)
}

/// True when `response` is a derived single resource answered with success (contract §2.7).
fn is_single_resource(response: &Response) -> bool {
    let mark = response.extensions().get::<crate::server::report::WithoutBlock>();
    response.status().is_success() && mark == Some(&crate::server::report::WithoutBlock::SingleResource)
}

/// Put on a read of a route of `completeness::routing` that carries a `cursor`; extracting a
/// [`PageRequest`](crate::server::page_request::PageRequest) marks it read.
#[derive(Debug, Clone, Default)]
pub(crate) struct CursorRead(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl CursorRead {
    pub(crate) fn mark_read(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn was_read(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// True when the endpoint that answered declared reasons (`#[completeness]`) none of which
/// may offer a next page ([`ReasonDetails::MAY_OFFER_A_CURSOR`](crate::ReasonDetails::MAY_OFFER_A_CURSOR)):
/// not `MORE_PAGES_AVAILABLE`, not a resumable `CLIENT_LIMIT_REACHED`, and no service's own
/// reason declared with `next_cursor` (which hands out a cursor of its own, read by hand).
fn never_pages(reported: &Reported) -> bool {
    reported.declared.as_ref().is_some_and(|declared| !declared.cursors.contains(&true))
}

/// What a route that never pages ([`never_pages`]) and read no cursor answers a read that sent
/// one, instead of its answer: the 400 `CURSOR_QUERY_MISMATCH` problem. The cursor cannot be
/// one of this route's pages, and answering as if it were not there would start the client's
/// traversal over without a word: the first page again, which a client takes for the next
/// (contract §2.5: a server never restarts a traversal silently).
fn cursor_not_read() -> Response {
    Problem::new(
        ProblemCode::CursorQueryMismatch,
        "This route reads no cursor: the cursor is not one of its pages. Ask without `cursor` for the whole answer.",
    )
    .with_parameter(CURSOR)
    .into_response()
}

/// The 500 `INTERNAL` problem for an answer that carries a completeness block in a frame a
/// client loses or misreads it in: a status other than `200` (`201` for a creation, which a
/// `read`, `GET` or `HEAD`, never is), under which HTTP drops the body (`204`, `304`), a client
/// reads no whole answer (`206`, `203`, a redirect) or a failure; or a body not declared JSON.
/// `None` for a well-framed answer. (A handler can set any status beside its answer,
/// `(StatusCode::NO_CONTENT, envelope)`; an incomplete answer must not vanish that way.)
fn misframed(response: &Response, read: bool) -> Option<Response> {
    let status = response.status();
    let fault = if !(status == StatusCode::OK || status == StatusCode::CREATED && !read) {
        format!("with the status {status}")
    } else if !content_type(response).is_some_and(declares_answer) {
        format!("declared as {}, not a JSON answer", content_type(response).unwrap_or("no Content-Type"))
    } else {
        return None;
    };
    tracing::error!(
        status = status.as_u16(),
        "a handler answered with a completeness block {fault}; sent a 500 instead"
    );
    Some(
        Problem::new(
            ProblemCode::Internal,
            format!(
                "The handler answered with a completeness block {fault}: a client would lose or misread \
                 it. An answer goes out as JSON with the status 200 (201 for a creation, never for a read)."
            ),
        )
        .into_response(),
    )
}

/// True when `response` says its body is JSON: `application/json`, or a `+json` type.
fn is_json(response: &Response) -> bool {
    content_type(response).is_some_and(declares_json)
}

fn content_type(response: &Response) -> Option<&str> {
    response.headers().get(axum::http::header::CONTENT_TYPE).and_then(|value| value.to_str().ok())
}

/// What a route of `completeness::routing` sends instead of a success without a block that its
/// types did not vouch for ([`answers_without_saying`]): most likely the handler's error type
/// answered with a success status (`Err(Json(vec![..]))` is a 200), and a client would read it
/// as an answer with no word on its completeness. The 500 `INTERNAL` problem says so, and the
/// error is logged.
fn unreported_success(status: axum::http::StatusCode) -> Response {
    tracing::error!(
        status = status.as_u16(),
        "a handler answered with a success status, a body and no completeness block (most likely from its error \
         side); sent a 500 instead"
    );
    Problem::new(
        ProblemCode::Internal,
        format!(
            "The handler answered with a success status ({status}), a body and no completeness block, most \
             likely from its error side: a client would have read it as an answer. Give the error type an \
             error status, or wrap an answer that is not a list in `Exempt`."
        ),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::{Handling, HeaderMap, HeaderValue, PREFER, handling_preference, prefers_strict};

    #[test]
    fn the_strict_preference_is_read_as_rfc_7240_writes_it() {
        for strict in [
            "handling=strict",
            "HANDLING=Strict",
            "respond-async, handling=strict",
            "handling = strict",
            "handling=\"strict\"",
            "handling=strict; reason=audit",
            "wait=10,handling=strict",
            // Quoted strings keep their own separators; quoted pairs stand for their character.
            "note=\"a, b; c=d\", handling=strict",
            "handling=\"str\\ict\"",
            "note=\"caf\u{fffd}\", handling=strict",
        ] {
            assert_eq!(handling_preference(strict), Some(Handling::Strict), "{strict}");
        }
        for lenient in [
            "",
            "handling=lenient",
            "respond-async",
            "return=minimal; handling=strict",
            "handling",
            "strict",
            "note=\"x, handling=strict\"",
            "note=\"x\\\", handling=strict\"",
            "handling=strict=1",
            "handling==strict",
            // Only the first instance of a preference is considered.
            "handling=lenient, handling=strict",
            "handling, handling=strict",
        ] {
            assert_ne!(handling_preference(lenient), Some(Handling::Strict), "{lenient}");
        }
        let headers = |values: &[&'static str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(PREFER, HeaderValue::from_static(value));
            }
            headers
        };
        assert!(prefers_strict(&headers(&["respond-async", "handling=strict"])));
        assert!(!prefers_strict(&headers(&["handling=lenient", "handling=strict"])), "the first header's counts");
        assert!(prefers_strict(&headers(&["handling=strict", "handling=lenient"])));
    }
}
