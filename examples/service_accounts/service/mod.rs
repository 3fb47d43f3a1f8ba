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
pub mod mcp;
pub mod openapi;
pub mod routes;
pub mod search;
pub mod seed;
pub mod sources;
pub mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use config::Config;
pub use state::{AppState, Service};

/// A service started on a listener, with its background tasks.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its state (tests inspect the store through it).
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    mcp_sessions: tokio_util::sync::CancellationToken,
    server: JoinHandle<std::io::Result<()>>,
    chores: Vec<JoinHandle<()>>,
}

impl Running {
    /// `http://ADDR`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting requests and ends the background tasks.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.mcp_sessions.cancel();
        for chore in &self.chores {
            chore.abort();
        }
        (&mut self.server).await.unwrap_or(Ok(()))
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

/// Builds the state and the REST router without listening (benches drive it in-process).
pub fn build(config: Config) -> Result<(AppState, axum::Router), String> {
    let service = Service::open(config).map_err(|e| format!("could not open the database: {e}"))?;
    let state: AppState = Arc::new(service);
    Ok((state.clone(), routes::router(state)))
}

/// Opens the database, binds `config.addr` (port 0 picks a free one) and serves the REST routes
/// and the MCP endpoint (`/mcp`) on it.
pub async fn start(config: Config) -> Result<Running, String> {
    let addr = config.addr;
    let (state, router) = build(config)?;
    let mcp_sessions = tokio_util::sync::CancellationToken::new();
    let router = router.merge(mcp::router(state.clone(), mcp_sessions.clone()));
    let listener = TcpListener::bind(addr).await.map_err(|e| format!("could not listen on {addr}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        // Without Nagle's delay: an MCP answer is an event stream written in several small chunks.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    let chores = vec![spawn_audit_indexer(state.clone()), spawn_pruner(state.clone())];
    Ok(Running { addr, state, stop: Some(stop), mcp_sessions, server, chores })
}

/// The lagging `audit` index: it copies the accounts table every `audit_refresh`.
fn spawn_audit_indexer(state: AppState) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(state.config.audit_refresh);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let _ = state.refresh_audit();
        }
    })
}

/// Drops snapshots older than the retention (and the row versions only they could see).
fn spawn_pruner(state: AppState) -> JoinHandle<()> {
    tokio::spawn(async move {
        let every = (state.config.snapshot_retention / 2).clamp(Duration::from_millis(50), Duration::from_secs(5));
        let mut ticks = tokio::time::interval(every);
        loop {
            ticks.tick().await;
            let _ = state.store.prune();
        }
    })
}
