//! The HTTP/1.1 server: hyper's, with a clock, so that a client cannot hold a connection
//! without sending a request.
//!
//! `axum::serve` gives hyper no timer, and hyper without one waits for a request head for
//! ever: a client that opens connections and sends a few bytes on each (or nothing) holds
//! them, and a task each, for as long as it likes. Here every connection has
//! [`Config::read_timeout`](super::Config::read_timeout) to send a whole request head, from
//! the moment it opens and again after each answer; past it, hyper closes the connection
//! without an answer (there is no request to answer). An idle kept-alive connection is closed
//! the same way. The body has the same time once the head is in ([`super::refusals::limits`],
//! which answers 408 `REQUEST_TIMEOUT`).

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use axum::Router;
use axum::serve::Listener;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// Serves `router` on `listener` until `stop` resolves, then stops accepting and waits for
/// the connections open to finish the requests they carry (idle ones are closed at once).
pub async fn serve(mut listener: TcpListener, router: Router, read_timeout: Duration, stop: impl Future<Output = ()>) {
    let mut connection = http1::Builder::new();
    connection.timer(TokioTimer::new()).header_read_timeout(read_timeout);
    let open = GracefulShutdown::new();
    let mut stop = pin!(stop);
    loop {
        // axum's `Listener` retries a failed accept itself (after a pause when the process is
        // out of file descriptors), as `axum::serve` does.
        let (tcp, _) = tokio::select! {
            accepted = Listener::accept(&mut listener) => accepted,
            () = &mut stop => break,
        };
        // Without Nagle's delay: an MCP answer is an event stream written in several small chunks.
        let _ = tcp.set_nodelay(true);
        let serving = connection.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(router.clone()));
        let serving = open.watch(serving);
        tokio::spawn(async move {
            // A connection's end (closed by the client, timed out, cut mid-request) is its own
            // business: the request log has every request it carried.
            let _ = serving.await;
        });
    }
    drop(listener);
    open.shutdown().await;
}
