//! What the operator of the service sees: a request log with a request id (tower-http's trace
//! and request-id layers), in a human format or as JSON lines, and the framework's counters in
//! the Prometheus text format at `GET /metrics`.
//!
//! `GET /metrics` needs no credential: a scraper holds no API credential, and every label is
//! bounded and free of data (route templates, methods, codes, statuses; never an id, a tenant
//! or a credential name, which stay in the log).

use std::io::IsTerminal;
use std::sync::OnceLock;

use axum::http::{HeaderValue, Request, header};
use completeness::Exempt;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

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
/// rmcp's from `warn`, since it logs the start and end of every MCP call at `info`.
pub const DEFAULT_FILTER: &str = "info,rmcp=warn";

/// Writes log lines to standard error in `format`, filtered by `RUST_LOG` (e.g.
/// `RUST_LOG=info,completeness=debug`), from now on.
pub fn init_logging(format: LogFormat) -> Result<(), String> {
    let filter: Targets = std::env::var("RUST_LOG")
        .unwrap_or_else(|_| DEFAULT_FILTER.to_owned())
        .parse()
        .map_err(|e| format!("RUST_LOG: {e}"))?;
    let registry = tracing_subscriber::registry().with(filter);
    let writer = std::io::stderr;
    let installed = match format {
        LogFormat::Human => registry
            .with(tracing_subscriber::fmt::layer().with_ansi(std::io::stderr().is_terminal()).with_writer(writer))
            .try_init(),
        LogFormat::Json => registry
            .with(tracing_subscriber::fmt::layer().json().flatten_event(true).with_span_list(false).with_writer(writer))
            .try_init(),
    };
    installed.map_err(|e| format!("could not install the log: {e}"))
}

static METRICS: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the Prometheus recorder as the process's metrics recorder (once; later calls
/// return the same handle). `None` when another recorder was installed first.
pub fn install_metrics() -> Option<PrometheusHandle> {
    METRICS
        .get_or_init(|| {
            let handle = PrometheusBuilder::new().install_recorder().ok()?;
            completeness::observe::describe_metrics();
            Some(handle)
        })
        .clone()
}

/// `GET /metrics`: the counters in the Prometheus text format (empty when no recorder is ours).
pub async fn metrics() -> Exempt<([(header::HeaderName, HeaderValue); 1], String)> {
    let text = METRICS.get().and_then(Option::as_ref).map(PrometheusHandle::render).unwrap_or_default();
    let content_type = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    Exempt::new(([(header::CONTENT_TYPE, content_type)], text), super::openapi::METRICS_EXEMPT)
}

/// The request log: an `x-request-id` on every request (kept when the client sent one) and
/// echoed on the response, a span per request with that id, the method and the route
/// template, and one `INFO` line per response with its status and latency. The framework's
/// events are written inside that span, so they carry the request id too.
pub fn request_log<S>(router: axum::Router<S>) -> axum::Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let trace = TraceLayer::new_for_http()
        .make_span_with(|request: &Request<axum::body::Body>| {
            let id = request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok());
            let route = request.extensions().get::<axum::extract::MatchedPath>().map(|p| p.as_str());
            tracing::info_span!(
                "request",
                id = id.unwrap_or("-"),
                method = %request.method(),
                route = route.unwrap_or(completeness::observe::UNMATCHED),
            )
        })
        .on_response(DefaultOnResponse::new().level(Level::INFO));
    // Layers wrap what comes before them: the id is set first, then traced, then echoed.
    router
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(trace)
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}
