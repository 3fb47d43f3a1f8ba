//! The store's shared types (accounts, filters, snapshots, errors) and its SQLite engine: the
//! accounts table (versioned rows, snapshots, keyset pages, mutations) and the credentials'
//! grants and permission epochs. Every SQLite statement of the service lives here; the
//! PostgreSQL engine's are in `store/postgres.rs`, and the handlers see both through the
//! `store::AccountStore` trait.
//!
//! Every row version carries `valid_from` and `valid_to` snapshot numbers. A mutation
//! opens a new snapshot, closes the versions it replaces (`valid_to` = the new snapshot)
//! and inserts their successors (`valid_from` = the new snapshot). A row is visible at
//! snapshot `s` when `valid_from <= s` and (`valid_to` is null or `valid_to > s`), so a
//! traversal pinned to `s` sees the same set whatever happens after it started.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params, params_from_iter};
use serde::{Deserialize, Serialize};

use super::clock::{now_ms, rfc3339};
use super::seed;

/// One account as stored (the current or a past version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// Stable id, `sa-000042`.
    pub id: String,
    /// `svc-<tenant>-<digits>`.
    pub name: String,
    /// `north`, `south` or `east`.
    pub tenant: String,
    /// Who owns it; `None` for an unowned account.
    pub owner: Option<String>,
    /// The owner's e-mail address.
    pub owner_email: Option<String>,
    /// Free text; usually absent.
    pub description: Option<String>,
    /// RFC 3339 creation time.
    pub created_at: String,
    /// Fingerprint of the account's secret.
    pub secret_fingerprint: String,
    /// Archived accounts leave the default listing.
    pub archived: bool,
}

impl Account {
    /// The account `new` becomes as the `number`th created, now; both stores create it so.
    pub fn created(new: NewAccount, number: u64) -> Account {
        let id = seed::account_id(number);
        Account {
            secret_fingerprint: seed::fingerprint(&id),
            id,
            owner_email: new.owner.as_deref().map(seed::owner_email),
            name: new.name,
            tenant: new.tenant,
            owner: new.owner,
            description: None,
            created_at: rfc3339(now_ms() / 1000),
            archived: false,
        }
    }
}

/// An item of the inventory listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListItem {
    /// Stable id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Tenant.
    pub tenant: String,
    /// Owner, `None` when unowned.
    pub owner: Option<String>,
    /// RFC 3339 creation time.
    pub created_at: String,
}

impl ListItem {
    /// Reads a row selected as `id, name, tenant, owner, created_at`.
    fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ListItem> {
        Ok(ListItem {
            id: row.get(0)?,
            name: row.get(1)?,
            tenant: row.get(2)?,
            owner: row.get(3)?,
            created_at: row.get(4)?,
        })
    }
}

/// Which owners a query selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnerFilter {
    /// Any owner, or none.
    Any,
    /// Only unowned accounts (`owner=none`).
    Unowned,
    /// Only accounts owned by this owner.
    Is(String),
}

/// The rows a query selects: owner filter and the tenants actually read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The owner condition.
    pub owner: OwnerFilter,
    /// The tenants read (the requested ones the credential can read). Empty selects nothing.
    pub tenants: Vec<String>,
}

impl Filter {
    /// True when `account` (not archived) is selected.
    pub fn matches(&self, account: &Account) -> bool {
        !account.archived
            && self.tenants.contains(&account.tenant)
            && match &self.owner {
                OwnerFilter::Any => true,
                OwnerFilter::Unowned => account.owner.is_none(),
                OwnerFilter::Is(owner) => account.owner.as_deref() == Some(owner.as_str()),
            }
    }

    /// The SQL condition and its parameters, appended after `archived = 0`.
    fn sql(&self) -> (String, Vec<String>) {
        let mut sql = format!(" AND tenant IN ({})", vec!["?"; self.tenants.len()].join(", "));
        let mut values = self.tenants.clone();
        match &self.owner {
            OwnerFilter::Any => {}
            OwnerFilter::Unowned => sql.push_str(" AND owner IS NULL"),
            OwnerFilter::Is(owner) => {
                sql.push_str(" AND owner = ?");
                values.push(owner.clone());
            }
        }
        (sql, values)
    }
}

/// A snapshot number; `s-42` on the wire.
pub type Snapshot = u64;

/// What a change of owner did: the account as it now is, the snapshot the answer speaks of,
/// and whether the change opened that snapshot. An account that already has the owner is left
/// as it is, at the current snapshot, which another replica's write may have opened: a search
/// copy must not take that snapshot for one it has seen.
#[derive(Debug)]
pub struct OwnerSet {
    pub account: Account,
    pub snapshot: Snapshot,
    pub opened: bool,
}

/// The wire form of a snapshot number.
pub fn snapshot_label(snapshot: Snapshot) -> String {
    format!("s-{snapshot}")
}

/// The first snapshot of a fresh database: a random number between 2^32 and 2^32 + 2^52, not 1.
/// Snapshot numbers name states of one database; a database that takes another's place (an
/// in-memory one after a restart, one recreated or restored elsewhere) must not give the same
/// name to another state, or a cursor or evidence of the old one, still signed by the same keys,
/// would read the new one at the snapshot of that number as if it were the old one's. Started
/// at random, a new database shares no snapshot number with the one it replaces (two counters
/// meet only if they start within as many snapshots as either ever opens: about one chance in
/// 2^20 for a billion writes), and such a cursor is refused as of a snapshot that is gone.
pub fn first_snapshot() -> Snapshot {
    (1 << 32) + random() % (1 << 52)
}

/// The first snapshot of a database that found it took another's place (restored from a backup
/// of it, say) while its last snapshot is `current`: a random number between `current + 1` and
/// `current + 2^52`. The predecessor may have gone on numbering from `current` after the backup;
/// started at random past it, this database meets the predecessor's names only if the
/// predecessor opened more snapshots since than the jump (about one chance in 2^22 for a
/// billion writes), and every name up to the jump is refused as a snapshot that is gone.
pub fn successor_snapshot(current: Snapshot) -> Snapshot {
    current + 1 + random() % (1 << 52)
}

/// A random number, from std's `RandomState`, which is seeded from the operating system's
/// random source.
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new().build_hasher().finish()
}

/// The snapshot number of a wire label (`s-42` → 42).
pub fn parse_snapshot(label: &str) -> Option<Snapshot> {
    label.strip_prefix("s-")?.parse().ok()
}

/// Why a read at a snapshot cannot be served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotGone(pub Snapshot);

/// What a store operation can fail with.
#[derive(Debug)]
pub enum StoreError {
    /// No current account has this id.
    NotFound,
    /// The account is archived: it is kept as it was archived, neither changed nor deleted.
    Archived,
    /// The snapshot is no longer retained.
    SnapshotGone(SnapshotGone),
    /// SQLite failed.
    Sql(rusqlite::Error),
    /// PostgreSQL failed on a statement.
    Postgres(String),
    /// The database cannot be reached now (no connection could be had, or the server closed or
    /// refused it): a passing outage rather than a fault of the request or of the service.
    Unavailable(String),
    /// The database takes no writes now (a PostgreSQL server that turned read-only under the
    /// service: a failover to a standby, `default_transaction_read_only` set); it still answers
    /// reads. A passing outage for writes, as [`StoreError::Unavailable`] is for everything.
    ReadOnly(String),
    /// Every connection this replica may hold to its database stayed in use past the pool's
    /// wait: this replica is too busy now, and says nothing of the database (a lock held
    /// elsewhere, a burst of slow requests may be all). Answered as an outage is, but it is
    /// none: the database may be fine, and no replica's [`Health`](super::store::watched::Health)
    /// counts it as one.
    Busy(String),
    /// The database did not confirm a COMMIT that was sent (the deadline passed, or the
    /// connection was lost, while it was in flight): the change may have been made or not.
    OutcomeUnknown(String),
    /// The service is misconfigured.
    Config(String),
    /// The caller's permissions changed since its request was authenticated (a revocation
    /// committed in between); nothing changed.
    PermissionsChanged,
}

impl StoreError {
    /// True when the error says the database cannot serve now, rather than that a statement
    /// failed: PostgreSQL without a connection, or SQLite's file locked by another process for
    /// longer than its busy timeout.
    pub fn is_outage(&self) -> bool {
        match self {
            StoreError::Unavailable(_) => true,
            StoreError::Sql(e) => matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ),
            _ => false,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        StoreError::Sql(error)
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotFound => f.write_str("no such account"),
            StoreError::Archived => f.write_str("the account is archived"),
            StoreError::SnapshotGone(SnapshotGone(s)) => {
                write!(f, "snapshot {} is no longer retained", snapshot_label(*s))
            }
            StoreError::Sql(e) => write!(f, "database error: {e}"),
            StoreError::Postgres(e) => write!(f, "database error: {e}"),
            StoreError::Unavailable(e) => write!(f, "database unavailable: {e}"),
            StoreError::ReadOnly(e) => write!(f, "database read-only: {e}"),
            StoreError::Busy(e) => write!(f, "database connections all in use: {e}"),
            StoreError::OutcomeUnknown(e) => write!(f, "outcome of a write unknown: {e}"),
            StoreError::Config(e) => write!(f, "configuration error: {e}"),
            StoreError::PermissionsChanged => f.write_str("the caller's permissions changed"),
        }
    }
}

/// The result of an archive request, decided and applied in one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveOutcome {
    /// Every target was archived at this new snapshot.
    Archived(Snapshot),
    /// These ids were not in the inventory at the evidence's snapshot; nothing changed.
    NotInEvidence(Vec<String>),
    /// These ids no longer match the inventory's filters now; nothing changed.
    Changed(Vec<String>),
    /// The caller's permissions changed since its request was authenticated (a revocation
    /// committed in between); nothing changed.
    PermissionsChanged,
}

/// Who acts, with the permission epoch its request was authenticated at: a write on the
/// strength of those permissions is refused when the epoch changed since.
#[derive(Debug, Clone, Copy)]
pub struct Grantee<'a> {
    /// The credential's name.
    pub name: &'a str,
    /// Its permission epoch when the request was authenticated.
    pub epoch: u64,
}

impl Grantee<'_> {
    /// True when `stored`, the credential's grant as stored now, is still the one the request
    /// was authenticated with (the same epoch): no revocation came between.
    pub fn still_holds(&self, stored: Option<&Grant>) -> bool {
        stored.map(|grant| grant.epoch) == Some(self.epoch)
    }

    /// Inside a write's transaction, once it holds the write lock: refuses with
    /// [`StoreError::PermissionsChanged`] when `by`'s grant, read by `grant_of`, is no longer
    /// the one its request was authenticated with, so that a write checked against a tenant
    /// the credential has just lost is not made. `None`: a change the service makes itself.
    pub fn check(
        by: Option<&Grantee>,
        grant_of: impl FnOnce(&str) -> Result<Option<Grant>, StoreError>,
    ) -> Result<(), StoreError> {
        match by {
            Some(by) if !by.still_holds(grant_of(by.name)?.as_ref()) => Err(StoreError::PermissionsChanged),
            _ => Ok(()),
        }
    }
}

/// A new account, as a mutation asks for it.
#[derive(Debug, Clone)]
pub struct NewAccount {
    /// Name.
    pub name: String,
    /// Tenant.
    pub tenant: String,
    /// Owner, if any.
    pub owner: Option<String>,
}

/// Something that changed in the accounts table, for the copies the sources keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// An account was created.
    Created(Account),
    /// An account was deleted.
    Deleted(String),
    /// An account's current version was replaced (owner change, archive).
    Updated(Account),
}

/// The columns of an account row, in the order both engines read them.
pub const COLUMNS: &str = "id, name, tenant, owner, owner_email, description, created_at, secret_fingerprint, archived";
const VISIBLE_AT: &str = "valid_from <= ?1 AND (valid_to IS NULL OR valid_to > ?1)";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS accounts (
    id TEXT NOT NULL,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER,
    name TEXT NOT NULL,
    tenant TEXT NOT NULL,
    owner TEXT,
    owner_email TEXT,
    description TEXT,
    created_at TEXT NOT NULL,
    secret_fingerprint TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (id, valid_from)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    number INTEGER PRIMARY KEY,
    created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS credentials (
    name TEXT PRIMARY KEY,
    permission_epoch INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS grants (
    credential TEXT NOT NULL REFERENCES credentials (name),
    tenant TEXT NOT NULL,
    PRIMARY KEY (credential, tenant)
) WITHOUT ROWID;
";

/// A credential's permissions as stored: the tenants it may read and write, and its permission
/// epoch, bumped on every change of those tenants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The tenants.
    pub tenants: BTreeSet<String>,
    /// The permission epoch.
    pub epoch: u64,
}

/// The accounts database on SQLite. One connection behind a mutex: SQLite serializes writers anyway,
/// and every operation here is a short statement or transaction.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    retention: Duration,
}

/// Opens the SQLite file at `path` with its schema. A path where no database can be is
/// [`StoreError::Config`]: SQLite cannot open it or read it as a database, or opens it read-only
/// (a file this process may not write, whose schema may be there already, so that only the
/// first write would fail, long after start-up).
fn open_file(path: &Path) -> Result<Connection, StoreError> {
    let unusable = |why: String| {
        StoreError::Config(format!(
            "--db {}: {why}; give a SQLite database file, or a path where one can be created",
            path.display()
        ))
    };
    let opened = Connection::open(path).and_then(|conn| {
        let foreign = foreign_tables(&conn)?;
        Ok((conn, foreign))
    });
    let opened = opened.and_then(|(mut conn, foreign)| match foreign {
        Some(foreign) => Ok(Err(foreign)),
        None => create_schema(&mut conn).map(|()| Ok(conn)),
    });
    let conn = opened.map_err(|error| match error.sqlite_error_code() {
        Some(
            rusqlite::ErrorCode::CannotOpen
            | rusqlite::ErrorCode::NotADatabase
            | rusqlite::ErrorCode::ReadOnly
            | rusqlite::ErrorCode::PermissionDenied,
        ) => unusable(error.to_string()),
        _ => StoreError::from(error),
    })?;
    let conn = conn.map_err(|foreign| unusable(format!("it holds what is not this service's: {foreign}")))?;
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(unusable("the database file is read-only to this process".to_owned()));
    }
    Ok(conn)
}

/// Creates the tables [`SCHEMA`] names that are not there yet, all or none.
fn create_schema(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(SCHEMA)?;
    tx.commit()
}

/// Every schema object of `conn` (table, view, index, trigger), by type and name (SQLite's own,
/// `sqlite_` followed by anything, left out), with its columns (a table's or a view's; none for
/// an index or trigger).
fn tables(conn: &Connection) -> rusqlite::Result<BTreeMap<(String, String), Vec<String>>> {
    let mut names = conn.prepare("SELECT type, name FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_'")?;
    let names: Vec<(String, String)> =
        names.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?.collect::<Result<_, _>>()?;
    let mut tables = BTreeMap::new();
    for (kind, name) in names {
        let mut columns = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
        let columns: Vec<String> = columns.query_map([&name], |row| row.get(0))?.collect::<Result<_, _>>()?;
        tables.insert((kind, name), columns);
    }
    Ok(tables)
}

/// What in the database at `conn` is not this service's, said for an operator (`None` when
/// nothing is): a table, view, index or trigger [`SCHEMA`] does not create, or a table it
/// creates with other columns. The
/// service writes only into a database that is empty or its own: creating its tables beside
/// another application's, or failing halfway on a table of the same name, would change a file
/// the operator named by mistake. (The schema's tables are read off the schema itself, created
/// in memory.)
fn foreign_tables(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let found = tables(conn)?;
    let ours = Connection::open_in_memory()?;
    ours.execute_batch(SCHEMA)?;
    let ours = tables(&ours)?;
    let foreign: Vec<String> = found
        .iter()
        .filter_map(|((kind, name), columns)| match ours.get(&(kind.clone(), name.clone())) {
            None => Some(format!("the {kind} `{name}`")),
            Some(expected) if expected != columns => {
                Some(format!("the {kind} `{name}` with the columns {}", columns.join(", ")))
            }
            Some(_) => None,
        })
        .collect();
    Ok((!foreign.is_empty()).then(|| foreign.join(" and ")))
}

impl SqliteStore {
    /// Opens (or creates) the database at `path`, in memory when `None`. A path where no
    /// database can be (a directory, a file that is not SQLite's, one this process may not
    /// write) is a setting to fix, [`StoreError::Config`], as a bad flag is.
    pub fn open(path: Option<&Path>, retention: Duration) -> Result<SqliteStore, StoreError> {
        let conn = match path {
            Some(path) => open_file(path)?,
            None => {
                let conn = Connection::open_in_memory()?;
                conn.execute_batch(SCHEMA)?;
                conn
            }
        };
        Ok(SqliteStore { conn: Mutex::new(conn), retention })
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// True when no snapshot exists yet (a fresh database).
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        let conn = self.lock();
        Ok(conn.query_row("SELECT COUNT(*) FROM snapshots", [], |r| r.get::<_, i64>(0))? == 0)
    }

    /// Seeds accounts `1..=count` as the database's first snapshot ([`first_snapshot`]), in one
    /// transaction with one prepared statement.
    pub fn seed(&self, count: u32) -> Result<(), StoreError> {
        let first = first_snapshot();
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        {
            let mut insert = tx.prepare(&insert_version_sql())?;
            for n in 1..=u64::from(count) {
                execute_insert(&mut insert, &seed::seeded(n).account, first)?;
            }
        }
        tx.execute("INSERT INTO snapshots (number, created_at_ms) VALUES (?1, ?2)", params![first as i64, now_ms()])?;
        set_meta(&tx, "current", first as i64)?;
        set_meta(&tx, "next_id", i64::from(count) + 1)?;
        set_meta(&tx, "seeded", i64::from(count))?;
        set_meta(&tx, "pruned_before", first as i64)?;
        tx.commit()?;
        Ok(())
    }

    /// How many accounts the database was seeded with (`1..=n`), whichever process seeded it
    /// and whatever its `--accounts` said: the accounts the sources outside the database know.
    /// A database whose seeding left no record takes the ids given so far, once.
    pub fn seeded(&self) -> Result<u32, StoreError> {
        let conn = self.lock();
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) SELECT 'seeded', value - 1 FROM meta WHERE key = 'next_id'",
            [],
        )?;
        Ok(u32::try_from(meta(&conn, "seeded")?).unwrap_or(0))
    }

    /// Stores `grants` (credential, tenants) at epoch 1 when no credential is stored yet. A
    /// database that has credentials keeps them as they are: a revocation survives restarts.
    pub fn seed_grants(&self, grants: &[(&str, &[&str])]) -> Result<(), StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        let stored: i64 = tx.query_row("SELECT COUNT(*) FROM credentials", [], |r| r.get(0))?;
        if stored == 0 {
            for (name, tenants) in grants {
                tx.execute("INSERT INTO credentials (name, permission_epoch) VALUES (?1, 1)", [name])?;
                for tenant in *tenants {
                    tx.execute("INSERT INTO grants (credential, tenant) VALUES (?1, ?2)", [name, tenant])?;
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The stored permissions of credential `name`, read afresh: another process's revocation is seen at once.
    pub fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError> {
        grant_of(&self.lock(), name)
    }

    /// Removes `tenant` from credential `name`, bumping its epoch when that changed anything, in
    /// one transaction. `None` when there is no such credential.
    pub fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        let removed = tx.execute("DELETE FROM grants WHERE credential = ?1 AND tenant = ?2", [name, tenant])?;
        if removed > 0 {
            tx.execute("UPDATE credentials SET permission_epoch = permission_epoch + 1 WHERE name = ?1", [name])?;
        }
        let grant = grant_of(&tx, name)?;
        tx.commit()?;
        Ok(grant)
    }

    /// The current snapshot number.
    pub fn current_snapshot(&self) -> Result<Snapshot, StoreError> {
        current(&self.lock())
    }

    /// Checks that `snapshot` can still be read.
    pub fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError> {
        retained(&self.lock(), snapshot, self.retention)
    }

    /// The page of `filter` at `snapshot` after id `after`, at most `limit` items, in id order.
    pub fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        let mut conn = self.lock();
        let conn = read(&mut conn)?;
        retained(&conn, snapshot, self.retention)?;
        if filter.tenants.is_empty() {
            return Ok(Vec::new());
        }
        let (condition, values) = filter.sql();
        let sql = format!(
            "SELECT id, name, tenant, owner, created_at FROM accounts
             WHERE id > ?2 AND {VISIBLE_AT} AND archived = 0{condition}
             ORDER BY id LIMIT {limit}"
        );
        let mut statement = conn.prepare_cached(&sql)?;
        let mut bound: Vec<rusqlite::types::Value> =
            vec![(snapshot as i64).into(), after.unwrap_or("").to_owned().into()];
        bound.extend(values.into_iter().map(Into::into));
        let rows = statement.query_map(params_from_iter(bound), ListItem::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The same page by `OFFSET`: what keyset pagination replaces, kept for the pagination benchmark's contrast.
    pub fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        // Read as `page` reads, so that the benchmark compares the queries alone.
        let mut conn = self.lock();
        let conn = read(&mut conn)?;
        let (condition, values) = filter.sql();
        let sql = format!(
            "SELECT id, name, tenant, owner, created_at FROM accounts
             WHERE {VISIBLE_AT} AND archived = 0{condition}
             ORDER BY id LIMIT {limit} OFFSET {offset}"
        );
        let mut statement = conn.prepare_cached(&sql)?;
        let mut bound: Vec<rusqlite::types::Value> = vec![(snapshot as i64).into()];
        bound.extend(values.into_iter().map(Into::into));
        let rows = statement.query_map(params_from_iter(bound), ListItem::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many accounts `filter` selects at `snapshot`.
    pub fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError> {
        let mut conn = self.lock();
        let conn = read(&mut conn)?;
        retained(&conn, snapshot, self.retention)?;
        if filter.tenants.is_empty() {
            return Ok(0);
        }
        let (condition, values) = filter.sql();
        let sql = format!("SELECT COUNT(*) FROM accounts WHERE {VISIBLE_AT} AND archived = 0{condition}");
        let mut bound: Vec<rusqlite::types::Value> = vec![(snapshot as i64).into()];
        bound.extend(values.into_iter().map(Into::into));
        let count: i64 = conn.query_row(&sql, params_from_iter(bound), |r| r.get(0))?;
        Ok(count as u64)
    }

    /// The current version of account `id`.
    pub fn get(&self, id: &str) -> Result<Option<Account>, StoreError> {
        current_version(&self.lock(), id)
    }

    /// Every current account (id order), for the copies the search sources keep.
    pub fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError> {
        let mut conn = self.lock();
        let conn = read(&mut conn)?;
        let snapshot = current(&conn)?;
        let mut statement =
            conn.prepare_cached(&format!("SELECT {COLUMNS} FROM accounts WHERE valid_to IS NULL ORDER BY id"))?;
        let accounts = statement.query_map([], account_row)?.collect::<Result<_, _>>()?;
        Ok((snapshot, accounts))
    }

    /// Creates an account at a new snapshot, for `by` (see [`Grantee::check`]).
    pub fn create(&self, by: Option<&Grantee>, new: NewAccount) -> Result<(Account, Snapshot), StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        Grantee::check(by, |name| grant_of(&tx, name))?;
        let snapshot = open_snapshot(&tx)?;
        let number = meta(&tx, "next_id")?;
        set_meta(&tx, "next_id", number + 1)?;
        let account = Account::created(new, number as u64);
        insert_version(&tx, &account, snapshot)?;
        tx.commit()?;
        Ok((account, snapshot))
    }

    /// Sets (or clears) the owner of account `id` at a new snapshot; one that already has it is
    /// left as it is, at the current snapshot.
    pub fn set_owner(&self, by: Option<&Grantee>, id: &str, owner: Option<String>) -> Result<OwnerSet, StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        Grantee::check(by, |name| grant_of(&tx, name))?;
        let mut account = current_version(&tx, id)?.ok_or(StoreError::NotFound)?;
        if account.archived {
            return Err(StoreError::Archived);
        }
        if account.owner == owner {
            // Nothing changes: no snapshot, so evidence and cursors of the current one hold.
            return Ok(OwnerSet { account, snapshot: current(&tx)?, opened: false });
        }
        let snapshot = open_snapshot(&tx)?;
        account.owner_email = owner.as_deref().map(seed::owner_email);
        account.owner = owner;
        close_version(&tx, id, snapshot)?;
        insert_version(&tx, &account, snapshot)?;
        tx.commit()?;
        Ok(OwnerSet { account, snapshot, opened: true })
    }

    /// Deletes account `id` at a new snapshot (its last version is closed, not erased).
    pub fn delete(&self, by: Option<&Grantee>, id: &str) -> Result<(Account, Snapshot), StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        Grantee::check(by, |name| grant_of(&tx, name))?;
        let account = current_version(&tx, id)?.ok_or(StoreError::NotFound)?;
        if account.archived {
            return Err(StoreError::Archived);
        }
        let snapshot = open_snapshot(&tx)?;
        close_version(&tx, id, snapshot)?;
        tx.commit()?;
        Ok((account, snapshot))
    }

    /// Archives `ids` atomically: each must have been selected by `then` at `snapshot` and
    /// must still be selected by `now` at the current snapshot; otherwise nothing changes.
    pub fn archive(
        &self,
        by: &Grantee,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError> {
        let mut conn = self.lock();
        let tx = write(&mut conn)?;
        retained(&tx, snapshot, self.retention)?;
        if !by.still_holds(grant_of(&tx, by.name)?.as_ref()) {
            return Ok((ArchiveOutcome::PermissionsChanged, Vec::new()));
        }
        let mut missing = Vec::new();
        for id in ids {
            if !version_at(&tx, id, snapshot)?.is_some_and(|a| then.matches(&a)) {
                missing.push(id.clone());
            }
        }
        if !missing.is_empty() {
            return Ok((ArchiveOutcome::NotInEvidence(missing), Vec::new()));
        }
        let mut changed = Vec::new();
        let mut targets = Vec::new();
        for id in ids {
            match current_version(&tx, id)? {
                Some(account) if now.matches(&account) => targets.push(account),
                _ => changed.push(id.clone()),
            }
        }
        if !changed.is_empty() {
            return Ok((ArchiveOutcome::Changed(changed), Vec::new()));
        }
        let archived_at = open_snapshot(&tx)?;
        for account in &mut targets {
            account.archived = true;
            close_version(&tx, &account.id, archived_at)?;
            insert_version(&tx, account, archived_at)?;
        }
        tx.commit()?;
        Ok((ArchiveOutcome::Archived(archived_at), targets))
    }

    /// Drops row versions and snapshots no retained snapshot can see. Returns the oldest retained snapshot.
    pub fn prune(&self) -> Result<Snapshot, StoreError> {
        let mut conn = self.lock();
        let cutoff = now_ms().saturating_sub(i64::try_from(self.retention.as_millis()).unwrap_or(i64::MAX));
        let tx = write(&mut conn)?;
        let before = meta(&tx, "pruned_before")? as u64;
        // The newest snapshot created before the cutoff is the oldest one still retained:
        // every older one was superseded before the cutoff.
        let oldest: Option<i64> =
            tx.query_row("SELECT MAX(number) FROM snapshots WHERE created_at_ms < ?1", [cutoff], |r| r.get(0))?;
        let oldest = oldest.map_or(before, |n| (n as u64).max(before));
        if oldest > before {
            tx.execute("DELETE FROM accounts WHERE valid_to IS NOT NULL AND valid_to <= ?1", [oldest as i64])?;
            tx.execute("DELETE FROM snapshots WHERE number < ?1", [oldest as i64])?;
            set_meta(&tx, "pruned_before", oldest as i64)?;
        }
        tx.commit()?;
        Ok(oldest)
    }

    /// How many row versions the table holds (current and past).
    pub fn version_count(&self) -> Result<u64, StoreError> {
        let count: i64 = self.lock().query_row("SELECT COUNT(*) FROM accounts", [], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// A digest of every row version and the snapshot counter, to prove a request changed nothing.
    pub fn fingerprint(&self) -> Result<String, StoreError> {
        use sha2::{Digest, Sha256};
        let conn = self.lock();
        let mut hasher = Sha256::new();
        hasher.update(current(&conn)?.to_le_bytes());
        let mut statement = conn.prepare(&format!(
            "SELECT valid_from, IFNULL(valid_to, -1), {COLUMNS} FROM accounts ORDER BY id, valid_from"
        ))?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            for i in 0..11 {
                let value: rusqlite::types::Value = row.get(i)?;
                hasher.update(format!("{value:?}|").as_bytes());
            }
        }
        Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }
}

fn account_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Account> {
    Ok(Account {
        id: row.get(0)?,
        name: row.get(1)?,
        tenant: row.get(2)?,
        owner: row.get(3)?,
        owner_email: row.get(4)?,
        description: row.get(5)?,
        created_at: row.get(6)?,
        secret_fingerprint: row.get(7)?,
        archived: row.get(8)?,
    })
}

fn grant_of(conn: &Connection, name: &str) -> Result<Option<Grant>, StoreError> {
    let epoch: Option<i64> = conn
        .prepare_cached("SELECT permission_epoch FROM credentials WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?;
    let Some(epoch) = epoch else { return Ok(None) };
    let mut statement = conn.prepare_cached("SELECT tenant FROM grants WHERE credential = ?1")?;
    let tenants = statement.query_map([name], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(Some(Grant { tenants, epoch: epoch as u64 }))
}

fn meta(conn: &Connection, key: &str) -> Result<i64, StoreError> {
    Ok(conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")?.query_row([key], |r| r.get(0))?)
}

fn set_meta(conn: &Connection, key: &str, value: i64) -> Result<(), StoreError> {
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![key, value])?;
    Ok(())
}

fn current(conn: &Connection) -> Result<Snapshot, StoreError> {
    Ok(meta(conn, "current")? as u64)
}

/// A snapshot is readable while it is current, or until `retention` after the snapshot that superseded it.
fn retained(conn: &Connection, snapshot: Snapshot, retention: Duration) -> Result<(), StoreError> {
    let gone = Err(StoreError::SnapshotGone(SnapshotGone(snapshot)));
    let current = current(conn)?;
    if snapshot == 0 || snapshot > current || snapshot < meta(conn, "pruned_before")? as u64 {
        return gone;
    }
    if snapshot == current {
        return Ok(());
    }
    let superseded_at: Option<i64> = conn
        .prepare_cached("SELECT created_at_ms FROM snapshots WHERE number = ?1")?
        .query_row([(snapshot + 1) as i64], |r| r.get(0))
        .optional()?;
    match superseded_at {
        Some(at) if now_ms().saturating_sub(at) <= i64::try_from(retention.as_millis()).unwrap_or(i64::MAX) => Ok(()),
        _ => gone,
    }
}

/// Begins a write transaction: `BEGIN IMMEDIATE`, which takes the database's write lock at
/// once, waiting for another process's write to end (up to rusqlite's busy timeout, 5 s). A
/// deferred transaction reads first and asks for the lock only at its first write; when
/// another process wrote in between, SQLite fails it at once with "database is locked" rather
/// than wait (waiting could deadlock), and two processes on one file refused each other's
/// writes.
fn write(conn: &mut Connection) -> Result<Transaction<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
}

/// A read whose statements see one state of the file: another process on it (a second service
/// on one SQLite file) cannot prune or write between the check that a snapshot is retained and
/// the rows read at it, which would leave rows out of the answer unseen. The transaction ends,
/// without a change, when it is dropped.
fn read(conn: &mut Connection) -> Result<Transaction<'_>, StoreError> {
    Ok(conn.transaction_with_behavior(TransactionBehavior::Deferred)?)
}

fn open_snapshot(tx: &Transaction<'_>) -> Result<Snapshot, StoreError> {
    let next = current(tx)? + 1;
    tx.execute("INSERT INTO snapshots (number, created_at_ms) VALUES (?1, ?2)", params![next as i64, now_ms()])?;
    set_meta(tx, "current", next as i64)?;
    Ok(next)
}

fn current_version(conn: &Connection, id: &str) -> Result<Option<Account>, StoreError> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM accounts WHERE id = ?1 AND valid_to IS NULL"))?
        .query_row([id], account_row)
        .optional()?)
}

fn version_at(conn: &Connection, id: &str, snapshot: Snapshot) -> Result<Option<Account>, StoreError> {
    Ok(conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM accounts WHERE id = ?2 AND {VISIBLE_AT}"))?
        .query_row(params![snapshot as i64, id], account_row)
        .optional()?)
}

fn close_version(conn: &Connection, id: &str, snapshot: Snapshot) -> Result<(), StoreError> {
    conn.execute("UPDATE accounts SET valid_to = ?1 WHERE id = ?2 AND valid_to IS NULL", params![snapshot as i64, id])?;
    Ok(())
}

fn insert_version(conn: &Connection, a: &Account, snapshot: Snapshot) -> Result<(), StoreError> {
    let mut statement = conn.prepare_cached(&insert_version_sql())?;
    execute_insert(&mut statement, a, snapshot)
}

/// The statement that inserts one row version, valid from `?1` and open-ended.
fn insert_version_sql() -> String {
    format!(
        "INSERT INTO accounts (valid_from, valid_to, {COLUMNS}) VALUES (?1, NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    )
}

/// Runs [`insert_version_sql`] for `a`, valid from `snapshot`.
fn execute_insert(statement: &mut rusqlite::Statement<'_>, a: &Account, snapshot: Snapshot) -> Result<(), StoreError> {
    statement.execute(params![
        snapshot as i64,
        a.id,
        a.name,
        a.tenant,
        a.owner,
        a.owner_email,
        a.description,
        a.created_at,
        a.secret_fingerprint,
        a.archived
    ])?;
    Ok(())
}
