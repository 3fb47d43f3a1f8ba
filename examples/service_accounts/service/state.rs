//! The shared state every handler reads: configuration, the store (accounts and credentials), the sources.

use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use axum::extract::FromRef;
use completeness::CursorKeys;
use completeness::config::CompletenessConfig;
use completeness::testing::faults::FaultLayer;

use super::auth::DEFAULT_GRANTS;
use super::config::Config;
use super::db::{Change, Snapshot, StoreError};
use super::replicas::{self, ReplicaSettings};
use super::sources::{SEARCH_SOURCES, SearchSource, UsageSource};
use super::store::Store;
use super::store::watched::{Health, Watched};

/// Everything the service owns, shared by the handlers.
pub struct Service {
    /// The configuration it was started with.
    pub config: Config,
    /// The accounts table and the credentials' grants, watched by [`Service::health`].
    pub store: Store,
    /// The database's outages, as the store's callers met them.
    pub health: Arc<Health>,
    /// `directory`, `audit`, `legacy`, in that order.
    pub sources: Vec<Arc<SearchSource>>,
    /// When each account was last used.
    pub usage: UsageSource,
    /// Cursor and evidence keys, page sizes, time budgets: the framework's settings.
    pub completeness: CompletenessConfig,
    /// The OpenAPI document, which states the limits of those settings (`GET /openapi.json`;
    /// the MCP tools' output schemas are taken from it).
    pub openapi: Arc<serde_json::Value>,
    /// The settings this replica records for the others (see `replicas`).
    pub replica: ReplicaSettings,
    /// The fault layer of `--faults`, one for the REST routes and the MCP tools, which draw
    /// their faults from its one schedule; `None` without the flag.
    pub faults: Option<FaultLayer>,
    /// Cancelled once the replica is asked to stop: `GET /ready` answers 503 from then on, so
    /// that a balancer sends requests elsewhere while this one still serves them
    /// (`--stop-delay`).
    pub stopping: CancellationToken,
    /// The `/mcp` requests being answered: a stopping replica waits for them (up to
    /// `--stop-timeout`) before it ends the MCP sessions, which would end them unanswered.
    pub mcp_calls: TaskTracker,
    /// What the last check-in found other replicas disagree on, each logged once.
    disagreements: Mutex<Vec<String>>,
}

/// The checked routes and the extractors find the framework's settings here (the router's
/// state is `Arc<Service>`, which gives what `Service` gives).
impl FromRef<Service> for CompletenessConfig {
    fn from_ref(service: &Service) -> CompletenessConfig {
        service.completeness.clone()
    }
}

/// The environment variable holding the cursor and evidence key ring (`kid:base64key,...`).
pub const KEYS_VARIABLE: &str = "COMPLETENESS_CURSOR_KEYS";

/// The handlers' state.
pub type AppState = Arc<Service>;

impl Service {
    /// Opens the store (seeding an empty one) and builds each source's copy.
    pub async fn open(config: Config) -> Result<Service, StoreError> {
        let location = config.location().map_err(StoreError::Config)?;
        let health = Arc::new(Health::default());
        let store: Store =
            Arc::new(Watched::new(super::store::open(&location, config.snapshot_retention).await?, health.clone()));
        // The usage source knows the seeded accounts, as many as the database holds, not the flag.
        let seeded = store.prepare(config.accounts, &DEFAULT_GRANTS).await?;
        let (snapshot, accounts) = store.current_accounts().await?;
        // Seconds for a large store: said, so that a slow start is not a silent one.
        let indexing = std::time::Instant::now();
        tracing::info!(accounts = accounts.len(), sources = SEARCH_SOURCES.len() + 1, "indexing the sources");
        let mut sources = Vec::new();
        for name in SEARCH_SOURCES {
            let source = SearchSource::new(name, config.delay_of(name), config.fails(name))?;
            source.reindex(snapshot, &accounts);
            sources.push(Arc::new(source));
        }
        let usage = UsageSource::new(seeded, config.delay_of("usage"), config.fails("usage"))?;
        tracing::info!(ms = super::telemetry::millis(indexing.elapsed()), "indexed");
        // The ring `build` read from the flags, the file or the environment; without one, a
        // key that lives as long as the process.
        let keys = config.cursor_keys.clone().unwrap_or_else(CursorKeys::ephemeral);
        let replica = ReplicaSettings::of_this_process(config.snapshot_retention, &keys, config.addr);
        let completeness = CompletenessConfig::new(keys)
            .with_page_sizes(u64::from(config.default_page_size), u64::from(config.max_page_size))
            .with_cursor_ttl(config.cursor_ttl)
            .with_evidence_ttl(config.evidence_ttl)
            .with_time_budgets(config.default_time_budget, config.max_time_budget);
        // For as long as the service runs: no log, and a faulted traversal told by its cursors.
        let faults = config.faults.clone().map(|schedule| FaultLayer::serving(schedule, &completeness));
        let service = Service {
            config,
            store,
            health,
            sources,
            usage,
            openapi: Arc::new(super::openapi::document_json(&completeness)),
            completeness,
            replica,
            faults,
            stopping: CancellationToken::new(),
            mcp_calls: TaskTracker::new(),
            disagreements: Mutex::default(),
        };
        service.check_in().await?;
        Ok(service)
    }

    /// Records this replica's settings in the store, and logs a warning for each way a live
    /// replica's differ from them, once for as long as they differ. Returns what differs.
    pub async fn check_in(&self) -> Result<Vec<String>, StoreError> {
        let others = self.store.check_in(&self.replica, replicas::ALIVE).await?;
        let found: Vec<String> =
            others.iter().flat_map(|other| replicas::disagreements(&self.replica, other)).collect();
        let mut reported = self.disagreements.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for disagreement in found.iter().filter(|found| !reported.contains(found)) {
            tracing::warn!(target: "service_accounts::replicas", "{disagreement}");
        }
        reported.clone_from(&found);
        Ok(found)
    }

    /// Passes a change made at `snapshot` on to the write-through sources (`audit` catches up on
    /// its own schedule).
    pub fn propagate(&self, change: &Change, snapshot: Snapshot) {
        for source in self.sources.iter().filter(|s| s.writes_through()) {
            source.apply(change, snapshot);
        }
    }

    /// The `audit` source.
    pub fn audit(&self) -> &SearchSource {
        self.sources.iter().find(|s| !s.writes_through()).map_or(&self.sources[0], |s| s)
    }

    /// Rebuilds the lagging `audit` index from the current accounts, and every write-through
    /// copy that missed a write (one made through another replica sharing the database, or
    /// before a database took another's place, which moves the count up). A copy ahead of the
    /// snapshot read here took a write made since, and is kept, unless the count is still below
    /// it when read again: then the count went back (a database put back in a way nothing told,
    /// a disk snapshot rolled back), and the copy is of another state.
    pub async fn refresh_sources(&self) -> Result<(), StoreError> {
        let (snapshot, accounts) = self.store.current_accounts().await?;
        for source in &self.sources {
            let observed = source.index_state().observed;
            let went_back = observed > snapshot && self.store.current_snapshot().await? < observed;
            if !source.writes_through() || observed < snapshot || went_back {
                source.reindex(snapshot, &accounts);
            }
        }
        Ok(())
    }
}
