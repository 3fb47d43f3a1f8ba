//! [`AccountStore`] on SQLite: the SQL lives in [`SqliteStore`]'s own methods. Each call holds the
//! connection's mutex for one short statement or transaction, on the calling task's thread
//! ([`blocking`]): the embedded database answers in microseconds, and the handler waits for it
//! either way; but a file another process holds locked makes a call wait up to the busy timeout
//! (5 s), and that wait must not hold a worker the other requests (`/metrics`, `/ready`) need.

use super::super::db::{
    Account, ArchiveOutcome, Filter, Grant, Grantee, ListItem, NewAccount, OwnerSet, Snapshot, SqliteStore, StoreError,
};
use super::AccountStore;

#[async_trait::async_trait]
impl AccountStore for SqliteStore {
    async fn prepare(&self, accounts: u32, grants: &[(&str, &[&str])]) -> Result<u32, StoreError> {
        blocking(|| {
            if self.is_empty()? {
                let started = std::time::Instant::now();
                tracing::info!(accounts, "seeding the empty store");
                self.seed(accounts)?;
                tracing::info!(accounts, ms = super::super::telemetry::millis(started.elapsed()), "seeded");
            }
            self.seed_grants(grants)?;
            self.seeded()
        })
    }
    async fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError> {
        blocking(|| SqliteStore::grant(self, name))
    }
    async fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError> {
        blocking(|| SqliteStore::revoke_tenant(self, name, tenant))
    }
    async fn current_snapshot(&self) -> Result<Snapshot, StoreError> {
        blocking(|| SqliteStore::current_snapshot(self))
    }
    async fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError> {
        blocking(|| SqliteStore::check_retained(self, snapshot))
    }
    async fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        blocking(|| SqliteStore::page(self, snapshot, after, filter, limit))
    }
    async fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        blocking(|| SqliteStore::page_by_offset(self, snapshot, offset, filter, limit))
    }
    async fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError> {
        blocking(|| SqliteStore::count(self, snapshot, filter))
    }
    async fn get(&self, id: &str) -> Result<Option<Account>, StoreError> {
        blocking(|| SqliteStore::get(self, id))
    }
    async fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError> {
        blocking(|| SqliteStore::current_accounts(self))
    }
    async fn create(&self, by: Option<&Grantee<'_>>, new: NewAccount) -> Result<(Account, Snapshot), StoreError> {
        blocking(|| SqliteStore::create(self, by, new))
    }
    async fn set_owner(
        &self,
        by: Option<&Grantee<'_>>,
        id: &str,
        owner: Option<String>,
    ) -> Result<OwnerSet, StoreError> {
        blocking(|| SqliteStore::set_owner(self, by, id, owner))
    }
    async fn delete(&self, by: Option<&Grantee<'_>>, id: &str) -> Result<(Account, Snapshot), StoreError> {
        blocking(|| SqliteStore::delete(self, by, id))
    }
    async fn archive(
        &self,
        by: &Grantee<'_>,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError> {
        blocking(|| SqliteStore::archive(self, by, snapshot, then, now, ids))
    }
    async fn prune(&self) -> Result<Snapshot, StoreError> {
        blocking(|| SqliteStore::prune(self))
    }
    async fn version_count(&self) -> Result<u64, StoreError> {
        blocking(|| SqliteStore::version_count(self))
    }
    async fn fingerprint(&self) -> Result<String, StoreError> {
        blocking(|| SqliteStore::fingerprint(self))
    }
}

/// Runs `call` on this thread. On a multi-threaded runtime (the service's) it runs through
/// `block_in_place`, which hands this worker's other tasks to another worker first, so a call
/// that waits for a lock (another process's write on the same file) stalls its own request
/// only. On a current-thread runtime (a test's) there is no other worker: it runs as it is.
fn blocking<T>(call: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|runtime| runtime.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(call),
        _ => call(),
    }
}
