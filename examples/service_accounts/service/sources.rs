//! The search sources and the usage source: each is its own SQLite database holding its own copy.
//!
//! `directory` and `legacy` are written through on every write made through this service.
//! `audit` is an index rebuilt from the accounts table by a background task, so it lags
//! behind. Each source remembers the snapshot its copy is current as of (its observed
//! revision) and when it last copied the table: a write-through copy misses the writes made
//! through another replica until it is copied again, and a search over a copy older than the
//! current snapshot says so (`STALE_INDEX`). A source configured to fail has no table at all,
//! so every query against it genuinely errors.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::clock::{now_ms, rfc3339};
use super::db::{Account, Change, Snapshot};
use super::seed;

/// The search sources, in the order they are queried and merged.
pub const SEARCH_SOURCES: [&str; 3] = ["directory", LAGGING_SOURCE, "legacy"];

/// The source rebuilt by a background task, not written through.
pub const LAGGING_SOURCE: &str = "audit";

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// Account id.
    pub id: String,
    /// Account name.
    pub name: String,
    /// Tenant.
    pub tenant: String,
    /// The source that returned it.
    pub source: String,
}

/// A source that could not answer.
#[derive(Debug, Clone)]
pub struct SourceFailure {
    /// The stable source id.
    pub source: &'static str,
    /// What went wrong.
    pub detail: String,
}

/// How fresh the `audit` index is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexState {
    /// The snapshot the index last copied.
    pub observed: Snapshot,
    /// When it copied it (RFC 3339).
    pub refreshed_at: String,
}

/// One search source with its own database.
pub struct SearchSource {
    name: &'static str,
    conn: Mutex<Connection>,
    delay: Duration,
    observed: AtomicU64,
    refreshed_at_ms: AtomicI64,
}

const RECORDS: &str =
    "CREATE TABLE records (id TEXT PRIMARY KEY, name TEXT NOT NULL, tenant TEXT NOT NULL) WITHOUT ROWID";

impl SearchSource {
    /// A source named `name` answering after `delay`; without a table when `broken`.
    pub fn new(name: &'static str, delay: Duration, broken: bool) -> rusqlite::Result<SearchSource> {
        let conn = Connection::open_in_memory()?;
        if !broken {
            conn.execute_batch(RECORDS)?;
        }
        Ok(SearchSource {
            name,
            conn: Mutex::new(conn),
            delay,
            observed: AtomicU64::new(0),
            refreshed_at_ms: AtomicI64::new(0),
        })
    }

    /// The stable source id.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// True for a copy every write made through this service goes to ([`SearchSource::apply`]);
    /// false for the lagging index, which only the background task copies.
    pub fn writes_through(&self) -> bool {
        self.name != LAGGING_SOURCE
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Replaces the copy with `accounts` as of `snapshot`.
    pub fn reindex(&self, snapshot: Snapshot, accounts: &[Account]) {
        let mut conn = self.lock();
        let copied = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            tx.execute("DELETE FROM records", [])?;
            {
                let mut insert = tx.prepare("INSERT INTO records (id, name, tenant) VALUES (?1, ?2, ?3)")?;
                for a in accounts {
                    insert.execute(params![a.id, a.name, a.tenant])?;
                }
            }
            tx.commit()
        })();
        if copied.is_ok() {
            self.observed.store(snapshot, Ordering::SeqCst);
            self.refreshed_at_ms.store(now_ms(), Ordering::SeqCst);
        }
    }

    /// Applies one change, made at `snapshot`, to the copy (write-through sources). The copy is
    /// then current as of `snapshot` only when it was current as of the snapshot before: a
    /// write made in between through another replica (or not yet applied here) leaves a gap,
    /// which only the next copy of the table closes.
    pub fn apply(&self, change: &Change, snapshot: Snapshot) {
        let conn = self.lock();
        // A broken source has no table; the write fails exactly like its reads do.
        let written = match change {
            Change::Created(a) | Change::Updated(a) => conn.execute(
                "INSERT OR REPLACE INTO records (id, name, tenant) VALUES (?1, ?2, ?3)",
                params![a.id, a.name, a.tenant],
            ),
            Change::Deleted(id) => conn.execute("DELETE FROM records WHERE id = ?1", [id]),
        };
        let observed = self.observed.load(Ordering::SeqCst);
        if written.is_ok() && snapshot <= observed.saturating_add(1) {
            self.observed.store(observed.max(snapshot), Ordering::SeqCst);
        }
    }

    /// The copy's freshness: the snapshot it is current as of, and when the table was last copied.
    pub fn index_state(&self) -> IndexState {
        IndexState {
            observed: self.observed.load(Ordering::SeqCst),
            refreshed_at: rfc3339(self.refreshed_at_ms.load(Ordering::SeqCst) / 1000),
        }
    }

    /// Names containing `q` in `tenants`, at most `limit`, in id order. Takes the source's latency;
    /// the query itself runs on the blocking pool, so the sources of one search run in parallel.
    pub async fn search(
        self: Arc<Self>,
        q: String,
        tenants: Vec<String>,
        limit: usize,
    ) -> Result<Vec<Hit>, SourceFailure> {
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let name = self.name;
        // A search whose budget ran out drops this future, but not the blocking task, which no
        // one can stop: it skips its query once it holds the copy, so that searches cut short
        // leave no scans queued behind the next ones.
        let wanted = Wanted(Arc::new(AtomicBool::new(true)));
        let still_wanted = wanted.0.clone();
        let searched = tokio::task::spawn_blocking(move || {
            let conn = self.lock();
            match still_wanted.load(Ordering::SeqCst) {
                true => self.query(&conn, &q, &tenants, limit),
                false => Ok(Vec::new()),
            }
        });
        let hits = searched.await.unwrap_or_else(|e| Err(SourceFailure { source: name, detail: e.to_string() }));
        drop(wanted);
        hits
    }

    fn query(&self, conn: &Connection, q: &str, tenants: &[String], limit: usize) -> Result<Vec<Hit>, SourceFailure> {
        let failure = |e: rusqlite::Error| SourceFailure { source: self.name, detail: e.to_string() };
        if tenants.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = vec!["?"; tenants.len()].join(", ");
        let sql = format!(
            "SELECT id, name, tenant FROM records WHERE instr(name, ?1) > 0 AND tenant IN ({placeholders})
             ORDER BY id LIMIT {limit}"
        );
        let mut statement = conn.prepare_cached(&sql).map_err(failure)?;
        let mut bound: Vec<&dyn rusqlite::ToSql> = vec![&q];
        bound.extend(tenants.iter().map(|t| t as &dyn rusqlite::ToSql));
        let rows = statement
            .query_map(bound.as_slice(), |row| {
                Ok(Hit { id: row.get(0)?, name: row.get(1)?, tenant: row.get(2)?, source: self.name.to_owned() })
            })
            .map_err(failure)?;
        rows.collect::<Result<_, _>>().map_err(failure)
    }
}

/// Whether a search still waits for a source's answer: false once its future is dropped.
struct Wanted(Arc<AtomicBool>);

impl Drop for Wanted {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// The `usage` source: when each account was last used.
pub struct UsageSource {
    conn: Mutex<Connection>,
    delay: Duration,
}

impl UsageSource {
    /// The usage records of the seeded accounts `1..=count`; without a table when `broken`.
    pub fn new(count: u32, delay: Duration, broken: bool) -> rusqlite::Result<UsageSource> {
        let mut conn = Connection::open_in_memory()?;
        if !broken {
            conn.execute_batch("CREATE TABLE usage (id TEXT PRIMARY KEY, last_used_at TEXT) WITHOUT ROWID")?;
            let tx = conn.transaction()?;
            {
                let mut insert = tx.prepare("INSERT INTO usage (id, last_used_at) VALUES (?1, ?2)")?;
                for n in 1..=u64::from(count) {
                    let seeded = seed::seeded(n);
                    insert.execute(params![seeded.account.id, seeded.last_used_at])?;
                }
            }
            tx.commit()?;
        }
        Ok(UsageSource { conn: Mutex::new(conn), delay })
    }

    /// When `id` was last used (`Ok(None)`: never), or the source's failure.
    pub async fn last_used_at(&self, id: &str) -> Result<Option<String>, SourceFailure> {
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let conn = self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        conn.query_row("SELECT last_used_at FROM usage WHERE id = ?1", [id], |r| r.get::<_, Option<String>>(0))
            .optional()
            .map(Option::flatten)
            .map_err(|e| SourceFailure { source: "usage", detail: e.to_string() })
    }
}
