//! [`AccountStore`] on PostgreSQL, shared by several replicas of the service.
//!
//! The tables are those of the SQLite store, written for PostgreSQL. What makes replicas agree:
//! - Snapshot numbers come from the one-row counter `meta.current`. Every mutation (and the
//!   pruner) first locks that row (`SELECT … FOR UPDATE`), so writers run one after another,
//!   snapshot `n` is committed before `n + 1` is handed out, and a reader that sees `current = n`
//!   sees every row version of snapshots up to `n`. Two archives of one target through
//!   different replicas are therefore decided one after the other: the second sees the first's
//!   archived row and answers "changed".
//! - Snapshot times and the retention cutoff use the database's clock, not the replicas'. The
//!   pruner keeps superseded snapshots for the longest retention among live replicas, so a
//!   replica started with a shorter one does not expire what the others handed out.
//! - Reads at a snapshot (retention check, then rows) run in one repeatable-read transaction,
//!   so the pruner cannot remove rows between the check and the read.
//! - Schema creation and seeding run in one transaction under `pg_advisory_xact_lock`: replicas
//!   starting at the same moment against an empty database seed it once.
//! - Each replica records the settings its clients depend on in `replicas`, and reads the
//!   others' there ([`AccountStore::check_in`], see `replicas`).
//! - The database records where it stands among its copies ([`LIVE_IDENTITY`]). One restored
//!   from a backup, copied, or promoted from a standby finds another identity, on start-up, on
//!   any new connection (a database dropped and loaded again under running replicas), and in
//!   every transaction that opens a snapshot or reads at one ([`same_place`]: one loaded again
//!   in place while pooled connections to it live on): it takes its predecessor's place
//!   ([`take_place`]), so that its snapshots never take a name the predecessor gave after the
//!   backup, and no cursor or evidence of the predecessor's is read against it (contract §2.5).
//!   So do tables emptied and loaded again in place (`TRUNCATE`, then `pg_restore --data-only`);
//!   until they are all loaded the store is an outage ([`PgStore::loaded`]), never an empty
//!   inventory or an unknown credential.
//!
//! Every write is durable before it is confirmed: the service's connections commit with
//! `synchronous_commit` on at least, whatever the server's default ([`strengthen_session`]).
//!
//! Nothing waits on the database for good:
//! - Making a connection, PostgreSQL's handshake included, is bounded by the URL's
//!   `connect_timeout` ([`CONNECT_TIMEOUT`] without one), and waiting for a busy pool by
//!   [`POOL_WAIT`].
//! - Every statement is bounded by PostgreSQL's own `statement_timeout`, which the service sets
//!   on its connections ([`STATEMENT_TIMEOUT`]) unless the URL's `options` set it
//!   (`?options=-c%20statement_timeout%3D5s`; the value is read as PostgreSQL reads it, and one
//!   that is not a positive duration is refused as a bad `--db`). The server cancels a statement
//!   that runs longer, one waiting on a lock held by someone else included (SQLSTATE 57014, and
//!   55P03 when the URL also sets a `lock_timeout`).
//! - A transaction left open by a replica that stopped between two statements (a process
//!   paused or frozen while it held the snapshot counter's lock, blocking every other writer) is
//!   ended by the server after `idle_in_transaction_session_timeout`, which the service sets on
//!   its connections to the statement timeout plus [`DEADLINE_MARGIN`] (by then the replica
//!   has given up on it) unless one in force is shorter ([`strengthen_session`]).
//! - Every store operation, from the moment it has a connection, is bounded on the client too,
//!   by the statement timeout plus [`DEADLINE_MARGIN`] ([`PgStore::bounded`]): a server that
//!   stops answering altogether cannot hold a request either. The connection of an operation
//!   cut short this way is closed, never handed to the next request: a reply it still owes
//!   would come first on it. Closing it ends its open transaction, if any, without a commit.
//! - Either way the operation fails with [`StoreError::Unavailable`], answered 503, and a write
//!   cut short changes nothing: it runs in one transaction, which is rolled back (unless the
//!   deadline passes while its `COMMIT` is on its way, when the outcome is unknown to the client).
//! - Creating the schema and seeding an empty database at start-up is one transaction that may
//!   take longer than a request should (seeding a million accounts, or waiting for another
//!   replica that seeds them): it is bounded by [`PREPARE_TIMEOUT`] (or the statement timeout
//!   when longer), on the server and on the client alike.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use deadpool_postgres::{
    GenericClient, Hook, HookError, Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime,
    TimeoutType,
};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{IsolationLevel, NoTls, Row};

use super::super::db::{
    Account, ArchiveOutcome, COLUMNS, Filter, Grant, Grantee, ListItem, NewAccount, OwnerFilter, OwnerSet, Snapshot,
    SnapshotGone, StoreError, first_snapshot, successor_snapshot,
};
use super::super::replicas::{ALIVE, ReplicaSettings};
use super::super::seed;
use super::{AccountStore, Connections, storable};

/// The key of the advisory lock held while the schema is created and seeded.
const PREPARE_LOCK: i64 = 0x636f_6d70_6c65;

/// Milliseconds since the epoch, on the database's clock.
const NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

const VISIBLE_AT: &str = "valid_from <= $1 AND (valid_to IS NULL OR valid_to > $1)";

/// Where this database stands among its copies: the cluster's system identifier, the
/// database's OID, the timeline of the write-ahead log, the OID of the `meta` table, the files
/// of the tables that hold the service's state (`pg_relation_filenode`) and the transaction
/// that wrote this record (the `xmin` of its `recorded_by` row). A logical restore (`pg_dump`
/// loaded into a new database, `CREATE DATABASE … TEMPLATE`, a database dropped and loaded
/// again) gives another database OID, `pg_restore --clean` into the same database another table
/// OID, a restore into another cluster another system identifier, and a physical backup
/// restored or a standby promoted another timeline. Tables emptied and loaded again in place
/// (`TRUNCATE`, then `pg_restore --data-only` or `COPY`) keep their OIDs: `TRUNCATE` gives each
/// another file, and rows of `meta` loaded again (after a `DELETE` too) are written by another
/// transaction than the one whose number the record holds. `VACUUM FULL` or `CLUSTER` of one of
/// these tables gives it another file too, and is taken for a reload (the traversals in
/// progress start again). What none of them changes is not caught: a disk snapshot rolled
/// back, a data directory copied cold and started in the original's place, or the rows of
/// tables other than `meta` deleted (not truncated) and loaded again while `meta` stays. (On a
/// standby `pg_current_wal_lsn` fails: the service needs a primary, where it can write.)
///
/// Every column is a `bigint`; the last is `NULL` until a record was written.
const LIVE_IDENTITY: &str = "SELECT (SELECT system_identifier FROM pg_control_system()),
        (SELECT oid::bigint FROM pg_database WHERE datname = current_database()),
        ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint,
        'meta'::regclass::oid::bigint,
        pg_relation_filenode('meta')::bigint,
        pg_relation_filenode('accounts')::bigint,
        pg_relation_filenode('snapshots')::bigint,
        pg_relation_filenode('credentials')::bigint,
        pg_relation_filenode('grants')::bigint,
        (SELECT xmin::text::bigint FROM meta WHERE key = 'recorded_by')";

/// The `meta` keys the database's identity is recorded under, in [`LIVE_IDENTITY`]'s order.
/// The last, [`RECORDED_BY`], is recorded as the number of the transaction that writes the
/// record, which is then the `xmin` of its row.
const IDENTITY_KEYS: [&str; 10] = [
    "system_identifier",
    "database_oid",
    "timeline",
    "meta_oid",
    "meta_file",
    "accounts_file",
    "snapshots_file",
    "credentials_file",
    "grants_file",
    RECORDED_BY,
];

/// The identity key whose value is the (32-bit) number of the transaction that recorded the
/// identity: a row of `meta` copied in from elsewhere is written by another one.
const RECORDED_BY: &str = "recorded_by";

/// An SQL expression, true when the database holds what a store that serves holds (see
/// [`PgStore::loaded`]): a credential, the row of the current snapshot, and an account unless
/// `meta` says the accounts table may be empty (`accounts_held`, kept by the writes that change
/// that). A store whose tables are being loaded (emptied, then copied in table by table) lacks
/// one of them until the load ends.
const LOADED: &str = "(EXISTS (SELECT 1 FROM credentials)
        AND EXISTS (SELECT 1 FROM snapshots WHERE number = (SELECT value FROM meta WHERE key = 'current'))
        AND (COALESCE((SELECT value FROM meta WHERE key = 'accounts_held'), 0) = 0
             OR EXISTS (SELECT 1 FROM accounts)))";

/// An SQL expression, true when `meta` records the database's [`LIVE_IDENTITY`] under every one
/// of [`IDENTITY_KEYS`] (the database is still the one its snapshots were numbered in) and its
/// tables are [`LOADED`]. A statement that reads `meta` anyway (locking the counter, checking
/// that a snapshot is retained, reading the current snapshot) carries it as one more column, so
/// that the check costs no round trip of its own. When it is false the caller runs
/// [`take_place`], which refuses a store being loaded, says how the database differs (or
/// records an identity none recorded).
///
/// A pooled connection lives on while the database under it is loaded again in place
/// (`pg_restore --clean` gives `meta` another OID, `TRUNCATE` its tables other files), and a
/// pooler may keep a client's connection across a failover: checking only new connections
/// would leave a running replica handing out the predecessor's snapshot names (and resuming its
/// cursors) until its next pruning round.
///
/// Written once, from [`IDENTITY_KEYS`], for every request that carries it.
fn same_place() -> &'static str {
    static SAME_PLACE: LazyLock<String> = LazyLock::new(|| {
        let keys = IDENTITY_KEYS.map(|key| format!("'{key}'")).join(", ");
        let columns: Vec<String> = (0..IDENTITY_KEYS.len()).map(|at| format!("c{at}")).collect();
        let columns = columns.join(", ");
        format!(
            "(SELECT ARRAY[{columns}] = ARRAY(
                 SELECT (SELECT value FROM meta WHERE key = k)
                 FROM unnest(ARRAY[{keys}]) WITH ORDINALITY AS keys (k, at) ORDER BY at)
                 AND array_position(ARRAY[{columns}], NULL) IS NULL
                 AND {LOADED}
              FROM ({LIVE_IDENTITY}) AS live ({columns}))"
        )
    });
    &SAME_PLACE
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS accounts (
    id TEXT NOT NULL,
    valid_from BIGINT NOT NULL,
    valid_to BIGINT,
    name TEXT NOT NULL,
    tenant TEXT NOT NULL,
    owner TEXT,
    owner_email TEXT,
    description TEXT,
    created_at TEXT NOT NULL,
    secret_fingerprint TEXT NOT NULL,
    archived BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (id, valid_from)
);
CREATE INDEX IF NOT EXISTS accounts_current ON accounts (id) WHERE valid_to IS NULL;
CREATE TABLE IF NOT EXISTS snapshots (
    number BIGINT PRIMARY KEY,
    created_at_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS credentials (
    name TEXT PRIMARY KEY,
    permission_epoch BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    credential TEXT NOT NULL REFERENCES credentials (name),
    tenant TEXT NOT NULL,
    PRIMARY KEY (credential, tenant)
);
CREATE TABLE IF NOT EXISTS replicas (
    replica TEXT PRIMARY KEY,
    retention_ms BIGINT NOT NULL,
    keys TEXT NOT NULL,
    seen_at_ms BIGINT NOT NULL
);
";

/// What [`SCHEMA`] creates: a schema lacking any of them is created again (see
/// [`PgStore::create_schema`]).
const SCHEMA_OBJECTS: [&str; 7] =
    ["accounts", "accounts_current", "snapshots", "meta", "credentials", "grants", "replicas"];

/// The privileges the service's statements need, table by table.
const PRIVILEGES: [(&str, &str); 20] = [
    ("accounts", "SELECT"),
    ("accounts", "INSERT"),
    ("accounts", "UPDATE"),
    ("accounts", "DELETE"),
    ("snapshots", "SELECT"),
    ("snapshots", "INSERT"),
    ("snapshots", "DELETE"),
    ("meta", "SELECT"),
    ("meta", "INSERT"),
    ("meta", "UPDATE"),
    ("credentials", "SELECT"),
    ("credentials", "INSERT"),
    ("credentials", "UPDATE"),
    ("grants", "SELECT"),
    ("grants", "INSERT"),
    ("grants", "DELETE"),
    ("replicas", "SELECT"),
    ("replicas", "INSERT"),
    ("replicas", "UPDATE"),
    ("replicas", "DELETE"),
];

/// How many accounts one seeding statement inserts.
const SEED_CHUNK: u64 = 20_000;

/// The PostgreSQL store: a pool of connections to one database.
pub struct PgStore {
    pool: Pool,
    retention_ms: i64,
    /// How long making one connection may take, handshake included.
    connect_timeout: Duration,
    /// How long one statement may run: the `statement_timeout` set on every connection.
    statement_timeout: Duration,
}

/// How long connecting may take when the URL sets no `connect_timeout` (or sets 0).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request waits for a pooled connection while all of them are busy.
pub const POOL_WAIT: Duration = Duration::from_secs(10);

/// How many connections the pool holds at most.
const POOL_SIZE: usize = 8;

/// How long one statement may run (PostgreSQL's `statement_timeout`) when the URL's `options`
/// set no `statement_timeout`.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// The shortest `statement_timeout` the URL's `options` may set: a shorter one cancels the
/// service's ordinary statements (the check of a new connection reads the database's identity
/// and its tables), so that it could never serve (see [`url_statement_timeout`]).
pub const MIN_STATEMENT_TIMEOUT: Duration = Duration::from_millis(100);

/// How much longer than the statement timeout a store operation may take, from the moment it
/// has a connection, before the service stops waiting for the server: time for the server's own
/// cancellation to arrive, and for the operation's other, short statements.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(2);

/// How long creating the schema and seeding an empty database may take at start-up, waiting
/// for another replica's seeding included (when the statement timeout is shorter).
pub const PREPARE_TIMEOUT: Duration = Duration::from_secs(600);

tokio::task_local! {
    /// The statement timeout in force for the store operation being run, so that [`pg`] can say
    /// which bound a cancelled statement hit. Set by [`PgStore::within`].
    static STATEMENT_BOUND: Duration;
    /// Set by [`commit`] once the operation being run has sent its COMMIT, so that
    /// [`PgStore::within`] can tell a deadline that passed before it (nothing changed) from one
    /// that passed while it was in flight (the change may have been made).
    static COMMIT_SENT: Arc<AtomicBool>;
    /// The SQLSTATE of the last statement [`pg`] saw fail, where start-up asks for it to tell a
    /// setting to fix from an outage ([`PgStore::connect`]: the check of its first connection).
    static FAILED_WITH: std::cell::RefCell<Option<SqlState>>;
}

/// Commits `tx`. A failure the server reports (a serialization failure, a cancelled statement)
/// means it rolled back: [`pg`]'s error. Any other, the connection lost before the reply, leaves
/// the outcome unknown: [`StoreError::OutcomeUnknown`], never an outage that changed nothing.
async fn commit(tx: deadpool_postgres::Transaction<'_>) -> Result<(), StoreError> {
    let _ = COMMIT_SENT.try_with(|sent| sent.store(true, Ordering::SeqCst));
    tx.commit().await.map_err(|error| match error.as_db_error() {
        Some(_) => pg(error),
        None => StoreError::OutcomeUnknown(format!("the connection failed while COMMIT was in flight: {error}")),
    })
}

/// Checks, in `tx`, that the database is the one its snapshots were numbered in: its
/// [`LIVE_IDENTITY`] against the one recorded in `meta` (recorded when none is: a database
/// seeded now, or by a version that recorded none; one that recorded only some keys is taken
/// for another). When it is not (restored from a backup, copied, a standby promoted, its tables
/// loaded again in place), this database takes its predecessor's place: its count of
/// snapshots jumps past every name the predecessor may have given since the copy
/// ([`successor_snapshot`]), and every snapshot before the jump is gone, so a cursor or evidence
/// of the predecessor's is refused (410, 412) rather than read against this database's state
/// under a name the predecessor gave another state. A database the service has not prepared yet
/// (no `meta`) is left alone. Returns the new current snapshot when it took the place.
///
/// A database found elsewhere whose tables are not [`LOADED`] (emptied and being copied in
/// again, table by table) is an outage until they are ([`StoreError::Unavailable`]): taking the
/// place then would hand out a snapshot of a half-loaded state (an empty inventory, with
/// evidence, of accounts copied in a moment later). A caller that found [`same_place`] false
/// checks [`PgStore::loaded`] itself after this: the identity may be the same and the tables
/// being loaded all the same.
///
/// The comparison runs without a lock; a mismatch is checked again under the counter's lock,
/// so that replicas noticing it at once move the count once.
async fn take_place(tx: &deadpool_postgres::Transaction<'_>) -> Result<Option<Snapshot>, StoreError> {
    let prepared = tx.query_one("SELECT to_regclass('meta') IS NOT NULL", &[]).await.map_err(pg)?;
    if !prepared.get::<_, bool>(0) {
        return Ok(None);
    }
    let keys = &IDENTITY_KEYS[..];
    let live = async || -> Result<Vec<Option<i64>>, StoreError> {
        let row = tx.query_one(LIVE_IDENTITY, &[]).await.map_err(pg)?;
        Ok((0..keys.len()).map(|at| row.get(at)).collect())
    };
    // Each key's recorded value, `None` where none is (a database prepared before it was kept).
    let recorded = async || -> Result<Vec<Option<i64>>, StoreError> {
        let rows = tx
            .query(
                "SELECT k.key, m.value FROM unnest($1::text[]) AS k(key) LEFT JOIN meta m ON m.key = k.key",
                &[&keys],
            )
            .await
            .map_err(pg)?;
        Ok(keys
            .iter()
            .map(|key| rows.iter().find(|row| row.get::<_, &str>(0) == *key).and_then(|row| row.get(1)))
            .collect())
    };
    let same = |recorded: &[Option<i64>], live: &[Option<i64>]| {
        recorded.iter().zip(live).all(|(was, is)| was.is_some() && was == is)
    };
    let none = |recorded: &[Option<i64>]| recorded.iter().all(Option::is_none);
    if same(&recorded().await?, &live().await?) {
        return Ok(None);
    }
    // Checked only now: a new connection to a database in its place reads no more than `meta`,
    // and waits on no lock a migration holds on `accounts`.
    PgStore::loaded(tx).await?;
    let current = PgStore::lock_counter(tx).await?;
    // Read again under the lock: another replica may have recorded the identity meanwhile.
    let (recorded, live) = (recorded().await?, live().await?);
    if same(&recorded, &live) {
        return Ok(None);
    }
    // The record: the identity as it is, and the number of this transaction, which writes it.
    let record = async || -> Result<(), StoreError> {
        let by: i64 = tx.query_one("SELECT txid_current() % 4294967296", &[]).await.map_err(pg)?.get(0);
        let values: Vec<Option<i64>> =
            keys.iter().zip(&live).map(|(key, value)| if *key == RECORDED_BY { Some(by) } else { *value }).collect();
        tx.execute(
            "INSERT INTO meta (key, value) SELECT * FROM unnest($1::text[], $2::bigint[])
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            &[&keys, &values],
        )
        .await
        .map_err(pg)?;
        Ok(())
    };
    // A database seeded now, or by a version that recorded nothing: recorded now. One that
    // recorded some keys but not all is taken as another (a restore of an older copy, whose
    // `meta` lacks the keys added since, looks so): a jump too many is a restart of the
    // traversals in progress, a jump too few reuses names.
    if none(&recorded) {
        record().await?;
        return Ok(None);
    }
    let next = successor_snapshot(current) as i64;
    tx.execute(&format!("INSERT INTO snapshots (number, created_at_ms) VALUES ($1, {NOW_MS})"), &[&next])
        .await
        .map_err(pg)?;
    tx.execute("UPDATE meta SET value = $1 WHERE key IN ('current', 'pruned_before')", &[&next]).await.map_err(pg)?;
    record().await?;
    let said = |values: &[Option<i64>]| {
        listed(values.iter().map(|value| value.map_or_else(|| "none".to_owned(), |value| value.to_string())))
    };
    tracing::warn!(
        target: "service_accounts::store",
        "this database is not the one its snapshots were numbered in ({} recorded as {}, now {}): restored, \
         copied, promoted or its tables loaded again, it takes that one's place; snapshots up to s-{current} \
         are gone, and the cursors and evidence issued at them are refused; new snapshots start at s-{next}",
        keys.join(", "),
        said(&recorded),
        said(&live),
    );
    Ok(Some(next as Snapshot))
}

/// The row of the snapshot counter that `sql` selects (`... FROM meta WHERE key = 'current'`).
/// A `meta` without it is one being loaded again (`pg_restore --clean` between creating the
/// table and copying its rows): an outage that ends when the load does, as a missing table is
/// ([`is_outage`]), never taken for a fault of the service.
async fn counter(client: &impl GenericClient, sql: &str) -> Result<tokio_postgres::Row, StoreError> {
    client.query_opt(sql, &[]).await.map_err(pg)?.ok_or_else(|| {
        StoreError::Unavailable("the database has no snapshot counter: its tables are being loaded again".to_owned())
    })
}

/// Runs [`take_place`] in a transaction of its own on `client`, for a read that found the
/// database elsewhere ([`same_place`]) and cannot write in its own.
async fn take_place_apart(client: &mut Object) -> Result<(), StoreError> {
    let tx = client.transaction().await.map_err(pg)?;
    take_place(&tx).await?;
    PgStore::loaded(&tx).await?;
    commit(tx).await
}

/// How many times a read at a snapshot asks whether it is retained, taking the predecessor's
/// place ([`take_place_apart`]) each time it finds the database elsewhere: twice, since the
/// second asks the database as it now records itself. A snapshot is gone only when the answer
/// says so: taking the place may have moved the count (every earlier snapshot is gone), or only
/// recorded an identity none had recorded, or found another replica had moved it already.
const ASKED_AFTER_TAKING_PLACE: usize = 2;

/// Values as a message lists them: `7715675746516048018, 16384, 1, 16399`.
fn listed(values: impl Iterator<Item = String>) -> String {
    values.collect::<Vec<_>>().join(", ")
}

/// `duration` in seconds, as the messages say it ("10 s", "0.5 s").
fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// A statement's failure: [`StoreError::Unavailable`] when the connection is gone or the server
/// says it cannot serve now, [`StoreError::ReadOnly`] when it takes no writes now (25006),
/// [`StoreError::Postgres`] for anything else.
///
/// A statement the server cancelled because it hit the statement timeout (57014) or waited
/// longer than `lock_timeout` for a lock (55P03) is an outage too, saying which bound it hit:
/// the statement itself was fine, and the same request may well succeed later.
fn pg(error: tokio_postgres::Error) -> StoreError {
    let _ = FAILED_WITH.try_with(|code| *code.borrow_mut() = error.code().cloned());
    match error.as_db_error() {
        Some(db) if *db.code() == SqlState::QUERY_CANCELED => {
            let within = STATEMENT_BOUND.try_with(|bound| format!(" within {}", seconds(*bound))).unwrap_or_default();
            StoreError::Unavailable(format!(
                "the statement did not finish{within} (statement_timeout); the server says: {} (57014)",
                db.message()
            ))
        }
        Some(db) if *db.code() == SqlState::LOCK_NOT_AVAILABLE => StoreError::Unavailable(format!(
            "the statement waited for a lock for longer than lock_timeout allows; the server says: {} (55P03)",
            db.message()
        )),
        Some(db) if *db.code() == SqlState::READ_ONLY_SQL_TRANSACTION => {
            StoreError::ReadOnly(format!("{} ({})", db.message(), db.code().code()))
        }
        Some(db) if is_outage(db.code()) => StoreError::Unavailable(format!("{} ({})", db.message(), db.code().code())),
        Some(db) => StoreError::Postgres(format!("{} ({})", db.message(), db.code().code())),
        // No answer from the server at all: the connection closed or its socket failed.
        None if error.is_closed() || io_cause(&error) => StoreError::Unavailable(with_causes(&error)),
        None => StoreError::Postgres(with_causes(&error)),
    }
}

/// Why the URL's settings could not connect, when asking again would fail again and the URL
/// must change. On a live service the same failures are an outage (someone dropped the
/// database, or changed the role): only start-up reads them so.
///
/// The server refuses, with its reason: the database does not exist (3D000); the role does not,
/// or may not log in with these credentials (class 28); a setting the URL's `options` give
/// (`-c lock_timeout=-1`) has a value the parameter does not take (22023), names no parameter
/// (42704), one that cannot be set on connecting (55P02), or one the role may not set, or the
/// role may not connect to the database (42501).
///
/// Or the driver does, before or after asking the server: the server demands what the URL does
/// not give (a password, "invalid configuration: password missing") or an authentication the
/// driver does not speak ("authentication error"); tokio-postgres says which only in its text,
/// which names the kind of error first. Or the server is not the kind of session the URL's
/// `target_session_attrs` asks for (`read-write` on a standby: "database does not allow
/// writes").
fn refused_settings(error: &tokio_postgres::Error) -> Option<String> {
    const SESSION_ATTRS: [&str; 2] = ["database does not allow writes", "database is not read only"];
    let Some(db) = error.as_db_error() else {
        let cause = std::error::Error::source(error).map(ToString::to_string).unwrap_or_default();
        return match error.to_string().as_str() {
            "invalid configuration" | "authentication error" => Some(format!(
                "the URL cannot connect: {error}: {cause}; give what the server demands (the role's password, \
                 postgres://user:password@host:port/db) or an authentication this client supports"
            )),
            _ if SESSION_ATTRS.contains(&cause.as_str()) => Some(format!(
                "the server is not what the URL's target_session_attrs asks for: {cause}; this service writes, \
                 so name the primary, and target_session_attrs=read-write or none"
            )),
            _ => None,
        };
    };
    let code = db.code().code();
    let fix = match code {
        "3D000" => "name a database that exists on that server (create it first)",
        _ if code.starts_with("28") => "name a role that exists and may log in, with its password",
        "22023" | "42704" | "55P02" => "give the URL's options only settings the server accepts on connecting",
        "42501" => "grant the role what it lacks, or leave the setting out of the URL's options",
        _ => return None,
    };
    Some(format!("the server refuses the URL: {} ({code}); {fix}", db.message()))
}

/// Why the check of the first connection at start-up ([`strengthen_session`], then
/// [`take_place`]) failed for a setting to fix, when it did: the session's transactions are
/// read-only (25006), or the role may not read or write the service's tables (42501). `code` is
/// the SQLSTATE a failed statement of the check gave, when the hook's error does not carry it.
/// Anything else (a server going away, a store being loaded, a statement cancelled by the
/// statement timeout while it waited on a lock) is an outage to wait out.
fn refused_check(hook: &HookError, code: Option<&SqlState>) -> Option<String> {
    let (code, said) = match hook {
        HookError::Backend(error) => {
            let db = error.as_db_error()?;
            (db.code().clone(), format!("{} ({})", db.message(), db.code().code()))
        }
        HookError::Message(message) => (code?.clone(), message.to_string()),
    };
    match code {
        SqlState::READ_ONLY_SQL_TRANSACTION => Some(read_only_session().to_owned()),
        SqlState::INSUFFICIENT_PRIVILEGE => Some(format!(
            "the role may not read or write the service's tables ({said}); grant it SELECT, INSERT, UPDATE and \
             DELETE on accounts, snapshots, meta, credentials, grants and replicas"
        )),
        _ => None,
    }
}

/// True for the SQLSTATEs of a server that cannot serve now, whatever the statement: a broken
/// connection (class 08), too many connections or no resources (class 53), a server that is
/// shutting down, crashed or is still starting (57P01, 57P02, 57P03), and a transaction the
/// server rolled back for a conflict with a concurrent one (class 40: a serialization failure
/// under a stricter `default_transaction_isolation`, a deadlock), which the same request
/// retried later can pass. Each rolls back whole: nothing was written.
///
/// So is a table that does not exist (42P01, undefined_table): the service's statements are
/// fixed and name only the tables it created on start, so one missing is a database that lost
/// its schema under the running service (dropped and created again empty, a restore in
/// progress, `pg_restore --clean` between its drop and its create), not a fault of the request
/// or of the service, and it ends when the schema is back. (A write refused by a server that
/// turned read-only under the running service, 25006, is an outage of its own,
/// [`StoreError::ReadOnly`], see [`pg`]: nothing was written, and it ends when the server takes
/// writes again; at start-up a read-only session is a setting to fix instead,
/// [`refused_settings`].) A database that does not exist
/// (3D000) is not listed: the server says so only on connecting, and every failure to connect
/// is an outage already ([`pool_error`]); at start-up it is a setting to fix
/// ([`refused_settings`]).
fn is_outage(code: &SqlState) -> bool {
    let code = code.code();
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("40")
        || matches!(code, "57P01" | "57P02" | "57P03" | "42P01")
}

/// True when an I/O error is among the causes of `error`.
fn io_cause(error: &tokio_postgres::Error) -> bool {
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        if error.is::<std::io::Error>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// Every pool failure but a busy pool is an outage: no connection could be had (the server
/// refused, or did not finish connecting within `connect`, see [`PgStore::connect`]). Every
/// connection staying busy past [`POOL_WAIT`] is [`StoreError::Busy`]: this replica's load,
/// not its database's failure.
fn pool_error(error: PoolError, connect: Duration) -> StoreError {
    let why = match &error {
        PoolError::Timeout(TimeoutType::Create | TimeoutType::Recycle) => {
            format!("PostgreSQL did not finish connecting within {} s (connect_timeout)", connect.as_secs_f64())
        }
        PoolError::Timeout(TimeoutType::Wait) => {
            return StoreError::Busy(format!("every pooled connection stayed busy for {} s", POOL_WAIT.as_secs_f64()));
        }
        // deadpool ends a hook's failure with a line break (and gives no cause): said in one
        // line, as a server's DETAIL or HINT is.
        PoolError::PostCreateHook(hook) => {
            format!("the check of a new connection failed: {}", hook.to_string().trim_end().replace('\n', "; "))
        }
        _ => with_causes(&error),
    };
    StoreError::Unavailable(format!("no connection from the pool: {why}"))
}

/// `error` and its causes, each said once: "error connecting to server" alone does not say
/// that the connection was refused. A wrapper that already ends with its cause's text is not
/// repeated.
fn with_causes(error: &dyn std::error::Error) -> String {
    let causes = std::iter::successors(error.source(), |cause| cause.source());
    causes.fold(error.to_string(), |message, cause| {
        let cause = cause.to_string();
        if message.ends_with(&cause) { message } else { format!("{message}: {cause}") }
    })
}

/// The `statement_timeout` the URL's `options` set, or `None` when they set none.
///
/// The options are read as PostgreSQL reads them: split at white space (a backslash escapes the
/// next character), each setting given as `-c NAME=VALUE`, `-cNAME=VALUE` or `--NAME=VALUE`, a
/// dash in the name standing for an underscore, the name in any case, the last setting of a
/// name counting. The value is PostgreSQL's too: a number, decimals allowed, then optionally a
/// unit (`us`, `ms`, `s`, `min`, `h` or `d`; milliseconds without one), rounded to whole
/// milliseconds. A value that is not a duration, that PostgreSQL would refuse as too large,
/// that is 0 (which turns the bound off) or under [`MIN_STATEMENT_TIMEOUT`] is an error saying so.
pub fn url_statement_timeout(config: &tokio_postgres::Config) -> Result<Option<Duration>, String> {
    let Some(value) = config.get_options().and_then(|options| option_value(options, "statement_timeout")) else {
        return Ok(None);
    };
    timeout_value(&value)
        .map(Some)
        .map_err(|why| format!("the URL's options set statement_timeout to '{value}', {why}"))
}

/// Makes a new connection's session as strict as the service needs, where the server, database,
/// role or URL left it weaker, and no more (a stricter setting of theirs stays):
/// - `synchronous_commit` `off` becomes `on` (see [`url_durable_commits`]; `local`,
///   `remote_write`, `remote_apply` stay);
/// - `idle_in_transaction_session_timeout` becomes `idle` when it is off or longer: a replica
///   stopped between two statements of a write (a paused process) would otherwise hold the
///   snapshot counter's lock, and every replica's writes, for as long as it stays stopped; by
///   `idle` (the statement timeout and [`DEADLINE_MARGIN`]) the replica has given up on it.
pub async fn strengthen_session(client: &tokio_postgres::Client, idle: Duration) -> Result<(), tokio_postgres::Error> {
    let row = client
        .query_one(
            "SELECT current_setting('synchronous_commit'), \
             (SELECT setting::bigint FROM pg_settings WHERE name = 'idle_in_transaction_session_timeout')",
            &[],
        )
        .await?;
    let (commit, idle_ms): (String, i64) = (row.get(0), row.get(1));
    let ours = i64::try_from(idle.as_millis()).unwrap_or(i64::MAX);
    let mut set = Vec::new();
    if commit == "off" {
        set.push("SET synchronous_commit = on".to_owned());
    }
    if idle_ms == 0 || idle_ms > ours {
        set.push(format!("SET idle_in_transaction_session_timeout = {ours}"));
    }
    if !set.is_empty() {
        client.batch_execute(&set.join("; ")).await?;
    }
    Ok(())
}

/// Refuses a URL whose options turn `synchronous_commit` off (`off`, or a boolean false).
///
/// The service confirms a write once PostgreSQL has committed it, and the write opens a
/// snapshot under the next number. Committed asynchronously, a write can be lost in a crash of
/// the server after it was confirmed and read by other replicas; the counter then goes back and
/// the next write opens the lost number again, for another state, under which every cursor and
/// evidence token of the lost one would be read. So every connection commits synchronously:
/// the service sets `synchronous_commit=on` on a connection that has it `off`
/// ([`strengthen_session`]), and a URL may choose among the durable values only.
pub fn url_durable_commits(config: &tokio_postgres::Config) -> Result<(), String> {
    let Some(value) = config.get_options().and_then(|options| option_value(options, "synchronous_commit")) else {
        return Ok(());
    };
    let value = value.trim_matches(pg_space).to_ascii_lowercase();
    if matches!(value.as_str(), "off" | "false" | "no" | "0") {
        return Err(format!(
            "the URL's options set synchronous_commit to '{value}': a crash of the server could then lose \
             writes the service confirmed and give their snapshot numbers to other states; remove it \
             (the service commits with synchronous_commit=on)"
        ));
    }
    Ok(())
}

/// Refuses a URL whose options make every transaction read-only
/// (`-c default_transaction_read_only=on`, or another of PostgreSQL's spellings of true): the
/// service writes (the schema, the seed, every snapshot it opens), and each of its writes would
/// be refused, so it could never serve.
pub fn url_writable(config: &tokio_postgres::Config) -> Result<(), String> {
    let Some(value) = config.get_options().and_then(|options| option_value(options, "default_transaction_read_only"))
    else {
        return Ok(());
    };
    if pg_bool(&value) == Some(true) {
        return Err(format!(
            "the URL's options set default_transaction_read_only to '{value}', which cannot work: this service \
             writes, and every transaction of its sessions would be read-only; remove it (or give off)"
        ));
    }
    Ok(())
}

/// Why a session whose transactions are read-only cannot serve, and what to change.
fn read_only_session() -> &'static str {
    "the server makes this session's transactions read-only (default_transaction_read_only is on for the \
     server, the database or the role), which cannot work: this service writes; turn it off for the service \
     (ALTER ROLE ... SET default_transaction_read_only = off) or name a database that takes writes"
}

/// A boolean setting's value as PostgreSQL reads it (`on`, `off`, `true`, `false`, `yes`,
/// `no`, `1`, `0`, in any case, or a prefix of one that says which), or `None` for one it
/// refuses.
fn pg_bool(value: &str) -> Option<bool> {
    let value = value.trim_matches(pg_space).to_ascii_lowercase();
    let prefix = |word: &str, min: usize| value.len() >= min && word.starts_with(value.as_str());
    match value.as_str() {
        "1" => Some(true),
        "0" => Some(false),
        _ if prefix("true", 1) || prefix("yes", 1) || prefix("on", 2) => Some(true),
        _ if prefix("false", 1) || prefix("no", 1) || prefix("off", 2) => Some(false),
        _ => None,
    }
}

/// White space as PostgreSQL's `isspace` sees it in the options.
fn pg_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The value the last setting of `name` in the startup `options` gives (`""` for a setting
/// without `=`), or `None` when none names it.
fn option_value(options: &str, name: &str) -> Option<String> {
    let mut words = Vec::new();
    let mut chars = options.chars().peekable();
    loop {
        while chars.next_if(|c| pg_space(*c)).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut word = String::new();
        while let Some(c) = chars.next_if(|c| !pg_space(*c)) {
            match c {
                '\\' => word.extend(chars.next()),
                c => word.push(c),
            }
        }
        words.push(word);
    }
    let mut found = None;
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let setting = match word.strip_prefix("--").or_else(|| word.strip_prefix("-c")) {
            Some("") if word == "-c" => words.next(),
            Some(setting) => Some(setting.to_owned()),
            None => None,
        };
        let Some(setting) = setting else { continue };
        let (key, value) = setting.split_once('=').unwrap_or((&setting, ""));
        if key.replace('-', "_").eq_ignore_ascii_case(name) {
            found = Some(value.to_owned());
        }
    }
    found
}

/// A `statement_timeout` value as PostgreSQL reads it, or why it is not one this service accepts.
fn timeout_value(value: &str) -> Result<Duration, String> {
    const EXAMPLE: &str = "give a positive duration such as 5s, 500ms or 2min";
    let text = value.trim_matches(pg_space);
    let (number, unit) = text.split_at(text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len()));
    let number: f64 =
        number.parse().map_err(|_| format!("which is not a duration: {EXAMPLE} (milliseconds without a unit)"))?;
    let unit_ms = match unit.trim_start_matches(pg_space) {
        "us" => 0.001,
        "" | "ms" => 1.0,
        "s" => 1_000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        other => return Err(format!("whose unit '{other}' is none of us, ms, s, min, h and d: {EXAMPLE}")),
    };
    let ms = (number * unit_ms).round_ties_even();
    if ms > f64::from(i32::MAX) {
        return Err(format!("which is more than PostgreSQL accepts ({} ms, about 24 days)", i32::MAX));
    }
    if ms < 1.0 {
        return Err(format!(
            "which is 0 ms in whole milliseconds and turns the bound off: a statement waiting on a lock would hold its request for ever; {EXAMPLE}"
        ));
    }
    let least = MIN_STATEMENT_TIMEOUT.as_millis();
    if ms < least as f64 {
        return Err(format!(
            "which is too short: under {least} ms the server would cancel the service's ordinary statements, \
             the check it makes of each new connection among them, and it could never start or serve; {EXAMPLE}"
        ));
    }
    Ok(Duration::from_millis(ms as u64))
}

fn list_item(row: &Row) -> ListItem {
    ListItem { id: row.get(0), name: row.get(1), tenant: row.get(2), owner: row.get(3), created_at: row.get(4) }
}

fn account(row: &Row) -> Account {
    Account {
        id: row.get(0),
        name: row.get(1),
        tenant: row.get(2),
        owner: row.get(3),
        owner_email: row.get(4),
        description: row.get(5),
        created_at: row.get(6),
        secret_fingerprint: row.get(7),
        archived: row.get(8),
    }
}

/// The condition `filter` adds after `NOT archived`, its parameters numbered from `$first`.
fn condition<'a>(filter: &'a Filter, first: usize, params: &mut Vec<&'a (dyn ToSql + Sync)>) -> String {
    let mut sql = format!(" AND tenant = ANY(${first})");
    params.push(&filter.tenants);
    match &filter.owner {
        OwnerFilter::Any => {}
        OwnerFilter::Unowned => sql.push_str(" AND owner IS NULL"),
        OwnerFilter::Is(owner) => {
            sql.push_str(&format!(" AND owner = ${}", first + 1));
            params.push(owner);
        }
    }
    sql
}

impl PgStore {
    /// Connects a pool to the database at `url` (`postgres://user@host:port/db`).
    ///
    /// Nothing waits forever: tokio-postgres bounds only the TCP connection by `connect_timeout`,
    /// so a server that accepts and then never answers would hold the start-up (and later every
    /// request) for good. The pool bounds the whole of making a connection, PostgreSQL's
    /// start-up handshake included, by the same time (as libpq's `connect_timeout` does), and
    /// the wait for a busy pool by [`POOL_WAIT`]. Every connection is made with the URL's
    /// `statement_timeout`, else with [`STATEMENT_TIMEOUT`] added to its `options`; a value
    /// [`url_statement_timeout`] refuses is a configuration error.
    pub async fn connect(url: &str, retention: Duration) -> Result<PgStore, StoreError> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| StoreError::Config(format!("the PostgreSQL URL: {e}")))?;
        let connect_timeout = config.get_connect_timeout().copied().unwrap_or(CONNECT_TIMEOUT);
        config.connect_timeout(connect_timeout);
        let url_error = |e: String| StoreError::Config(format!("the PostgreSQL URL: {e}"));
        let theirs = url_statement_timeout(&config).map_err(url_error)?;
        url_durable_commits(&config).map_err(url_error)?;
        url_writable(&config).map_err(url_error)?;
        let statement_timeout = theirs.unwrap_or(STATEMENT_TIMEOUT);
        if theirs.is_none() {
            let ours = format!("-c statement_timeout={}", STATEMENT_TIMEOUT.as_millis());
            config.options(config.get_options().map_or_else(|| ours.clone(), |options| format!("{options} {ours}")));
        }
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .post_create(Hook::async_fn(move |client, _| {
                // The pool bounds making the connection, not its hooks: bounded here, as every
                // store operation is.
                let limit = statement_timeout + DEADLINE_MARGIN;
                Box::pin(async move {
                    let checked = tokio::time::timeout(limit, async {
                        strengthen_session(client, limit).await.map_err(HookError::Backend)?;
                        let tx = client.transaction().await.map_err(HookError::Backend)?;
                        take_place(&tx).await.map_err(|e| HookError::message(e.to_string()))?;
                        tx.commit().await.map_err(HookError::Backend)
                    });
                    checked.await.unwrap_or_else(|_| {
                        Err(HookError::message(format!(
                            "PostgreSQL did not answer the check of a new connection within {}",
                            seconds(limit)
                        )))
                    })
                })
            }))
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(connect_timeout))
            .recycle_timeout(Some(connect_timeout))
            .wait_timeout(Some(POOL_WAIT))
            .build()
            .map_err(|e| StoreError::Config(format!("the PostgreSQL connection pool: {e}")))?;
        let retention_ms = i64::try_from(retention.as_millis()).unwrap_or(i64::MAX);
        let store = PgStore { pool, retention_ms, connect_timeout, statement_timeout };
        // Fail on start, with the driver's reason, rather than on the first request.
        let first = FAILED_WITH.scope(std::cell::RefCell::new(None), async {
            let first = store.pool.get().await;
            (first, FAILED_WITH.with(|code| code.borrow_mut().take()))
        });
        match first.await {
            (Ok(client), _) => drop(client),
            (Err(PoolError::Backend(error)), _) if let Some(why) = refused_settings(&error) => {
                return Err(StoreError::Config(format!("--db: {why}")));
            }
            (Err(PoolError::PostCreateHook(hook)), code) if let Some(why) = refused_check(&hook, code.as_ref()) => {
                return Err(StoreError::Config(format!("--db: {why}")));
            }
            (Err(error), _) => return Err(pool_error(error, connect_timeout)),
        }
        Ok(store)
    }

    async fn client(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(|e| pool_error(e, self.connect_timeout))
    }

    /// Runs one store operation on a connection from the pool, bounded by the statement timeout
    /// plus [`DEADLINE_MARGIN`]: see [`Self::within`].
    async fn bounded<T>(&self, work: impl AsyncFnOnce(&mut Object) -> Result<T, StoreError>) -> Result<T, StoreError> {
        self.within(self.statement_timeout, work).await
    }

    /// Runs one store operation on a connection from the pool: `work` gets the connection, whose
    /// statements the server cancels after `limit` (the `statement_timeout` in force), and has
    /// `limit` plus [`DEADLINE_MARGIN`] to finish. Past that the server does not answer, or too
    /// slowly: `work` is dropped where it stands, and the connection with it. It is taken out of
    /// the pool and closed rather than recycled, since the reply to the statement it was waiting
    /// for would come first on it, or never (the pool's recycling only checks that a connection
    /// is not closed); closing it also ends its open transaction, if any, without a commit,
    /// unless its COMMIT was already sent: the server may have applied it, and the error says
    /// so ([`StoreError::OutcomeUnknown`]) rather than that nothing changed. The
    /// pool makes a new connection for the next request. A connection whose statement the
    /// server cancelled is fine, by contrast: the error came back on it, and the transaction it
    /// was in is rolled back when dropped.
    async fn within<T>(
        &self,
        limit: Duration,
        work: impl AsyncFnOnce(&mut Object) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut client = self.client().await?;
        let deadline = limit + DEADLINE_MARGIN;
        let sent = Arc::new(AtomicBool::new(false));
        let bounded = COMMIT_SENT.scope(sent.clone(), STATEMENT_BOUND.scope(limit, work(&mut client)));
        match tokio::time::timeout(deadline, bounded).await {
            Ok(done) => done,
            Err(_) => {
                drop(Object::take(client));
                let said = format!(
                    "PostgreSQL did not answer within {} (statement_timeout {} + {}); the connection was closed",
                    seconds(deadline),
                    seconds(limit),
                    seconds(DEADLINE_MARGIN)
                );
                if sent.load(Ordering::SeqCst) {
                    Err(StoreError::OutcomeUnknown(format!("{said} while its COMMIT was in flight")))
                } else {
                    Err(StoreError::Unavailable(said))
                }
            }
        }
    }

    /// Seeds accounts `1..=count` as the database's first snapshot ([`first_snapshot`]) inside
    /// `tx`, one `INSERT … SELECT unnest(…)` per chunk.
    async fn seed(tx: &deadpool_postgres::Transaction<'_>, count: u32) -> Result<(), StoreError> {
        let first = first_snapshot() as i64;
        let insert = tx
            .prepare(&format!(
                "INSERT INTO accounts (valid_from, valid_to, {COLUMNS})
                 SELECT {first}, NULL, * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                                              $6::text[], $7::text[], $8::text[], $9::bool[])"
            ))
            .await
            .map_err(pg)?;
        let mut start = 1;
        while start <= u64::from(count) {
            let end = (start + SEED_CHUNK - 1).min(u64::from(count));
            let accounts: Vec<Account> = (start..=end).map(|n| seed::seeded(n).account).collect();
            let column = |f: fn(&Account) -> Option<String>| accounts.iter().map(f).collect::<Vec<_>>();
            let (ids, names, tenants) =
                (column(|a| Some(a.id.clone())), column(|a| Some(a.name.clone())), column(|a| Some(a.tenant.clone())));
            let (owners, emails, descriptions) =
                (column(|a| a.owner.clone()), column(|a| a.owner_email.clone()), column(|a| a.description.clone()));
            let (created, fingerprints) =
                (column(|a| Some(a.created_at.clone())), column(|a| Some(a.secret_fingerprint.clone())));
            let archived: Vec<bool> = accounts.iter().map(|a| a.archived).collect();
            tx.execute(
                &insert,
                &[&ids, &names, &tenants, &owners, &emails, &descriptions, &created, &fingerprints, &archived],
            )
            .await
            .map_err(pg)?;
            start = end + 1;
        }
        tx.execute(&format!("INSERT INTO snapshots (number, created_at_ms) VALUES ($1, {NOW_MS})"), &[&first])
            .await
            .map_err(pg)?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('current', $3), ('next_id', $1), ('seeded', $2), ('pruned_before', $3),
                 ('accounts_held', $4)",
            &[&(i64::from(count) + 1), &i64::from(count), &first, &i64::from(count > 0)],
        )
        .await
        .map_err(pg)?;
        Ok(())
    }

    /// Refuses a database whose tables are not [`LOADED`], as an outage
    /// ([`StoreError::Unavailable`], answered 503 with `Retry-After`) saying what it lacks: one
    /// emptied and being copied in again, table by table (`TRUNCATE` or `DELETE`, then
    /// `pg_restore --data-only` or `COPY`), until its last table is in. Every store that serves
    /// holds a credential, the row of its current snapshot, and an account once `meta` says so
    /// (`accounts_held`, set by the seed and by a created account, and cleared only by a pruning
    /// round that left the table empty).
    async fn loaded(client: &impl GenericClient) -> Result<(), StoreError> {
        let row = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'current'),
                        EXISTS (SELECT 1 FROM credentials),
                        EXISTS (SELECT 1 FROM snapshots WHERE number = (SELECT value FROM meta WHERE key = 'current')),
                        COALESCE((SELECT value FROM meta WHERE key = 'accounts_held'), 0) = 0
                            OR EXISTS (SELECT 1 FROM accounts)",
                &[],
            )
            .await
            .map_err(pg)?;
        let lacks = [
            (0, "meta holds no snapshot counter"),
            (1, "credentials is empty"),
            (2, "snapshots lacks the current snapshot"),
            (3, "accounts is empty though meta says it holds accounts"),
        ];
        let lacking: Vec<&str> =
            lacks.iter().filter(|(at, _)| !row.get::<_, bool>(*at)).map(|(_, what)| *what).collect();
        if lacking.is_empty() {
            return Ok(());
        }
        Err(StoreError::Unavailable(format!(
            "the database's tables are being loaded ({}): the service serves again once they are",
            lacking.join(", ")
        )))
    }

    /// Creates the schema in `tx` when any of it is missing, and checks that the role may do
    /// what the service does: a setting to fix ([`StoreError::Config`], exit 2 at start-up) when
    /// it may not, never an outage to wait out.
    ///
    /// `CREATE TABLE IF NOT EXISTS` needs `CREATE` on the schema even when the table exists, so
    /// a schema that is all there is not created again: an application role that may read and
    /// write the tables, and not create any (PostgreSQL 15's default on `public`), starts on a
    /// database whose tables its owner created (by starting the service once). When something
    /// is missing and the role may not create it, the error names it and what to grant. A
    /// session whose transactions are read-only (`default_transaction_read_only` on for the
    /// server, the database or the role) is refused too: the service writes.
    async fn create_schema(tx: &deadpool_postgres::Transaction<'_>) -> Result<(), StoreError> {
        let row = tx
            .query_one(
                "SELECT current_setting('transaction_read_only') = 'on', quote_ident(current_user),
                        quote_ident(COALESCE(current_schema(), 'public')),
                        ARRAY(SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL)",
                &[&&SCHEMA_OBJECTS[..]],
            )
            .await
            .map_err(pg)?;
        let (read_only, role, schema, missing): (bool, String, String, Vec<String>) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        if read_only {
            return Err(StoreError::Config(format!("--db: {}", read_only_session())));
        }
        if !missing.is_empty() {
            tx.batch_execute(SCHEMA).await.map_err(|error| match error.as_db_error() {
                Some(db) if *db.code() == SqlState::INSUFFICIENT_PRIVILEGE => StoreError::Config(format!(
                    "--db: the database lacks the service's {} {}, and the role {role} may not create {}: {} \
                     (42501); grant it CREATE on the schema (GRANT CREATE ON SCHEMA {schema} TO {role}), or start \
                     the service once as a role that may (the tables' owner), which creates them",
                    if missing.len() == 1 { "table or index" } else { "tables and indexes" },
                    missing.join(", "),
                    if missing.len() == 1 { "it" } else { "them" },
                    db.message(),
                )),
                _ => pg(error),
            })?;
        }
        let lacking: Vec<String> = tx
            .query(
                "SELECT need.name || ' (' || string_agg(need.privilege, ', ' ORDER BY need.at) || ')'
                 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS need (name, privilege, at)
                 WHERE NOT has_table_privilege(need.name, need.privilege)
                 GROUP BY need.name ORDER BY min(need.at)",
                &[
                    &PRIVILEGES.map(|(table, _)| table).as_slice(),
                    &PRIVILEGES.map(|(_, privilege)| privilege).as_slice(),
                ],
            )
            .await
            .map_err(pg)?
            .iter()
            .map(|row| row.get(0))
            .collect();
        if !lacking.is_empty() {
            return Err(StoreError::Config(format!(
                "--db: the role {role} lacks privileges the service needs on its tables: {}; grant them (GRANT \
                 SELECT, INSERT, UPDATE, DELETE ON accounts, snapshots, meta, credentials, grants, replicas TO {role})",
                lacking.join(", ")
            )));
        }
        Ok(())
    }

    /// Checks that `snapshot` can still be read, in `client`'s transaction: `Ok(true)` when it
    /// can, [`StoreError::SnapshotGone`] when it cannot, and `Ok(false)` when the database is not
    /// the one its snapshots were numbered in ([`same_place`], checked in the same statement).
    /// The caller then takes the predecessor's place ([`take_place`], in a transaction that may
    /// write) and asks again ([`ASKED_AFTER_TAKING_PLACE`]).
    async fn retained(&self, client: &impl GenericClient, snapshot: Snapshot) -> Result<bool, StoreError> {
        let gone = Err(StoreError::SnapshotGone(SnapshotGone(snapshot)));
        let Ok(number) = i64::try_from(snapshot) else { return gone };
        let row = client
            .query_one(
                &format!(
                    "SELECT (SELECT value FROM meta WHERE key = 'current'),
                            (SELECT value FROM meta WHERE key = 'pruned_before'),
                            (SELECT created_at_ms FROM snapshots WHERE number = $1::bigint + 1),
                            {NOW_MS},
                            {}",
                    same_place()
                ),
                &[&number],
            )
            .await
            .map_err(pg)?;
        if !row.get::<_, bool>(4) {
            return Ok(false);
        }
        let (current, pruned_before): (i64, i64) = (row.get(0), row.get(1));
        if number == 0 || number > current || number < pruned_before {
            return gone;
        }
        if number == current {
            return Ok(true);
        }
        match row.get::<_, Option<i64>>(2) {
            Some(at) if row.get::<_, i64>(3).saturating_sub(at) <= self.retention_ms => Ok(true),
            _ => gone,
        }
    }

    /// Locks the snapshot counter for this transaction (every writer takes it first) and returns
    /// it, once the database is found to be the one its snapshots were numbered in: in the same
    /// statement ([`same_place`]), and when it is not, this transaction takes its predecessor's
    /// place ([`take_place`]) before anything is written, so that a write never opens a snapshot
    /// under a name the predecessor gave. The transaction must then be committed for the jump
    /// to hold, even by a write that changes nothing else.
    async fn lock_current(tx: &deadpool_postgres::Transaction<'_>) -> Result<Snapshot, StoreError> {
        let sql = format!("SELECT value, {} FROM meta WHERE key = 'current' FOR UPDATE", same_place());
        let row = counter(tx, &sql).await?;
        if row.get::<_, bool>(1) {
            return Ok(row.get::<_, i64>(0) as u64);
        }
        take_place(tx).await?;
        Self::loaded(tx).await?;
        Self::lock_counter(tx).await
    }

    /// Locks the snapshot counter for this transaction and returns it, without checking where
    /// the database stands ([`take_place`] takes it so; every other caller takes
    /// [`Self::lock_current`]).
    async fn lock_counter(tx: &deadpool_postgres::Transaction<'_>) -> Result<Snapshot, StoreError> {
        let row = counter(tx, "SELECT value FROM meta WHERE key = 'current' FOR UPDATE").await?;
        Ok(row.get::<_, i64>(0) as u64)
    }

    /// Opens snapshot `locked + 1` (the counter is locked by [`Self::lock_current`]).
    async fn open_snapshot(tx: &deadpool_postgres::Transaction<'_>, locked: Snapshot) -> Result<Snapshot, StoreError> {
        let next = locked as i64 + 1;
        tx.execute(&format!("INSERT INTO snapshots (number, created_at_ms) VALUES ($1, {NOW_MS})"), &[&next])
            .await
            .map_err(pg)?;
        tx.execute("UPDATE meta SET value = $1 WHERE key = 'current'", &[&next]).await.map_err(pg)?;
        Ok(next as u64)
    }

    async fn current_version(client: &impl GenericClient, id: &str) -> Result<Option<Account>, StoreError> {
        if !storable(id) {
            return Ok(None);
        }
        let row = client
            .query_opt(&format!("SELECT {COLUMNS} FROM accounts WHERE id = $1 AND valid_to IS NULL"), &[&id])
            .await
            .map_err(pg)?;
        Ok(row.as_ref().map(account))
    }

    async fn close_version(tx: &deadpool_postgres::Transaction<'_>, id: &str, at: Snapshot) -> Result<(), StoreError> {
        tx.execute("UPDATE accounts SET valid_to = $1 WHERE id = $2 AND valid_to IS NULL", &[&(at as i64), &id])
            .await
            .map_err(pg)?;
        Ok(())
    }

    async fn insert_version(
        tx: &deadpool_postgres::Transaction<'_>,
        a: &Account,
        at: Snapshot,
    ) -> Result<(), StoreError> {
        tx.execute(
            &format!(
                "INSERT INTO accounts (valid_from, valid_to, {COLUMNS}) VALUES ($1, NULL, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            ),
            &[
                &(at as i64),
                &a.id,
                &a.name,
                &a.tenant,
                &a.owner,
                &a.owner_email,
                &a.description,
                &a.created_at,
                &a.secret_fingerprint,
                &a.archived,
            ],
        )
        .await
        .map_err(pg)?;
        Ok(())
    }

    /// [`Grantee::check`] in a write's transaction, once it holds the counter's lock (which a
    /// revocation takes too).
    async fn check_grantee(
        tx: &deadpool_postgres::Transaction<'_>,
        by: Option<&Grantee<'_>>,
    ) -> Result<(), StoreError> {
        let stored = match by {
            Some(by) => Self::grant_of(tx, by.name).await?,
            None => None,
        };
        Grantee::check(by, |_| Ok(stored))
    }

    async fn grant_of(client: &impl GenericClient, name: &str) -> Result<Option<Grant>, StoreError> {
        if !storable(name) {
            return Ok(None);
        }
        let Some(row) =
            client.query_opt("SELECT permission_epoch FROM credentials WHERE name = $1", &[&name]).await.map_err(pg)?
        else {
            return Ok(None);
        };
        let tenants = client
            .query("SELECT tenant FROM grants WHERE credential = $1", &[&name])
            .await
            .map_err(pg)?
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect();
        Ok(Some(Grant { tenants, epoch: row.get::<_, i64>(0) as u64 }))
    }
}

#[async_trait::async_trait]
impl AccountStore for PgStore {
    async fn prepare(&self, accounts: u32, grants: &[(&str, &[&str])]) -> Result<u32, StoreError> {
        // Longer than a request's bound: seeding many accounts, or waiting for another replica that does.
        let limit = PREPARE_TIMEOUT.max(self.statement_timeout);
        self.within(limit, async |client| {
            let tx = client.transaction().await.map_err(pg)?;
            let limit_ms = limit.as_millis();
            tx.batch_execute(&format!(
                "SET LOCAL statement_timeout = {limit_ms}; SET LOCAL idle_in_transaction_session_timeout = {limit_ms}"
            ))
            .await
            .map_err(pg)?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PREPARE_LOCK]).await.map_err(pg)?;
            Self::create_schema(&tx).await?;
            let snapshots: i64 = tx.query_one("SELECT COUNT(*) FROM snapshots", &[]).await.map_err(pg)?.get(0);
            if snapshots == 0 {
                let started = std::time::Instant::now();
                tracing::info!(accounts, "seeding the empty store");
                Self::seed(&tx, accounts).await?;
                tracing::info!(accounts, ms = super::super::telemetry::millis(started.elapsed()), "seeded");
            }
            let credentials: i64 = tx.query_one("SELECT COUNT(*) FROM credentials", &[]).await.map_err(pg)?.get(0);
            if credentials == 0 {
                for (name, tenants) in grants {
                    tx.execute("INSERT INTO credentials (name, permission_epoch) VALUES ($1, 1)", &[name])
                        .await
                        .map_err(pg)?;
                    for tenant in *tenants {
                        tx.execute("INSERT INTO grants (credential, tenant) VALUES ($1, $2)", &[name, tenant])
                            .await
                            .map_err(pg)?;
                    }
                }
            }
            // A database prepared by a version that kept no `accounts_held` says it now.
            tx.execute(
                "INSERT INTO meta (key, value) SELECT 'accounts_held', (EXISTS (SELECT 1 FROM accounts))::int
                 WHERE EXISTS (SELECT 1 FROM meta WHERE key = 'current')
                 ON CONFLICT (key) DO NOTHING",
                &[],
            )
            .await
            .map_err(pg)?;
            take_place(&tx).await?;
            // A database whose seeding left no record takes the ids given so far, once.
            tx.execute(
                "INSERT INTO meta (key, value) SELECT 'seeded', value - 1 FROM meta WHERE key = 'next_id'
                 ON CONFLICT (key) DO NOTHING",
                &[],
            )
            .await
            .map_err(pg)?;
            let seeded: i64 =
                tx.query_one("SELECT value FROM meta WHERE key = 'seeded'", &[]).await.map_err(pg)?.get(0);
            commit(tx).await?;
            Ok(u32::try_from(seeded).unwrap_or(0))
        })
        .await
    }

    async fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError> {
        self.bounded(async |client| {
            let grant = Self::grant_of(&*client, name).await?;
            // A credential not known to a store whose tables are being loaded may be one not
            // copied in yet: an outage, never "not known" (which a client takes for a
            // revocation); so may the grants of one without any.
            if grant.as_ref().is_none_or(|grant| grant.tenants.is_empty()) {
                Self::loaded(&*client).await?;
            }
            Ok(grant)
        })
        .await
    }

    async fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError> {
        if !storable(name) {
            return Ok(None);
        }
        self.bounded(async |client| {
            let tx = client.transaction().await.map_err(pg)?;
            // Ordered with archives (each takes the counter first): one in flight commits before
            // this, or reads the new permission epoch after it and is refused.
            Self::lock_current(&tx).await?;
            let removed = tx
                .execute("DELETE FROM grants WHERE credential = $1 AND tenant = $2", &[&name, &tenant])
                .await
                .map_err(pg)?;
            if removed > 0 {
                tx.execute("UPDATE credentials SET permission_epoch = permission_epoch + 1 WHERE name = $1", &[&name])
                    .await
                    .map_err(pg)?;
            }
            let grant = Self::grant_of(&tx, name).await?;
            commit(tx).await?;
            Ok(grant)
        })
        .await
    }

    async fn current_snapshot(&self) -> Result<Snapshot, StoreError> {
        self.bounded(async |client| {
            // The snapshot a new traversal reads at: never one named before a jump still to make.
            let sql = format!("SELECT value, {} FROM meta WHERE key = 'current'", same_place());
            let row = counter(&*client, &sql).await?;
            if row.get::<_, bool>(1) {
                return Ok(row.get::<_, i64>(0) as u64);
            }
            take_place_apart(client).await?;
            let row = counter(&*client, "SELECT value FROM meta WHERE key = 'current'").await?;
            Ok(row.get::<_, i64>(0) as u64)
        })
        .await
    }

    async fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError> {
        self.bounded(async |client| {
            for _ in 0..ASKED_AFTER_TAKING_PLACE {
                if self.retained(&*client, snapshot).await? {
                    return Ok(());
                }
                take_place_apart(client).await?;
            }
            Err(StoreError::SnapshotGone(SnapshotGone(snapshot)))
        })
        .await
    }

    async fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        self.bounded(async |client| {
            for _ in 0..ASKED_AFTER_TAKING_PLACE {
                let tx = consistent_read(client).await?;
                if !self.retained(&tx, snapshot).await? {
                    drop(tx);
                    take_place_apart(client).await?;
                    continue;
                }
                if filter.tenants.is_empty() {
                    return Ok(Vec::new());
                }
                let number = snapshot as i64;
                let after = after.unwrap_or("");
                let mut params: Vec<&(dyn ToSql + Sync)> = vec![&number, &after];
                let condition = condition(filter, 3, &mut params);
                let sql = format!(
                    "SELECT id, name, tenant, owner, created_at FROM accounts
                     WHERE id > $2 AND {VISIBLE_AT} AND NOT archived{condition}
                     ORDER BY id LIMIT {limit}"
                );
                let rows = tx.query(&sql, &params).await.map_err(pg)?;
                return Ok(rows.iter().map(list_item).collect());
            }
            Err(StoreError::SnapshotGone(SnapshotGone(snapshot)))
        })
        .await
    }

    async fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError> {
        self.bounded(async |client| {
            let number = snapshot as i64;
            let mut params: Vec<&(dyn ToSql + Sync)> = vec![&number];
            let condition = condition(filter, 2, &mut params);
            let sql = format!(
                "SELECT id, name, tenant, owner, created_at FROM accounts
                 WHERE {VISIBLE_AT} AND NOT archived{condition}
                 ORDER BY id LIMIT {limit} OFFSET {offset}"
            );
            let rows = client.query(&sql, &params).await.map_err(pg)?;
            Ok(rows.iter().map(list_item).collect())
        })
        .await
    }

    async fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError> {
        self.bounded(async |client| {
            for _ in 0..ASKED_AFTER_TAKING_PLACE {
                let tx = consistent_read(client).await?;
                if !self.retained(&tx, snapshot).await? {
                    drop(tx);
                    take_place_apart(client).await?;
                    continue;
                }
                if filter.tenants.is_empty() {
                    return Ok(0);
                }
                let number = snapshot as i64;
                let mut params: Vec<&(dyn ToSql + Sync)> = vec![&number];
                let condition = condition(filter, 2, &mut params);
                let sql = format!("SELECT COUNT(*) FROM accounts WHERE {VISIBLE_AT} AND NOT archived{condition}");
                let count: i64 = tx.query_one(&sql, &params).await.map_err(pg)?.get(0);
                return Ok(count as u64);
            }
            Err(StoreError::SnapshotGone(SnapshotGone(snapshot)))
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<Account>, StoreError> {
        self.bounded(async |client| {
            let account = Self::current_version(&*client, id).await?;
            // Not found in a store whose tables are being loaded: perhaps not copied in yet.
            if account.is_none() {
                Self::loaded(&*client).await?;
            }
            Ok(account)
        })
        .await
    }

    async fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError> {
        self.bounded(async |client| {
            let tx = consistent_read(client).await?;
            let snapshot: i64 = counter(&tx, "SELECT value FROM meta WHERE key = 'current'").await?.get(0);
            // A copy of a half-loaded table would answer searches as if it were the inventory.
            Self::loaded(&tx).await?;
            let rows = tx
                .query(&format!("SELECT {COLUMNS} FROM accounts WHERE valid_to IS NULL ORDER BY id"), &[])
                .await
                .map_err(pg)?;
            Ok((snapshot as u64, rows.iter().map(account).collect()))
        })
        .await
    }

    async fn create(&self, by: Option<&Grantee<'_>>, new: NewAccount) -> Result<(Account, Snapshot), StoreError> {
        self.bounded(async move |client| {
            let tx = client.transaction().await.map_err(pg)?;
            let locked = Self::lock_current(&tx).await?;
            Self::check_grantee(&tx, by).await?;
            let snapshot = Self::open_snapshot(&tx, locked).await?;
            let number: i64 = tx
                .query_one("UPDATE meta SET value = value + 1 WHERE key = 'next_id' RETURNING value - 1", &[])
                .await
                .map_err(pg)?
                .get(0);
            let account = Account::created(new, number as u64);
            Self::insert_version(&tx, &account, snapshot).await?;
            // The table holds an account from now on (see `loaded`).
            tx.execute("UPDATE meta SET value = 1 WHERE key = 'accounts_held' AND value <> 1", &[])
                .await
                .map_err(pg)?;
            commit(tx).await?;
            Ok((account, snapshot))
        })
        .await
    }

    async fn set_owner(
        &self,
        by: Option<&Grantee<'_>>,
        id: &str,
        owner: Option<String>,
    ) -> Result<OwnerSet, StoreError> {
        self.bounded(async move |client| {
            let tx = client.transaction().await.map_err(pg)?;
            let locked = Self::lock_current(&tx).await?;
            Self::check_grantee(&tx, by).await?;
            let mut account = Self::current_version(&tx, id).await?.ok_or(StoreError::NotFound)?;
            if account.archived {
                return Err(StoreError::Archived);
            }
            if account.owner == owner {
                // Nothing changes: no snapshot, so evidence and cursors of the current one hold.
                // Committed all the same: the lock may have taken a predecessor's place, and
                // `locked` is then a snapshot of that jump.
                commit(tx).await?;
                return Ok(OwnerSet { account, snapshot: locked, opened: false });
            }
            let snapshot = Self::open_snapshot(&tx, locked).await?;
            account.owner_email = owner.as_deref().map(seed::owner_email);
            account.owner = owner;
            Self::close_version(&tx, id, snapshot).await?;
            Self::insert_version(&tx, &account, snapshot).await?;
            commit(tx).await?;
            Ok(OwnerSet { account, snapshot, opened: true })
        })
        .await
    }

    async fn delete(&self, by: Option<&Grantee<'_>>, id: &str) -> Result<(Account, Snapshot), StoreError> {
        self.bounded(async |client| {
            let tx = client.transaction().await.map_err(pg)?;
            let locked = Self::lock_current(&tx).await?;
            Self::check_grantee(&tx, by).await?;
            let account = Self::current_version(&tx, id).await?.ok_or(StoreError::NotFound)?;
            if account.archived {
                return Err(StoreError::Archived);
            }
            let snapshot = Self::open_snapshot(&tx, locked).await?;
            Self::close_version(&tx, id, snapshot).await?;
            commit(tx).await?;
            Ok((account, snapshot))
        })
        .await
    }

    async fn archive(
        &self,
        by: &Grantee<'_>,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError> {
        self.bounded(async |client| {
            let tx = client.transaction().await.map_err(pg)?;
            // Taken first: a concurrent archive of the same targets waits here, then sees this one's
            // rows; a revocation takes it too, so it is ordered with archives.
            let locked = Self::lock_current(&tx).await?;
            // Acting on permissions a revocation committed before this lock ended is refused.
            if !by.still_holds(Self::grant_of(&tx, by.name).await?.as_ref()) {
                return Ok((ArchiveOutcome::PermissionsChanged, Vec::new()));
            }
            // The lock found the database in its place, in this transaction: a database
            // elsewhere now would be one changed under it, whose snapshots are all gone.
            if !self.retained(&tx, snapshot).await? {
                return Err(StoreError::SnapshotGone(SnapshotGone(snapshot)));
            }
            let mut missing = Vec::new();
            for id in ids {
                if !storable(id) {
                    missing.push(id.clone());
                    continue;
                }
                let row = tx
                    .query_opt(
                        &format!("SELECT {COLUMNS} FROM accounts WHERE id = $2 AND {VISIBLE_AT}"),
                        &[&(snapshot as i64), id],
                    )
                    .await
                    .map_err(pg)?;
                if !row.as_ref().map(account).is_some_and(|a| then.matches(&a)) {
                    missing.push(id.clone());
                }
            }
            if !missing.is_empty() {
                return Ok((ArchiveOutcome::NotInEvidence(missing), Vec::new()));
            }
            let mut changed = Vec::new();
            let mut targets = Vec::new();
            for id in ids {
                match Self::current_version(&tx, id).await? {
                    Some(account) if now.matches(&account) => targets.push(account),
                    _ => changed.push(id.clone()),
                }
            }
            if !changed.is_empty() {
                return Ok((ArchiveOutcome::Changed(changed), Vec::new()));
            }
            let archived_at = Self::open_snapshot(&tx, locked).await?;
            for account in &mut targets {
                account.archived = true;
                Self::close_version(&tx, &account.id, archived_at).await?;
                Self::insert_version(&tx, account, archived_at).await?;
            }
            commit(tx).await?;
            Ok((ArchiveOutcome::Archived(archived_at), targets))
        })
        .await
    }

    async fn prune(&self) -> Result<Snapshot, StoreError> {
        self.bounded(async |client| {
            let tx = client.transaction().await.map_err(pg)?;
            // A database that took another's place while connections to it lived on is found
            // here too, each round, by the lock's check, when no write or read found it first.
            Self::lock_current(&tx).await?;
            let before: i64 =
                tx.query_one("SELECT value FROM meta WHERE key = 'pruned_before'", &[]).await.map_err(pg)?.get(0);
            // The newest snapshot created before the cutoff is the oldest one still retained. The
            // cutoff is of the longest retention among live replicas: a replica started with a
            // shorter one must not expire the cursors and evidence the others handed out.
            let alive_ms = i64::try_from(ALIVE.as_millis()).unwrap_or(i64::MAX);
            let oldest: Option<i64> = tx
                .query_one(
                    &format!(
                        "SELECT MAX(number) FROM snapshots WHERE created_at_ms < {NOW_MS} - GREATEST($1, (
                             SELECT COALESCE(MAX(retention_ms), 0) FROM replicas
                             WHERE seen_at_ms >= {NOW_MS} - $2::bigint))"
                    ),
                    &[&self.retention_ms, &alive_ms],
                )
                .await
                .map_err(pg)?
                .get(0);
            let oldest = oldest.map_or(before, |n| n.max(before));
            if oldest > before {
                tx.execute("DELETE FROM accounts WHERE valid_to IS NOT NULL AND valid_to <= $1", &[&oldest])
                    .await
                    .map_err(pg)?;
                tx.execute("DELETE FROM snapshots WHERE number < $1", &[&oldest]).await.map_err(pg)?;
                // Whether the table still holds an account: one emptied by this round is not
                // one being loaded (see `loaded`).
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('accounts_held', (EXISTS (SELECT 1 FROM accounts))::int)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    &[],
                )
                .await
                .map_err(pg)?;
                tx.execute("UPDATE meta SET value = $1 WHERE key = 'pruned_before'", &[&oldest]).await.map_err(pg)?;
            }
            commit(tx).await?;
            Ok(oldest as u64)
        })
        .await
    }

    async fn version_count(&self) -> Result<u64, StoreError> {
        self.bounded(async |client| {
            let row = client.query_one("SELECT COUNT(*) FROM accounts", &[]).await.map_err(pg)?;
            Ok(row.get::<_, i64>(0) as u64)
        })
        .await
    }

    async fn fingerprint(&self) -> Result<String, StoreError> {
        use sha2::{Digest, Sha256};
        self.bounded(async |client| {
            let tx = consistent_read(client).await?;
            let current: i64 = counter(&tx, "SELECT value FROM meta WHERE key = 'current'").await?.get(0);
            let mut hasher = Sha256::new();
            hasher.update((current as u64).to_le_bytes());
            let rows = tx
                .query(
                    &format!(
                        "SELECT concat_ws('|', valid_from, COALESCE(valid_to, -1), {COLUMNS})
                         FROM accounts ORDER BY id, valid_from"
                    ),
                    &[],
                )
                .await
                .map_err(pg)?;
            for row in rows {
                hasher.update(row.get::<_, String>(0).as_bytes());
                hasher.update(b"\n");
            }
            Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
        })
        .await
    }

    async fn check_in(&self, me: &ReplicaSettings, alive: Duration) -> Result<Vec<ReplicaSettings>, StoreError> {
        let alive_ms = i64::try_from(alive.as_millis()).unwrap_or(i64::MAX);
        self.bounded(async |client| {
            client
                .execute(
                    &format!(
                        "INSERT INTO replicas (replica, retention_ms, keys, seen_at_ms) VALUES ($1, $2, $3, {NOW_MS})
                         ON CONFLICT (replica) DO UPDATE SET retention_ms = EXCLUDED.retention_ms,
                             keys = EXCLUDED.keys, seen_at_ms = EXCLUDED.seen_at_ms"
                    ),
                    &[&me.replica, &me.retention_ms, &me.keys_text()],
                )
                .await
                .map_err(pg)?;
            // Replicas long gone are forgotten, so the table stays as small as the fleet.
            client
                .execute(&format!("DELETE FROM replicas WHERE seen_at_ms < {NOW_MS} - 10 * $1::bigint"), &[&alive_ms])
                .await
                .map_err(pg)?;
            let rows = client
                .query(
                    &format!(
                        "SELECT replica, retention_ms, keys FROM replicas
                         WHERE replica <> $1 AND seen_at_ms >= {NOW_MS} - $2::bigint ORDER BY replica"
                    ),
                    &[&me.replica, &alive_ms],
                )
                .await
                .map_err(pg)?;
            Ok(rows.iter().map(|row| ReplicaSettings::from_stored(row.get(0), row.get(1), row.get(2))).collect())
        })
        .await
    }

    async fn check_out(&self, replica: &str) -> Result<(), StoreError> {
        self.bounded(async |client| {
            client.execute("DELETE FROM replicas WHERE replica = $1", &[&replica]).await.map_err(pg).map(drop)
        })
        .await
    }
    fn connections(&self) -> Option<Connections> {
        let status = self.pool.status();
        Some(Connections { max: status.max_size, open: status.size, idle: status.available, waiting: status.waiting })
    }
}

/// A read-only transaction that sees one state of the database throughout (repeatable read),
/// so a page, a count or a dump reads one snapshot whatever writers do meanwhile.
async fn consistent_read(client: &mut Object) -> Result<deadpool_postgres::Transaction<'_>, StoreError> {
    client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start().await.map_err(pg)
}
