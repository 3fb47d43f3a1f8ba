//! The service's configuration and its command-line flags (see the example's README).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use completeness::CursorKeys;

use super::keyring;
use super::state::KEYS_VARIABLE;
use super::store::Location;
use super::telemetry::LogFormat;

/// Everything the service can be told on start.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen (`--addr`).
    pub addr: SocketAddr,
    /// The database (`--db PATH`, `sqlite:PATH` or `postgres://…`); in-memory SQLite when `None`.
    pub db: Option<PathBuf>,
    /// How many accounts to seed into an empty database (`--accounts N`).
    pub accounts: u32,
    /// How long a cursor stays valid (`--cursor-ttl SECS`).
    pub cursor_ttl: Duration,
    /// How long a superseded snapshot stays readable (`--snapshot-retention SECS`).
    pub snapshot_retention: Duration,
    /// The search result cap (`--result-limit N`).
    pub result_limit: usize,
    /// The largest page size; larger requests are clamped (`--max-page-size N`).
    pub max_page_size: u32,
    /// The page size when the request names none.
    pub default_page_size: u32,
    /// Sources that fail every request (`--fail-source NAME`, repeatable).
    pub fail_sources: Vec<String>,
    /// Extra latency per source (`--slow-source NAME=MS`, repeatable).
    pub slow_sources: Vec<(String, Duration)>,
    /// How often the lagging `audit` index copies the accounts table (and every write-through
    /// copy that missed a write made through another replica).
    pub audit_refresh: Duration,
    /// The time budget of a search that names none.
    pub default_time_budget: Duration,
    /// The largest time budget a request may ask for.
    pub max_time_budget: Duration,
    /// How long an evidence token stays valid.
    pub evidence_ttl: Duration,
    /// How long a client has to send a request head, from the moment its connection opens or
    /// its last answer was sent, and then again for the body (`--read-timeout SECS`).
    pub read_timeout: Duration,
    /// How long a replica asked to stop keeps serving, with `GET /ready` answering 503, before
    /// it stops accepting connections (`--stop-delay SECS`): the time a balancer takes to see
    /// it leave.
    pub stop_delay: Duration,
    /// How long a replica that stopped accepting waits for its open connections to finish the
    /// requests they carry before it closes them (`--stop-timeout SECS`).
    pub stop_timeout: Duration,
    /// Run the cleanup-agent tour against the service and exit (`--demo`).
    pub demo: bool,
    /// The cursor and evidence key ring; when `None`, `COMPLETENESS_CURSOR_KEYS` or a fresh one.
    /// [`Config::from_args`] fills it from `--keys-file` or the variable.
    pub cursor_keys: Option<CursorKeys>,
    /// A file holding the key ring (`--keys-file PATH`), read when `cursor_keys` is `None`.
    pub keys_file: Option<PathBuf>,
    /// How log lines are written (`--log-format human|json`).
    pub log_format: LogFormat,
    /// Fault injection on purpose (`--faults SEED[:PROBABILITY]`); none when `None`.
    pub faults: Option<completeness::testing::faults::Schedule>,
}

/// The largest value each numeric setting accepts: beyond these the service would be useless
/// (hours of seeding, years of retention), and every sum and difference on them stays far from
/// overflowing.
pub mod limits {
    /// `--accounts`.
    pub const ACCOUNTS: u32 = 1_000_000;
    /// `--cursor-ttl` and `--snapshot-retention`, in seconds: one year.
    pub const RETENTION_SECS: u64 = 366 * 24 * 3600;
    /// `--result-limit`.
    pub const RESULT_LIMIT: usize = 10_000;
    /// `--max-page-size`.
    pub const PAGE_SIZE: u32 = 10_000;
    /// `--slow-source NAME=MS`, in milliseconds: ten minutes.
    pub const DELAY_MS: u64 = 600_000;
    /// `--read-timeout`, in seconds: an hour.
    pub const READ_TIMEOUT_SECS: u64 = 3600;
    /// `--stop-delay` and `--stop-timeout`, in seconds: an hour.
    pub const STOP_SECS: u64 = 3600;
}

/// The sources the service knows: the three search sources and the `usage` source.
pub const SOURCES: [&str; 4] = ["directory", "audit", "legacy", "usage"];

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 3000)),
            db: None,
            accounts: 10_000,
            cursor_ttl: Duration::from_secs(600),
            snapshot_retention: Duration::from_secs(900),
            result_limit: 50,
            max_page_size: 500,
            default_page_size: 50,
            fail_sources: Vec::new(),
            slow_sources: vec![("audit".to_owned(), Duration::from_millis(150))],
            audit_refresh: Duration::from_secs(5),
            default_time_budget: Duration::from_millis(2_000),
            max_time_budget: Duration::from_millis(30_000),
            evidence_ttl: Duration::from_secs(300),
            read_timeout: Duration::from_secs(30),
            stop_delay: Duration::ZERO,
            stop_timeout: Duration::from_secs(15),
            demo: false,
            cursor_keys: None,
            keys_file: None,
            log_format: LogFormat::Human,
            faults: None,
        }
    }
}

/// The flags that may be given more than once, each adding to a list.
const REPEATABLE: [&str; 2] = ["--fail-source", "--slow-source"];

/// The usage text printed for `--help` and for a bad flag.
pub const USAGE: &str = "\
usage: service_accounts [flags]
  --addr ADDR                 listen address (default 127.0.0.1:3000)
  --db PATH|URL               SQLite database file (or sqlite:PATH), or a PostgreSQL URL
                              postgres://user@host:port/db shared by replicas (default: in-memory SQLite);
                              TLS is not supported (sslmode=require is refused): keep the database on
                              this host or a private network
  --keys-file PATH            cursor and evidence key ring, kid:base64key per line, active key first
                              (default: COMPLETENESS_CURSOR_KEYS, else an ephemeral key)
  --accounts N                accounts to seed into an empty database (default 10000, at most 1000000)
  --cursor-ttl SECS           cursor lifetime (default 600, at most 31622400: a year)
  --snapshot-retention SECS   how long superseded snapshots stay readable (default 900, at most a year)
  --result-limit N            search result cap (default 50, at most 10000)
  --max-page-size N           largest page size (default 500, at most 10000)
  --read-timeout SECS         time a client has to send a request's head, then its body; an idle
                              connection is closed after it too (default 30, at most 3600)
  --stop-delay SECS           once asked to stop (SIGTERM, SIGINT, SIGHUP), keep serving this long with
                              /ready answering 503, for a balancer to take the replica out (default 0,
                              at most 3600)
  --stop-timeout SECS         then wait at most this long for open connections to finish their requests
                              before closing them (default 15, at most 3600); a second signal stops at once
  --fail-source NAME          make a source fail: directory, audit, legacy or usage (repeatable)
  --slow-source NAME=MS       add latency to a source (repeatable; audit defaults to 150 ms; at most 600000)
  --log-format FORMAT         request log and events on stderr: human (default) or json;
                              RUST_LOG filters them (default: info,rmcp=error)
  --faults SEED[:PROBABILITY] make REST and MCP answers incomplete on purpose, in the ways each route
                              (or the route a tool stands for) declares, an account read with a field
                              left out, or any read with an outage (seeded; probability 0-1 per
                              request, default 0.5)
  --demo                      run the cleanup-agent tour on an in-memory store of its own and a free
                              port, then exit (it archives there; no --db or --addr)";

impl Config {
    /// Where the data lives, from `--db` (in-memory SQLite without it).
    pub fn location(&self) -> Result<Location, String> {
        self.db.as_deref().map_or(Ok(Location::Memory), |db| Location::parse(&db.to_string_lossy()))
    }

    /// Reads the key ring named by `--keys-file`, else the one in `COMPLETENESS_CURSOR_KEYS`;
    /// `None` when neither is given (the service then makes an ephemeral one). A file that
    /// cannot be read or a ring that does not parse is an error that names where the ring came
    /// from. The flags, or `build` for a configuration built in code, keep it in `cursor_keys`.
    pub fn key_ring(&self) -> Result<Option<CursorKeys>, String> {
        if let Some(file) = &self.keys_file {
            return keyring::from_file(file).map(Some);
        }
        match std::env::var(KEYS_VARIABLE) {
            Ok(spec) => CursorKeys::parse(&spec).map(Some).map_err(|e| format!("{KEYS_VARIABLE}: {e}")),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!("{KEYS_VARIABLE}: not valid Unicode")),
        }
    }

    /// The latency configured for `source`.
    pub fn delay_of(&self, source: &str) -> Duration {
        self.slow_sources.iter().rev().find(|(name, _)| name == source).map_or(Duration::ZERO, |(_, d)| *d)
    }

    /// True when `source` is configured to fail.
    pub fn fails(&self, source: &str) -> bool {
        self.fail_sources.iter().any(|name| name == source)
    }

    /// Parses the command line (without the program name). `Ok(None)` means `--help`.
    ///
    /// A flag that takes one value given twice is refused, not read as its last value, and so
    /// is a value given to a flag that takes none (`--demo=no`): either way the operator meant
    /// something the service would not do. `--demo` takes no `--db` or `--addr`: its tour
    /// archives, and runs on a store of its own in memory, on a free port.
    pub fn from_args<I: IntoIterator<Item = String>>(args: I) -> Result<Option<Config>, String> {
        let mut config = Config::default();
        let mut args = args.into_iter();
        let (mut given, mut slowed) = (std::collections::HashSet::new(), std::collections::HashSet::new());
        while let Some(flag) = args.next() {
            let (flag, inline) = match flag.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
                _ => (flag, None),
            };
            let switch = matches!(flag.as_str(), "--help" | "-h" | "--demo");
            if switch && inline.is_some() {
                return Err(format!("{flag} takes no value"));
            }
            if flag == "--help" || flag == "-h" {
                return Ok(None);
            }
            // Said after the flag is read, so that an unknown flag given twice is unknown.
            let twice = !REPEATABLE.contains(&flag.as_str()) && !given.insert(flag.clone());
            let mut value = || inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--demo" => config.demo = true,
                "--addr" => {
                    let addr = value()?;
                    config.addr = addr.parse().map_err(|e| {
                        format!("--addr: '{addr}' is not an IP address and port, as 127.0.0.1:3000 ({e})")
                    })?;
                }
                "--db" => {
                    let db = value()?;
                    Location::parse(&db)?;
                    config.db = Some(PathBuf::from(db));
                }
                "--keys-file" => config.keys_file = Some(PathBuf::from(value()?)),
                "--accounts" => config.accounts = number(&flag, &value()?, limits::ACCOUNTS)?,
                "--cursor-ttl" => {
                    config.cursor_ttl = Duration::from_secs(positive(&flag, &value()?, limits::RETENTION_SECS)?);
                }
                "--snapshot-retention" => {
                    config.snapshot_retention =
                        Duration::from_secs(positive(&flag, &value()?, limits::RETENTION_SECS)?);
                }
                "--result-limit" => {
                    config.result_limit = positive(&flag, &value()?, limits::RESULT_LIMIT as u64)? as usize;
                }
                "--max-page-size" => {
                    config.max_page_size = positive(&flag, &value()?, u64::from(limits::PAGE_SIZE))? as u32;
                    config.default_page_size = config.default_page_size.min(config.max_page_size);
                }
                "--read-timeout" => {
                    config.read_timeout = Duration::from_secs(positive(&flag, &value()?, limits::READ_TIMEOUT_SECS)?);
                }
                "--stop-delay" => config.stop_delay = Duration::from_secs(number(&flag, &value()?, limits::STOP_SECS)?),
                "--stop-timeout" => {
                    config.stop_timeout = Duration::from_secs(positive(&flag, &value()?, limits::STOP_SECS)?);
                }
                "--log-format" => config.log_format = LogFormat::parse(&value()?)?,
                "--faults" => config.faults = Some(value()?.parse().map_err(|e| format!("--faults: {e}"))?),
                "--fail-source" => config.fail_sources.push(source_name(&flag, &value()?)?),
                "--slow-source" => {
                    let spec = value()?;
                    let (name, ms) =
                        spec.split_once('=').ok_or_else(|| format!("--slow-source expects NAME=MS, got '{spec}'"))?;
                    let ms: u64 = number(&flag, ms, limits::DELAY_MS)?;
                    let name = source_name(&flag, name)?;
                    // Two delays for one source: which one was meant is not ours to guess. (A
                    // delay given replaces the default one.)
                    if !slowed.insert(name.clone()) {
                        return Err(format!("--slow-source {name} is given twice; give it once"));
                    }
                    config.slow_sources.push((name, Duration::from_millis(ms)));
                }
                other => return Err(format!("unknown flag '{other}'")),
            }
            if twice {
                return Err(format!("{flag} is given twice; give it once"));
            }
        }
        if config.demo
            && let Some(flag) = ["--db", "--addr"].into_iter().find(|flag| given.contains(*flag))
        {
            return Err(format!(
                "--demo takes no {flag}: its tour archives accounts, on a store of its own in memory and a free port"
            ));
        }
        // Read with the flags, so that a bad ring is refused like a bad flag, before the
        // database is opened (or created and seeded), and read once.
        config.cursor_keys = config.key_ring()?;
        config.validate()?;
        Ok(Some(config))
    }

    /// Checks every setting against [`limits`], whether it came from flags or from code; the
    /// service refuses to start on a failure, with this message.
    pub fn validate(&self) -> Result<(), String> {
        let secs = |d: Duration| d.as_secs() + u64::from(d.subsec_nanos() > 0);
        let checks = [
            ("--accounts", u64::from(self.accounts), u64::from(limits::ACCOUNTS)),
            ("--cursor-ttl", secs(self.cursor_ttl), limits::RETENTION_SECS),
            ("--snapshot-retention", secs(self.snapshot_retention), limits::RETENTION_SECS),
            ("--result-limit", self.result_limit as u64, limits::RESULT_LIMIT as u64),
            ("--max-page-size", u64::from(self.max_page_size), u64::from(limits::PAGE_SIZE)),
            ("evidence lifetime", secs(self.evidence_ttl), limits::RETENTION_SECS),
            ("audit refresh", secs(self.audit_refresh), limits::RETENTION_SECS),
            ("time budget", secs(self.max_time_budget), limits::RETENTION_SECS),
            ("--read-timeout", secs(self.read_timeout), limits::READ_TIMEOUT_SECS),
            ("--stop-delay", secs(self.stop_delay), limits::STOP_SECS),
            ("--stop-timeout", secs(self.stop_timeout), limits::STOP_SECS),
        ];
        for (name, value, max) in checks {
            at_most(name, value, max)?;
        }
        for (source, delay) in &self.slow_sources {
            let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            at_most(&format!("--slow-source {source}"), ms, limits::DELAY_MS)?;
        }
        if self.result_limit == 0 || self.max_page_size == 0 || self.default_page_size == 0 {
            return Err("--result-limit and --max-page-size must be at least 1".to_owned());
        }
        if self.audit_refresh.is_zero() || self.cursor_ttl.is_zero() || self.evidence_ttl.is_zero() {
            return Err("the audit refresh, cursor and evidence lifetimes must be positive".to_owned());
        }
        if self.read_timeout.is_zero() {
            return Err("--read-timeout must be positive".to_owned());
        }
        if self.stop_timeout.is_zero() {
            return Err("--stop-timeout must be positive".to_owned());
        }
        // Without retention every snapshot but the current one is gone: a first page read while
        // another request writes would be refused as expired before its client saw it.
        if self.snapshot_retention.is_zero() {
            return Err("--snapshot-retention must be positive".to_owned());
        }
        Ok(())
    }
}

fn at_most<T: PartialOrd + std::fmt::Display>(flag: &str, value: T, max: T) -> Result<T, String> {
    if value > max { Err(format!("{flag}: {value} is more than the largest accepted value, {max}")) } else { Ok(value) }
}

/// `text` as a whole number of at most `max`. Digits too many for any number the flag could hold
/// (`99999999999999999999999`) are a number too large, and refused as one, saying `max`, not as
/// something that is no number.
fn number<T: std::str::FromStr + PartialOrd + std::fmt::Display>(flag: &str, text: &str, max: T) -> Result<T, String> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    match text.parse() {
        Ok(value) => at_most(flag, value, max),
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("{flag}: {text} is more than the largest accepted value, {max}"))
        }
        Err(_) => Err(format!("{flag}: '{text}' is not a non-negative number")),
    }
}

/// `text` as a whole number from 1 to `max`.
fn positive(flag: &str, text: &str, max: u64) -> Result<u64, String> {
    match number(flag, text, max)? {
        0 => Err(format!("{flag} must be at least 1")),
        n => Ok(n),
    }
}

fn source_name(flag: &str, name: &str) -> Result<String, String> {
    if SOURCES.contains(&name) {
        Ok(name.to_owned())
    } else {
        Err(format!("{flag}: unknown source '{name}' (known: {})", SOURCES.join(", ")))
    }
}
