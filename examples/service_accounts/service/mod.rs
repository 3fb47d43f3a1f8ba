//! The service_accounts service: an axum app over SQLite that produces every completeness
//! reason from a real mechanism. `main.rs` runs it; the end-to-end tests and the benches
//! start it in-process from here.

pub mod account;
pub mod archive;
pub mod auth;
pub mod clock;
pub mod config;
pub mod credentials;
pub mod db;
pub mod http;
pub mod inventory;
pub mod keyring;
pub mod mcp;
pub mod openapi;
pub mod ready;
pub mod refusals;
pub mod replicas;
pub mod routes;
pub mod search;
pub mod seed;
pub mod serve;
pub mod sources;
pub mod state;
pub mod store;
pub mod telemetry;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpSocket;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use config::Config;
pub use state::{AppState, Service};

use db::StoreError;
use store::watched::Health;

/// Why the service did not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// The settings cannot work, whenever it is tried: a bound exceeded, a key ring that
    /// cannot be read, a database or role the server does not have. The binary exits 2, as on
    /// a bad flag.
    Config(String),
    /// Something the service needs failed now: the database could not be reached, the address
    /// is taken. The binary exits 1.
    Failed(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Config(message) | StartError::Failed(message) => f.write_str(message),
        }
    }
}

/// A service started on a listener, with its background tasks.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its state (tests inspect the store through it).
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    mcp_sessions: CancellationToken,
    server: JoinHandle<()>,
    /// Ends the background tasks between two rounds (a round in progress finishes first).
    chores_stop: CancellationToken,
    chores: Vec<JoinHandle<()>>,
}

impl Running {
    /// `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Resolves only if the server stops on its own, which it does on an error: the caller
    /// then exits with it rather than idling without a server.
    pub async fn failed(&mut self) -> std::io::Error {
        match (&mut self.server).await {
            Ok(()) => std::io::Error::other("the server stopped"),
            Err(error) => std::io::Error::other(format!("the server task ended: {error}")),
        }
    }

    /// Stops: `GET /ready` answers 503 from now on, and for `--stop-delay` every other request
    /// is still served (a balancer sees the replica leave and sends requests elsewhere); then it
    /// stops accepting connections, waits for the open ones and the MCP calls in flight as long
    /// as `--stop-timeout` says (then ends the MCP sessions), ends the background tasks and checks this replica out (`replicas`; a failure to is
    /// reported on stderr, the others then forget it later).
    pub async fn stop(self) -> std::io::Result<()> {
        let delay = self.state.config.stop_delay;
        self.stop_after(delay).await
    }

    /// [`Running::stop`] with `delay` in place of `--stop-delay`: zero for a replica stopped
    /// before it was announced (a signal during the start-up), which no balancer sends to yet.
    pub async fn stop_after(mut self, delay: std::time::Duration) -> std::io::Result<()> {
        self.state.stopping.cancel();
        if !delay.is_zero() {
            tracing::info!(
                delay_s = delay.as_secs(),
                "stopping: /ready answers 503, requests are served until the delay ends"
            );
            tokio::time::sleep(delay).await;
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The MCP calls in flight are answered first: ending the sessions ends them unanswered.
        let (calls, limit) = (&self.state.mcp_calls, self.state.config.stop_timeout);
        calls.close();
        if tokio::time::timeout(limit, calls.wait()).await.is_err() {
            tracing::warn!(
                open = calls.len(),
                waited_s = limit.as_secs(),
                "stopping: MCP calls still running after --stop-timeout are ended unanswered"
            );
        }
        self.mcp_sessions.cancel();
        // Each background task ends after its round in progress: a check-in still on its way
        // would otherwise land after the check-out below, and the others would count this
        // replica as live for another 30 s.
        self.chores_stop.cancel();
        for chore in std::mem::take(&mut self.chores) {
            let _ = chore.await;
        }
        let served =
            (&mut self.server).await.map_err(|error| std::io::Error::other(format!("the server task ended: {error}")));
        check_out(&self.state).await;
        served
    }
}

/// Checks `service` out of the replicas table (`replicas`); a failure to is an `ERROR` event
/// in the service's log, and the other replicas then forget it within [`replicas::ALIVE`].
async fn check_out(service: &Service) {
    if let Err(error) = service.store.check_out(&service.replica.replica).await {
        let forgotten_within_s = replicas::ALIVE.as_secs();
        tracing::error!(task = "replica check-out", %error, forgotten_within_s, "this replica could not check out");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.mcp_sessions.cancel();
        for chore in &self.chores {
            chore.abort();
        }
        self.server.abort();
    }
}

/// Builds the state and the router without listening (benches drive it in-process).
/// Cancelling `mcp_sessions` ends the MCP sessions.
pub async fn build(
    mut config: Config,
    mcp_sessions: CancellationToken,
) -> Result<(AppState, axum::Router), StartError> {
    config.validate().map_err(StartError::Config)?;
    // The flags read the ring already; a configuration built in code may only name its file.
    // Either way it is read once, before the service touches the database.
    if config.cursor_keys.is_none() {
        config.cursor_keys = config.key_ring().map_err(StartError::Config)?;
    }
    // Which database, said as the banner says it (no password): the banner is not printed when
    // opening fails, and the driver's error does not name the server.
    let which = config.location().map_or_else(|_| "the database".to_owned(), |location| location.to_string());
    let service = Service::open(config).await.map_err(|e| match e {
        StoreError::Config(detail) => StartError::Config(detail),
        other => StartError::Failed(format!("could not open {which}: {other}")),
    })?;
    let state: AppState = Arc::new(service);
    Ok((state.clone(), routes::router(state, mcp_sessions)))
}

/// Binds `config.addr` (port 0 picks a free one), opens the database, installs the metrics
/// recorder (once per process) and serves the REST routes and the MCP endpoint (`/mcp`) on it.
/// The address is taken first: a start that cannot bind it (another server listens there)
/// leaves no database created or seeded behind (which a corrected start would then serve as it
/// found it). It listens only once the database is open and seeded: until then a connection is
/// refused at once, so a load balancer's check, or a client, never waits on a replica that
/// cannot answer yet (a connection accepted during a seeding of minutes would hang as long).
pub async fn start(mut config: Config) -> Result<Running, StartError> {
    config.validate().map_err(StartError::Config)?;
    let wanted = config.addr;
    let cannot_listen = |error: std::io::Error| StartError::Failed(format!("could not listen on {wanted}: {error}"));
    let socket = bound(wanted).map_err(cannot_listen)?;
    let addr = socket.local_addr().map_err(cannot_listen)?;
    // The port bound, where `--addr` asked for any (`:0`): the replica is known by it.
    config.addr = addr;
    telemetry::install_metrics();
    let mcp_sessions = CancellationToken::new();
    let (state, router) = build(config, mcp_sessions.clone()).await?;
    let listener = socket.listen(LISTEN_BACKLOG).map_err(cannot_listen)?;
    // The name other replicas' warnings give this one, said by this one.
    tracing::info!(replica = %state.replica.replica, version = env!("CARGO_PKG_VERSION"), "listening");
    let (stop, stopped) = oneshot::channel::<()>();
    let (read_timeout, stop_timeout) = (state.config.read_timeout, state.config.stop_timeout);
    let server = tokio::spawn(serve::serve(listener, router, read_timeout, stop_timeout, async move {
        let _ = stopped.await;
    }));
    let chores_stop = CancellationToken::new();
    let chores = vec![
        spawn_source_refresh(state.clone(), chores_stop.clone()),
        spawn_pruner(state.clone(), chores_stop.clone()),
    ];
    // Each task's failures counted from zero, so that the first one is an increase an alert on
    // the counter's rate sees (a series that appears at 1 is none).
    for task in [SOURCE_REFRESH, SNAPSHOT_PRUNER] {
        metrics::counter!(telemetry::BACKGROUND_FAILURES, "task" => task).increment(0);
    }
    routes::zero_counters();
    Ok(Running { addr, state, stop: Some(stop), mcp_sessions, server, chores_stop, chores })
}

/// The length of the queue of connections not yet accepted (what `TcpListener::bind` takes).
const LISTEN_BACKLOG: u32 = 1024;

/// A socket bound to `addr` that does not listen yet, with `SO_REUSEADDR` as
/// `TcpListener::bind` sets it (a restart binds the port of connections still closing).
fn bound(addr: SocketAddr) -> std::io::Result<TcpSocket> {
    let socket = if addr.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    Ok(socket)
}

/// The background tasks, by the names their failures are logged and counted under.
const SOURCE_REFRESH: &str = "source refresh";
const SNAPSHOT_PRUNER: &str = "snapshot pruner";

/// The search copies' refresh, every `audit_refresh`: the lagging `audit` index copies the
/// accounts table, and so does every write-through copy that missed a write.
fn spawn_source_refresh(state: AppState, stop: CancellationToken) -> JoinHandle<()> {
    let every = state.config.audit_refresh;
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.tick().await;
        while next_round(&mut ticks, &stop).await {
            let indexing = state.clone();
            let round = tokio::spawn(async move { indexing.refresh_sources().await }).await;
            chore(SOURCE_REFRESH, every, &state.health, || {
                round.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
            });
        }
    })
}

/// Drops snapshots older than the retention (and the row versions only they could see), and
/// checks this replica in with the others ([`state::Service::check_in`]).
fn spawn_pruner(state: AppState, stop: CancellationToken) -> JoinHandle<()> {
    let every = (state.config.snapshot_retention / 2).clamp(Duration::from_millis(50), Duration::from_secs(5));
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        while next_round(&mut ticks, &stop).await {
            // Run as its own task so a panic in the round is reported by `chore`, not fatal to the loop.
            let pruning = state.clone();
            let round = tokio::spawn(async move {
                pruning.store.prune().await?;
                pruning.check_in().await.map(drop)
            })
            .await;
            chore(SNAPSHOT_PRUNER, every, &state.health, || {
                round.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
            });
        }
    })
}

/// Waits for a background task's next tick: true then, false once `stop` is cancelled.
async fn next_round(ticks: &mut tokio::time::Interval, stop: &CancellationToken) -> bool {
    tokio::select! {
        biased;
        () = stop.cancelled() => false,
        _ = ticks.tick() => true,
    }
}

/// Runs one round of a background task. A failure or a panic is an `ERROR` event in the
/// service's log (a line of its format, JSON under `--log-format json`), and the task carries
/// on at its next round (`every` later): it never stops silently. A failure that is the
/// database outage `health` already logged when it began is a `debug` event instead, as each
/// request it refuses is: one outage, one `ERROR` line. Each failed round is counted
/// ([`telemetry::BACKGROUND_FAILURES`], by `name`), for an alert. Returns whether the round
/// succeeded.
pub fn chore(
    name: &'static str,
    every: Duration,
    health: &Health,
    round: impl FnOnce() -> Result<(), StoreError>,
) -> bool {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(round));
    if !matches!(outcome, Ok(Ok(()))) {
        metrics::counter!(telemetry::BACKGROUND_FAILURES, "task" => name).increment(1);
    }
    let retry_in_ms = telemetry::millis(every);
    match outcome {
        Ok(Ok(())) => true,
        Ok(Err(error)) if health.reports(&error) => {
            tracing::debug!(task = name, %error, retry_in_ms, "a background task failed in the database outage");
            false
        }
        Ok(Err(error)) => {
            tracing::error!(task = name, %error, retry_in_ms, "a background task failed");
            false
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            tracing::error!(task = name, panic = what, retry_in_ms, "a background task panicked");
            false
        }
    }
}
