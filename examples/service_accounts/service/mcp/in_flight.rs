//! The requests in flight in each MCP session, so that no two of them share an `id`, and the
//! cancellations accepted and ignored there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use completeness::ProblemCode;
use futures_util::StreamExt;
use rmcp::model::ErrorCode;
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use serde_json::json;

use super::messages::{RequestId, json_rpc_error, observed};

/// The method of the notification that cancels a request.
pub(super) const CANCELLED: &str = "notifications/cancelled";

/// Marks a `notifications/cancelled` message, as
/// [`members_given_once`](super::messages::members_given_once) read it, for
/// [`one_request_per_id`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Cancellation;

/// The requests in flight in each MCP session, by session id and a hash of the JSON text of the
/// request's `id` (an `id` may be long): `None` while its answer is on its way, `Some(until)`
/// for one whose client went away without it, held until then.
#[derive(Debug, Clone, Default)]
pub struct InFlight(Arc<Mutex<HashMap<IdKey, Option<Instant>>>>);

/// A request of a session: the session id and the hash of the request's `id`.
type IdKey = (String, u64);

/// How long the `id` of a request whose answer was not sent whole (the client went away, or
/// gave up on it) stays in use: rmcp may still be running it, and would give its answer to a
/// request sent again with that `id`. Five minutes: longer than any tool runs (every store
/// operation is bounded well within it), and rmcp's own idle limit for a session.
const ABANDONED_ID_HOLD: Duration = Duration::from_secs(300);

/// The most requests one session may have in flight or held ([`ABANDONED_ID_HOLD`]) at once: a
/// client that sends requests and goes away from each may not fill the server's memory.
pub const MAX_IDS_PER_SESSION: usize = 256;

/// Why a request's `id` cannot be taken.
#[derive(Debug)]
pub enum Taken {
    /// A request of the session with this `id` is in flight, or was given up on lately.
    InUse,
    /// The session has [`MAX_IDS_PER_SESSION`] requests in flight or held.
    Full,
}

impl InFlight {
    /// Takes `key` for a request, forgetting the holds that have run out.
    pub fn take(&self, key: &IdKey) -> Result<(), Taken> {
        let now = Instant::now();
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|_, until| until.is_none_or(|until| until > now));
        if held.contains_key(key) {
            return Err(Taken::InUse);
        }
        if held.keys().filter(|(session, _)| *session == key.0).count() >= MAX_IDS_PER_SESSION {
            return Err(Taken::Full);
        }
        held.insert(key.clone(), None);
        Ok(())
    }
}

/// Holds one request's place in [`InFlight`] until it is dropped: released then when its
/// answer was sent whole (`answered`), else held for [`ABANDONED_ID_HOLD`].
struct Claimed {
    in_flight: InFlight,
    key: IdKey,
    answered: bool,
}

impl Drop for Claimed {
    fn drop(&mut self) {
        let mut held = self.in_flight.0.lock().unwrap_or_else(PoisonError::into_inner);
        if self.answered {
            held.remove(&self.key);
        } else {
            held.insert(std::mem::take(&mut self.key), Some(Instant::now() + ABANDONED_ID_HOLD));
        }
    }
}

/// In a session, rmcp matches answers to requests by `id`: a request sent while another of the
/// same session with the same `id` is still in flight (a client's mistake) takes the first
/// one's answer, and the first request, an archive perhaps, never learns whether it was carried
/// out (its event stream stays open until rmcp gives up on it). Such a request is refused
/// before rmcp sees it, with the JSON-RPC error `-32600` (invalid request) and its `id`, and
/// nothing runs; the first is answered as usual. A request counts as in flight until its answer
/// was sent whole, or for [`ABANDONED_ID_HOLD`] after its client went away without it; past
/// [`MAX_IDS_PER_SESSION`] such requests in one session, a new one is refused the same way.
/// Outside a session (the current protocol) each request has an answer of its own, and passes.
///
/// In a session, a `notifications/cancelled` is accepted (`202`) and ignored: rmcp would forget
/// the cancelled request's `id` at once while its tool runs on (a tool runs to its end: an
/// archive stopped halfway would leave its outcome unknown), then give the tool's answer to the
/// next request sent with that `id`, another question answered with this one's result. Ignored,
/// the cancelled request is answered as usual (MCP lets a receiver ignore a cancellation of a
/// request it cannot cancel; its client ignores the answer) and its `id` stays in use until
/// then.
pub(super) async fn one_request_per_id(State(in_flight): State<InFlight>, request: Request, next: Next) -> Response {
    let session = request.headers().get(HEADER_SESSION_ID).and_then(|id| id.to_str().ok());
    if session.is_some() && request.extensions().get::<Cancellation>().is_some() {
        return StatusCode::ACCEPTED.into_response();
    }
    let (Some(session), Some(RequestId { id, route })) = (session, request.extensions().get::<RequestId>()) else {
        return next.run(request).await;
    };
    let key = (session.to_owned(), {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        BuildHasherDefault::<DefaultHasher>::default().hash_one(id.to_string())
    });
    if let Err(taken) = in_flight.take(&key) {
        let message = match taken {
            Taken::InUse => {
                "a request with this `id` is in flight in this session, or was given up on by its client within five \
                 minutes (it may still be running, and its answer would go to this one): give each request of a \
                 session an `id` of its own; this one was not run"
            }
            Taken::Full => {
                "this session has too many requests in flight, or given up on within five minutes: wait for their \
                 answers, or open another session; this one was not run"
            }
        };
        let data = json!({"code": ProblemCode::InvalidRequest.as_str()});
        let refused = json_rpc_error(id, ErrorCode::INVALID_REQUEST, message.to_owned(), data);
        return observed(refused, request.extensions(), route);
    }
    let mut claimed = Some(Claimed { in_flight, key, answered: false });
    let (parts, body) = next.run(request).await.into_parts();
    // In flight until the answer is sent whole: an event stream stays open until then. The
    // empty stream chained last runs once the answer's last byte is out.
    let sent = futures_util::stream::poll_fn(move |_| {
        if let Some(mut claimed) = claimed.take() {
            claimed.answered = true;
        }
        std::task::Poll::Ready(None::<Result<axum::body::Bytes, axum::Error>>)
    });
    Response::from_parts(parts, Body::from_stream(body.into_data_stream().chain(sent)))
}
