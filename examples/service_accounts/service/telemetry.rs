//! What the operator of the service sees: a request log with a request id (tower-http's trace
//! and request-id layers), in a human format or as JSON lines, and at `GET /metrics`, in the
//! Prometheus text format, the framework's counters beside the service's own histogram of
//! request durations ([`REQUEST_DURATION`]): how many requests each route answered, with which
//! status and how fast, the denominator of the framework's counts.
//!
//! `GET /metrics` needs no credential: a scraper holds no API credential, and every label is
//! bounded and free of data (route templates, methods, codes, statuses; never an id, a tenant
//! or a credential name, which stay in the log).

use std::fmt::{self, Write as _};
use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use completeness::{Exempt, Reported};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio_util::sync::CancellationToken;
use tower::util::MapRequestLayer;
use tower_http::classify::{
    ClassifiedResponse, ClassifyResponse, NeverClassifyEos, ServerErrorsAsFailures, ServerErrorsFailureClass,
    SharedClassifier,
};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::trace::{OnResponse, TraceLayer};
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::{MakeWriter, format};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

use super::state::AppState;

/// How log lines are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// One readable line per event (the default).
    #[default]
    Human,
    /// One JSON object per line.
    Json,
}

impl LogFormat {
    /// Parses `human` or `json`.
    pub fn parse(text: &str) -> Result<LogFormat, String> {
        match text {
            "human" => Ok(LogFormat::Human),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("--log-format must be human or json, got '{other}'")),
        }
    }
}

/// The filter when `RUST_LOG` names none: the request log and the framework's events at `info`;
/// rmcp's from `error`. It logs the start and end of every MCP call at `info`, and at `warn` the
/// messages of clients it answered with an error or refused (an unknown tool, a `Host` it does
/// not serve), with values the client chose written whole (a JSON-RPC `id` of any length): the
/// service logs each of those refusals itself, as a `problem` event with its code.
pub const DEFAULT_FILTER: &str = "info,rmcp=error";

/// The most rmcp may log: below it, its events carry whole messages (see [`log_filter`]).
const RMCP_CAP: LevelFilter = LevelFilter::INFO;
/// The target of rmcp's events, and the prefix of its modules' targets.
const RMCP: &str = "rmcp";

/// The level names a bare `RUST_LOG` directive may be.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// The filter `RUST_LOG` asks for (`None`: unset, the default filter).
///
/// Stricter than the directive syntax, which reads any bare word as a target: a bare word must
/// be a level, so that a mistyped level (`inof`) is refused rather than silencing the whole
/// log; a target is named with its level (`completeness=debug`). An empty or non-UTF-8 value,
/// and a span or field filter, are refused too. rmcp is capped at `info`: at `debug` it writes every tool call's arguments
/// and result, cursors and evidence included, and a token's content is never logged.
pub fn log_filter(rust_log: Option<&std::ffi::OsStr>) -> Result<Targets, String> {
    let Some(text) = rust_log else {
        return DEFAULT_FILTER.parse().map_err(|e| format!("the default filter: {e}"));
    };
    let text = text.to_str().ok_or("RUST_LOG is not UTF-8")?;
    if text.trim().is_empty() {
        return Err(format!("RUST_LOG is empty: unset it for the default ({DEFAULT_FILTER}), or name a level"));
    }
    for directive in text.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        // A span or field filter (`target[span{field}]=level`) would be dropped from the filter
        // this builds, leaving the directive wider than asked (`[{x}]=trace`: everything).
        if directive.contains(['[', ']', '{', '}']) {
            return Err(format!(
                "RUST_LOG: '{directive}' filters by span or field, which this service does not; name a target and \
                 its level, e.g. completeness=debug"
            ));
        }
        if !directive.contains('=') && !LEVELS.contains(&directive.to_ascii_lowercase().as_str()) {
            return Err(format!(
                "RUST_LOG: '{directive}' is not a level ({}); name a target with its level, e.g. {directive}=debug",
                LEVELS.join(", ")
            ));
        }
    }
    let asked: Targets = text.parse().map_err(|e| format!("RUST_LOG: {e}"))?;
    // A directive applies to every target its own begins with, the longest one winning: one
    // whose target begins with `rmcp` (`rmcp::service`, `rmcp:`) is capped, and what rmcp would
    // get from a shorter one (`rm`, the empty target of `=debug`) or the default level is
    // capped by a directive for `rmcp` itself, which is longer.
    let mut filter = Targets::new();
    if let Some(level) = asked.default_level() {
        filter = filter.with_default(level);
    }
    let inherited = asked
        .iter()
        .filter(|(target, _)| RMCP.starts_with(target))
        .max_by_key(|(target, _)| target.len())
        .map(|(_, level)| level)
        .or(asked.default_level());
    for (target, level) in asked.iter() {
        filter = filter.with_target(target, if target.starts_with(RMCP) { level.min(RMCP_CAP) } else { level });
    }
    if let Some(level) = inherited.filter(|level| *level > RMCP_CAP) {
        filter = filter.with_target(RMCP, level.min(RMCP_CAP));
    }
    Ok(filter)
}

/// Writes log lines to standard error in `format`, filtered by `RUST_LOG` (e.g.
/// `RUST_LOG=info,completeness=debug`; see [`log_filter`]), from now on.
pub fn init_logging(format: LogFormat) -> Result<(), String> {
    let filter = log_filter(std::env::var_os("RUST_LOG").as_deref())?;
    let registry = tracing_subscriber::registry().with(filter);
    let writer = std::io::stderr;
    let installed = match format {
        LogFormat::Human => registry.with(human_layer(writer, std::io::stderr().is_terminal())).try_init(),
        LogFormat::Json => registry
            .with(tracing_subscriber::fmt::layer().json().flatten_event(true).with_span_list(false).with_writer(writer))
            .try_init(),
    };
    installed.map_err(|e| format!("could not install the log: {e}"))
}

/// The human log format, written to `writer` (with colours when `ansi`): tracing-subscriber's
/// lines, each field and message with its control characters escaped (`\n`, `\u{1b}`), and
/// each field value that holds a space, a quote or an `=` quoted (see [`field_value`]). A
/// value can come from a client (rmcp logs the `id` of a request it answers with an error, as
/// sent): a newline or a terminal escape in it would write a line that looks like one of the
/// service's own, or erase one, and ` event="strict_refusal" credential="admin"` in it would
/// add fields to the line it is in. The JSON format escapes them already.
pub fn human_layer<S, W>(writer: W, ansi: bool) -> impl Layer<S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let fields = format::debug_fn(|writer, field, value| {
        let mut escaped = Escaped(writer);
        if field.name() == "message" {
            write!(escaped, "{value:?}")
        } else {
            write!(escaped, "{field}=")?;
            field_value(&mut escaped, &format!("{value:?}"))
        }
    })
    .delimited(" ");
    tracing_subscriber::fmt::layer().with_ansi(ansi).fmt_fields(fields).with_writer(writer)
}

/// Writes a field's value as it was recorded, or quoted when it could be read as more than one
/// value: a value recorded with `%` (Display) is written as it is, so one holding a space, a
/// quote or an `=` is quoted, with its quotes and backslashes escaped. A value recorded as a
/// string (`Debug`) is quoted and escaped already, and kept.
fn field_value(writer: &mut impl fmt::Write, text: &str) -> fmt::Result {
    let plain = !text.contains(|c: char| c.is_whitespace() || c == '"' || c == '=');
    if plain || is_quoted(text) { writer.write_str(text) } else { write!(writer, "{text:?}") }
}

/// True for a string as `Debug` writes one: in quotes, each quote and backslash inside escaped.
fn is_quoted(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('"').and_then(|rest| rest.strip_suffix('"')) else {
        return false;
    };
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '"' => return false,
            _ => {}
        }
    }
    true
}

/// A log writer that writes each control character as its escape.
struct Escaped<'a, 'w>(&'a mut format::Writer<'w>);

impl fmt::Write for Escaped<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(at) = rest.find(char::is_control) {
            let (clean, control) = rest.split_at(at);
            self.0.write_str(clean)?;
            let mut chars = control.chars();
            if let Some(control) = chars.next() {
                write!(self.0, "{}", control.escape_default())?;
            }
            rest = chars.as_str();
        }
        self.0.write_str(rest)
    }
}

static METRICS: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the Prometheus recorder as the process's metrics recorder (once; later calls
/// return the same handle). `None` when another recorder was installed first.
pub fn install_metrics() -> Option<PrometheusHandle> {
    METRICS
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(REQUEST_DURATION.to_owned()), DURATION_BUCKETS)
                .ok()?
                .install_recorder()
                .ok()?;
            completeness::observe::describe_metrics();
            metrics::describe_histogram!(
                REQUEST_DURATION,
                metrics::Unit::Seconds,
                "Requests answered, by route, method and status, and how long each took until its answer left \
                 (status 499: until its client went away unanswered)."
            );
            metrics::describe_counter!(
                BACKGROUND_FAILURES,
                "Rounds of a background task (the snapshot pruner, the source refresh) that failed or panicked, by task; \
                 each is an ERROR line in the log (a debug line if a database outage already logged failed it), and \
                 the task runs again at its next round."
            );
            metrics::describe_gauge!(
                super::store::watched::DATABASE_OUTAGE,
                "1 while the database is in an outage, by outage: unreachable (it cannot be reached or does not \
                 answer in time) or read_only (it takes no writes); 0 otherwise."
            );
            metrics::describe_gauge!(
                POOL_CONNECTIONS,
                "The database pool's connections at the scrape, by state: in_use (held by a request or a \
                 background task) or idle (PostgreSQL only)."
            );
            metrics::describe_gauge!(POOL_MAX_CONNECTIONS, "How many connections the database pool may hold.");
            metrics::describe_gauge!(
                POOL_WAITING,
                "Requests waiting for a connection of the database pool at the scrape: every one is in use."
            );
            Some(handle)
        })
        .clone()
}

/// `duration` in whole milliseconds, as a log line's number (`as_millis` is a `u128`, which
/// tracing writes as text: a JSON log's `"ms": "20"`).
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The gauge of the database pool's connections, by `state` (`in_use`, `idle`), read at each
/// scrape; a store without a pool (SQLite's) has none.
pub const POOL_CONNECTIONS: &str = "service_database_pool_connections";
/// The gauge of how many connections the database pool may hold.
pub const POOL_MAX_CONNECTIONS: &str = "service_database_pool_max_connections";
/// The gauge of requests waiting for one of the database pool's connections.
pub const POOL_WAITING: &str = "service_database_pool_waiting";

/// The counter of failed rounds of the background tasks, by `task` (their fixed names): a
/// pruner failing for an hour is an alert, not only lines in a log.
pub const BACKGROUND_FAILURES: &str = "service_background_task_failures_total";

/// The histogram of request durations: every request the routes answer (refusals and unknown
/// routes, under `unmatched`, too), by `route` (the template), `method` (bounded as the
/// framework's metrics bound it) and `status`; its `_count` is the number of requests.
pub const REQUEST_DURATION: &str = "http_server_request_duration_seconds";

/// The bucket bounds of [`REQUEST_DURATION`], in seconds: from a page read from memory to a
/// search that spent the largest time budget (30 s) and answered (31 s), and a minute for what
/// takes longer still (a body sent slowly), so that an answer at the cap is told from one past it.
const DURATION_BUCKETS: &[f64] = &[0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 31.0, 60.0];

/// Records one request in [`REQUEST_DURATION`] when its response leaves (an MCP call's once it
/// has been answered: see the MCP routes), and one the client gave up on before its answer
/// ([`Unanswered`]).
async fn measure(
    axum::extract::State(stopping): axum::extract::State<CancellationToken>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut pending = Unanswered {
        started: std::time::Instant::now(),
        route: route_of(request.extensions()).to_owned(),
        method: completeness::observe::method_label(request.method()),
        span: tracing::Span::current(),
        status: None,
        stopping,
    };
    let response = next.run(request).await;
    pending.status = Some(response.status().as_u16());
    response
}

/// The status a request gets in the log and in [`REQUEST_DURATION`] when its client went away
/// before it was answered (nginx's "client closed request").
pub const CLIENT_CLOSED_REQUEST: u16 = 499;

/// A request on its way to an answer, counted in [`REQUEST_DURATION`] when it ends. When the
/// client goes away first (its connection closed, a timeout of its own), the server drops the
/// request's work where it stands, and nothing would say the request was ever made, although
/// what it began may be done (a write committed before its answer was written). Dropped
/// unanswered, it is counted with status [`CLIENT_CLOSED_REQUEST`] and writes the request log's
/// line, at `WARN`, with that status and `aborted = true`, in the request's span. Once the
/// replica is stopping, a request dropped unanswered was cut by the replica at `--stop-timeout`
/// (a client going away then is rare): it is counted and logged with status 503, saying so.
struct Unanswered {
    started: std::time::Instant,
    route: String,
    method: &'static str,
    span: tracing::Span,
    /// The answer's status, once there is one.
    status: Option<u16>,
    /// Cancelled once the replica is stopping.
    stopping: CancellationToken,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        // A handler that panicked did not lose its client: the panic is its own report.
        if self.status.is_none() && std::thread::panicking() {
            return;
        }
        let latency = self.started.elapsed();
        let cut_by_stop = self.stopping.is_cancelled();
        let unanswered = if cut_by_stop { StatusCode::SERVICE_UNAVAILABLE.as_u16() } else { CLIENT_CLOSED_REQUEST };
        let status = self.status.unwrap_or(unanswered);
        let route = std::mem::take(&mut self.route);
        metrics::histogram!(REQUEST_DURATION, "route" => route, "method" => self.method, "status" => status.to_string())
            .record(latency.as_secs_f64());
        if self.status.is_some() {
            return;
        }
        let latency_ms = latency.as_micros() as f64 / 1000.0;
        let why = if cut_by_stop {
            "the replica stopped before the answer (its connection was closed at --stop-timeout); what the request \
             began may have been done"
        } else {
            "the client went away before the answer; what the request began may have been done"
        };
        self.span.in_scope(|| {
            tracing::warn!(target: REQUEST_LOG, status = unanswered, latency_ms, aborted = true, "{why}");
        });
    }
}

/// `GET /metrics`: the counters in the Prometheus text format (empty when no recorder is ours),
/// and the database pool's gauges ([`POOL_CONNECTIONS`]) as they are at the scrape.
pub async fn metrics(
    State(state): State<AppState>,
) -> Exempt<([(header::HeaderName, HeaderValue); 1], Extension<Routine>, String)> {
    if let Some(pool) = state.store.connections() {
        let held = pool.open.saturating_sub(pool.idle);
        metrics::gauge!(POOL_CONNECTIONS, "state" => "in_use").set(held as f64);
        metrics::gauge!(POOL_CONNECTIONS, "state" => "idle").set(pool.idle as f64);
        metrics::gauge!(POOL_MAX_CONNECTIONS).set(pool.max as f64);
        metrics::gauge!(POOL_WAITING).set(pool.waiting as f64);
    }
    let text = METRICS.get().and_then(Option::as_ref).map(PrometheusHandle::render).unwrap_or_default();
    let content_type = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    Exempt::new(([(header::CONTENT_TYPE, content_type)], Extension(Routine), text), super::openapi::METRICS_EXEMPT)
}

/// The request log: an `x-request-id` on every request (kept when the client sent one) and
/// echoed on the response, a span per request with that id, the method and the route
/// template, one `INFO` line per response with its status and latency (`DEBUG` for a successful
/// probe or scrape, [`Routine`]; and a `WARN` line, status
/// [`CLIENT_CLOSED_REQUEST`], for a request whose client went away while it ran), and the
/// request in [`REQUEST_DURATION`]. The framework's
/// events are written inside that span, so they carry the request id too.
///
/// A request dropped unanswered once the replica is `stopping` was closed by the replica at
/// `--stop-timeout` (see [`Unanswered`]), not by its client.
///
/// A client's `x-request-id` is kept only when it is printable ASCII, not empty and at most
/// [`MAX_REQUEST_ID_BYTES`] long; any other is replaced by a fresh one, so that the id in the
/// log is always the one echoed, and a client cannot make each request write kilobytes of log
/// (or echo them back on a refusal).
pub fn request_log<S>(router: axum::Router<S>, stopping: CancellationToken) -> axum::Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let trace = TraceLayer::new(SharedClassifier::new(ServerFailures))
        .make_span_with(|request: &Request<axum::body::Body>| request_span(request.extensions(), request.method()))
        .on_response(ResponseLine);
    // Layers wrap what comes before them: an unusable id is dropped first, then one is set,
    // then traced, then echoed.
    router
        .layer(axum::middleware::from_fn_with_state(stopping, measure))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(trace)
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .layer(MapRequestLayer::new(drop_unusable_request_id))
}

/// The request log's line for each response, target [`REQUEST_LOG`]: its status, and its
/// latency in milliseconds as a number (to the microsecond), which a JSON log keeps as a number
/// to sum and compare (tower-http's default line writes it as text, `"153 ms"`).
#[derive(Debug, Clone, Copy)]
pub struct ResponseLine;

/// The target of the request log's lines.
pub const REQUEST_LOG: &str = "request_log";

impl<B> OnResponse<B> for ResponseLine {
    fn on_response(self, response: &Response<B>, latency: Duration, _span: &tracing::Span) {
        let latency_ms = latency.as_micros() as f64 / 1000.0;
        let status = response.status().as_u16();
        if response.status().is_success() && response.extensions().get::<Routine>().is_some() {
            tracing::debug!(target: REQUEST_LOG, status, latency_ms, "finished processing request");
        } else {
            tracing::info!(target: REQUEST_LOG, status, latency_ms, "finished processing request");
        }
    }
}

/// Marks an answer to a request a machine repeats every few seconds (a readiness probe, a
/// metrics scrape): its request line is written at `DEBUG` when it succeeded, so that three
/// replicas probed every 5 s and scraped every 15 s do not fill the log at `INFO` with lines
/// that say nothing happened. One that failed is written at `INFO` as every other request.
#[derive(Debug, Clone, Copy)]
pub struct Routine;

/// tower-http's classifier of server errors, but for answers: a 5xx that carries what its
/// handler's answer said of its completeness is a refused partial answer (a strict demand met
/// an incomplete one, `COMPLETE_RESULT_UNAVAILABLE`), the contract working, not the service
/// failing, so it gets no `ERROR` line of its own (its `strict_refusal` event says it). Nor
/// does a 503 with `Retry-After`: the service saying when to ask again (its database is down,
/// the replica is stopping), whose cause the service logs once itself, where a second `ERROR`
/// line per request doubled an outage's lines. Any other 5xx does.
#[derive(Debug, Clone, Copy)]
pub struct ServerFailures;

impl ClassifyResponse for ServerFailures {
    type FailureClass = ServerErrorsFailureClass;
    type ClassifyEos = NeverClassifyEos<ServerErrorsFailureClass>;

    fn classify_response<B>(self, response: &Response<B>) -> ClassifiedResponse<Self::FailureClass, Self::ClassifyEos> {
        let retry_later = response.status() == StatusCode::SERVICE_UNAVAILABLE
            && response.headers().contains_key(header::RETRY_AFTER);
        if response.extensions().get::<Reported>().is_some() || retry_later {
            return ClassifiedResponse::Ready(Ok(()));
        }
        ServerErrorsAsFailures::new().classify_response(response)
    }

    fn classify_error<E: fmt::Display + 'static>(self, error: &E) -> Self::FailureClass {
        ServerErrorsAsFailures::new().classify_error(error)
    }
}

/// The span of one request: its id, method and route template. Also what an MCP tool call
/// runs in, rebuilt from the extensions of the HTTP request that carried it, since rmcp runs
/// the call in a task of its own, outside the request's span.
pub fn request_span(extensions: &axum::http::Extensions, method: &axum::http::Method) -> tracing::Span {
    let id = extensions.get::<RequestId>().and_then(|id| id.header_value().to_str().ok());
    let route = route_of(extensions);
    // A method of the client's own making is a token of any length: a long one is not copied
    // into every line of its request.
    let method = if method.as_str().len() <= MAX_METHOD_BYTES { method.as_str() } else { "(long method)" };
    tracing::info_span!(
        parent: None,
        "request",
        id = id.unwrap_or("-"),
        method = %method,
        route,
    )
}

/// The route template a request matched, or `unmatched`: the route of its log span and of its
/// durations.
fn route_of(extensions: &axum::http::Extensions) -> &str {
    extensions.get::<axum::extract::MatchedPath>().map_or(completeness::observe::UNMATCHED, |path| path.as_str())
}

/// The longest method logged as sent, in bytes (`OPTIONS` takes 7, WebDAV's `PROPPATCH` 9).
const MAX_METHOD_BYTES: usize = 16;

/// The longest client `x-request-id` kept, in bytes (a UUID takes 36).
pub const MAX_REQUEST_ID_BYTES: usize = 128;

/// Removes the client's `x-request-id` when it could not be logged as sent (not printable
/// ASCII, or empty), is longer than [`MAX_REQUEST_ID_BYTES`], or was sent twice, as two fields
/// or as one that a proxy combined with a comma (RFC 9110 §5.3: which one a proxy added, and
/// which the client, cannot be told), so that a fresh one is set in its place.
fn drop_unusable_request_id(mut request: axum::extract::Request) -> axum::extract::Request {
    // (`HeaderValue::to_str` would take a tab too.)
    let usable = |value: &HeaderValue| {
        let bytes = value.as_bytes();
        bytes.len() <= MAX_REQUEST_ID_BYTES
            && bytes.iter().all(|b| (b' '..=b'~').contains(b) && *b != b',')
            && bytes.iter().any(|b| *b != b' ')
    };
    let sent = request.headers().get_all(X_REQUEST_ID);
    if sent.iter().count() > 1 || sent.iter().any(|value| !usable(value)) {
        request.headers_mut().remove(X_REQUEST_ID);
    }
    request
}

/// The request id header.
const X_REQUEST_ID: &str = "x-request-id";
