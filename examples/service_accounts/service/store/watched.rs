//! The database's health as the store's callers meet it. An outage is logged when it begins, at
//! most once a minute while it lasts, and when it ends, rather than once per request: a replica
//! answering a thousand requests a second would otherwise write a thousand `ERROR` lines a
//! second while its database is away, and bury the one that says when it went. Each refused
//! request is still counted (the framework's `problems_total` by code) and logged at `debug`
//! with its cause; [`DATABASE_OUTAGE`] says whether one is under way, for an alert.
//!
//! Two outages are told apart: the database cannot be reached (or did not answer in time), and
//! it takes no writes (read-only, as during a failover). The first ends with any operation that
//! succeeds; the second with a write that does.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::super::db::{
    Account, ArchiveOutcome, Filter, Grant, Grantee, ListItem, NewAccount, OwnerSet, Snapshot, StoreError,
};
use super::super::replicas::ReplicaSettings;
use super::{AccountStore, Connections};

/// The gauge of outages under way, by `outage` (`unreachable`, `read_only`): 1 while the
/// database is in it, 0 otherwise.
pub const DATABASE_OUTAGE: &str = "service_database_outage";

/// How often an outage that lasts is logged again.
pub const REMIND_EVERY: Duration = Duration::from_secs(60);

/// The two outages, by the label their gauge and log lines give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outage {
    Unreachable,
    ReadOnly,
}

impl Outage {
    const ALL: [Outage; 2] = [Outage::Unreachable, Outage::ReadOnly];

    fn label(self) -> &'static str {
        match self {
            Outage::Unreachable => "unreachable",
            Outage::ReadOnly => "read_only",
        }
    }

    /// The outage `error` says the database is in, if any.
    fn of(error: &StoreError) -> Option<Outage> {
        match error {
            StoreError::ReadOnly(_) => Some(Outage::ReadOnly),
            error if error.is_outage() => Some(Outage::Unreachable),
            _ => None,
        }
    }
}

/// An outage under way: since when, and the failures met since it began and since it was last
/// logged.
#[derive(Debug, Clone, Copy)]
struct Spell {
    began: Instant,
    logged: Instant,
    failures: u64,
    unlogged: u64,
}

/// What the store's callers have met of the database: the outages under way.
#[derive(Debug)]
pub struct Health {
    remind_every: Duration,
    spells: Mutex<[Option<Spell>; 2]>,
}

impl Default for Health {
    fn default() -> Health {
        Health::reminding_every(REMIND_EVERY)
    }
}

impl Health {
    /// A database in no outage, whose outages are logged again every `remind_every` while they last.
    pub fn reminding_every(remind_every: Duration) -> Health {
        for outage in Outage::ALL {
            metrics::gauge!(DATABASE_OUTAGE, "outage" => outage.label()).set(0.0);
        }
        Health { remind_every, spells: Mutex::new([None; 2]) }
    }

    /// Whether the database is in an outage now, of either kind.
    pub fn in_outage(&self) -> bool {
        self.spells.lock().unwrap_or_else(PoisonError::into_inner).iter().any(Option::is_some)
    }

    /// Whether `error` is of an outage under way, and so was logged when the outage began: a
    /// caller that meets it logs it at `debug`, not again as news.
    pub fn reports(&self, error: &StoreError) -> bool {
        Outage::of(error)
            .is_some_and(|outage| self.spells.lock().unwrap_or_else(PoisonError::into_inner)[outage as usize].is_some())
    }

    /// Notes an operation's outcome: a write's (`wrote`) or a read's.
    pub fn observe<T>(&self, result: &Result<T, StoreError>, wrote: bool) {
        match result {
            Ok(_) => {
                self.ended(Outage::Unreachable);
                if wrote {
                    self.ended(Outage::ReadOnly);
                }
            }
            Err(error) => {
                if let Some(outage) = Outage::of(error) {
                    self.failed(outage, &error.to_string());
                } else if !matches!(error, StoreError::OutcomeUnknown(_) | StoreError::Busy(_)) {
                    // An answer, though a refusal (no such account, a statement that failed):
                    // the database was reached. A COMMIT unconfirmed says nothing either way,
                    // nor does a wait for a connection that never came.
                    self.ended(Outage::Unreachable);
                }
            }
        }
    }

    /// The database did not answer the readiness check within `waited`.
    pub fn unanswered(&self, waited: Duration) {
        self.failed(Outage::Unreachable, &format!("it did not answer the readiness check within {waited:?}"));
    }

    fn failed(&self, outage: Outage, cause: &str) {
        let now = Instant::now();
        let mut spells = self.spells.lock().unwrap_or_else(PoisonError::into_inner);
        let spell = &mut spells[outage as usize];
        match spell {
            None => {
                *spell = Some(Spell { began: now, logged: now, failures: 1, unlogged: 0 });
                metrics::gauge!(DATABASE_OUTAGE, "outage" => outage.label()).set(1.0);
                match outage {
                    Outage::Unreachable => tracing::error!(
                        outage = outage.label(),
                        cause,
                        "the database cannot be reached or does not answer in time; requests that need it are \
                         answered 503 until it does (each at debug level)"
                    ),
                    Outage::ReadOnly => tracing::error!(
                        outage = outage.label(),
                        cause,
                        "the database takes no writes now (read-only: a failover?); writes are answered 503 \
                         until it takes them (each at debug level), reads are served"
                    ),
                }
            }
            Some(spell) => {
                spell.failures += 1;
                spell.unlogged += 1;
                if now.duration_since(spell.logged) >= self.remind_every {
                    tracing::error!(
                        outage = outage.label(),
                        cause,
                        lasted_s = spell.began.elapsed().as_secs(),
                        failures = spell.unlogged,
                        "the database outage goes on (failures since the last line)"
                    );
                    spell.logged = now;
                    spell.unlogged = 0;
                } else {
                    tracing::debug!(outage = outage.label(), cause, "the database outage goes on");
                }
            }
        }
    }

    fn ended(&self, outage: Outage) {
        let mut spells = self.spells.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(spell) = spells[outage as usize].take() {
            metrics::gauge!(DATABASE_OUTAGE, "outage" => outage.label()).set(0.0);
            let lasted_ms = super::super::telemetry::millis(spell.began.elapsed());
            tracing::info!(outage = outage.label(), lasted_ms, failures = spell.failures, "the database outage ended");
        }
    }
}

/// A store whose every operation's outcome its [`Health`] notes.
pub struct Watched {
    inner: Arc<dyn AccountStore>,
    health: Arc<Health>,
}

impl Watched {
    /// `inner`, watched by `health`.
    pub fn new(inner: Arc<dyn AccountStore>, health: Arc<Health>) -> Watched {
        Watched { inner, health }
    }

    fn read<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        self.health.observe(&result, false);
        result
    }

    fn wrote<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        self.health.observe(&result, true);
        result
    }
}

#[async_trait::async_trait]
impl AccountStore for Watched {
    async fn prepare(&self, accounts: u32, grants: &[(&str, &[&str])]) -> Result<u32, StoreError> {
        self.wrote(self.inner.prepare(accounts, grants).await)
    }
    async fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError> {
        self.read(self.inner.grant(name).await)
    }
    async fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError> {
        self.wrote(self.inner.revoke_tenant(name, tenant).await)
    }
    async fn current_snapshot(&self) -> Result<Snapshot, StoreError> {
        self.read(self.inner.current_snapshot().await)
    }
    async fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError> {
        self.read(self.inner.check_retained(snapshot).await)
    }
    async fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        self.read(self.inner.page(snapshot, after, filter, limit).await)
    }
    async fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        self.read(self.inner.page_by_offset(snapshot, offset, filter, limit).await)
    }
    async fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError> {
        self.read(self.inner.count(snapshot, filter).await)
    }
    async fn get(&self, id: &str) -> Result<Option<Account>, StoreError> {
        self.read(self.inner.get(id).await)
    }
    async fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError> {
        self.read(self.inner.current_accounts().await)
    }
    async fn create(&self, by: Option<&Grantee<'_>>, new: NewAccount) -> Result<(Account, Snapshot), StoreError> {
        self.wrote(self.inner.create(by, new).await)
    }
    async fn set_owner(
        &self,
        by: Option<&Grantee<'_>>,
        id: &str,
        owner: Option<String>,
    ) -> Result<OwnerSet, StoreError> {
        self.wrote(self.inner.set_owner(by, id, owner).await)
    }
    async fn delete(&self, by: Option<&Grantee<'_>>, id: &str) -> Result<(Account, Snapshot), StoreError> {
        self.wrote(self.inner.delete(by, id).await)
    }
    async fn archive(
        &self,
        by: &Grantee<'_>,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError> {
        self.wrote(self.inner.archive(by, snapshot, then, now, ids).await)
    }
    async fn prune(&self) -> Result<Snapshot, StoreError> {
        self.wrote(self.inner.prune().await)
    }
    async fn version_count(&self) -> Result<u64, StoreError> {
        self.read(self.inner.version_count().await)
    }
    async fn fingerprint(&self) -> Result<String, StoreError> {
        self.read(self.inner.fingerprint().await)
    }
    // Not watched: a store one process owns (SQLite's) answers these without its database, so
    // their success says nothing of it.
    async fn check_in(&self, me: &ReplicaSettings, alive: Duration) -> Result<Vec<ReplicaSettings>, StoreError> {
        self.inner.check_in(me, alive).await
    }
    async fn check_out(&self, replica: &str) -> Result<(), StoreError> {
        self.inner.check_out(replica).await
    }
    fn connections(&self) -> Option<Connections> {
        self.inner.connections()
    }
}
