//! [`AccountStore`] on SQLite: the SQL lives in [`SqliteStore`]'s own methods. Each call holds the
//! connection's mutex for one short statement or transaction and runs on the calling task (no
//! `spawn_blocking`): the embedded database answers in microseconds, and the handler waits for
//! it either way.

use super::super::db::{
    Account, ArchiveOutcome, Filter, Grant, Grantee, ListItem, NewAccount, OwnerSet, Snapshot, SqliteStore, StoreError,
};
use super::AccountStore;

#[async_trait::async_trait]
impl AccountStore for SqliteStore {
    async fn prepare(&self, accounts: u32, grants: &[(&str, &[&str])]) -> Result<u32, StoreError> {
        if self.is_empty()? {
            self.seed(accounts)?;
        }
        self.seed_grants(grants)?;
        self.seeded()
    }
    async fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError> {
        SqliteStore::grant(self, name)
    }
    async fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError> {
        SqliteStore::revoke_tenant(self, name, tenant)
    }
    async fn current_snapshot(&self) -> Result<Snapshot, StoreError> {
        SqliteStore::current_snapshot(self)
    }
    async fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError> {
        SqliteStore::check_retained(self, snapshot)
    }
    async fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        SqliteStore::page(self, snapshot, after, filter, limit)
    }
    async fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        SqliteStore::page_by_offset(self, snapshot, offset, filter, limit)
    }
    async fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError> {
        SqliteStore::count(self, snapshot, filter)
    }
    async fn get(&self, id: &str) -> Result<Option<Account>, StoreError> {
        SqliteStore::get(self, id)
    }
    async fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError> {
        SqliteStore::current_accounts(self)
    }
    async fn create(&self, by: Option<&Grantee<'_>>, new: NewAccount) -> Result<(Account, Snapshot), StoreError> {
        SqliteStore::create(self, by, new)
    }
    async fn set_owner(
        &self,
        by: Option<&Grantee<'_>>,
        id: &str,
        owner: Option<String>,
    ) -> Result<OwnerSet, StoreError> {
        SqliteStore::set_owner(self, by, id, owner)
    }
    async fn delete(&self, by: Option<&Grantee<'_>>, id: &str) -> Result<(Account, Snapshot), StoreError> {
        SqliteStore::delete(self, by, id)
    }
    async fn archive(
        &self,
        by: &Grantee<'_>,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError> {
        SqliteStore::archive(self, by, snapshot, then, now, ids)
    }
    async fn prune(&self) -> Result<Snapshot, StoreError> {
        SqliteStore::prune(self)
    }
    async fn version_count(&self) -> Result<u64, StoreError> {
        SqliteStore::version_count(self)
    }
    async fn fingerprint(&self) -> Result<String, StoreError> {
        SqliteStore::fingerprint(self)
    }
}
