//! Session bookkeeping: the credential that opened each MCP session, the most sessions one
//! credential holds, and the protocol versions a request in a session may name.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use completeness::{Problem, ProblemCode};
use rmcp::model::ProtocolVersion;
use rmcp::transport::common::http_header::{HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID};
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::super::auth::Caller;
use super::super::refusals;
use super::SESSION_VERSIONS;

/// The live MCP sessions, the credential that opened each and when each was last used.
#[derive(Clone)]
pub(super) struct Sessions {
    pub(super) manager: Arc<LocalSessionManager>,
    /// Session id → the credential whose `initialize` opened it. Only live sessions are kept: an
    /// ended one is forgotten when it is ended (`DELETE`), when a request names it, and whenever
    /// a session opens.
    pub(super) owners: Arc<Mutex<HashMap<String, Owner>>>,
}

/// Who opened a session, and when a request last named it.
#[derive(Debug, Clone)]
pub(super) struct Owner {
    /// The name of the credential.
    credential: String,
    /// When a request naming the session last began or ended (or the session opened): rmcp
    /// ends a session once it has had no message for its idle limit, and each of its messages
    /// and answers starts that time again, none later than the request that carries it ends.
    used: Instant,
    /// The protocol version its `initialize` agreed to, as answered.
    agreed: Option<String>,
}

/// How a session was bound to its credential ([`Sessions::bind`]).
struct Bound {
    /// The live sessions of the credential, the new one included.
    held: usize,
    /// When the credential's session idle longest, the new one aside, reaches rmcp's idle
    /// limit if it is not used meanwhile, and rmcp ends it; `None` when the credential holds no
    /// other or rmcp ends no idle session.
    first_to_expire: Option<Instant>,
}

impl Sessions {
    /// Who opened session `id`, and the version it agreed to.
    fn owner(&self, id: &str) -> Option<Owner> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner).get(id).cloned()
    }

    fn forget(&self, id: &str) {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }

    /// Notes that a request naming session `id` begins or ends now.
    fn used(&self, id: &str) {
        if let Some(owner) = self.owners.lock().unwrap_or_else(PoisonError::into_inner).get_mut(id) {
            owner.used = Instant::now();
        }
    }

    /// Binds session `id` to `credential`, which agreed to protocol version `agreed`, forgetting
    /// every session that has ended since (expired ones included), so that the map holds no
    /// more entries than live sessions.
    async fn bind(&self, id: &str, credential: &str, agreed: Option<String>) -> Bound {
        let live = self.manager.sessions.read().await;
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.retain(|id, _| live.contains_key(id.as_str()));
        let idle_limit = self.manager.session_config.keep_alive;
        let longest_idle = owners.values().filter(|owner| owner.credential == credential).map(|owner| owner.used).min();
        let first_to_expire = longest_idle.zip(idle_limit).and_then(|(used, limit)| used.checked_add(limit));
        owners.insert(id.to_owned(), Owner { credential: credential.to_owned(), used: Instant::now(), agreed });
        let held = owners.values().filter(|owner| owner.credential == credential).count();
        Bound { held, first_to_expire }
    }

    /// Ends session `id`, which its credential may not hold.
    async fn end(&self, id: &str) {
        self.forget(id);
        // A session that ended meanwhile is as good as closed.
        let _ = self.manager.close_session(&SessionId::from(id)).await;
    }
}

/// The most sessions one credential holds at once. Each keeps a task and its channels (about
/// 50 KB) until it is ended or sits idle for rmcp's five minutes, so without a bound any
/// credential, the least privileged too, could open them until the server runs out of memory.
/// A client needs one; the current protocol needs none.
pub const MAX_SESSIONS_PER_CREDENTIAL: usize = 32;

/// The refusal of a session past [`MAX_SESSIONS_PER_CREDENTIAL`], which was ended at once. A
/// slot frees when the client ends a session, which only it can say when, or when rmcp ends
/// one idle for its idle limit (five minutes): `Retry-After` is when the credential's session
/// idle longest reaches it (`first_to_expire`), the soonest a slot frees if the client ends none
/// and uses none of them meanwhile, rounded up to a whole second and one more (rmcp forgets an
/// expired session a moment after it expires). It is no promise, since a session used meanwhile
/// stays, and the detail says so; without an idle limit there is no such time, and no header.
fn too_many_sessions(credential: &str, first_to_expire: Option<Instant>) -> Response {
    let retry_after =
        first_to_expire.map(|at| at.saturating_duration_since(Instant::now()).as_secs().saturating_add(1));
    let wait = retry_after.map_or_else(String::new, |seconds| {
        format!(
            " (the one idle longest reaches that in {seconds} seconds, as Retry-After says, if none is used \
             meanwhile)"
        )
    });
    let detail = format!(
        "Credential '{credential}' holds {MAX_SESSIONS_PER_CREDENTIAL} open MCP sessions, the most one credential may: \
         end one (DELETE /mcp with its Mcp-Session-Id) or let one sit idle for five minutes{wait}, or call without a \
         session over protocol version 2026-07-28. No session was opened."
    );
    let problem = Problem::new(ProblemCode::custom(TOO_MANY_SESSIONS), detail)
        .with_title("Too many sessions")
        .with_status(StatusCode::TOO_MANY_REQUESTS.as_u16());
    match retry_after {
        Some(seconds) => problem.with_retry_after(seconds),
        None => problem,
    }
    .into_response()
}

/// A request in a session names the protocol version it speaks in `MCP-Protocol-Version`; rmcp
/// takes there any version it knows, 2025-03-26 too, though no session here agreed to one
/// outside [`SESSION_VERSIONS`], and any of them whatever its session agreed to. A version
/// other than the one the session agreed to (`agreed`, when known), one outside
/// [`SESSION_VERSIONS`] (2026-07-28 too, which has no session), a value that is no version, or
/// two of the header, is refused (400 `INVALID_REQUEST`) before the request runs, as MCP has a
/// server do with an invalid or unsupported version. A request without the header passes, as
/// rmcp has it.
fn version_not_spoken(headers: &HeaderMap, agreed: Option<&str>) -> Option<Problem> {
    let mut named = headers.get_all(HEADER_MCP_PROTOCOL_VERSION).iter();
    let first = named.next()?;
    let spoken = SESSION_VERSIONS.iter().map(ProtocolVersion::as_str).collect::<Vec<_>>().join(", ");
    let excerpt: String = String::from_utf8_lossy(first.as_bytes()).chars().take(32).collect();
    let version = first.to_str().ok().filter(|version| SESSION_VERSIONS.iter().any(|v| v.as_str() == *version));
    let why = if named.next().is_some() {
        "It names its protocol version twice (two `MCP-Protocol-Version` fields); send one.".to_owned()
    } else if version.is_none() {
        format!(
            "`MCP-Protocol-Version: {excerpt}` is not a version of a session of this server ({spoken}): send \
             the version `initialize` agreed to."
        )
    } else {
        match agreed {
            Some(agreed) if version != Some(agreed) => format!(
                "`MCP-Protocol-Version: {excerpt}` is not the version this session agreed to: send \
                 `MCP-Protocol-Version: {agreed}`, or open a session of {excerpt}."
            ),
            _ => return None,
        }
    };
    Some(refusals::refusal_saying(StatusCode::BAD_REQUEST, Some(&why)))
}

/// The protocol version an `initialize` answer agreed to: its `result.protocolVersion`, in a
/// JSON body or in the `data` of an event of an event stream (how rmcp answers in a session).
fn agreed_version(answer: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(answer).ok()?;
    let data = text.lines().filter_map(|line| line.strip_prefix("data:"));
    std::iter::once(text).chain(data).find_map(|candidate| {
        let message: serde_json::Value = serde_json::from_str(candidate.trim()).ok()?;
        message["result"]["protocolVersion"].as_str().map(str::to_owned)
    })
}

/// The most bytes of an answer that opened a session this layer reads: an `initialize` result
/// (the server's info, capabilities and instructions) takes about 1 KiB.
const INITIALIZE_ANSWER_BYTES: usize = 64 * 1024;

/// The problem code of a session refused past [`MAX_SESSIONS_PER_CREDENTIAL`]: this service's
/// own (contract §5.4).
pub const TOO_MANY_SESSIONS: &str = "TOO_MANY_SESSIONS";

/// A session belongs to the credential that opened it. rmcp knows sessions by id alone, so any
/// credential naming one could call in it, attach to its event stream (`GET`) or end it
/// (`DELETE`). Here a request naming a session that another credential opened is answered as
/// one naming a session that never existed (404, through
/// [`transport_refusal`](super::guard::transport_refusal)), revealing
/// nothing, and so is a `DELETE` of a session rmcp does not hold (which rmcp would answer 202, as
/// if it had ended one). The id a successful `initialize` answers with is bound to its caller;
/// one past [`MAX_SESSIONS_PER_CREDENTIAL`] of that caller is ended at once and refused, 429
/// `TOO_MANY_SESSIONS` with `Retry-After` ([`too_many_sessions`]), for which each request
/// naming a session notes when it began and ended ([`Sessions::used`]). A session ended by
/// `DELETE` is answered `204 No Content`: rmcp has closed it by the time it answers, where its
/// `202 Accepted` would say the end is still to come (and the MCP Python SDK takes anything but
/// 200 and 204 for a failed termination). A request
/// with two `Mcp-Session-Id` fields is refused (400 `INVALID_REQUEST`), as two `Host` fields are.
pub(super) async fn sessions_of_their_credential(
    State(sessions): State<Sessions>,
    request: Request,
    next: Next,
) -> Response {
    // Two ids name no one session: which one was meant is not ours to guess.
    if request.headers().get_all(HEADER_SESSION_ID).iter().nth(1).is_some() {
        let twice = "It names its MCP session twice (two `Mcp-Session-Id` fields); send one.";
        return refusals::refusal_saying(StatusCode::BAD_REQUEST, Some(twice)).into_response();
    }
    let caller = request.extensions().get::<Arc<Caller>>().map(|caller| caller.name.clone());
    let Some(named) = request.headers().get(HEADER_SESSION_ID) else {
        let response = next.run(request).await;
        let opened = response.headers().get(HEADER_SESSION_ID).and_then(|id| id.to_str().ok()).map(str::to_owned);
        let (Some(id), Some(caller), true) = (opened, caller, response.status().is_success()) else {
            return response;
        };
        // The version agreed to, from the `initialize` answer (whole by now,
        // [`whole_answers`](super::guard::whole_answers)), for the session's later requests.
        let (parts, body) = response.into_parts();
        let Ok(answer) = axum::body::to_bytes(body, INITIALIZE_ANSWER_BYTES).await else {
            sessions.end(&id).await;
            let detail = "The answer to `initialize` could not be read whole; no session was opened.";
            return Problem::new(ProblemCode::Internal, detail).into_response();
        };
        let agreed = agreed_version(&answer);
        let bound = sessions.bind(&id, &caller, agreed).await;
        if bound.held > MAX_SESSIONS_PER_CREDENTIAL {
            sessions.end(&id).await;
            return too_many_sessions(&caller, bound.first_to_expire);
        }
        return Response::from_parts(parts, axum::body::Body::from(answer));
    };
    let Ok(id) = named.to_str().map(str::to_owned) else {
        return session_not_found();
    };
    let live = sessions.manager.has_session(&SessionId::from(id.as_str())).await.unwrap_or(false);
    if !live {
        sessions.forget(&id);
        return session_not_found();
    }
    let owner = sessions.owner(&id);
    if caller.is_none() || owner.as_ref().map(|owner| &owner.credential) != caller.as_ref() {
        return session_not_found();
    }
    let agreed = owner.and_then(|owner| owner.agreed);
    if let Some(refused) = version_not_spoken(request.headers(), agreed.as_deref()) {
        return refused.into_response();
    }
    let ends = request.method() == Method::DELETE;
    sessions.used(&id);
    let response = next.run(request).await;
    if ends && response.status().is_success() {
        sessions.forget(&id);
        return StatusCode::NO_CONTENT.into_response();
    }
    // A `POST`'s answer is whole by now ([`whole_answers`]).
    sessions.used(&id);
    response
}

/// rmcp's own answer to a session it does not hold, which
/// [`transport_refusal`](super::guard::transport_refusal) explains.
fn session_not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}
