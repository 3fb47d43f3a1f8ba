//! `CompletenessConfig`: every server-side setting of the axum integration, in one place,
//! and the layer that makes it available to the extractors.
//!
//! ```
//! use std::time::Duration;
//! use axum::{Router, routing::get};
//! use completeness_runtime::config::CompletenessConfig;
//! use completeness_runtime::cursor::CursorKeys;
//!
//! // In production: CursorKeys::from_env("COMPLETENESS_CURSOR_KEYS")?
//! let config = CompletenessConfig::new(CursorKeys::ephemeral())
//!     .with_page_sizes(50, 500)
//!     .with_cursor_ttl(Duration::from_secs(15 * 60))
//!     .with_time_budgets(Duration::from_secs(2), Duration::from_secs(10));
//! let app: Router = Router::new().route("/", get(|| async { "ok" })).layer(config.layer());
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::http::request::Parts;
use axum::response::Response;

use crate::server::credential::Credential;
use crate::server::cursor::{CursorKeys, DEFAULT_MAX_TOKEN_LEN};
use crate::server::problem::{Problem, ProblemCode};

/// The response header that echoes the time budget applied to a request, in milliseconds.
pub const TIME_BUDGET_HEADER: &str = "time-budget-ms";

/// Server settings for cursors, page sizes, time budgets and evidence.
///
/// Install it with [`CompletenessConfig::layer`]; the extractors read it from the request.
/// Defaults: page size 50 (max 500), cursor TTL 15 min, evidence TTL 10 min, time budget
/// 5 s (max 30 s), tokens up to 4096 bytes.
#[derive(Debug, Clone)]
pub struct CompletenessConfig {
    keys: CursorKeys,
    default_page_size: u64,
    max_page_size: u64,
    cursor_ttl: Duration,
    evidence_ttl: Duration,
    default_time_budget: Duration,
    max_time_budget: Duration,
    max_token_len: usize,
    /// The credential of requests that bring none (a service without authentication).
    anonymous: Option<Credential>,
}

impl CompletenessConfig {
    /// Settings with `keys` and the defaults.
    pub fn new(keys: CursorKeys) -> CompletenessConfig {
        CompletenessConfig {
            keys,
            default_page_size: 50,
            max_page_size: 500,
            cursor_ttl: Duration::from_secs(15 * 60),
            evidence_ttl: Duration::from_secs(10 * 60),
            default_time_budget: Duration::from_secs(5),
            max_time_budget: Duration::from_secs(30),
            max_token_len: DEFAULT_MAX_TOKEN_LEN,
            anonymous: None,
        }
    }

    /// The page size used when a request names none, and the largest one applied
    /// (both at least 1; the default is capped by the maximum).
    pub fn with_page_sizes(mut self, default: u64, max: u64) -> CompletenessConfig {
        self.max_page_size = max.max(1);
        self.default_page_size = default.clamp(1, self.max_page_size);
        self
    }

    /// How long a cursor stays valid after it is issued.
    pub fn with_cursor_ttl(mut self, ttl: Duration) -> CompletenessConfig {
        self.cursor_ttl = ttl;
        self
    }

    /// How long an evidence token stays valid after it is issued.
    pub fn with_evidence_ttl(mut self, ttl: Duration) -> CompletenessConfig {
        self.evidence_ttl = ttl;
        self
    }

    /// The time budget used when a request names none, and the cap on requested ones
    /// (the default is capped by the maximum; both at least 1 ms).
    pub fn with_time_budgets(mut self, default: Duration, max: Duration) -> CompletenessConfig {
        self.max_time_budget = max.max(Duration::from_millis(1));
        self.default_time_budget = default.clamp(Duration::from_millis(1), self.max_time_budget);
        self
    }

    /// The longest cursor or evidence token accepted, in bytes (refused before decoding).
    pub fn with_max_token_len(mut self, len: usize) -> CompletenessConfig {
        self.max_token_len = len;
        self
    }

    /// The key ring.
    pub fn keys(&self) -> &CursorKeys {
        &self.keys
    }

    /// The page size used when a request names none.
    pub fn default_page_size(&self) -> u64 {
        self.default_page_size
    }

    /// The largest page size applied.
    pub fn max_page_size(&self) -> u64 {
        self.max_page_size
    }

    /// The cursor lifetime.
    pub fn cursor_ttl(&self) -> Duration {
        self.cursor_ttl
    }

    /// The evidence lifetime.
    pub fn evidence_ttl(&self) -> Duration {
        self.evidence_ttl
    }

    /// The time budget used when a request names none.
    pub fn default_time_budget(&self) -> Duration {
        self.default_time_budget
    }

    /// The cap on requested time budgets.
    pub fn max_time_budget(&self) -> Duration {
        self.max_time_budget
    }

    /// The longest token accepted.
    pub fn max_token_len(&self) -> usize {
        self.max_token_len
    }

    /// For a service without authentication: every request that brings no [`Credential`]
    /// gets [`Credential::anonymous`], which reads every tenant. Cursors and evidence are
    /// still bound to it, so they keep working across requests.
    ///
    /// ```
    /// use completeness_runtime::config::CompletenessConfig;
    /// use completeness_runtime::cursor::CursorKeys;
    /// let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential();
    /// # let _ = config;
    /// ```
    pub fn with_anonymous_credential(mut self) -> CompletenessConfig {
        self.anonymous = Some(Credential::anonymous());
        self
    }

    /// The tower layer that puts this configuration on every request (for the
    /// extractors) and echoes the applied time budget in the `Time-Budget-Ms` response
    /// header when a handler extracted a [`TimeBudget`](crate::server::budget::TimeBudget).
    pub fn layer(&self) -> CompletenessLayer {
        CompletenessLayer { config: Arc::new(self.clone()) }
    }

    /// The configuration installed by [`CompletenessConfig::layer`].
    ///
    /// Without the layer this is a server bug, answered as a 500 `INTERNAL` problem.
    pub fn from_parts(parts: &Parts) -> Result<Arc<CompletenessConfig>, Problem> {
        parts.extensions.get::<Arc<CompletenessConfig>>().cloned().ok_or_else(|| {
            Problem::new(
                ProblemCode::Internal,
                "The server is misconfigured: the completeness layer is not installed on this route.",
            )
        })
    }
}

/// Installs a [`CompletenessConfig`] on requests; see [`CompletenessConfig::layer`].
#[derive(Debug, Clone)]
pub struct CompletenessLayer {
    config: Arc<CompletenessConfig>,
}

impl<S> tower::Layer<S> for CompletenessLayer {
    type Service = CompletenessService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CompletenessService { inner, config: self.config.clone() }
    }
}

/// The service of [`CompletenessLayer`].
#[derive(Debug, Clone)]
pub struct CompletenessService<S> {
    inner: S,
    config: Arc<CompletenessConfig>,
}

/// Where the time budget extractor records the applied budget for the response header.
#[derive(Debug, Clone, Default)]
pub(crate) struct BudgetEcho(Arc<Mutex<Option<u64>>>);

impl BudgetEcho {
    pub(crate) fn record(&self, applied_ms: u64) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(applied_ms);
        }
    }

    fn recorded(&self) -> Option<u64> {
        self.0.lock().ok().and_then(|slot| *slot)
    }
}

impl<S> tower::Service<Request> for CompletenessService<S>
where
    S: tower::Service<Request, Response = Response> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let echo = BudgetEcho::default();
        request.extensions_mut().insert(self.config.clone());
        if let Some(anonymous) = &self.config.anonymous
            && request.extensions().get::<Credential>().is_none()
        {
            request.extensions_mut().insert(anonymous.clone());
        }
        request.extensions_mut().insert(echo.clone());
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            if let Some(applied_ms) = echo.recorded() {
                response.headers_mut().insert(TIME_BUDGET_HEADER, HeaderValue::from(applied_ms));
            }
            Ok(response)
        })
    }
}
