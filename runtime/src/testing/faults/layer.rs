//! [`FaultLayer`]: the tower layer that faults a router's real responses.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use axum::body::{Body, to_bytes};
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Notify;

use super::examples::Examples;
use super::fault::Fault;
use super::inject::{
    Faulted, FaultedPage, RequestFacts, filled_fields, inject, items_member_of, leave_out, outage, without_evidence,
    written_in_order_of,
};
use super::kit::NOT_WHAT;
use super::schedule::{Draw, Schedule, below};
use crate::contract::continuation::Continuation;
use crate::contract::declared::DeclaredSet;
use crate::contract::field::OmittedFields;
use crate::contract::media::{declares_problem, retry_after_wait};
use crate::contract::params::{CURSOR, REQUIRE_COMPLETE};
use crate::contract::reason::{ReasonCode, continues};
use crate::contract::warning::{Warning, WarningCode};
use crate::server::budget::{TIME_BUDGET_HEADER, TimeBudget};
use crate::server::config::CompletenessConfig;
use crate::server::cursor::{CursorClaims, CursorKeys};
use crate::server::observe::{Deferred, ObservedOutside};
use crate::server::page_request::resigned_next_cursor;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::query::query_pairs;
use crate::server::report::{Reported, SingleReport};
use crate::server::require::{PREFER, PREFERENCE_APPLIED, RequireComplete, prefers_strict, vary_by_preference};
use completeness_codes::{OMITTED_FIELDS, RESOURCE_WARNINGS};

/// The request header that names the fault to apply (`completeness-fault: SOURCE_UNAVAILABLE`,
/// or `none`), with `; emptied` for the fault with its collection empty (a single resource's
/// `FIELD_OMITTED`: every field it filled with a value left out), as an emptied schedule gives it
/// (`VISIBILITY_RESTRICTED; emptied`); read only by [`FaultLayer`], so it does nothing where
/// the layer is not installed.
pub const FAULT_HEADER: &str = "completeness-fault";

/// The option of [`FAULT_HEADER`] that empties the faulted collection: `VISIBILITY_RESTRICTED; emptied`.
const EMPTIED: &str = "emptied";

/// Makes the real responses of the routes it wraps incomplete, in the ways each route declares.
/// See the [module documentation](super).
///
/// The requests it can fault, and only those, are numbered for its [`Schedule`], from 0 in
/// the order they are answered: a `GET` of a route that declares its reasons, or of a single
/// resource with a `Field` member (a field it may leave out), answered `200`.
/// Any other request (a metrics scrape, `/openapi.json`, a health check, a resource with no
/// field it may leave out, a
/// write, a refusal made before the route answered) moves no schedule, so the same schedule
/// gives the same faults to the same reads whatever else the service is asked in between
/// ([`FaultRecord::draw`]). (A read whose [`FAULT_HEADER`] names a fault it does not offer is
/// refused after the route answered, and has taken its number.)
#[derive(Debug, Clone)]
pub struct FaultLayer {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    schedule: Schedule,
    /// Every request so far: the number of the next one, which the request limit counts.
    next: AtomicU64,
    /// The requests it could fault so far: the schedule's number of the next one.
    drawn: AtomicU64,
    max_requests: Option<u64>,
    exceeded: Notify,
    /// What happened to every request, when the layer keeps it ([`FaultLayer::serving`] does not).
    log: Option<Mutex<Vec<FaultRecord>>>,
    /// The service's cursor keys, when the layer has them ([`FaultLayer::serving`]): the next
    /// cursor of a page faulted partial is then signed again without the attestation the
    /// service gave it, so that no later page of the traversal gets evidence (contract §6)
    /// wherever it is asked for: another replica, the MCP tools, the service after a restart.
    keys: Option<CursorKeys>,
    /// Without the keys (a kit's layer), the next cursors of traversals one page of which was
    /// faulted partial, kept for the layer's life (a kit run is short): the pages they lead to
    /// lose their evidence here, and pass the mark on.
    partial_cursors: Mutex<HashSet<String>>,
    /// Without the keys (a kit's layer), every cursor handed out, with the cursors its
    /// traversal was handed out up to it, oldest first, itself last: those a later page of it can
    /// hand out again ([`Fault::CursorRepeated`]).
    handed_out: Mutex<HashMap<String, Vec<String>>>,
    /// Without the keys (a kit's layer), the next cursors of traversals whose first request was
    /// forwarded without a filter ([`Fault::FilterDropped`]), with the parameter dropped: the
    /// requests that continue them are forwarded without it too, as a proxy that drops a
    /// parameter drops it from every request.
    dropped_filters: Mutex<HashMap<String, String>>,
    /// The service's own reasons and warnings to inject as they are ([`FaultLayer::with_examples`]).
    examples: RwLock<Arc<Examples>>,
    /// Offers only the faults whose answers stay within the service's declarations and what it
    /// sends itself ([`FaultLayer::serving`], [`Fault::is_kit_only`]).
    within_declarations: bool,
    /// When the layer was made: the origin of [`FaultRecord::arrived`] and [`FaultRecord::answered`].
    started: Instant,
}

impl FaultLayer {
    /// A layer that faults by `schedule`.
    pub fn new(schedule: Schedule) -> FaultLayer {
        FaultLayer::with_limit(schedule, None)
    }

    /// A layer for a service that clients are pointed at for as long as it runs (an operator's
    /// fault injection), with the service's `config`. Its memory stays bounded: it keeps no
    /// [`FaultLayer::log`], and remembers no traversal. It signs the next cursor of a page it
    /// faults partial again, with the service's keys, without the attestation the service gave
    /// it: the later pages of that traversal get no evidence from any replica, over REST or
    /// MCP, as a partial page of the service's own leads to none.
    ///
    /// It offers no fault whose answer leaves the service's published documents
    /// ([`Fault::is_outside_declarations`]: a reason code no route declares), so that every
    /// answer stays within the OpenAPI document, JSON Schemas and MCP output schemas the service
    /// publishes, which a client may check its answers against; nor one the service itself never
    /// sends (an answer to another question than asked, a cursor handed out twice): it offers
    /// none of [`Fault::is_kit_only`]'s. The kit's layer offers those too.
    pub fn serving(schedule: Schedule, config: &CompletenessConfig) -> FaultLayer {
        let keys = Some(config.keys().clone());
        FaultLayer::of(Shared { log: None, keys, within_declarations: true, ..Shared::new(schedule, None) })
    }

    /// A layer that answers a `429 REQUEST_LIMIT_REACHED` problem past `max_requests` requests and
    /// wakes [`FaultLayer::exceeded`]: the conformance kit's bound on a client that loops.
    pub(crate) fn with_limit(schedule: Schedule, max_requests: Option<u64>) -> FaultLayer {
        FaultLayer::of(Shared::new(schedule, max_requests))
    }

    /// The layer over `shared`.
    fn of(shared: Shared) -> FaultLayer {
        FaultLayer { shared: Arc::new(shared) }
    }

    /// Injects the service's own reasons and warnings as `examples` give them, with their
    /// detail members and recovery ([`Examples`]); for this layer and its clones.
    pub fn with_examples(self, examples: Examples) -> FaultLayer {
        *self.shared.examples.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(examples);
        self
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        &self.shared.schedule
    }

    /// What happened to every request so far, in the order they were answered (empty for a
    /// layer that keeps none, [`FaultLayer::serving`]).
    pub fn log(&self) -> Vec<FaultRecord> {
        let log = self.shared.log.as_ref().map(|log| log.lock().unwrap_or_else(PoisonError::into_inner).clone());
        log.unwrap_or_default()
    }

    /// Resolves once a request past the limit arrived.
    pub(crate) async fn exceeded(&self) {
        self.shared.exceeded.notified().await;
    }

    /// True once a request past the limit arrived.
    pub(crate) fn was_exceeded(&self) -> bool {
        self.shared.max_requests.is_some_and(|max| self.shared.next.load(Ordering::SeqCst) > max)
    }
}

impl<S> tower::Layer<S> for FaultLayer {
    type Service = FaultService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        FaultService { inner, shared: Arc::clone(&self.shared) }
    }
}

/// The service of [`FaultLayer`].
#[derive(Debug, Clone)]
pub struct FaultService<S> {
    inner: S,
    shared: Arc<Shared>,
}

/// What the layer did with one request, and what the client was answered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FaultRecord {
    /// The request's number among every request the layer saw, from 0.
    pub request: u64,
    /// The request's number among those the layer can fault (a `GET` of a route that declares
    /// its reasons, or of a single resource with a `Field` member, answered `200`), from 0: the number its [`Schedule`] chose the fault, and
    /// drew its shape, by. `None` for any other request, which moves no schedule.
    pub draw: Option<u64>,
    /// The method.
    pub method: String,
    /// The path and query.
    pub uri: String,
    /// The request continued a traversal (it carried a cursor).
    pub had_cursor: bool,
    /// The cursor it carried, decoded.
    pub cursor: Option<String>,
    /// `page.resumed` of the answer sent, when it was a page that said it: `false` on a first
    /// page, also one that answers a cursor (the traversal started over, contract §2.5).
    pub resumed: Option<bool>,
    /// The filters the request asked that the answer sent does not echo in its `scope`: the
    /// parameters the route echoes in `scope.filters` when it answers the request as sent,
    /// missing from the answer's. Not empty only when the request was forwarded without one
    /// ([`Fault::FilterDropped`], and the later pages of its traversal): the answer is one to
    /// another, wider question, whatever it says of itself (contract §8).
    pub unechoed: Vec<String>,
    /// The `next_cursor` of the answer sent, when the layer read it (a `GET` of a declared
    /// collection answered `200`) and it named one.
    pub next_cursor: Option<String>,
    /// The faults the route offered for this request (empty: neither a declared collection
    /// nor a single resource with a `Field` member).
    pub offered: Vec<Fault>,
    /// The fault applied, if any.
    pub fault: Option<Fault>,
    /// The status answered.
    pub status: u16,
    /// `complete` of the answer, when it was a collection.
    pub complete: Option<bool>,
    /// The reason codes of the answer (none for a problem).
    pub reasons: Vec<String>,
    /// A warning of the answer was stale (contract §3.5): complete or not, it was not read
    /// from current state.
    pub stale: bool,
    /// `Some` when the request read a single resource the layer could fault (one with a `Field`
    /// member), not a collection: the `omitted_fields` of the answer sent, the fields it left
    /// out, faulted or by the service, with why (contract §2.7); empty when it sent a problem.
    pub omitted: Option<OmittedFields>,
    /// The seconds the answer asked the client to wait before asking again, as it was sent:
    /// its `Retry-After` header (in seconds, or an HTTP date, as the whole seconds from the time
    /// the answer left the layer to it: 0 for a date past), or the `retry_after` continuation of
    /// its body, a collection's or a problem's, faulted or the service's own; the longer when it
    /// gave both. `None`: it asked for no wait.
    pub wait: Option<u64>,
    /// When the request reached the layer, since the layer was made.
    pub arrived: Duration,
    /// When its answer left the layer (the head; the body follows), since the layer was made.
    pub answered: Duration,
}

impl FaultRecord {
    /// Fills what an answer the layer did not fault said of itself: `complete`, its reasons,
    /// and whether one of its warnings is stale (as its handler declares the warning).
    fn note_reported(&mut self, reported: &Reported) {
        // A strict refusal carries the report of the answer it replaced, whose continuation is
        // not the problem's: the problem's wait is its `Retry-After` and its body's own
        // continuation (both noted as it is sent).
        if reported.refused_with.is_none() {
            // The continuation of the block is the recovery of its first reason that has one (R6).
            self.note_continuation(reported.incomplete.recoveries.iter().flatten().next());
        }
        self.complete = Some(reported.is_complete());
        self.reasons = reported.reason_codes().iter().map(|code| code.as_str().to_owned()).collect();
        self.stale = reported.declared.as_ref().is_some_and(|declared| {
            reported.warnings.iter().any(|code| {
                let at = declared.warnings.iter().position(|declared| declared == code);
                at.and_then(|at| declared.stale.get(at)).copied().unwrap_or(false)
            })
        });
    }

    /// Fills what the JSON body of an answer says of itself: `complete`, its reasons, whether a
    /// warning is stale, its next cursor.
    fn note_body(&mut self, value: &Value) {
        self.complete = value.get("complete").and_then(Value::as_bool);
        self.resumed = value.get("page").and_then(|page| page.get("resumed")).and_then(Value::as_bool);
        self.reasons = codes(value);
        self.stale = has_stale_warning(value);
        self.next_cursor = value.get("next_cursor").and_then(Value::as_str).map(str::to_owned);
        self.note_continuation(continuation_in(value).as_ref());
    }

    /// Notes the `omitted_fields` of the single resource `value`.
    fn note_omitted(&mut self, value: &Value) {
        let listed = value.get(OMITTED_FIELDS).and_then(|listed| OmittedFields::deserialize(listed).ok());
        self.omitted = Some(listed.unwrap_or_default());
    }

    /// Notes the wait `continuation`, the one the answer sent, asks for: its seconds when it is
    /// a `retry_after`, else none.
    fn note_continuation(&mut self, continuation: Option<&Continuation>) {
        self.wait = match continuation {
            Some(Continuation::RetryAfter { seconds }) => Some(*seconds),
            _ => None,
        };
    }

    /// Forgets what the answer read said of itself: a problem was sent instead.
    fn forget_answer(&mut self) {
        (self.complete, self.next_cursor, self.stale, self.wait, self.resumed) = (None, None, false, None, None);
        self.reasons.clear();
    }

    /// True when the answer was a collection or problem that is not a complete result, for a
    /// reason other than pagination.
    pub fn is_incomplete(&self) -> bool {
        self.status != 200 || self.reasons.iter().any(|code| code != ReasonCode::MorePagesAvailable.as_str())
    }
}

impl fmt::Display for FaultRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fault = self.fault.as_ref().map_or("no fault", Fault::name);
        write!(f, "#{} {} {}: {fault} -> {}", self.request, self.method, self.uri, self.status)?;
        match self.complete {
            Some(true) => f.write_str(" complete")?,
            Some(false) => write!(f, " partial ({})", self.reasons.join(", "))?,
            None => {}
        }
        if !self.unechoed.is_empty() {
            write!(f, ", its scope without `{}`", self.unechoed.join("`, `"))?;
        }
        if let Some(omitted) = self.omitted.as_ref().filter(|omitted| !omitted.is_empty()) {
            write!(f, ", fields left out: {omitted}")?;
        }
        match self.wait {
            Some(seconds) => write!(f, ", wait {seconds} s"),
            None => Ok(()),
        }
    }
}

impl<S> tower::Service<Request> for FaultService<S>
where
    S: tower::Service<Request, Response = Response> + Clone + Send + 'static,
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
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        let shared = Arc::clone(&self.shared);
        let arrived = shared.started.elapsed();
        let n = shared.next.fetch_add(1, Ordering::SeqCst);
        if shared.max_requests.is_some_and(|max| n >= max) {
            shared.exceeded.notify_one();
            let problem = Problem::new(
                ProblemCode::custom("REQUEST_LIMIT_REACHED"),
                "the fault layer's request limit was reached",
            )
            .with_status(429);
            return Box::pin(std::future::ready(Ok(problem.into_response())));
        }
        let (parts, body) = request.into_parts();
        // Every value, so that two headers are refused as no one fault, not read as the first.
        let values: Vec<&str> =
            parts.headers.get_all(FAULT_HEADER).iter().map(|v| v.to_str().unwrap_or("").trim()).collect();
        let asked = (!values.is_empty()).then(|| values.join(", "));
        let mut facts = RequestFacts::from_query(parts.uri.query());
        facts.examples = Arc::clone(&self.shared.examples.read().unwrap_or_else(PoisonError::into_inner));
        let cursor = cursor_of(&parts.uri);
        // Read decoded, as the server reads it (`c%75rsor`).
        facts.has_cursor |= cursor.is_some();
        let of_partial_traversal = cursor.as_deref().is_some_and(|cursor| shared.is_partial(cursor));
        let mut record = FaultRecord {
            request: n,
            draw: None,
            method: parts.method.to_string(),
            uri: parts.uri.path_and_query().map_or_else(|| parts.uri.to_string(), ToString::to_string),
            had_cursor: facts.has_cursor,
            cursor,
            resumed: None,
            unechoed: Vec::new(),
            next_cursor: None,
            offered: Vec::new(),
            fault: None,
            status: 0,
            complete: None,
            reasons: Vec::new(),
            stale: false,
            omitted: None,
            wait: None,
            arrived,
            answered: Duration::ZERO,
        };
        let faultable = parts.method == Method::GET;
        // A fault asked of a request the layer never faults is refused before it runs (it may
        // be a write), rather than answered unfaulted as if the fault had been applied.
        let asks_a_fault = asked.as_deref().is_some_and(|name| name != "none");
        if asks_a_fault && !faultable {
            let refused = no_fault_offered().into_response();
            (record.status, record.answered) = (refused.status().as_u16(), shared.started.elapsed());
            if let Some(log) = &shared.log {
                log.lock().unwrap_or_else(PoisonError::into_inner).push(record);
            }
            return Box::pin(std::future::ready(Ok(refused)));
        }
        // A traversal whose first request was forwarded without a filter goes on without it.
        let mut parts = parts;
        if let Some(name) = record.cursor.as_deref().and_then(|cursor| shared.dropped_filter(cursor)) {
            parts.uri = without_parameter(&parts.uri, &name);
            record.unechoed.push(name);
        }
        // A read it may fault goes to the route without its demand for a complete result, which
        // the layer applies to the answer it sends: under the demand the route would refuse a
        // partial answer itself, and its refusal, not a `200`, would be sent unfaulted.
        let demand = if faultable { Demand::take(&mut parts) } else { None };
        // The same request to another URI, for the faults that answer with the route's answer to
        // another request (the first page again, the question without a filter).
        let reask = faultable.then(|| {
            let (method, version) = (parts.method.clone(), parts.version);
            let (headers, extensions) = (parts.headers.clone(), parts.extensions.clone());
            let mut again = self.inner.clone();
            let reask: Reask = Box::new(move |uri| {
                Box::pin(async move {
                    let mut other = Request::new(Body::empty());
                    *other.method_mut() = method;
                    *other.uri_mut() = uri;
                    *other.version_mut() = version;
                    *other.headers_mut() = headers;
                    *other.extensions_mut() = extensions;
                    other.extensions_mut().insert(ObservedOutside);
                    std::future::poll_fn(|cx| again.poll_ready(cx)).await.ok()?;
                    again.call(other).await.ok()
                })
            });
            reask
        });
        let uri = parts.uri.clone();
        let parameters = parameter_names(&uri);
        let mut request = Request::from_parts(parts, body);
        // The answer sent may not be the route's: the events and counts are of the one sent.
        request.extensions_mut().insert(ObservedOutside);
        let future = inner.call(request);
        Box::pin(async move {
            let mut response = future.await?;
            let deferred = Deferred::take(&mut response);
            let declared = response.extensions().get::<Reported>().and_then(|r| r.declared).filter(|_| faultable);
            // A single resource that may leave fields out (its `Field` members, contract §2.7).
            let fields = response.extensions().get::<SingleReport>().map(|single| single.fields);
            let resource = fields.filter(|fields| faultable && declared.is_none() && !fields.is_empty());
            let response = match declared {
                Some(declared) if response.status() == StatusCode::OK => {
                    // Numbered among the requests it can fault only: a scrape, a resource with
                    // no field to leave out or a write in between changes no fault of a later read.
                    let draw = shared.drawn.fetch_add(1, Ordering::SeqCst);
                    record.draw = Some(draw);
                    let traversal = Traversal { of_partial: of_partial_traversal, parameters };
                    let answer = Answer { response, reask, uri };
                    shared.fault(draw, asked, &facts, demand, &declared, traversal, answer, &mut record).await
                }
                None if resource.is_some() && response.status() == StatusCode::OK => {
                    let draw = shared.drawn.fetch_add(1, Ordering::SeqCst);
                    record.draw = Some(draw);
                    shared.fault_resource(draw, asked, resource.unwrap_or_default(), response, &mut record).await
                }
                // A read that answered, of a route that declares nothing to fault (a resource
                // with no field it may leave out): the fault it asked for cannot be applied.
                None if asks_a_fault && response.status() == StatusCode::OK => no_fault_offered().into_response(),
                _ => {
                    // Not faulted (another method, a route without a declaration): what the
                    // answer said of itself, so that a search by `POST` is a read in the log.
                    if let Some(reported) = response.extensions().get::<Reported>() {
                        record.note_reported(reported);
                    }
                    // A problem's wait may be in its body only (a `retry_after` continuation,
                    // as an MCP tool error carries it); read it where the log keeps it.
                    match shared.log.is_some() && is_problem(&response) {
                        true => shared.noted_problem(response, &mut record).await,
                        false => response,
                    }
                }
            };
            let mut response = match demand {
                Some(demand) => demand.apply(response, &mut record),
                None => response,
            };
            if let Some(deferred) = deferred {
                deferred.observe(&mut response);
            }
            record.status = response.status().as_u16();
            // Taken before the answer goes: it leaves the layer after this time, never before.
            // The clock's time beside it places a `Retry-After` given as a date.
            let (answered, now) = (shared.started.elapsed(), SystemTime::now());
            record.wait = record.wait.max(retry_after_header(&response, now));
            record.answered = answered;
            shared.remember_handed_out(&record);
            if let Some(log) = &shared.log {
                log.lock().unwrap_or_else(PoisonError::into_inner).push(record);
            }
            Ok(response)
        })
    }
}

/// The 400 `INVALID_REQUEST` problem for a [`FAULT_HEADER`] naming a fault on a request the
/// layer does not fault: only a `GET` of a route that declares its reasons (a list, a search, a
/// count), or of a single resource with a `Field` member, can be faulted.
fn no_fault_offered() -> Problem {
    Problem::new(
        ProblemCode::InvalidRequest,
        format!(
            "{FAULT_HEADER}: this request offers no fault: only a GET of a list, search or count route, or of a \
             single resource with a field it may leave out, can be faulted (send `none`, or no header)"
        ),
    )
}

/// Asks the route the same request at another URI (`None` when the route failed to answer).
type Reask = Box<dyn FnOnce(axum::http::Uri) -> Pin<Box<dyn Future<Output = Option<Response>> + Send>> + Send>;

/// The route's answer to a request, the URI it answered (as forwarded), and the way to ask it
/// the same request at another URI instead (the first page again, the question without a filter).
struct Answer {
    response: Response,
    reask: Option<Reask>,
    uri: axum::http::Uri,
}

/// A demand for a complete result (`require_complete=true`, `Prefer: handling=strict`, contract
/// §5.3) that the layer took off a read it may fault, and applies to the answer it sends.
///
/// The route is asked without it, so that the layer faults what the route answers without it:
/// under the demand, a route whose own answer is partial refuses it itself, and its refusal (not
/// a `200`) would go out unfaulted, the fault asked for dropped without a word. The demand is
/// then applied to the answer sent, faulted or not, as the route applies it, so that a strict
/// request gets the refusal its faulted answer calls for (403 for a hidden subset, whatever else
/// the route's answer lacked), and never a partial `200`.
#[derive(Debug, Clone, Copy)]
struct Demand {
    /// It came as `Prefer: handling=strict`, which the answer acknowledges (`Preference-Applied`).
    preferred: bool,
}

impl Demand {
    /// Takes the demand off `parts`, when they carry one that is well formed: the request goes on
    /// without its `require_complete` parameter, and with a `Prefer: handling=lenient` before its
    /// own `Prefer` headers, as only the first `handling` preference counts (RFC 7240, section 2):
    /// its other preferences reach the route as sent. A malformed `require_complete` stays, for the
    /// route to refuse with its 400, as does a request that demands nothing.
    fn take(parts: &mut axum::http::request::Parts) -> Option<Demand> {
        if !RequireComplete::from_parts(parts).is_ok_and(RequireComplete::is_demanded) {
            return None;
        }
        let preferred = prefers_strict(&parts.headers);
        let prefer: Vec<HeaderValue> = parts.headers.get_all(PREFER).iter().cloned().collect();
        parts.uri = without_parameter(&parts.uri, REQUIRE_COMPLETE);
        if preferred {
            parts.headers.remove(PREFER);
            parts.headers.append(PREFER, HeaderValue::from_static("handling=lenient"));
            for value in prefer {
                parts.headers.append(PREFER, value);
            }
        }
        Some(Demand { preferred })
    }

    /// True when the demand refuses an answer that reports `reported`.
    fn refuses(self, reported: &Reported) -> bool {
        RequireComplete(true).check_report(&reported.incomplete).is_err()
    }

    /// Applies the demand to `response`, the answer the layer sends, as the route's own demand
    /// layer would have: an incomplete answer is replaced by the `COMPLETE_RESULT_UNAVAILABLE`
    /// problem, which carries its report as refused (observed once, as a strict refusal), and
    /// an answer that reports completeness, or the problem that replaced it, says
    /// `Preference-Applied: handling=strict` when the demand came by `Prefer`, and `Vary: Prefer`.
    /// An answer that reports no completeness (a problem, a single resource) is sent as it is.
    fn apply(self, response: Response, record: &mut FaultRecord) -> Response {
        let Some(reported) = response.extensions().get::<Reported>().filter(|r| r.refused_with.is_none()).cloned()
        else {
            return response;
        };
        let mut response = match RequireComplete(true).check_report(&reported.incomplete) {
            Ok(()) => response,
            Err(problem) => {
                // A problem is sent instead: no next cursor, no page, its own wait.
                (record.complete, record.next_cursor, record.resumed) = (None, None, None);
                record.note_continuation(problem.extension("continuation").and_then(continuation_of).as_ref());
                let mut refused = problem.into_response();
                // What the answer said of how the request was read stays on the problem that
                // replaces it, as on a refusal the route makes itself: the preferences it
                // acknowledged, that it varies with `Prefer` (contract §5.3), and the time budget
                // applied (§5.2).
                for name in [PREFERENCE_APPLIED, header::VARY, HeaderName::from_static(TIME_BUDGET_HEADER)] {
                    for value in response.headers().get_all(&name) {
                        refused.headers_mut().append(name.clone(), value.clone());
                    }
                }
                reported.refused_by(refused)
            }
        };
        if self.preferred {
            response.headers_mut().insert(PREFERENCE_APPLIED, HeaderValue::from_static("handling=strict"));
        }
        vary_by_preference(&mut response);
        response
    }
}

/// `uri` without its `cursor` parameters ([`without_parameter`]).
pub(super) fn without_cursor(uri: &axum::http::Uri) -> axum::http::Uri {
    without_parameter(uri, CURSOR)
}

/// `uri` without its parameters named `name` (named as the server reads them, decoded:
/// `c%75rsor` too); the others as written.
fn without_parameter(uri: &axum::http::Uri, name: &str) -> axum::http::Uri {
    let Some(query) = uri.query() else { return uri.clone() };
    let is_named = |pair: &&str| {
        let written = pair.split('=').next().unwrap_or_default().replace('+', " ");
        percent_encoding::percent_decode_str(&written).decode_utf8_lossy() == name
    };
    let kept: Vec<&str> = query.split('&').filter(|pair| !is_named(pair)).collect();
    let path_and_query =
        if kept.is_empty() { uri.path().to_owned() } else { format!("{}?{}", uri.path(), kept.join("&")) };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = path_and_query.parse().ok();
    axum::http::Uri::from_parts(parts).unwrap_or_else(|_| uri.clone())
}

/// What the layer knows of the traversal a request continues, and of the request.
#[derive(Debug, Clone)]
struct Traversal {
    /// An earlier page of it was faulted partial.
    of_partial: bool,
    /// The names of the request's parameters, decoded, each once, but those that say where,
    /// how much, how long or how strictly a query is read (the kit's notion of a query): the
    /// filters among them are those the route's answer echoes ([`echoed_filters`]).
    parameters: Vec<String>,
}

/// The names of `uri`'s query parameters, decoded, each once, in their order, but `cursor`,
/// `page_size`, `time_budget_ms` and `require_complete`.
fn parameter_names(uri: &axum::http::Uri) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in query_pairs(uri).into_iter().flatten() {
        if !NOT_WHAT.contains(&name.as_ref()) && !names.iter().any(|known| *known == name) {
            names.push(name.into_owned());
        }
    }
    names
}

/// The `parameters` that the answer `value` echoes in `scope.filters`: the request's filters.
fn echoed_filters(value: &Value, parameters: &[String]) -> Vec<String> {
    let Some(filters) = value.get("scope").and_then(|scope| scope.get("filters")).and_then(Value::as_object) else {
        return Vec::new();
    };
    parameters.iter().filter(|name| filters.contains_key(name.as_str())).cloned().collect()
}

/// The `cursor` parameter of a request, decoded.
fn cursor_of(uri: &axum::http::Uri) -> Option<String> {
    query_pairs(uri).ok()?.find(|(name, _)| name == CURSOR).map(|(_, value)| value.into_owned())
}

impl Shared {
    /// A kit's layer: the log kept, the cursors of faulted traversals kept for its life.
    fn new(schedule: Schedule, max_requests: Option<u64>) -> Shared {
        Shared {
            schedule,
            next: AtomicU64::new(0),
            drawn: AtomicU64::new(0),
            max_requests,
            exceeded: Notify::new(),
            log: Some(Mutex::new(Vec::new())),
            keys: None,
            partial_cursors: Mutex::new(HashSet::new()),
            handed_out: Mutex::new(HashMap::new()),
            dropped_filters: Mutex::new(HashMap::new()),
            examples: RwLock::default(),
            within_declarations: false,
            started: Instant::now(),
        }
    }

    /// `response`, an answer sent as the route gave it, noted in `record` as its body says.
    async fn noted(&self, response: Response, record: &mut FaultRecord) -> Response {
        let (parts, body) = response.into_parts();
        let Ok(bytes) = to_bytes(body, usize::MAX).await else {
            record.forget_answer();
            return Problem::new(ProblemCode::Internal, "the response could not be read").into_response();
        };
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            record.note_body(&value);
        }
        Response::from_parts(parts, Body::from(bytes))
    }

    /// `response`, a problem the layer did not fault, sent as it is, with the wait its body's
    /// `retry_after` continuation asks for noted in `record` (its `Retry-After` is noted as it
    /// is sent; the longer of the two counts).
    async fn noted_problem(&self, response: Response, record: &mut FaultRecord) -> Response {
        let (parts, body) = response.into_parts();
        let Ok(bytes) = to_bytes(body, usize::MAX).await else {
            record.forget_answer();
            return Problem::new(ProblemCode::Internal, "the response could not be read").into_response();
        };
        if let Some(Continuation::RetryAfter { seconds }) =
            serde_json::from_slice::<Value>(&bytes).ok().as_ref().and_then(continuation_in)
        {
            record.wait = record.wait.max(Some(seconds));
        }
        Response::from_parts(parts, Body::from(bytes))
    }

    /// True for a cursor this (kit's) layer remembers as one of a traversal it faulted partial.
    fn is_partial(&self, cursor: &str) -> bool {
        self.partial_cursors.lock().unwrap_or_else(PoisonError::into_inner).contains(cursor)
    }

    /// Remembers `next`, the next cursor of a page of a partial traversal (a kit's layer).
    fn remember_partial(&self, next: Option<&str>) {
        if let Some(next) = next {
            self.partial_cursors.lock().unwrap_or_else(PoisonError::into_inner).insert(next.to_owned());
        }
    }

    /// The filter the traversal a request with `cursor` continues was forwarded without, when
    /// its first request was ([`Fault::FilterDropped`]).
    fn dropped_filter(&self, cursor: &str) -> Option<String> {
        self.dropped_filters.lock().unwrap_or_else(PoisonError::into_inner).get(cursor).cloned()
    }

    /// The cursors the traversal of `cursor` was handed out, oldest first, `cursor` last, when
    /// this (kit's) layer handed it out.
    fn handed_out_up_to(&self, cursor: &str) -> Vec<String> {
        self.handed_out.lock().unwrap_or_else(PoisonError::into_inner).get(cursor).cloned().unwrap_or_default()
    }

    /// Remembers the next cursor of the answer `record` notes (a kit's layer): the cursors its
    /// traversal was handed out up to it (from the cursor the request continued, or none on a
    /// first page, also one that answered a cursor: the traversal started over), and the filter
    /// its traversal goes on without, when it was forwarded without one. A cursor handed out
    /// again keeps what it was remembered with.
    fn remember_handed_out(&self, record: &FaultRecord) {
        let Some(next) = record.next_cursor.as_ref().filter(|_| self.keys.is_none() && record.status == 200) else {
            return;
        };
        if let Some(name) = record.unechoed.first() {
            let mut dropped = self.dropped_filters.lock().unwrap_or_else(PoisonError::into_inner);
            dropped.insert(next.clone(), name.clone());
        }
        let mut handed_out = self.handed_out.lock().unwrap_or_else(PoisonError::into_inner);
        if handed_out.contains_key(next) {
            return;
        }
        let started_over = record.fault == Some(Fault::Restarted) || record.resumed == Some(false);
        let mut chain = match record.cursor.as_ref().filter(|_| !started_over) {
            Some(cursor) => handed_out.get(cursor).cloned().unwrap_or_default(),
            None => Vec::new(),
        };
        chain.push(next.clone());
        handed_out.insert(next.clone(), chain);
    }

    /// Sees that the later pages of the traversal of `page`, which it faulted partial, get no
    /// evidence: with the service's keys, by signing its next cursor again without the
    /// attestation; without, by remembering the cursor.
    fn taint(&self, page: &mut FaultedPage) {
        let Some(keys) = &self.keys else {
            self.remember_partial(page.block.next_cursor());
            return;
        };
        let unattested = |claims: CursorClaims| claims.is_attested_whole().then(|| claims.without_attestation());
        if let Some(reissued) = resigned_next_cursor(keys, &page.block, unattested) {
            page.block.reissue_next_cursor(reissued.into());
        }
    }

    /// The fault for request `n` of the schedule among `offered`: the one `asked` names (the
    /// [`FAULT_HEADER`]; `none`: none), else the schedule's; and whether it empties what it
    /// faults (`NAME; emptied`, or an emptied schedule). `Err`: the problem that refuses a name
    /// not offered.
    fn choose(
        &self,
        n: u64,
        asked: Option<String>,
        offered: &[Fault],
        why_not: impl Fn(&str) -> &'static str,
    ) -> Result<(Option<Fault>, bool), Problem> {
        // `NAME; emptied`: the fault with every faulted collection empty, as an emptied schedule
        // gives it, so that a kit's failure on an empty page is replayed by hand too.
        let (asked, emptied) = match asked.as_deref().and_then(|asked| asked.split_once(';')) {
            Some((name, option)) if option.trim() == EMPTIED => (Some(name.trim().to_owned()), true),
            _ => (asked, self.schedule.is_emptied()),
        };
        let fault = match asked.as_deref() {
            Some("none") => None,
            Some(name) => match Fault::find(offered, name) {
                Some(fault) => Some(fault.clone()),
                None => {
                    let names: Vec<&str> = offered.iter().map(Fault::name).collect();
                    return Err(Problem::new(
                        ProblemCode::InvalidRequest,
                        format!(
                            "{FAULT_HEADER}: '{name}' is not a fault this route offers on this request: {} \
                             (offered: {})",
                            why_not(name),
                            if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                        ),
                    )
                    .with_parameter(FAULT_HEADER));
                }
            },
            None => self.schedule.choose(n, offered),
        };
        Ok((fault, emptied))
    }

    /// Faults one answered single resource that may leave out `fields` (the wire names of its
    /// `Field` members), request `n` of the schedule: leaves one out ([`Fault::FieldOmitted`]),
    /// or answers with an outage ([`Fault::Unavailable`]).
    async fn fault_resource(
        &self,
        n: u64,
        asked: Option<String>,
        fields: &'static [&'static str],
        response: Response,
        record: &mut FaultRecord,
    ) -> Response {
        let (mut parts, body) = response.into_parts();
        let bytes = match read_body(body).await {
            Ok(bytes) => bytes,
            Err(unread) => return unread,
        };
        // A body that does not read as JSON has no field to leave out; it can still meet the outage.
        let value = serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null);
        let offered = Fault::offered_on_resource(!filled_fields(&value, fields).is_empty());
        let why_not =
            |name: &str| Fault::why_not_offered(name, None, &RequestFacts::default(), self.within_declarations);
        let (fault, emptied) = match self.choose(n, asked, &offered, why_not) {
            Ok(chosen) => chosen,
            Err(refused) => return refused.into_response(),
        };
        record.offered = offered;
        record.omitted = Some(OmittedFields::default());
        let mut rng = self.schedule.rng(n, Draw::Shape);
        let left_out = match &fault {
            None => {
                record.note_omitted(&value);
                return Response::from_parts(parts, Body::from(bytes));
            }
            Some(Fault::Unavailable) => {
                record.fault = fault;
                let problem = outage(&mut rng);
                record.note_continuation(problem.extension("continuation").and_then(continuation_of).as_ref());
                return problem.into_response();
            }
            Some(_) => leave_out(&value, fields, emptied, &mut rng),
        };
        let Some(left_out) = left_out else {
            record.note_omitted(&value);
            return Response::from_parts(parts, Body::from(bytes));
        };
        record.fault = fault;
        record.note_omitted(&left_out.body);
        // The response says what its faulted body says, and is observed as such.
        if let Some(single) = parts.extensions.get_mut::<SingleReport>() {
            single.omitted.0.extend(left_out.omitted);
            let warned = left_out.body.get(RESOURCE_WARNINGS).and_then(Value::as_array).is_some();
            if warned && !single.warnings.contains(&WarningCode::PartialFieldSet) {
                single.warnings.push(WarningCode::PartialFieldSet);
            }
        }
        parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        parts.headers.remove(header::CONTENT_LENGTH);
        Response::from_parts(parts, Body::from(written_in_order_of(&bytes, &left_out.body)))
    }

    /// Faults one answered collection, request `n` of the schedule, by the header or the schedule.
    #[allow(clippy::too_many_arguments)]
    async fn fault(
        &self,
        n: u64,
        asked: Option<String>,
        facts: &RequestFacts,
        demand: Option<Demand>,
        declared: &DeclaredSet,
        traversal: Traversal,
        answer: Answer,
        record: &mut FaultRecord,
    ) -> Response {
        let Answer { response, reask, uri } = answer;
        let (mut parts, body) = response.into_parts();
        let bytes = match read_body(body).await {
            Ok(bytes) => bytes,
            Err(unread) => return unread,
        };
        let value = serde_json::from_slice::<Value>(&bytes).ok();
        // What the answer tells of the faults the request offers: the filters it echoes, and
        // whether it hands out a next cursor its traversal's earlier ones could stand for.
        let mut facts = facts.clone();
        if let Some(value) = &value {
            facts.filters = echoed_filters(value, &traversal.parameters);
            let hands_out = value.get("next_cursor").and_then(Value::as_str).is_some();
            if let Some(cursor) = record.cursor.as_deref().filter(|_| hands_out) {
                facts.handed_out = self.handed_out_up_to(cursor);
            }
        }
        let mut offered = Fault::offered_on(declared, &facts);
        if self.within_declarations {
            offered.retain(|fault| !fault.is_kit_only());
        }
        let why_not = |name: &str| Fault::why_not_offered(name, Some(declared), &facts, self.within_declarations);
        let (fault, emptied) = match self.choose(n, asked, &offered, why_not) {
            Ok(chosen) => chosen,
            Err(refused) => return refused.into_response(),
        };
        record.offered = offered;
        // The route's answer to another request: the first page again, as the route answers the
        // request without its cursor; the wider question, as it answers the request without one
        // of its filters (drawn by the seed), sent as it answers it, a refusal too.
        let other = match (&fault, reask) {
            (Some(Fault::Restarted), Some(reask)) => Some(reask(without_cursor(&uri))),
            (Some(Fault::FilterDropped), Some(reask)) => {
                let mut rng = self.schedule.rng(n, Draw::Shape);
                let at = below(&mut rng, facts.filters.len() as u64) as usize;
                facts.filters.get(at).map(|name| {
                    record.unechoed.push(name.clone());
                    reask(without_parameter(&uri, name))
                })
            }
            _ => None,
        };
        if let Some(other) = other {
            record.fault = fault.clone();
            let Some(mut answer) = other.await else {
                record.forget_answer();
                return Problem::new(ProblemCode::Internal, "the route did not answer the request sent in its place")
                    .into_response();
            };
            // Observed as the answer sent, by the request's own observation.
            Deferred::take(&mut answer);
            return self.noted(answer, record).await;
        }
        let Some(value) = value else {
            return Response::from_parts(parts, Body::from(bytes));
        };
        let facts = &RequestFacts {
            budget: parts.extensions.get::<TimeBudget>().copied(),
            // The response names its items member when it knows it (a derived envelope's first
            // collection that is not bounded); else the body's first array, in its order.
            items_member: parts
                .extensions
                .get::<Reported>()
                .and_then(|reported| reported.items_member)
                .map(str::to_owned)
                .or_else(|| items_member_of(&bytes)),
            emptied,
            ..facts
        };
        record.note_body(&value);
        let Some(fault) = fault else {
            if !traversal.of_partial {
                return Response::from_parts(parts, Body::from(bytes));
            }
            self.remember_partial(value.get("next_cursor").and_then(Value::as_str));
            return match without_evidence(&value, facts) {
                Some(page) => json_response(parts, &page),
                None => Response::from_parts(parts, Body::from(bytes)),
            };
        };
        let mut rng = self.schedule.rng(n, Draw::Shape);
        record.fault = Some(fault.clone());
        match inject(&fault, &value, declared, facts, &mut rng) {
            Err(error) => {
                record.forget_answer();
                Problem::new(ProblemCode::Internal, format!("the fault {fault} could not be applied: {error}"))
                    .into_response()
            }
            Ok(Faulted::Unchanged) => {
                record.fault = None;
                record.offered.clear();
                Response::from_parts(parts, Body::from(bytes))
            }
            Ok(Faulted::Problem(problem)) => {
                record.forget_answer();
                record.note_continuation(problem.extension("continuation").and_then(continuation_of).as_ref());
                problem.into_response()
            }
            Ok(Faulted::Page(mut page)) => {
                record.complete = Some(page.block.is_complete());
                record.next_cursor = page.block.next_cursor().map(str::to_owned);
                record.reasons = page.block.reason_codes().iter().map(ToString::to_string).collect();
                record.stale = page.block.warnings().iter().any(Warning::is_stale);
                record.resumed = page.block.page().and_then(|page| page.resumed);
                record.note_continuation(page.block.continuation());
                let mut reported = Reported::of(&page.block, None);
                reported.items = page.items_returned();
                if let Some(real) = parts.extensions.get::<Reported>() {
                    reported.declared = real.declared;
                    reported.items_member = real.items_member;
                    // A page of a collection (the answer it faults was one), paged like it.
                    reported.incomplete.paged |= real.incomplete.paged;
                }
                let partial = page.block.reasons().iter().any(|reason| !continues(reason));
                // A traversal that loops (a cursor handed out again) is no whole read either.
                let looped = fault == Fault::CursorRepeated;
                // A page the demand refuses is not sent ([`Demand::apply`]): its next cursor is
                // handed out to no one, and no traversal goes on from it.
                let sent = demand.is_none_or(|demand| !demand.refuses(&reported));
                if sent && (traversal.of_partial || partial || record.stale || looped) {
                    self.taint(&mut page);
                }
                // The response says what its faulted body says, and is observed as such.
                parts.extensions.insert(reported);
                json_response(parts, &page)
            }
        }
    }
}

/// The bytes of the answer's `body`, or the 500 problem that says it could not be read.
async fn read_body(body: Body) -> Result<axum::body::Bytes, Response> {
    to_bytes(body, usize::MAX).await.map_err(|error| {
        Problem::new(ProblemCode::Internal, format!("the response could not be read: {error}")).into_response()
    })
}

/// The response of `parts` with the body of `page`.
fn json_response(mut parts: axum::http::response::Parts, page: &FaultedPage) -> Response {
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page.to_body()))
}

/// True when a warning of a collection's JSON is stale ([`Warning::is_stale`]).
fn has_stale_warning(value: &Value) -> bool {
    let warnings = Vec::<Warning>::deserialize(&value["warnings"]).unwrap_or_default();
    warnings.iter().any(Warning::is_stale)
}

/// The `continuation` of a collection's or a problem's JSON, when it reads as one (`null`
/// when there is none).
fn continuation_in(value: &Value) -> Option<Continuation> {
    value.get("continuation").and_then(continuation_of)
}

/// `value` read as a continuation, as the contract's type reads it.
fn continuation_of(value: &Value) -> Option<Continuation> {
    Continuation::deserialize(value).ok()
}

/// True when `response` is a problem (`application/problem+json`, contract §5.4).
fn is_problem(response: &Response) -> bool {
    let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok());
    content_type.is_some_and(declares_problem)
}

/// The `Retry-After` of `response`, in seconds, the answer leaving the layer at `now`
/// ([`retry_after_seconds`]).
fn retry_after_header(response: &Response, now: SystemTime) -> Option<u64> {
    let value = response.headers().get(header::RETRY_AFTER)?;
    retry_after_seconds(value.to_str().ok()?, now)
}

/// A `Retry-After` value in whole seconds from `now` ([`retry_after_wait`]), rounded down: a
/// date names a whole second, and a client that waits until it must not be judged early; a date
/// already past asks for no wait, 0.
fn retry_after_seconds(value: &str, now: SystemTime) -> Option<u64> {
    retry_after_wait(value, now).map(|wait| wait.as_secs())
}

/// The reason codes of a collection's JSON.
fn codes(value: &Value) -> Vec<String> {
    value["incomplete_reasons"]
        .as_array()
        .map(|reasons| reasons.iter().filter_map(|r| r["code"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer serving for as long as the service runs keeps no log and remembers no cursor; a
    /// kit's layer keeps both for its run.
    #[test]
    fn a_serving_layer_keeps_no_log_and_remembers_no_cursor() {
        let config = CompletenessConfig::new(CursorKeys::ephemeral());
        let serving = FaultLayer::serving(Schedule::header_only(), &config);
        assert!(serving.shared.log.is_none() && serving.shared.keys.is_some());

        let kit = FaultLayer::new(Schedule::header_only());
        for n in 0..1_000 {
            kit.shared.remember_partial(Some(&format!("c{n}")));
        }
        assert!(kit.shared.is_partial("c0") && kit.shared.log.is_some());
    }

    /// `Retry-After` is read in both forms of RFC 9110 section 10.2.3: delta-seconds, and an HTTP
    /// date as the whole seconds from when the answer leaves to it, 0 once it is past.
    #[test]
    fn retry_after_is_read_as_seconds_or_as_an_http_date() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(retry_after_seconds("120", now), Some(120));
        assert_eq!(retry_after_seconds(" 0 ", now), Some(0));
        assert_eq!(retry_after_seconds("Sun, 06 Nov 1994 08:49:42 GMT", now), Some(5));
        // The obsolete forms a recipient reads too (RFC 850, asctime).
        assert_eq!(retry_after_seconds("Sunday, 06-Nov-94 08:49:40 GMT", now), Some(3));
        assert_eq!(retry_after_seconds("Sun Nov  6 08:49:39 1994", now), Some(2));
        // Rounded down: leaving half a second into 08:49:37, the date 08:49:42 is 4.5 s away.
        assert_eq!(retry_after_seconds("Sun, 06 Nov 1994 08:49:42 GMT", now + Duration::from_millis(500)), Some(4));
        assert_eq!(retry_after_seconds("Sun, 06 Nov 1994 08:49:30 GMT", now), Some(0), "a date past");
        for neither in ["", "soon", "-5", "1.5", "Sun, 06 Nov 1994 25:49:42 GMT"] {
            assert_eq!(retry_after_seconds(neither, now), None, "{neither:?}");
        }
    }
}
