//! `CompletenessConfig`: every server-side setting of the axum integration, in one place,
//! and [`CompletenessState`], how the extractors and checked routes find it in the router's
//! state.
//!
//! The settings travel as the router's state (or inside it), so a router that lacks them
//! does not compile: the checked routing functions and the extractors that need them
//! ([`PageRequest`](crate::server::page_request::PageRequest),
//! [`TimeBudget`](crate::server::budget::TimeBudget), the evidence extractors,
//! [`Credential`]) require `S: CompletenessState` of the router's state `S`.
//!
//! ```
//! use std::time::Duration;
//! use axum::Router;
//! use completeness_runtime::config::CompletenessConfig;
//! use completeness_runtime::cursor::CursorKeys;
//! use completeness_runtime::routing::get;
//! use completeness_runtime::{Envelope, Scope};
//!
//! async fn list() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "every name"))
//! }
//!
//! // In production: CursorKeys::from_env("COMPLETENESS_CURSOR_KEYS")?
//! let config = CompletenessConfig::new(CursorKeys::ephemeral())
//!     .with_page_sizes(50, 500)
//!     .with_cursor_ttl(Duration::from_secs(15 * 60))
//!     .with_time_budgets(Duration::from_secs(2), Duration::from_secs(10));
//! let app: Router = Router::new().route("/names", get(list).into()).with_state(config);
//! ```
//!
//! A service with a state of its own gives the settings as axum states give their parts,
//! through `FromRef` (by hand, or with axum's `#[derive(FromRef)]`):
//!
//! ```
//! use std::sync::Arc;
//! use axum::extract::FromRef;
//! use completeness_runtime::config::{CompletenessConfig, CompletenessState};
//!
//! struct Service {
//!     completeness: CompletenessConfig,
//!     // the database pool, clients, ...
//! }
//!
//! impl FromRef<Service> for CompletenessConfig {
//!     fn from_ref(service: &Service) -> CompletenessConfig {
//!         service.completeness.clone()
//!     }
//! }
//!
//! // `Arc<Service>` gives them too: route with `.with_state(Arc::new(service))`.
//! fn needs_settings<S: CompletenessState>() {}
//! needs_settings::<Service>();
//! needs_settings::<Arc<Service>>();
//! ```
//!
//! Routed without them, a checked handler is refused when the router is compiled:
//!
//! ```compile_fail
//! use axum::Router;
//! use completeness_runtime::routing::get;
//! use completeness_runtime::{Envelope, Scope};
//!
//! async fn list() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "every name"))
//! }
//!
//! // error: the router state `()` does not carry the completeness settings
//! let app: Router = Router::new().route("/names", get(list).into());
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::FromRef;

use crate::server::credential::Credential;
use crate::server::cursor::{CursorKeys, DEFAULT_MAX_TOKEN_LEN};

/// A mistake of the service's, the same on every request that meets it, told once per settings
/// (and per clone of them, which shares the flag).
#[derive(Debug, Clone, Default)]
struct TellOnce(Arc<AtomicBool>);

impl TellOnce {
    /// True the first time it is asked.
    fn first(&self) -> bool {
        !self.0.swap(true, Ordering::Relaxed)
    }
}

/// Server settings for cursors, page sizes, time budgets and evidence.
///
/// Hand it to the router as its state (`.with_state(config)`), or keep it in the service's
/// own state and implement [`CompletenessState`]. Cloning it is cheap (the settings are
/// shared). Defaults: page size 50 (max 500), cursor TTL 15 min, evidence TTL 10 min, time
/// budget 5 s (max 30 s), tokens up to 4096 bytes.
#[derive(Debug, Clone)]
pub struct CompletenessConfig {
    settings: Arc<Settings>,
    /// Set once a request without a credential was logged (`credential_missing`): the mistake
    /// is the service's, the same for every such request, and is said once per settings.
    missing_credential_told: TellOnce,
    /// Set once an unpinned traversal that asked for evidence was logged (`evidence_unpinned`):
    /// the handler's mistake, the same on every such page, said once per settings.
    unpinned_evidence_told: TellOnce,
}

#[derive(Debug, Clone)]
struct Settings {
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
        let settings = Settings {
            keys,
            default_page_size: 50,
            max_page_size: 500,
            cursor_ttl: Duration::from_secs(15 * 60),
            evidence_ttl: Duration::from_secs(10 * 60),
            default_time_budget: Duration::from_secs(5),
            max_time_budget: Duration::from_secs(30),
            max_token_len: DEFAULT_MAX_TOKEN_LEN,
            anonymous: None,
        };
        CompletenessConfig {
            settings: Arc::new(settings),
            missing_credential_told: TellOnce::default(),
            unpinned_evidence_told: TellOnce::default(),
        }
    }

    fn edit(mut self, change: impl FnOnce(&mut Settings)) -> CompletenessConfig {
        change(Arc::make_mut(&mut self.settings));
        self
    }

    /// The page size used when a request names none, and the largest one applied
    /// (both at least 1; the default is capped by the maximum).
    pub fn with_page_sizes(self, default: u64, max: u64) -> CompletenessConfig {
        self.edit(|s| {
            s.max_page_size = max.max(1);
            s.default_page_size = default.clamp(1, s.max_page_size);
        })
    }

    /// How long a cursor stays valid after it is issued.
    pub fn with_cursor_ttl(self, ttl: Duration) -> CompletenessConfig {
        self.edit(|s| s.cursor_ttl = ttl)
    }

    /// How long an evidence token stays valid after it is issued.
    pub fn with_evidence_ttl(self, ttl: Duration) -> CompletenessConfig {
        self.edit(|s| s.evidence_ttl = ttl)
    }

    /// The time budget used when a request names none, and the cap on requested ones
    /// (the default is capped by the maximum; both at least 1 ms).
    pub fn with_time_budgets(self, default: Duration, max: Duration) -> CompletenessConfig {
        self.edit(|s| {
            s.max_time_budget = max.max(Duration::from_millis(1));
            s.default_time_budget = default.clamp(Duration::from_millis(1), s.max_time_budget);
        })
    }

    /// The longest cursor or evidence token accepted, in bytes (refused before decoding).
    ///
    /// A cursor holds its page's keyset position, so this also bounds the keys a traversal can
    /// continue from: with the default (4096), a key of about 2.9 KB. A page whose last key
    /// makes a longer cursor hands out one the next request is refused with (400
    /// `INVALID_CURSOR`): the runtime reports each such cursor with an `ERROR` event
    /// (`cursor_too_long`, naming the length and this bound). Raise the bound above the
    /// longest key, or page on a shorter key. Evidence longer than the bound is not attached.
    pub fn with_max_token_len(self, len: usize) -> CompletenessConfig {
        self.edit(|s| s.max_token_len = len)
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
    pub fn with_anonymous_credential(self) -> CompletenessConfig {
        self.edit(|s| s.anonymous = Some(Credential::anonymous()))
    }

    /// The key ring.
    pub fn keys(&self) -> &CursorKeys {
        &self.settings.keys
    }

    /// The page size used when a request names none.
    pub fn default_page_size(&self) -> u64 {
        self.settings.default_page_size
    }

    /// The largest page size applied.
    pub fn max_page_size(&self) -> u64 {
        self.settings.max_page_size
    }

    /// The cursor lifetime.
    pub fn cursor_ttl(&self) -> Duration {
        self.settings.cursor_ttl
    }

    /// The evidence lifetime.
    pub fn evidence_ttl(&self) -> Duration {
        self.settings.evidence_ttl
    }

    /// The time budget used when a request names none.
    pub fn default_time_budget(&self) -> Duration {
        self.settings.default_time_budget
    }

    /// The cap on requested time budgets.
    pub fn max_time_budget(&self) -> Duration {
        self.settings.max_time_budget
    }

    /// The longest token accepted.
    pub fn max_token_len(&self) -> usize {
        self.settings.max_token_len
    }

    /// The credential given to requests that bring none, if the service has no authentication.
    pub fn anonymous_credential(&self) -> Option<&Credential> {
        self.settings.anonymous.as_ref()
    }

    /// True the first time it is asked: whether a request without a credential is the first
    /// of these settings, to be logged.
    pub(crate) fn first_missing_credential(&self) -> bool {
        self.missing_credential_told.first()
    }

    /// True the first time it is asked: whether a traversal that asked for evidence without a
    /// pinned snapshot is the first of these settings, to be logged.
    pub(crate) fn first_unpinned_evidence(&self) -> bool {
        self.unpinned_evidence_told.first()
    }
}

/// A router state that carries the [`CompletenessConfig`], the way axum states carry their
/// parts: `CompletenessConfig: FromRef<S>`.
///
/// The checked routing functions and the extractors that need settings require it of the
/// router's state, so a router without the settings is refused when it is compiled, not
/// answered with an error at request time. Every state the settings can be taken from is one:
/// `CompletenessConfig` itself (`.with_state(config)`), a service's own state with
/// `impl FromRef<AppState> for CompletenessConfig` (or axum's `#[derive(FromRef)]`), and an
/// `Arc` of either.
#[diagnostic::on_unimplemented(
    message = "the router state `{Self}` does not carry the completeness settings",
    label = "the checked routes and extractors read a `CompletenessConfig` from the router's state",
    note = "give the router its settings: `.with_state(CompletenessConfig::new(keys))`, or let your own state \
            give them as axum states give their parts: `impl FromRef<AppState> for CompletenessConfig` \
            (which also serves an `Arc<AppState>` state)",
    note = "if the router's state does carry them, a handler's `State<...>` names another state type: \
            a mismatched types error says which"
)]
pub trait CompletenessState: Send + Sync {
    /// The settings (a cheap clone: they are shared).
    fn completeness(&self) -> CompletenessConfig;
}

// Errors name the state, not this impl's `FromRef` bound: "the router state `()` does not
// carry the completeness settings" with the fix, rather than "`FromRef<()>` is not implemented".
#[diagnostic::do_not_recommend]
impl<S: Send + Sync> CompletenessState for S
where
    CompletenessConfig: FromRef<S>,
{
    fn completeness(&self) -> CompletenessConfig {
        CompletenessConfig::from_ref(self)
    }
}

/// A state shared behind an `Arc` carries the settings its inner state carries, so a service
/// whose router state is `Arc<AppState>` writes `impl FromRef<AppState> for CompletenessConfig`
/// (the orphan rule forbids it an impl for `Arc<AppState>`).
impl<T> FromRef<Arc<T>> for CompletenessConfig
where
    CompletenessConfig: FromRef<T>,
{
    fn from_ref(state: &Arc<T>) -> CompletenessConfig {
        <CompletenessConfig as FromRef<T>>::from_ref(state.as_ref())
    }
}
