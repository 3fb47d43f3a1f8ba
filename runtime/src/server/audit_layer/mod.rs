//! A tower layer for services in the middle of a migration: it watches JSON responses and
//! counts, per route, those that are lists without completeness.
//!
//! Rules, applied to every response whose `content-type` is `application/json`:
//! 1. A response that is not inspected passes untouched and is counted as not inspected: one
//!    that is not a success (a status other than 2xx: a `422` with `["bad field"]` is an error
//!    a client does not read as a list), one with an empty body (a `204`: no JSON value, so
//!    neither a list nor bad JSON), and one whose body's size is not known up front (streamed)
//!    or is larger than [`AuditLayer::max_bytes`]. A body a compression layer inside this one
//!    encoded (tower-http's `CompressionLayer`, for a client that accepts gzip) is streamed:
//!    add this layer inside the compression, `.layer(audit).layer(CompressionLayer::new())`,
//!    where it reads the handlers' JSON as written; outside it, most answers go uninspected.
//! 2. A body that is not JSON (see [`shape`] for the check) is counted as bad JSON; the client
//!    gets it as it was.
//! 3. A top-level array is flagged `bare-array`.
//! 4. A top-level object with an array member and no `complete` member is flagged
//!    `array-without-complete`.
//!    On a route declared [`AuditLayer::bounded`] (a single resource with a small collection)
//!    it is counted as `bounded` instead.
//! 5. A flag is a count in [`AuditLayer::snapshot`] by method and route (axum's `MatchedPath`,
//!    which the `Router` sets once it has matched a route: the layer is added with
//!    `Router::layer`, see [`AuditLayer`]); with the `metrics` feature, one more in
//!    `completeness_audit_flags_total{route,method,problem}`; a `tracing` event (target
//!    `completeness::audit`), a `WARN` the first time a route is flagged for a problem and a
//!    `DEBUG` after it (a route mid-migration answers lists all day: one warning says so, the
//!    counts say how often); and with [`AuditLayer::with_header`] a response header
//!    [`AUDIT_HEADER`] naming the problem.
//! 6. Counts are kept by `"METHOD route"` (`"GET /users/{id}"`), and whatever clients send, the
//!    keys stay few: a request no route matched, such as one the fallback answers, has the route
//!    [`UNMATCHED_ROUTE`] (`"GET (unmatched)"`), so that scanned paths do not each add an entry;
//!    a method no route can be registered for (an extension method) is [`OTHER_METHOD`], so that
//!    invented methods do not either. The method of an unmatched request is kept, as `observe`
//!    keeps it: a fallback that answers lists to `GET` and errors to `POST` shows as such.
//!
//! The body's bytes are never changed.
//!
//! ```
//! use axum::{Json, Router, routing::get};
//! use completeness_runtime::audit_layer::AuditLayer;
//!
//! let audit = AuditLayer::new().max_bytes(64 * 1024).with_header();
//! let app: Router = Router::new()
//!     .route("/names", get(|| async { Json(vec!["a", "b"]) }))
//!     .layer(audit.clone());
//! // Later, e.g. from an admin endpoint or a periodic log line:
//! let counts = serde_json::to_value(audit.snapshot()).unwrap();
//! # let _ = (app, counts);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, HttpBody};
use axum::extract::{MatchedPath, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use axum::routing::MethodFilter;
use serde::{Deserialize, Serialize};
use tower::{Layer, Service};

use crate::contract::media::declares_answer;

mod shape;

pub use shape::{BadJson, shape};

/// The response header naming the problem, when [`AuditLayer::with_header`] is on.
pub const AUDIT_HEADER: &str = "completeness-audit";

/// The route of the key of every request without axum's `MatchedPath` (no route matched, or
/// the layer wraps something that is not a `Router`'s route), after its method like any route's
/// (`"GET (unmatched)"`): the raw path would give each scanned URL an entry of its own (rule 6).
pub const UNMATCHED_ROUTE: &str = "(unmatched)";

/// The method of the key of a request whose method no route can be registered for (not one of
/// axum's `MethodFilter`s, such as an extension method): each would add an entry of its own
/// (rule 6).
pub const OTHER_METHOD: &str = "OTHER";

/// The default of [`AuditLayer::max_bytes`]: 256 KiB.
pub const DEFAULT_MAX_BYTES: usize = 256 * 1024;

/// What the layer found in one JSON body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// Rule 3: the body is a JSON array.
    BareArray,
    /// Rule 4: an object with an array member and no `complete` member.
    ArrayWithoutComplete,
}

impl Problem {
    /// The header value and log name of the problem.
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::BareArray => "bare-array",
            Problem::ArrayWithoutComplete => "array-without-complete",
        }
    }
}

/// The counts of one route (`"GET /users/{id}"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteCounts {
    /// JSON responses seen.
    pub json_responses: u64,
    /// JSON bodies read and checked.
    pub inspected: u64,
    /// Rule 3 flags.
    pub bare_array: u64,
    /// Rule 4 flags.
    pub array_without_complete: u64,
    /// Rule 4 on a route declared [`AuditLayer::bounded`]: counted, not flagged.
    pub bounded: u64,
    /// Rule 1: not a success, empty, streamed or larger than the limit; passed untouched.
    pub not_inspected: u64,
    /// Rule 2: bodies that are not JSON.
    pub bad_json: u64,
}

impl RouteCounts {
    /// Responses flagged by rule 3 or 4.
    pub fn flagged(&self) -> u64 {
        self.bare_array + self.array_without_complete
    }
}

/// The counts of every route seen so far, by `"METHOD route"` (rule 6).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSnapshot {
    /// Per route.
    pub routes: BTreeMap<String, RouteCounts>,
}

impl AuditSnapshot {
    /// Flagged responses over every route: zero once the migration is done.
    pub fn flagged(&self) -> u64 {
        self.routes.values().map(RouteCounts::flagged).sum()
    }

    /// The routes with at least one flag.
    pub fn flagged_routes(&self) -> Vec<&str> {
        self.routes.iter().filter(|(_, c)| c.flagged() > 0).map(|(r, _)| r.as_str()).collect()
    }
}

#[derive(Debug, Clone)]
struct Config {
    max_bytes: usize,
    header: bool,
    bounded: BTreeSet<String>,
}

type Counts = Arc<Mutex<BTreeMap<String, RouteCounts>>>;

#[derive(Debug)]
struct Shared {
    config: Arc<Config>,
    counts: Counts,
}

/// The audit layer; clones share their counts.
///
/// Add it to the whole `Router` with `Router::layer` (`router.layer(audit.clone())`), after
/// every route: axum then runs it inside each route, once the route is matched, so it reads the
/// route's `MatchedPath` (rule 6). Wrapped around the router as an outer tower service instead
/// (`tower::Layer::layer(&audit, router)`, or `ServiceBuilder` around the router), it sees each
/// request before the `Router` matches it: every response is counted under
/// [`UNMATCHED_ROUTE`] (`"GET (unmatched)"`).
#[derive(Debug, Clone)]
pub struct AuditLayer {
    config: Arc<Config>,
    counts: Counts,
}

impl Default for AuditLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl AuditLayer {
    /// A layer that inspects bodies up to [`DEFAULT_MAX_BYTES`] and adds no header.
    pub fn new() -> Self {
        AuditLayer {
            config: Arc::new(Config { max_bytes: DEFAULT_MAX_BYTES, header: false, bounded: BTreeSet::new() }),
            counts: Counts::default(),
        }
    }

    /// Inspects bodies of at most `bytes` bytes (rule 1).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        Arc::make_mut(&mut self.config).max_bytes = bytes;
        self
    }

    /// Adds the [`AUDIT_HEADER`] header to flagged responses (rule 5).
    pub fn with_header(mut self) -> Self {
        Arc::make_mut(&mut self.config).header = true;
        self
    }

    /// Declares `route` (`"GET /products/{id}"`) a single resource whose collections are bounded
    /// (`#[envelope(bounded = "why")]`): rule 4 counts its responses as `bounded`, not as flags.
    /// A bare array on it is still flagged.
    pub fn bounded(mut self, route: &str) -> Self {
        Arc::make_mut(&mut self.config).bounded.insert(route.to_owned());
        self
    }

    /// The counts so far.
    pub fn snapshot(&self) -> AuditSnapshot {
        AuditSnapshot { routes: self.counts.lock().unwrap_or_else(|e| e.into_inner()).clone() }
    }
}

impl<S> Layer<S> for AuditLayer {
    type Service = AuditService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuditService { inner, shared: Arc::new(Shared { config: self.config.clone(), counts: self.counts.clone() }) }
    }
}

/// The service [`AuditLayer`] wraps around a router or route.
#[derive(Clone)]
pub struct AuditService<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S: fmt::Debug> fmt::Debug for AuditService<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditService").field("inner", &self.inner).finish_non_exhaustive()
    }
}

impl<S> Service<Request> for AuditService<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let key = key(&request);
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let shared = self.shared.clone();
        Box::pin(async move {
            let response = inner.call(request).await?;
            Ok(shared.inspect(key, response).await)
        })
    }
}

impl Shared {
    /// Rules 1 to 5 for one response.
    async fn inspect(&self, key: String, response: Response) -> Response {
        if !is_json(response.headers()) {
            return response;
        }
        if !response.status().is_success() {
            self.count(&key, |c| c.not_inspected += 1);
            return response;
        }
        let (mut parts, body) = response.into_parts();
        let size = body.size_hint().exact();
        let Some(size) = size.filter(|n| *n > 0 && *n <= self.config.max_bytes as u64) else {
            self.count(&key, |c| c.not_inspected += 1);
            return Response::from_parts(parts, body);
        };
        let bytes = match axum::body::to_bytes(body, size as usize).await {
            Ok(bytes) => bytes,
            Err(_) => {
                // A body that announced its size but failed to deliver it: nothing to hand on.
                self.count(&key, |c| c.not_inspected += 1);
                return Response::from_parts(parts, Body::empty());
            }
        };
        match shape(&bytes) {
            Err(_) => self.count(&key, |c| {
                c.inspected += 1;
                c.bad_json += 1;
            }),
            Ok(None) => self.count(&key, |c| c.inspected += 1),
            Ok(Some(Problem::ArrayWithoutComplete)) if self.config.bounded.contains(&key) => self.count(&key, |c| {
                c.inspected += 1;
                c.bounded += 1;
            }),
            Ok(Some(problem)) => {
                let flags = self.count(&key, |c| {
                    c.inspected += 1;
                    let flags = match problem {
                        Problem::BareArray => &mut c.bare_array,
                        Problem::ArrayWithoutComplete => &mut c.array_without_complete,
                    };
                    *flags += 1;
                    *flags
                });
                if flags == 1 {
                    tracing::warn!(
                        target: "completeness::audit",
                        route = %key,
                        problem = problem.as_str(),
                        "a JSON response holds a list without completeness (the first on this route; the next are \
                         DEBUG events, counted in the snapshot)"
                    );
                } else {
                    tracing::debug!(
                        target: "completeness::audit",
                        route = %key,
                        problem = problem.as_str(),
                        flags,
                        "a JSON response holds a list without completeness"
                    );
                }
                #[cfg(feature = "metrics")]
                {
                    let (method, route) = key.split_once(' ').unwrap_or(("", key.as_str()));
                    metrics::counter!(crate::observe::AUDIT_FLAGS_TOTAL, "route" => route.to_owned(),
                        "method" => method.to_owned(), "problem" => problem.as_str())
                    .increment(1);
                }
                if self.config.header {
                    parts.headers.insert(AUDIT_HEADER, HeaderValue::from_static(problem.as_str()));
                }
            }
        }
        Response::from_parts(parts, Body::from(bytes))
    }

    /// Counts one JSON response of `key`, with `update` (whose result it returns).
    fn count<T>(&self, key: &str, update: impl FnOnce(&mut RouteCounts) -> T) -> T {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let entry = counts.entry(key.to_owned()).or_default();
        entry.json_responses += 1;
        update(entry)
    }
}

/// The key of `request`'s counts, `"METHOD route"`, by rule 6.
fn key(request: &Request) -> String {
    let method = match MethodFilter::try_from(request.method().clone()) {
        Ok(_) => request.method().as_str(),
        Err(_) => OTHER_METHOD,
    };
    let route = request.extensions().get::<MatchedPath>().map_or(UNMATCHED_ROUTE, MatchedPath::as_str);
    format!("{method} {route}")
}

/// A JSON answer (`application/json`, or another `+json` type such as `application/hal+json`),
/// with or without parameters; a problem (`application/problem+json`) is not a list.
fn is_json(headers: &HeaderMap) -> bool {
    let declared = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    declared.is_some_and(declares_answer)
}

#[cfg(test)]
mod tests {
    use axum::routing::get;
    use axum::{Json, Router};
    use tracing::Level;

    use super::*;
    use crate::test_events::Events;

    /// Rule 5: a route mid-migration answers lists all day, so the first flag of a route for a
    /// problem is a warning and the next ones are debug events.
    #[test]
    fn the_first_flag_of_a_route_for_a_problem_warns_and_the_next_ones_do_not() {
        let app = Router::new()
            .route("/bare", get(|| async { Json(vec![1, 2]) }))
            .route("/object", get(|| async { Json(serde_json::json!({"items": [1]})) }))
            .layer(AuditLayer::new());
        let events = Events::default();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        tracing::subscriber::with_default(events.clone(), || {
            runtime.block_on(async {
                for path in ["/bare", "/bare", "/bare", "/object"] {
                    let mut service = app.clone();
                    std::future::poll_fn(|cx| Service::<Request>::poll_ready(&mut service, cx)).await.unwrap();
                    let request = Request::get(path).body(Body::empty()).unwrap();
                    service.call(request).await.unwrap();
                }
            })
        });
        let levels: Vec<Level> = events.of("completeness::audit").iter().map(|event| event.level).collect();
        assert_eq!(levels, [Level::WARN, Level::DEBUG, Level::DEBUG, Level::WARN]);
    }
}
