//! The store behind the service: one trait, [`AccountStore`], and two implementations, SQLite
//! ([`super::db::SqliteStore`], embedded, the default) and PostgreSQL ([`postgres::PgStore`],
//! shared by several replicas). The shared types (accounts, filters, snapshots, errors) live in
//! [`super::db`]; each engine writes its own SQL for them.
//!
//! The trait is object-safe through `async-trait`: the backend is chosen at run time from
//! `--db`, so the service holds an `Arc<dyn AccountStore>`, and native `async fn` in traits
//! cannot be called through `dyn`.

pub mod postgres;
pub mod sqlite;
pub mod watched;

use std::sync::Arc;
use std::time::Duration;

use super::db::{
    Account, ArchiveOutcome, Filter, Grant, Grantee, ListItem, NewAccount, OwnerSet, Snapshot, SqliteStore, StoreError,
};
use super::replicas::ReplicaSettings;
use tokio_postgres::config::{ChannelBinding, SslMode, TargetSessionAttrs};

/// Whether `text` can be an id or a name the store holds: PostgreSQL's `text` cannot hold a NUL
/// character, so no stored one does. A client's id or name with one names no row, and is
/// answered as one that does not exist (as SQLite answers it), never sent as a query the server
/// refuses.
pub fn storable(text: &str) -> bool {
    !text.contains('\0')
}

/// Where the data lives, as `--db` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// SQLite in memory (no `--db`).
    Memory,
    /// A SQLite file (`--db PATH` or `--db sqlite:PATH`).
    SqliteFile(std::path::PathBuf),
    /// A PostgreSQL database (`--db postgres://…` or `postgresql://…`).
    Postgres(String),
}

impl Location {
    /// Reads a `--db` value. An empty one, or a scheme other than SQLite's and PostgreSQL's, is
    /// an error: running on a throwaway database the operator did not ask for would look like
    /// success (as when `--db "$(bash scripts/postgres.sh start)"` gets nothing from a script
    /// that failed). A PostgreSQL URL is read by the driver's own parser, so that one it would
    /// refuse on connecting is refused here, as a bad flag.
    ///
    /// So is a PostgreSQL connection written another way, which would otherwise name a SQLite
    /// file, with its password in the name and in the banner: a libpq `key=value` string
    /// (`libpq_keyword`) or a URL without its scheme (`user:password@host/db`,
    /// `has_userinfo`). A SQLite file so named is given as `sqlite:PATH`. The messages for
    /// these, and for `postgres:` without `//`, do not repeat the value: it may hold a password.
    pub fn parse(value: &str) -> Result<Location, String> {
        const AS_URL: &str = "write it as a URL: postgres://user:password@host:port/db?key=value \
                              (a SQLite file of such a name is given as sqlite:PATH)";
        // A URL's scheme is read in any case (RFC 3986); the driver reads it in lower case only.
        if let Some((scheme, rest)) = value.split_once("://")
            && (scheme.eq_ignore_ascii_case("postgres") || scheme.eq_ignore_ascii_case("postgresql"))
        {
            let url = format!("{}://{rest}", scheme.to_ascii_lowercase());
            check_postgres_url(&url)?;
            return Ok(Location::Postgres(url));
        }
        let explicit = value.starts_with("sqlite:");
        if !explicit && let Some(keyword) = libpq_keyword(value) {
            return Err(format!(
                "--db: a libpq key=value connection string ({keyword}=...) is not read here; {AS_URL}"
            ));
        }
        // `postgres:db` lacks the `//` of a URL: a typo, which would otherwise name a SQLite file.
        if let Some((scheme, _)) = value.split_once(':')
            && matches!(scheme.to_ascii_lowercase().as_str(), "postgres" | "postgresql")
        {
            return Err(format!(
                "--db: '{scheme}:' without '//' is not a PostgreSQL URL; give postgres://user@host:port/db"
            ));
        }
        if let Some((scheme, _)) = value.split_once("://")
            && scheme != "sqlite"
        {
            return Err(format!(
                "--db: unsupported scheme '{scheme}://'; give a SQLite file path, sqlite:PATH or postgres://..."
            ));
        }
        if !explicit && has_userinfo(value) {
            return Err(format!(
                "--db: 'user:password@...' is a URL without its scheme, not a SQLite file name; {AS_URL}"
            ));
        }
        let path = value.strip_prefix("sqlite://").or_else(|| value.strip_prefix("sqlite:")).unwrap_or(value);
        match path {
            "" => Err("--db: no database named; give a SQLite file path, sqlite:PATH or postgres://...".to_owned()),
            ":memory:" => Ok(Location::Memory),
            // SQLite reads `file:` names as URIs (`file:x.db?mode=memory` is a database in
            // memory): such a name would not be the file the banner names.
            path if path.starts_with("file:") => {
                Err(format!("--db: '{path}' is a SQLite URI, which is not read here; give a file path or sqlite:PATH"))
            }
            path => Ok(Location::SqliteFile(path.into())),
        }
    }
}

/// The keywords of libpq's connection strings (PostgreSQL 17's, older ones' included).
const LIBPQ_KEYWORDS: [&str; 47] = [
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "require_auth",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "replication",
    "gssencmode",
    "sslmode",
    "sslnegotiation",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "requirepeer",
    "requiressl",
    "krbsrvname",
    "gsslib",
    "gssdelegation",
    "service",
    "target_session_attrs",
    "load_balance_hosts",
    "min_protocol_version",
    "max_protocol_version",
    "sslkeylogfile",
    "authtype",
    "tty",
];

/// The first libpq keyword `value` sets, when it reads as a libpq `key=value` connection
/// string: a word of it (at its start or after white space) that is one of libpq's keywords,
/// followed by `=` (libpq allows white space before it). `dbname=inventory` alone is one (a
/// database on the local socket); a path such as `runs/host=a.db` or `myhost=a.db` is not.
fn libpq_keyword(value: &str) -> Option<&'static str> {
    let mut rest = value.trim_start();
    while !rest.is_empty() {
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let (word, after) = rest.split_at(end);
        if after.trim_start().starts_with('=')
            && let Some(keyword) = LIBPQ_KEYWORDS.iter().find(|keyword| **keyword == word)
        {
            return Some(keyword);
        }
        rest = rest.find(char::is_whitespace).map_or("", |at| rest[at..].trim_start());
    }
    None
}

/// True when `value` holds a URL's `user:password@`: the part of its path that holds its first
/// `@` has a `:` before it (`user:password@host/db`, `//user:password@host/db`, a scheme
/// misspelt as `postgres//`).
fn has_userinfo(value: &str) -> bool {
    value
        .split_once('@')
        .is_some_and(|(before, _)| before.rsplit(['/', '\\']).next().is_some_and(|part| part.contains(':')))
}

/// Refuses a PostgreSQL URL the driver cannot read, and one that names no host or no database:
/// without a host the driver cannot connect at all, and without a database it would connect to
/// the one named like the user, which the operator did not name. A `statement_timeout` in its
/// `options` must be a positive duration (see [`postgres::url_statement_timeout`]), its
/// `synchronous_commit` not `off` (see [`postgres::url_durable_commits`]), and its
/// `default_transaction_read_only` not on (see [`postgres::url_writable`]).
///
/// The service connects without TLS (it has no TLS implementation), so a URL that demands TLS
/// (`sslmode=require`, `channel_binding=require`) could never connect: it is refused here, as a
/// setting to fix, rather than failing on connecting as if the server were down. So is an
/// `sslmode` the driver does not read (`verify-ca`, `verify-full`, `allow`), and
/// `target_session_attrs=read-only`: this service writes, and needs a primary.
fn check_postgres_url(url: &str) -> Result<(), String> {
    const FORM: &str = "give postgres://user@host:port/db";
    let config: tokio_postgres::Config = url.parse().map_err(|error: tokio_postgres::Error| {
        if let Some(mode) = query_value(url, "sslmode")
            && !matches!(mode.as_str(), "disable" | "prefer" | "require")
        {
            // libpq's other modes would demand TLS; any other value is no mode at all.
            if matches!(mode.as_str(), "allow" | "verify-ca" | "verify-full") {
                return without_tls(&format!("sslmode={mode}"), "sslmode=disable or prefer");
            }
            return format!(
                "--db: the URL's sslmode={mode} is not a valid sslmode (libpq's are disable, allow, prefer, \
                 require, verify-ca and verify-full); give sslmode=disable or prefer"
            );
        }
        // The driver's own text is only "invalid connection string"; its cause says what is wrong.
        match std::error::Error::source(&error) {
            Some(cause) => format!("--db: {error}: {cause}; {FORM}"),
            None => format!("--db: {error}; {FORM}"),
        }
    })?;
    if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
        return Err(format!("--db: the PostgreSQL URL names no host; {FORM}"));
    }
    if config.get_dbname().is_none() {
        return Err(format!("--db: the PostgreSQL URL names no database; {FORM}"));
    }
    if !matches!(config.get_ssl_mode(), SslMode::Disable | SslMode::Prefer) {
        return Err(without_tls("sslmode=require", "sslmode=disable or prefer"));
    }
    if config.get_channel_binding() == ChannelBinding::Require {
        return Err(without_tls("channel_binding=require", "channel_binding=disable or prefer"));
    }
    // The service writes: a session that only reads could never serve it.
    if config.get_target_session_attrs() == TargetSessionAttrs::ReadOnly {
        return Err("--db: the URL's target_session_attrs=read-only cannot work: this service writes, and \
                    needs the primary; give target_session_attrs=read-write or leave it out"
            .to_owned());
    }
    postgres::url_statement_timeout(&config).map_err(|why| format!("--db: {why}"))?;
    postgres::url_durable_commits(&config).map_err(|why| format!("--db: {why}"))?;
    postgres::url_writable(&config).map_err(|why| format!("--db: {why}"))?;
    Ok(())
}

/// Why a URL's `setting` (`sslmode=require`) is refused, and what to give `instead`.
fn without_tls(setting: &str, instead: &str) -> String {
    format!(
        "--db: the URL's {setting} cannot work: this example does not support TLS and connects without it, \
         to a server on the same host or a private network; give {instead}"
    )
}

/// The value of the last `key=value` of the URL's query that names `key`.
fn query_value(url: &str, key: &str) -> Option<String> {
    let (_, query) = url.split_once('?')?;
    form_urlencoded::parse(query.as_bytes()).filter(|(name, _)| name == key).last().map(|(_, value)| value.into_owned())
}

impl std::fmt::Display for Location {
    /// What the start-up banner says: the engine and where, without a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Memory => f.write_str("SQLite in memory (gone when the service stops)"),
            Location::SqliteFile(path) => write!(f, "SQLite file {}", path.display()),
            Location::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                // Everything before the last `@` may be a password (`user:password@`, one
                // holding an `@` of its own, or a query's `password=` holding one).
                let server = rest.rsplit_once('@').map_or(rest, |(_, server)| server);
                write!(f, "PostgreSQL at {scheme}://{}", without_password(server))
            }
        }
    }
}

/// `server` (`host:port/db?key=value&...`) without the `password=...` its query may give (the
/// driver reads one there as it reads `user:password@`), so that the banner shows none. The
/// pair goes whole; a name written percent-encoded (`pass%77ord`) or in another case is taken
/// for the same name.
fn without_password(server: &str) -> String {
    let Some((before, query)) = server.split_once('?') else {
        return server.to_owned();
    };
    let names_password = |pair: &&str| {
        form_urlencoded::parse(pair.as_bytes()).next().is_some_and(|(name, _)| name.eq_ignore_ascii_case("password"))
    };
    let kept: Vec<&str> = query.split('&').filter(|pair| !names_password(pair)).collect();
    if kept.is_empty() { before.to_owned() } else { format!("{before}?{}", kept.join("&")) }
}

/// The accounts table, the snapshots and the credentials' grants, whatever the engine.
#[async_trait::async_trait]
pub trait AccountStore: Send + Sync {
    /// Creates the schema when missing, seeds `accounts` accounts into an empty database and
    /// stores `grants` when no credential is stored. Safe to run from several processes at once.
    /// Returns how many accounts the database was seeded with, by this process or another.
    async fn prepare(&self, accounts: u32, grants: &[(&str, &[&str])]) -> Result<u32, StoreError>;
    /// The stored permissions of credential `name`, read afresh.
    async fn grant(&self, name: &str) -> Result<Option<Grant>, StoreError>;
    /// Removes `tenant` from credential `name`, bumping its epoch when that changed anything.
    async fn revoke_tenant(&self, name: &str, tenant: &str) -> Result<Option<Grant>, StoreError>;
    /// The current snapshot number.
    async fn current_snapshot(&self) -> Result<Snapshot, StoreError>;
    /// Checks that `snapshot` can still be read.
    async fn check_retained(&self, snapshot: Snapshot) -> Result<(), StoreError>;
    /// The keyset page of `filter` at `snapshot` after id `after`, at most `limit` items, in id order.
    async fn page(
        &self,
        snapshot: Snapshot,
        after: Option<&str>,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError>;
    /// The same page by `OFFSET`, for the pagination benchmark's contrast.
    async fn page_by_offset(
        &self,
        snapshot: Snapshot,
        offset: usize,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<ListItem>, StoreError>;
    /// How many accounts `filter` selects at `snapshot`.
    async fn count(&self, snapshot: Snapshot, filter: &Filter) -> Result<u64, StoreError>;
    /// The current version of account `id`.
    async fn get(&self, id: &str) -> Result<Option<Account>, StoreError>;
    /// Every current account (id order) and the snapshot they were read at.
    async fn current_accounts(&self) -> Result<(Snapshot, Vec<Account>), StoreError>;
    /// Creates an account at a new snapshot. Each write refuses with
    /// [`StoreError::PermissionsChanged`] when `by` no longer holds the grant its request was
    /// authenticated with, checked once it holds the write lock ([`Grantee::check`]).
    async fn create(&self, by: Option<&Grantee<'_>>, new: NewAccount) -> Result<(Account, Snapshot), StoreError>;
    /// Sets (or clears) the owner of account `id` at a new snapshot; one that already has it is
    /// left as it is, at the current snapshot (an owner change is what makes one), and
    /// [`OwnerSet::opened`] says which.
    async fn set_owner(
        &self,
        by: Option<&Grantee<'_>>,
        id: &str,
        owner: Option<String>,
    ) -> Result<OwnerSet, StoreError>;
    /// Deletes account `id` at a new snapshot.
    async fn delete(&self, by: Option<&Grantee<'_>>, id: &str) -> Result<(Account, Snapshot), StoreError>;
    /// Archives `ids` atomically when each was selected by `then` at `snapshot` and is still
    /// selected by `now`; otherwise nothing changes. Concurrent archives are serialized.
    async fn archive(
        &self,
        by: &Grantee<'_>,
        snapshot: Snapshot,
        then: &Filter,
        now: &Filter,
        ids: &[String],
    ) -> Result<(ArchiveOutcome, Vec<Account>), StoreError>;
    /// Drops row versions and snapshots no retained snapshot can see; returns the oldest retained snapshot.
    async fn prune(&self) -> Result<Snapshot, StoreError>;
    /// How many row versions the table holds.
    async fn version_count(&self) -> Result<u64, StoreError>;
    /// A digest of every row version and the snapshot counter, to prove a request changed nothing.
    async fn fingerprint(&self) -> Result<String, StoreError>;
    /// Records `me` as a live replica of this database, and returns the settings of the other
    /// replicas that checked in within `alive`. A store one process owns, as SQLite's is (the
    /// service holds its only connection), has no other replica.
    async fn check_in(&self, me: &ReplicaSettings, alive: Duration) -> Result<Vec<ReplicaSettings>, StoreError> {
        let _ = (me, alive);
        Ok(Vec::new())
    }
    /// Forgets `replica`, which is stopping, so that the others stop comparing with it (and a
    /// process started in its place is not compared with its predecessor).
    async fn check_out(&self, replica: &str) -> Result<(), StoreError> {
        let _ = replica;
        Ok(())
    }
    /// The pool's connections now; `None` for a store that holds one connection (SQLite's).
    fn connections(&self) -> Option<Connections> {
        None
    }
}

/// The store the handlers share.
pub type Store = Arc<dyn AccountStore>;

/// The connections of a store that pools them, now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connections {
    /// How many the pool may hold.
    pub max: usize,
    /// How many it holds.
    pub open: usize,
    /// How many of those no request holds.
    pub idle: usize,
    /// How many requests wait for one.
    pub waiting: usize,
}

impl Connections {
    /// True when every connection the pool may hold is held: a request waits for one.
    pub fn exhausted(&self) -> bool {
        self.idle == 0 && self.open >= self.max
    }
}

/// Opens the store `location` names, with `retention` for superseded snapshots.
pub async fn open(location: &Location, retention: Duration) -> Result<Store, StoreError> {
    Ok(match location {
        Location::Memory => Arc::new(SqliteStore::open(None, retention)?),
        Location::SqliteFile(path) => Arc::new(SqliteStore::open(Some(path), retention)?),
        Location::Postgres(url) => Arc::new(postgres::PgStore::connect(url, retention).await?),
    })
}
