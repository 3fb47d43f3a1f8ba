//! The shared state every handler reads: configuration, the accounts store, the sources, the credentials.

use std::sync::Arc;

use sha2::Digest;

use super::auth::Credentials;
use super::config::Config;
use super::db::{Change, Store, StoreError};
use super::paging::Cursors;
use super::sources::{SEARCH_SOURCES, SearchSource, UsageSource};

/// Everything the service owns, shared by the handlers.
pub struct Service {
    /// The configuration it was started with.
    pub config: Config,
    /// The accounts table.
    pub store: Store,
    /// `directory`, `audit`, `legacy`, in that order.
    pub sources: Vec<SearchSource>,
    /// When each account was last used.
    pub usage: UsageSource,
    /// Who may read and write what.
    pub credentials: Credentials,
    /// Signs and verifies inventory cursors.
    pub cursors: Cursors,
}

/// The handlers' state.
pub type AppState = Arc<Service>;

impl Service {
    /// Opens the store (seeding an empty one) and builds each source's copy.
    pub fn open(config: Config) -> Result<Service, StoreError> {
        let store = Store::open(config.db.as_deref(), config.snapshot_retention)?;
        if store.is_empty()? {
            store.seed(config.accounts)?;
        }
        let (snapshot, accounts) = store.current_accounts()?;
        let mut sources = Vec::new();
        for name in SEARCH_SOURCES {
            let source = SearchSource::new(name, config.delay_of(name), config.fails(name))?;
            source.reindex(snapshot, &accounts);
            sources.push(source);
        }
        let usage = UsageSource::new(config.accounts, config.delay_of("usage"), config.fails("usage"))?;
        let key: [u8; 32] = sha2::Sha256::digest(format!("{}:{}", super::clock::now_ms(), std::process::id())).into();
        let cursors = Cursors::new(key, config.cursor_ttl);
        Ok(Service { config, store, sources, usage, credentials: Credentials::default(), cursors })
    }

    /// Passes a change on to the write-through sources (`audit` catches up on its own schedule).
    pub fn propagate(&self, change: &Change) {
        for source in self.sources.iter().filter(|s| s.name() != "audit") {
            source.apply(change);
        }
    }

    /// The `audit` source.
    pub fn audit(&self) -> &SearchSource {
        self.sources.iter().find(|s| s.name() == "audit").unwrap_or(&self.sources[0])
    }

    /// Rebuilds the lagging `audit` index from the current accounts.
    pub fn refresh_audit(&self) -> Result<(), StoreError> {
        let (snapshot, accounts) = self.store.current_accounts()?;
        self.audit().reindex(snapshot, &accounts);
        Ok(())
    }
}
