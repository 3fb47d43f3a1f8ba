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
//! which answers 408 `REQUEST_TIMEOUT`). And a client has the same time to take each part of an
//! answer: one that sends requests and never reads what they answer would otherwise hold the
//! connection, and the kernel's buffers behind it, for ever ([`Stalls`]).

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use axum::serve::Listener;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio::time::{Sleep, sleep};

/// The most a connection buffers of a request head: above the service's own limit on
/// headers ([`super::refusals::MAX_HEADER_BYTES`]), which answers a longer head with its
/// problem, and far below hyper's default (about 400 KiB), so that a head that never ends holds
/// little memory for the read timeout. A head longer than this is refused by hyper (431).
pub const MAX_BUFFERED_HEAD: usize = 64 * 1024;

/// Serves `router` on `listener` until `stop` resolves, then stops accepting and waits for
/// the connections open to finish the requests they carry (idle ones are closed at once), for
/// at most `stop_timeout`: past it, those still open are closed, a request still running or a
/// request head still arriving with them (which hyper would otherwise wait for up to the read
/// timeout, and an orchestrator then kill the process before it checks out).
///
/// The number of connections is not capped here: a cap taken by idle connections would refuse
/// everyone else for the read timeout. What one connection holds is bounded instead (a head of
/// at most [`MAX_BUFFERED_HEAD`], for at most the read timeout); cap connections in front of
/// the service, or with the process's file descriptor limit.
pub async fn serve(
    mut listener: TcpListener,
    router: Router,
    read_timeout: Duration,
    stop_timeout: Duration,
    stop: impl Future<Output = ()>,
) {
    let mut connection = http1::Builder::new();
    connection.timer(TokioTimer::new()).header_read_timeout(read_timeout).max_buf_size(MAX_BUFFERED_HEAD);
    let open = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    let mut stop = pin!(stop);
    loop {
        // axum's `Listener` retries a failed accept itself (after a pause when the process is
        // out of file descriptors), as `axum::serve` does.
        let (tcp, _) = tokio::select! {
            accepted = Listener::accept(&mut listener) => accepted,
            () = &mut stop => break,
        };
        // Connections that ended are forgotten as new ones come.
        while connections.try_join_next().is_some() {}
        // Without Nagle's delay: an MCP answer is an event stream written in several small chunks.
        let _ = tcp.set_nodelay(true);
        let tcp = Stalls { tcp, limit: read_timeout, stalled: None };
        let serving = connection.serve_connection(TokioIo::new(tcp), TowerToHyperService::new(router.clone()));
        let serving = open.watch(serving);
        connections.spawn(async move {
            // A connection's end (closed by the client, timed out, cut mid-request) is its own
            // business: the request log has every request it carried.
            let _ = serving.await;
        });
    }
    drop(listener);
    if tokio::time::timeout(stop_timeout, open.shutdown()).await.is_err() {
        while connections.try_join_next().is_some() {}
        let open = connections.len();
        tracing::warn!(
            open,
            waited_s = stop_timeout.as_secs(),
            "stopping: connections still open after --stop-timeout are closed (each with a request still running or \
             a request head still arriving)"
        );
        connections.abort_all();
    }
}

/// A connection whose writes fail once the client has taken nothing for `limit`: the time it
/// has to send a request head, given again to take each part of an answer. Any progress starts
/// the clock again, so a slow reader is served; one that reads nothing is cut off.
struct Stalls {
    tcp: TcpStream,
    limit: Duration,
    /// Since when a write has waited for the client, when one does.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Stalls {
    /// `progress` as it is, when it is ready; else an error once the client has taken nothing
    /// for the limit.
    fn waited<T>(&mut self, cx: &mut Context<'_>, progress: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if progress.is_ready() {
            self.stalled = None;
            return progress;
        }
        let limit = self.limit;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(sleep(limit)));
        ready!(stalled.as_mut().poll(cx));
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client took no part of the answer in time")))
    }
}

impl AsyncRead for Stalls {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let progress = Pin::new(&mut self.tcp).poll_write(cx, buf);
        self.waited(cx, progress)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let progress = Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs);
        self.waited(cx, progress)
    }
    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let progress = Pin::new(&mut self.tcp).poll_flush(cx);
        self.waited(cx, progress)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
