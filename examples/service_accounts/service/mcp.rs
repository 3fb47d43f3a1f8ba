//! `/mcp`: the inventory as MCP tools over streamable HTTP (rmcp), on the same app and port as
//! the REST routes and behind the same bearer credentials.
//!
//! Every tool calls the function its REST route calls, so an agent gets the same pages,
//! cursors, evidence and refusals:
//! 1. `structuredContent` is the whole response and the first text block is a one-line verdict
//!    followed by the same JSON; a partial result is a result (`isError: false`).
//! 2. A refusal of the shared logic (an expired or foreign cursor, missing evidence, a value
//!    outside the `inputSchema`'s constraints) is a tool error whose text starts with
//!    `REFUSED (CODE)` and ends with the RFC 9457 problem; nothing has changed. `page_size` and
//!    `time_budget_ms` are read from their JSON text by the REST routes' own parsing, so any
//!    number gets the REST answer: `-1` or `2.0` the same `INVALID_PAGE_SIZE` or
//!    `INVALID_TIME_BUDGET`, `18446744073709551616` the same clamping (`1e400`, beyond a
//!    float, is refused with the whole message, as unreadable JSON). Only an archive refused
//!    for its evidence carries the approval request (what is missing, the options).
//! 3. Arguments that cannot be read (a wrong JSON type, a missing or unknown member,
//!    `arguments` that are not an object) and unknown tools are JSON-RPC invalid-params errors
//!    with `data.code` `INVALID_ARGUMENTS` (an unknown tool names the tools there are),
//!    before anything runs. The message names the argument and the type it must have, never the
//!    value, which may be a cursor or an evidence token: rmcp logs these errors.
//! 4. A message naming a member twice in any of its objects (`"ids"` twice in `arguments`, say)
//!    is refused before rmcp reads it, since rmcp would keep the last one as REST never does:
//!    a request gets the JSON-RPC error `-32602` naming the member, `data.code` `INVALID_BODY`,
//!    answered `200` as `application/json`; any other message a 400 `INVALID_BODY` problem.
//! 5. The caller is the credential of the HTTP request that carries the call: a request with an
//!    unknown credential is refused with a 401 problem. A session grants nothing either: it is
//!    bound to the credential that opened it, and a request of another credential naming it is
//!    answered as if it did not exist (404 `NOT_FOUND`). A credential holds at most
//!    [`MAX_SESSIONS_PER_CREDENTIAL`]; one more is refused, 429 `TOO_MANY_SESSIONS`, with a
//!    `Retry-After` of when its session idle longest would reach rmcp's idle limit and end.
//! 6. Against DNS rebinding, a request whose `Host` is not this server (a loopback name or the
//!    address the service listens on) is refused with 403 `FORBIDDEN`, and so is one whose
//!    `Origin` is another site's: only requests without an `Origin` (clients that are not
//!    browsers) and same-origin ones are served.
//! 7. Each tool's `outputSchema` is its REST route's response schema from the OpenAPI
//!    document, so the two cannot drift apart. The tools' schemas are JSON Schema (draft
//!    2020-12): they keep only the `format`s JSON Schema defines (not OpenAPI's `uint64`,
//!    which `minimum` already says), and the OpenAPI document keeps its own.
//! 8. Input `/mcp` would not read is refused before rmcp sees it, as on a REST write: a query
//!    parameter (400 `INVALID_REQUEST`), a body not sent as plain JSON (two `Content-Type`
//!    fields, a `Content-Encoding` other than `identity`: 415 `INVALID_BODY`).
//! 9. In a session, a request whose `id` is that of a request still in flight in the session
//!    is refused with the JSON-RPC error `-32600`, and does not run: rmcp would give it the
//!    first one's answer and leave the first without one. A `notifications/cancelled` is
//!    accepted and ignored there: the cancelled request runs to its end and keeps its `id`
//!    until it is answered.
//! 10. Every refusal answered with a JSON-RPC error, by these layers or by the tools' handler,
//!     is observed as a REST route's refusal is (its `problem` event and count, with the error's
//!     `data.code`), under a bounded route ([`route_of`]) and the method `MCP`. A method MCP does
//!     not define is `-32601` with `data.code` `NOT_FOUND`, under `unmatched`; so is one of a
//!     capability this server does not offer (`resources/list`, `resources/read`,
//!     `prompts/list`, `prompts/get`, `completion/complete`), under `/mcp`, and so is `ping` of
//!     protocol 2026-07-28, which has none, under `unmatched`. `logging/setLevel`, which MCP
//!     deprecates, stays rmcp's own `-32601`, without `data` and without an event.
//! 11. The protocol versions are [`PROTOCOL_VERSIONS`]: 2025-06-18 and 2025-11-25 with a session,
//!     2026-07-28 without one. 2024-11-05 and 2025-03-26, whose servers must read JSON-RPC
//!     batches (refused here, 400 `INVALID_BODY`), are not agreed to: an `initialize` asking for
//!     either is answered with 2025-11-25, and the client decides; a request in a session whose
//!     `MCP-Protocol-Version` names a version without sessions here, or none this server speaks,
//!     is refused (400 `INVALID_REQUEST`, [`SESSION_VERSIONS`]). A
//!     session is initialized once: another `initialize` in it is refused with `-32600` and
//!     changes nothing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{ALLOW, CONTENT_TYPE, HOST, ORIGIN};
use axum::http::request::Parts;
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use completeness::client::explain::{self, what_next};
use completeness::mcp::{structured_result, tool_error, tool_result};
use completeness::observe::{EntryPoint, UNMATCHED};
use completeness::{
    Aggregate, Evidence, PageRequest, Problem, ProblemCode, ReasonCode, Relation, RequireComplete, TimeBudget,
    WarningCode,
};
use futures_util::StreamExt;
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, ConstString, CustomRequest, CustomResult, ErrorCode, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams, JsonObject,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod, ListResourceTemplatesResult,
    ListResourcesRequestMethod, ListResourcesResult, ListToolsRequestMethod, ListToolsResult, PaginatedRequestParams,
    PingRequestMethod, ProtocolVersion, ReadResourceRequestMethod, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::common::http_header::{HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID};
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Number, Value, json};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::account::{self, AccountView};
use super::archive;
use super::auth::Caller;
use super::inventory::{self, CountServiceAccountsReason, InventoryQuery, ListServiceAccountsReason};
use super::search::{self, SearchReason};
use super::seed::TENANTS;
use super::state::AppState;
use super::{http, openapi, refusals, routes, telemetry};

/// Where the MCP endpoint is mounted.
pub const PATH: &str = "/mcp";

/// The `/mcp` routes: the streamable HTTP service behind the bearer authentication of the REST
/// routes; [`routes::router`] puts them behind the same refusals and request log. Cancelling
/// `stop` ends every session (and its event streams), so the server can stop.
///
/// Around the service, outermost first: the authentication, [`transport_refusal`] (rmcp's
/// refusals as problems), [`same_origin_only`], [`input_as_sent`],
/// [`sessions_of_their_credential`], [`members_given_once`], [`one_request_per_id`] and
/// [`whole_answers`]; rmcp itself checks `Host` against [`allowed_hosts`].
pub fn router(state: AppState, stop: CancellationToken) -> Router<AppState> {
    let tools = InventoryTools::new(state.clone());
    // Sessions for the protocol versions that have them; a plain JSON answer where there are none.
    // A body without a length is cut where the REST routes cut it. No priming events: 2025-11-25
    // has a stream open with an event of an id and no data, to resume from, but rmcp sends it
    // to sessions of every version, and a client of 2025-06-18 reads each `data` as a message
    // and fails on the empty one (the service's config and its sessions' each have the setting).
    // Nothing here would resume: an answer leaves whole
    // ([`whole_answers`]), and the event stream of a session carries no messages.
    let config = StreamableHttpServerConfig::default()
        .with_sse_retry(None)
        .with_json_response(true)
        .with_max_request_body_bytes(refusals::MAX_BODY_BYTES)
        .with_allowed_hosts(allowed_hosts(state.config.addr))
        .with_cancellation_token(stop);
    let mut manager = LocalSessionManager::default();
    manager.session_config.sse_retry = None;
    let manager = Arc::new(manager);
    let sessions = Sessions { manager: manager.clone(), owners: Arc::default() };
    let service = StreamableHttpService::new(move || Ok(tools.clone()), manager, config);
    // `/mcp` itself, not the paths below it: those are unknown routes.
    Router::new()
        .route_service(PATH, service)
        .layer(middleware::from_fn(whole_answers))
        .layer(middleware::from_fn(ping_where_there_is_one))
        .layer(middleware::from_fn_with_state(InFlight::default(), one_request_per_id))
        .layer(middleware::from_fn(members_given_once))
        .layer(middleware::from_fn_with_state(sessions, sessions_of_their_credential))
        .layer(middleware::from_fn(input_as_sent))
        .layer(middleware::from_fn(same_origin_only))
        .layer(middleware::from_fn(transport_refusal))
        .route_layer(middleware::from_fn_with_state(state, routes::authenticate))
}

/// The answer to a `POST /mcp` (a JSON-RPC request: a tool call, a listing) is one message,
/// as plain JSON or as an event stream that ends after it (the session-based protocol), and
/// rmcp writes it into the body only once the call has been answered. It is read whole here, so
/// that the request log's line, written when the response leaves, says when the call ended,
/// with its real latency and not when rmcp began it (a slow tool call would otherwise log `200`
/// in a millisecond, before it even ran). Its events, here none before the answer, arrive with
/// it. The stream a `GET /mcp` opens for notifications lasts as long as the session and stays
/// a stream.
async fn whole_answers(request: Request, next: Next) -> Response {
    let post = request.method() == Method::POST;
    let response = next.run(request).await;
    if !post {
        return response;
    }
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => Response::from_parts(parts, Body::from(bytes)),
        // The session ended (the service stopping) before the call was answered.
        Err(error) => refusals::refusal_saying(
            StatusCode::SERVICE_UNAVAILABLE,
            Some(&format!("the MCP answer broke off: {error}")),
        )
        .into_response(),
    }
}

/// The `Host`s `/mcp` answers to: rmcp's loopback names (`localhost`, `127.0.0.1`, `::1`) and
/// the address the service listens on, `addr`, each with any port. A client reaching the
/// service at `--addr 127.0.0.2:3000` sends `Host: 127.0.0.2:3000`, which rmcp would refuse
/// otherwise. Every other `Host` is refused (403), a name above all: a page that rebinds its
/// own name to this address still sends that name. An unspecified `addr` (`0.0.0.0`, `::`)
/// listens on every address of the machine, which are not known here: only the loopback names
/// and the unspecified address itself (what the start-up banner prints, which a client on the
/// same machine can use) are served; to serve `/mcp` at another address, listen on that address.
pub fn allowed_hosts(addr: SocketAddr) -> Vec<String> {
    let mut hosts = StreamableHttpServerConfig::default().allowed_hosts;
    let own = match addr.ip() {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    let normalized = own.trim_matches(['[', ']']);
    if !hosts.iter().any(|host| host.trim_matches(['[', ']']) == normalized) {
        hosts.push(own);
    }
    hosts
}

/// rmcp refuses what its transport cannot take with a status and one line of plain text
/// ("Bad Request: Unsupported MCP-Protocol-Version: 1999-01-01", "Not Found: Session not
/// found"). The refusal becomes the problem of its status, as every refusal does, and keeps
/// that line, so the client learns why; a 404 also says how to start a new session. rmcp
/// answers 415 both to a body not sent as JSON and to a JSON body that is not one JSON-RPC
/// message (`hello`, `[]`, a batch, `"jsonrpc": "1.0"`); the latter is a 400 `INVALID_BODY`
/// here, since its media type was right (and no version of [`PROTOCOL_VERSIONS`] has
/// batches). JSON answers (JSON-RPC errors, problems) pass as they are.
async fn transport_refusal(request: Request, next: Next) -> Response {
    let sent_as_json = declares_json(request.headers());
    let response = next.run(request).await;
    if !refusals::is_unexplained_error(&response) {
        return response;
    }
    let status = response.status();
    let allow = response.headers().get(ALLOW).cloned();
    let said = axum::body::to_bytes(response.into_body(), 1024)
        .await
        .ok()
        .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty());
    let said = said.map(|line| format!("The MCP transport said: \"{line}\"."));
    let problem = match status {
        StatusCode::NOT_FOUND => {
            let gone = "No MCP session has this `Mcp-Session-Id`: it ended or never existed. Send `initialize` without one to start a new session.";
            Problem::new(ProblemCode::NotFound, said.map_or_else(|| gone.to_owned(), |said| format!("{gone} {said}")))
        }
        // JSON nested deeper than serde_json reads (128 levels) is a message too deep, not one
        // of another shape.
        StatusCode::UNSUPPORTED_MEDIA_TYPE
            if sent_as_json && said.as_deref().is_some_and(|s| s.contains("recursion limit")) =>
        {
            let deep = "The body of an MCP request is nested deeper than 128 levels, more than JSON is read to here.";
            Problem::new(
                ProblemCode::InvalidBody,
                said.map_or_else(|| deep.to_owned(), |said| format!("{deep} {said}")),
            )
            .with_status(StatusCode::BAD_REQUEST.as_u16())
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE if sent_as_json => {
            let unread = "The body of an MCP request must be one JSON-RPC message: a JSON object with \
                          `\"jsonrpc\": \"2.0\"` (a batch is not accepted: the protocol versions this server \
                          speaks, 2025-06-18 and later, have none).";
            Problem::new(
                ProblemCode::InvalidBody,
                said.map_or_else(|| unread.to_owned(), |said| format!("{unread} {said}")),
            )
            .with_status(StatusCode::BAD_REQUEST.as_u16())
        }
        _ => refusals::refusal_saying(status, said.as_deref()),
    };
    refusals::replacing(problem, allow)
}

/// `/mcp` reads one JSON-RPC message from its body and nothing from its query, as a write of the
/// REST routes does (`routes::refuse_unread_input`), and input it would not read is refused the
/// same way before rmcp sees it, changing nothing: any query parameter (400 `INVALID_REQUEST`,
/// so that `POST /mcp?dry_run=true` cannot archive while the client believes it only asked),
/// and a body not sent as plain JSON (two `Content-Type` fields, a `Content-Encoding` other than `identity`, a
/// `Transfer-Encoding` other than `chunked`, another media type: 415 `INVALID_BODY`, see
/// `completeness::extract::declared_json`).
async fn input_as_sent(request: Request, next: Next) -> Response {
    let has_body = !request.body().is_end_stream();
    let checked = http::query(request.uri(), &[]).map(drop).and_then(|()| {
        if request.method() == Method::POST && has_body {
            http::json_content_type(request.headers(), has_body)
        } else {
            Ok(())
        }
    });
    match checked {
        Ok(()) => next.run(request).await,
        Err(problem) => problem.into_response(),
    }
}

/// True when `headers` declare a JSON body (`Content-Type: application/json`, any parameters).
fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// MCP's streamable HTTP transport: a server must validate `Origin`, so that a page of another
/// site cannot call it from a browser. A request without `Origin` (a client that is not a
/// browser) passes, and so does a same-origin one: `http://` and the authority of its own
/// `Host`, which rmcp checks against [`allowed_hosts`]. Any other `Origin` (`null` included),
/// or two of them (one request comes from one page), is refused with 403 `FORBIDDEN`, as a
/// foreign `Host` is, before anything runs.
async fn same_origin_only(request: Request, next: Next) -> Response {
    let mut origins = request.headers().get_all(ORIGIN).iter();
    if let Some(origin) = origins.next() {
        let host = request.headers().get(HOST).and_then(|host| host.to_str().ok()).map(str::to_owned);
        let host = host.or_else(|| request.uri().authority().map(|authority| authority.as_str().to_owned()));
        if origins.next().is_some() || !is_same_origin(origin, host.as_deref()) {
            let why = "A request that carries an `Origin` is served only from this server's own origin \
                       (http:// and its `Host`): a page of another site may not call /mcp.";
            return refusals::refusal_saying(StatusCode::FORBIDDEN, Some(why)).into_response();
        }
    }
    next.run(request).await
}

/// True when `origin` is `http://` followed by `host` (the port of either defaulting to 80, and
/// one that is not a port failing).
fn is_same_origin(origin: &HeaderValue, host: Option<&str>) -> bool {
    let origin = origin.to_str().ok().and_then(|origin| origin.parse::<Uri>().ok());
    let host = host.and_then(|host| host.parse::<Authority>().ok());
    let (Some(origin), Some(host)) = (origin, host) else {
        return false;
    };
    let Some(authority) = origin.authority() else {
        return false;
    };
    origin.scheme_str() == Some("http")
        && origin.path_and_query().is_none_or(|path| path.as_str() == "/")
        && !authority.as_str().contains('@')
        && authority.host().eq_ignore_ascii_case(host.host())
        && matches!(
            (refusals::port_of(authority), refusals::port_of(&host)),
            (Ok(origin), Ok(host)) if origin.unwrap_or(80) == host.unwrap_or(80)
        )
}

/// The live MCP sessions, the credential that opened each and when each was last used.
#[derive(Clone)]
struct Sessions {
    manager: Arc<LocalSessionManager>,
    /// Session id → the credential whose `initialize` opened it. Only live sessions are kept: an
    /// ended one is forgotten when it is ended (`DELETE`), when a request names it, and whenever
    /// a session opens.
    owners: Arc<Mutex<HashMap<String, Owner>>>,
}

/// Who opened a session, and when a request last named it.
#[derive(Debug, Clone)]
struct Owner {
    /// The name of the credential.
    credential: String,
    /// When a request naming the session last began or ended (or the session opened): rmcp
    /// ends a session once it has had no message for its idle limit, and each of its messages
    /// and answers starts that time again, none later than the request that carries it ends.
    used: Instant,
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
    fn owner(&self, id: &str) -> Option<String> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner).get(id).map(|owner| owner.credential.clone())
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

    /// Binds session `id` to `credential`, forgetting every session that has ended since
    /// (expired ones included), so that the map holds no more entries than live sessions.
    async fn bind(&self, id: &str, credential: &str) -> Bound {
        let live = self.manager.sessions.read().await;
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.retain(|id, _| live.contains_key(id.as_str()));
        let idle_limit = self.manager.session_config.keep_alive;
        let longest_idle = owners.values().filter(|owner| owner.credential == credential).map(|owner| owner.used).min();
        let first_to_expire = longest_idle.zip(idle_limit).and_then(|(used, limit)| used.checked_add(limit));
        owners.insert(id.to_owned(), Owner { credential: credential.to_owned(), used: Instant::now() });
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
/// outside [`SESSION_VERSIONS`]. Such a version (2026-07-28 too, which has no session), a value
/// that is no version, or two of the header, is refused (400 `INVALID_REQUEST`) before the
/// request runs, as MCP has a server do with a version it does not support. A request without
/// the header passes, as rmcp has it. (Which of the two a session agreed to is rmcp's to know.)
fn version_not_spoken(headers: &HeaderMap) -> Option<Problem> {
    let mut named = headers.get_all(HEADER_MCP_PROTOCOL_VERSION).iter();
    let first = named.next()?;
    let spoken = SESSION_VERSIONS.iter().map(ProtocolVersion::as_str).collect::<Vec<_>>().join(", ");
    let why = if named.next().is_some() {
        "It names its protocol version twice (two `MCP-Protocol-Version` fields); send one.".to_owned()
    } else {
        let version = first.to_str().ok().filter(|version| SESSION_VERSIONS.iter().any(|v| v.as_str() == *version));
        if version.is_some() {
            return None;
        }
        let excerpt: String = String::from_utf8_lossy(first.as_bytes()).chars().take(32).collect();
        format!(
            "`MCP-Protocol-Version: {excerpt}` is not a version of a session of this server ({spoken}): send \
             the version `initialize` agreed to."
        )
    };
    Some(refusals::refusal_saying(StatusCode::BAD_REQUEST, Some(&why)))
}

/// The problem code of a session refused past [`MAX_SESSIONS_PER_CREDENTIAL`]: this service's
/// own (contract §5.4).
pub const TOO_MANY_SESSIONS: &str = "TOO_MANY_SESSIONS";

/// A session belongs to the credential that opened it. rmcp knows sessions by id alone, so any
/// credential naming one could call in it, attach to its event stream (`GET`) or end it
/// (`DELETE`). Here a request naming a session that another credential opened is answered as
/// one naming a session that never existed (404, through [`transport_refusal`]), revealing
/// nothing, and so is a `DELETE` of a session rmcp does not hold (which rmcp would answer 202, as
/// if it had ended one). The id a successful `initialize` answers with is bound to its caller;
/// one past [`MAX_SESSIONS_PER_CREDENTIAL`] of that caller is ended at once and refused, 429
/// `TOO_MANY_SESSIONS` with `Retry-After` ([`too_many_sessions`]), for which each request
/// naming a session notes when it began and ended ([`Sessions::used`]). A session ended by
/// `DELETE` is answered `204 No Content`: rmcp has closed it by the time it answers, where its
/// `202 Accepted` would say the end is still to come (and the MCP Python SDK takes anything but
/// 200 and 204 for a failed termination). A request
/// with two `Mcp-Session-Id` fields is refused (400 `INVALID_REQUEST`), as two `Host` fields are.
async fn sessions_of_their_credential(State(sessions): State<Sessions>, request: Request, next: Next) -> Response {
    // Two ids name no one session: which one was meant is not ours to guess.
    if request.headers().get_all(HEADER_SESSION_ID).iter().nth(1).is_some() {
        let twice = "It names its MCP session twice (two `Mcp-Session-Id` fields); send one.";
        return refusals::refusal_saying(StatusCode::BAD_REQUEST, Some(twice)).into_response();
    }
    let caller = request.extensions().get::<Arc<Caller>>().map(|caller| caller.name.clone());
    let Some(named) = request.headers().get(HEADER_SESSION_ID) else {
        let response = next.run(request).await;
        let opened = response.headers().get(HEADER_SESSION_ID).and_then(|id| id.to_str().ok());
        if let (true, Some(id), Some(caller)) = (response.status().is_success(), opened, caller) {
            let bound = sessions.bind(id, &caller).await;
            if bound.held > MAX_SESSIONS_PER_CREDENTIAL {
                sessions.end(id).await;
                return too_many_sessions(&caller, bound.first_to_expire);
            }
        }
        return response;
    };
    let Ok(id) = named.to_str().map(str::to_owned) else {
        return session_not_found();
    };
    let live = sessions.manager.has_session(&SessionId::from(id.as_str())).await.unwrap_or(false);
    if !live {
        sessions.forget(&id);
        return session_not_found();
    }
    if caller.is_none() || sessions.owner(&id) != caller {
        return session_not_found();
    }
    if let Some(refused) = version_not_spoken(request.headers()) {
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

/// rmcp's own answer to a session it does not hold, which [`transport_refusal`] explains.
fn session_not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// More zeros than a float's largest exponent: no number a JSON reader takes stands for them.
const MAX_EXPONENT_ZEROS: usize = 400;

/// The digits of the integer a JSON number names when written with a fraction or an exponent
/// (`2.0`, `1e2`, `-3.0E0`), read from its decimal text, so no float rounds `2.0000000000000001`
/// to 2; `None` for one written as an integer already, or naming no integer (`2.5`, `1e-3`).
fn integer_digits(text: &str) -> Option<String> {
    let (sign, unsigned) = text.strip_prefix('-').map_or(("", text), |rest| ("-", rest));
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => {
            (mantissa, Some(exponent.strip_prefix('+').unwrap_or(exponent).parse::<i64>().ok()?))
        }
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // Written as an integer already: neither a fraction nor an exponent (`5e0` has one).
    if (fraction.is_empty() && exponent.is_none())
        || !(whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let exponent = exponent.unwrap_or(0);
    // The digits, and where the decimal point falls among them once the exponent is applied.
    let digits = format!("{whole}{fraction}");
    // Zero whatever its exponent: `0e1000000000` is read as 0 by a JSON reader, and its zeros
    // would never be written out.
    if digits.bytes().all(|b| b == b'0') {
        return Some("0".to_owned());
    }
    let point = whole.len() as i64 + exponent;
    let split = usize::try_from(point.clamp(0, digits.len() as i64)).ok()?;
    if digits[split..].bytes().any(|b| b != b'0') {
        return None;
    }
    // A number whose point lies past its digits gets the zeros it stands for; a JSON reader has
    // already refused one too large for a float (`1e400`), so they are at most a few hundred
    // (more is no integer this reads: left as written, refused as the REST route refuses it).
    let zeros = usize::try_from(point - digits.len() as i64).unwrap_or(0);
    if zeros > MAX_EXPONENT_ZEROS {
        return None;
    }
    let integer = format!("{}{}", &digits[..split], "0".repeat(zeros));
    let integer = integer.trim_start_matches('0');
    Some(if integer.is_empty() { "0".to_owned() } else { format!("{sign}{integer}") })
}

/// The JSON text of each number among a `tools/call`'s `arguments`, by argument name, as the
/// body carried it: `18446744073709551616` stays that, where serde_json's `Number` would hold
/// an approximation. See [`InventoryTools::number_text`].
#[derive(Debug, Clone, Default)]
struct ArgumentNumbers(HashMap<String, String>);

/// rmcp reads a message into serde_json's `Map`, which keeps the last of two members of one
/// name: `{"ids": ["sa-000001"], "ids": ["sa-000122"]}` would archive sa-000122, where the REST
/// route refuses the same body (`member `ids` is given twice`). So the body of a `POST` sent as
/// JSON is read here first (the bytes [`refusals::limits`] has read whole already, capped and
/// within the read timeout) and a message
/// with an object that names a member twice, anywhere in it, is refused without reaching rmcp,
/// changing nothing: a request whose `params` do it gets the JSON-RPC error `-32602` with its
/// `id`, any other message a 400 `INVALID_BODY` problem. A body that is not JSON at all is
/// left to rmcp to refuse. A `tools/list` whose params rmcp would drop, a request whose `id`
/// rmcp cannot read and an `initialize` whose params do not fit are refused here too, saying
/// what is wrong where rmcp's refusal would not ([`unfit_tools_list`], [`unfit_id`],
/// [`unfit_initialize`]). The numbers among the arguments are kept as written
/// ([`ArgumentNumbers`]) for the tool.
async fn members_given_once(request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !declares_json(request.headers()) {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    // The same cap as `refusals::limits`, which has buffered the body: what it let through fits.
    let Ok(bytes) = axum::body::to_bytes(body, refusals::MAX_BODY_BYTES).await else {
        return refusals::refusal(StatusCode::PAYLOAD_TOO_LARGE).into_response();
    };
    if let Some(twice) = member_given_twice(&bytes) {
        let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let route = route_of(message.get("method").and_then(Value::as_str), &message["params"]["name"]);
        return observed(refuse_twice(&message, &twice), &parts.extensions, route);
    }
    // No member is given twice from here on, so the message reads into a struct once.
    if let Ok(message) = serde_json::from_slice::<Head<'_>>(&bytes) {
        let route = message.route();
        if let Some(refused) = unfit_id(&message)
            .or_else(|| initialized_once(&message, &parts.headers))
            .or_else(|| unfit_initialize(&message))
            .or_else(|| unfit_tools_list(&message))
            .or_else(|| unfit_tool_call(&message))
        {
            return observed(refused, &parts.extensions, route);
        }
        if let (Some(id), Some(_)) = (message.answerable_id(), message.method()) {
            parts.extensions.insert(RequestId { id: id.clone(), route });
        }
        if message.id.is_none() && message.method() == Some(CANCELLED) {
            parts.extensions.insert(Cancellation);
        }
        if message.answerable_id().is_some() && message.method() == Some(PingRequestMethod::VALUE) {
            parts.extensions.insert(Ping);
        }
        if let Some(numbers) = argument_numbers(&message) {
            parts.extensions.insert(numbers);
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// What the checks before rmcp read of one JSON-RPC message: its `id` and `method`, and its
/// `params` as written. A body that is no such object (a batch, not JSON) is left to rmcp.
#[derive(Deserialize)]
struct Head<'a> {
    /// `Some(Value::Null)` for `"id": null`, `None` when there is no `id`.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    method: Option<Value>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

/// A member that is present, `null` included (serde reads `null` as an absent `Option`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Head<'_> {
    /// The `id` of a request that can be answered: one rmcp reads ([`is_request_id`]).
    fn answerable_id(&self) -> Option<&Value> {
        self.id.as_ref().filter(|id| is_request_id(id))
    }

    fn method(&self) -> Option<&str> {
        self.method.as_ref().and_then(Value::as_str)
    }

    /// The route a refusal of this message is observed under ([`route_of`]).
    fn route(&self) -> &'static str {
        let name = self.params.and_then(|params| serde_json::from_str::<Value>(params.get()).ok());
        route_of(self.method(), name.as_ref().map_or(&Value::Null, |params| &params["name"]))
    }
}

/// The route a refusal of a message calling JSON-RPC `method` is observed under, with the
/// method `MCP`: a `tools/call` under its tool's name (`name`), as the tool's own refusals are,
/// or `unmatched` when it names no tool of this server; any other message under `/mcp`. Never
/// a name the client chose: routes are metric labels, a bounded set.
fn route_of(method: Option<&str>, name: &Value) -> &'static str {
    if method != Some(CallToolRequestMethod::VALUE) {
        return PATH;
    }
    TOOLS.into_iter().find(|tool| name.as_str() == Some(tool)).unwrap_or(UNMATCHED)
}

/// A refusal answered as a JSON-RPC error by the layers before rmcp, as the problem it stands
/// for: [`json_rpc_error`] leaves it on the answer, for [`observed`]. (Answered `200`, such an
/// answer is no problem response that the observe layer around the routes would see.)
#[derive(Clone)]
struct RpcRefusal(Problem);

/// `response`, with the refusal it carries observed (its `problem` event and count) under
/// `route` and method `MCP`, in the name of the credential that sent it. A problem response
/// (`400`) is left to the observe layer around the routes.
fn observed(mut response: Response, extensions: &axum::http::Extensions, route: &str) -> Response {
    if let Some(RpcRefusal(problem)) = response.extensions_mut().remove() {
        refused_call(extensions, route, &problem);
    }
    response
}

/// Observes `problem`, a refusal of a JSON-RPC message under `route` and method `MCP`, in the
/// name of the credential the authentication put in `extensions`.
fn refused_call(extensions: &axum::http::Extensions, route: &str, problem: &Problem) {
    let caller = extensions.get::<Arc<Caller>>();
    let entry = EntryPoint::new(route, "MCP");
    caller.map_or(entry, |caller| entry.with_credential(&caller.name)).refused(problem);
}

/// An `id` rmcp reads: a string, or an integer that fits 64 signed bits. JSON-RPC allows any
/// number (and discourages `null` and fractions); MCP forbids `null`.
fn is_request_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some()
}

/// A request whose `id` rmcp cannot read (`null`, a fraction, an integer beyond 64 bits) would
/// be refused as a message that is not JSON-RPC at all, blaming a batch or `jsonrpc`. It is
/// refused here as what it is: a 400 `INVALID_BODY` problem that names the `id`. (There is no
/// `id` to answer a JSON-RPC error with.)
fn unfit_id(message: &Head<'_>) -> Option<Response> {
    let id = message.id.as_ref()?;
    if message.method().is_none() || is_request_id(id) {
        return None;
    }
    let detail = "The `id` of a JSON-RPC request must be a string or an integer from -9223372036854775808 to \
                  9223372036854775807 (this server reads ids as 64-bit integers); `null` and fractions are no \
                  request ids. Nothing was done.";
    Some(Problem::new(ProblemCode::InvalidBody, detail).into_response())
}

/// An `initialize` in a session (it names an `Mcp-Session-Id`, of a live session of its
/// credential: [`sessions_of_their_credential`] has answered any other 404). The lifecycle of
/// the versions with sessions (2025-06-18, 2025-11-25) has a session initialized once, by the
/// `initialize` that opens it, as the first thing it does; rmcp would answer another and take
/// its client info and protocol version for the session's. It is refused with the JSON-RPC error
/// `-32600` (invalid request) and its `id`, `data.code` `INVALID_REQUEST`, and changes nothing
/// (an `initialize` without an `id`, a 400 `INVALID_REQUEST` problem).
fn initialized_once(message: &Head<'_>, headers: &HeaderMap) -> Option<Response> {
    if message.method() != Some("initialize") || !headers.contains_key(HEADER_SESSION_ID) {
        return None;
    }
    let why = "this MCP session is initialized already, and a session is initialized once, by the `initialize` \
               that opened it: to initialize again, open a new session (`initialize` without an `Mcp-Session-Id`) \
               and end this one (DELETE /mcp with its Mcp-Session-Id); nothing was changed";
    Some(match message.answerable_id() {
        Some(id) => {
            let data = json!({"code": ProblemCode::InvalidRequest.as_str()});
            json_rpc_error(id, ErrorCode::INVALID_REQUEST, why.to_owned(), data)
        }
        None => Problem::new(ProblemCode::InvalidRequest, format!("Not read: {why}.")).into_response(),
    })
}

/// rmcp reads an `initialize` whose `params` do not fit (no `params`, no `clientInfo`, a
/// `protocolVersion` that is a number) as some other request, and refuses it for lacking a
/// session, which the client cannot have yet. It is answered here as what it is: the JSON-RPC
/// error `-32602` with the request's `id`, saying what does not fit, read by rmcp's own type
/// for those params, so the rule is rmcp's.
fn unfit_initialize(message: &Head<'_>) -> Option<Response> {
    if message.method() != Some("initialize") {
        return None;
    }
    let why = match message.params {
        None => "`initialize` needs `params`: `protocolVersion`, `capabilities` and `clientInfo`".to_owned(),
        Some(params) => match serde_json::from_str::<InitializeRequestParams>(params.get()) {
            Ok(_) => return None,
            Err(unfit) => format!("the `params` of `initialize` do not fit: {unfit}"),
        },
    };
    let data = json!({"code": ProblemCode::InvalidBody.as_str(), "member": "params"});
    Some(match message.answerable_id() {
        Some(id) => invalid_params(id, why, data),
        None => Problem::new(ProblemCode::InvalidBody, format!("Not read: {why}. Nothing was done.")).into_response(),
    })
}

/// A member named twice in one object of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Twice {
    /// Where the object is (`params.arguments`, `params.arguments.ids[0]`); empty for the
    /// message itself.
    within: String,
    /// The member's name.
    member: String,
}

/// The first member given twice in one object of the JSON text `bytes`, if any (`None` also
/// when `bytes` is not JSON, which rmcp then refuses).
fn member_given_twice(bytes: &[u8]) -> Option<Twice> {
    let found = std::cell::RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let _ = Walk { path: String::new(), found: &found }.deserialize(&mut reader);
    found.into_inner()
}

/// Walks a JSON value, stopping at the first object that names a member twice.
struct Walk<'a> {
    path: String,
    found: &'a std::cell::RefCell<Option<Twice>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let mut index = 0;
        while items.next_element_seed(Walk { path: format!("{}[{index}]", self.path), found: self.found })?.is_some() {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(member) = members.next_key::<String>()? {
            if seen.contains(&member) {
                *self.found.borrow_mut() = Some(Twice { within: self.path, member });
                return Err(de::Error::custom("a member is given twice"));
            }
            let path = if self.path.is_empty() { member.clone() } else { format!("{}.{member}", self.path) };
            members.next_value_seed(Walk { path, found: self.found })?;
            seen.insert(member);
        }
        Ok(())
    }
}

/// The refusal of a message that names `twice.member` twice: the JSON-RPC error `-32602` when
/// the message is a request and the member is in its `params` (served `200` as
/// `application/json`, as rmcp serves the invalid-params errors of the calls it reads, which
/// every MCP client, rmcp's included, reads as the call's error); otherwise, with no request to
/// answer (a notification, a response, the message's own members given twice, its `id` among
/// them), a 400 `INVALID_BODY` problem.
fn refuse_twice(message: &Value, twice: &Twice) -> Response {
    let member = shown(&twice.member);
    let is_request = message.get("method").is_some_and(Value::is_string);
    let in_params =
        twice.within == "params" || twice.within.starts_with("params.") || twice.within.starts_with("params[");
    let id = message.get("id").filter(|id| is_request && in_params && (id.is_string() || id.is_number()));
    let Some(id) = id else {
        let within = if twice.within.is_empty() {
            "the JSON-RPC message".to_owned()
        } else {
            format!("`{}`", shown(&twice.within))
        };
        let detail = format!("Member `{member}` of {within} is given twice; give it once. Nothing was done.");
        return Problem::new(ProblemCode::InvalidBody, detail).into_response();
    };
    let message = format!(
        "member `{member}` of `{}` is given twice; give it once; nothing was run (INVALID_BODY)",
        shown(&twice.within)
    );
    let data = json!({"code": ProblemCode::InvalidBody.as_str(), "member": member, "within": shown(&twice.within)});
    invalid_params(id, message, data)
}

/// rmcp reads the `params` of `tools/list` leniently: params that do not fit its type (a
/// `cursor` that is not a string, `params` that are not an object) are dropped, and the call is
/// answered as one that sent none, with the first page. A client whose cursor was mangled
/// would take that page for the one it asked for. Such a request gets the `-32602` an invalid
/// cursor gets (`list_tools`), with its `id`; `cursor: null` is an absent cursor.
fn unfit_tools_list(message: &Head<'_>) -> Option<Response> {
    let id = message.answerable_id()?;
    if message.method() != Some("tools/list") {
        return None;
    }
    let params = message.params.map(|raw| serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null));
    // The code says what is wrong: a cursor that is no string, or params that are no object.
    let code = match params {
        None | Some(Value::Null) => return None,
        Some(Value::Object(params)) if params.get("cursor").is_none_or(|c| c.is_string() || c.is_null()) => {
            return None;
        }
        Some(Value::Object(_)) => ProblemCode::InvalidCursor,
        Some(_) => ProblemCode::InvalidBody,
    };
    let message = "invalid `params`: tools/list takes an object whose `cursor`, when given, is a string; \
                   every tool is listed on the first page, so call tools/list without a cursor";
    Some(invalid_params(id, message.to_owned(), json!({"code": code.as_str()})))
}

/// rmcp reads `"arguments": null` of a `tools/call` as no arguments, and runs the tool with
/// its defaults (a listing of everything); arguments that are not an object are refused
/// (`-32602`, `data.code` `INVALID_ARGUMENTS`), and `null` is not one.
fn unfit_tool_call(message: &Head<'_>) -> Option<Response> {
    let id = message.answerable_id()?;
    if message.method() != Some("tools/call") {
        return None;
    }
    #[derive(Deserialize)]
    struct Params {
        #[serde(default, deserialize_with = "present")]
        arguments: Option<Value>,
    }
    let arguments = serde_json::from_str::<Params>(message.params?.get()).ok()?.arguments?;
    if !arguments.is_null() {
        return None;
    }
    let message = format!(
        "invalid `arguments`: a tools/call takes an object of arguments (`{{}}` for none), not null; the tool did \
         not run ({INVALID_ARGUMENTS})"
    );
    Some(invalid_params(id, message, json!({"code": INVALID_ARGUMENTS})))
}

/// The `id` of a JSON-RPC request, as [`members_given_once`] read it, and the route its
/// refusal is observed under ([`route_of`]), for [`one_request_per_id`].
#[derive(Debug, Clone)]
struct RequestId {
    id: Value,
    route: &'static str,
}

/// Marks a `ping` request, as [`members_given_once`] read it, for [`ping_where_there_is_one`].
#[derive(Debug, Clone, Copy)]
struct Ping;

/// Protocol 2026-07-28, which has no session, has no `ping` either (it left with the
/// connection it kept alive), and rmcp answers one `-32601` with the message `ping` alone
/// (HTTP 404). That answer becomes the one a method MCP does not define gets
/// ([`InventoryTools::on_custom_request`]): `-32601`, `data.code` `NOT_FOUND` and a message
/// saying what to call instead, observed under `unmatched`, with the same status. A `ping` in a
/// session (2025-06-18, 2025-11-25) is answered `{}`, as those versions have it, and passes.
async fn ping_where_there_is_one(request: Request, next: Next) -> Response {
    let (Some(Ping), Some(RequestId { id, .. })) =
        (request.extensions().get::<Ping>().copied(), request.extensions().get::<RequestId>().cloned())
    else {
        return next.run(request).await;
    };
    let extensions = request.extensions().clone();
    let (parts, body) = next.run(request).await.into_parts();
    // Whole already ([`whole_answers`]), and a few bytes: an answer to `ping`.
    let Ok(bytes) = axum::body::to_bytes(body, refusals::MAX_BODY_BYTES).await else {
        return refusals::refusal_saying(StatusCode::SERVICE_UNAVAILABLE, Some("the MCP answer broke off"))
            .into_response();
    };
    let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let error = &answer["error"];
    if error["code"] != ErrorCode::METHOD_NOT_FOUND.0 || error.get("data").is_some() {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let message = "unknown method `ping`: protocol version 2026-07-28 has no `ping`, as it has no session to keep \
                   alive; to learn whether the server answers, call `server/discover` (or any method it serves)";
    let data = json!({"code": ProblemCode::NotFound.as_str()});
    let mut refused = json_rpc_error(&id, ErrorCode::METHOD_NOT_FOUND, message.to_owned(), data);
    *refused.status_mut() = parts.status;
    observed(refused, &extensions, UNMATCHED)
}

/// The method of the notification that cancels a request.
const CANCELLED: &str = "notifications/cancelled";

/// Marks a `notifications/cancelled` message, as [`members_given_once`] read it, for
/// [`one_request_per_id`].
#[derive(Debug, Clone, Copy)]
struct Cancellation;

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
async fn one_request_per_id(State(in_flight): State<InFlight>, request: Request, next: Next) -> Response {
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

/// The JSON-RPC error `code` answering the request `id`, as the answer to its `POST`: `200`,
/// `application/json`. `data.code` is the stable code of the refusal, which the answer carries
/// as an [`RpcRefusal`] too, to be observed.
fn json_rpc_error(id: &Value, code: ErrorCode, message: String, data: Value) -> Response {
    let problem = Problem::new(problem_code(data["code"].as_str().unwrap_or_default()), message.clone());
    let error = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code.0, "message": message, "data": data},
    });
    let mut response =
        (StatusCode::OK, [(CONTENT_TYPE, HeaderValue::from_static("application/json"))], error.to_string())
            .into_response();
    response.extensions_mut().insert(RpcRefusal(problem));
    response
}

/// The JSON-RPC error `-32602` (invalid params) answering the request `id`.
fn invalid_params(id: &Value, message: String, data: Value) -> Response {
    json_rpc_error(id, ErrorCode::INVALID_PARAMS, message, data)
}

/// At most 64 characters of a name the client chose, for a message.
fn shown(name: &str) -> String {
    const MAX: usize = 64;
    if name.chars().count() <= MAX { name.to_owned() } else { name.chars().take(MAX).collect::<String>() + "…" }
}

/// The numbers among the `params.arguments` of `message`, as written.
fn argument_numbers(message: &Head<'_>) -> Option<ArgumentNumbers> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<HashMap<String, &'a RawValue>>,
    }
    let arguments = serde_json::from_str::<Params<'_>>(message.params?.get()).ok()?.arguments?;
    let numbers = arguments
        .into_iter()
        .map(|(name, raw)| (name, raw.get().to_owned()))
        .filter(|(_, text)| text.starts_with(|c: char| c == '-' || c.is_ascii_digit()))
        .collect();
    Some(ArgumentNumbers(numbers))
}

/// The MCP server: the tools over the service's state.
#[derive(Clone)]
pub struct InventoryTools {
    state: AppState,
    tools: Arc<Vec<Tool>>,
}

impl InventoryTools {
    /// The tools over `state`.
    pub fn new(state: AppState) -> InventoryTools {
        InventoryTools { state, tools: Arc::new(tools()) }
    }

    async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: JsonObject,
        numbers: &ArgumentNumbers,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(tool) = self.tools.iter().find(|tool| tool.name == name) else {
            // The tool's name is the call's first argument: refused as any other, with the
            // stable code an agent branches on and the names it could have meant.
            let known: Vec<String> = self.tools.iter().map(|tool| format!("`{}`", tool.name)).collect();
            let message = format!("unknown tool '{}'; this server's tools are {}", shown(name), known.join(", "));
            // Under `unmatched`, as a REST request no route matched: the name is the client's.
            let entry = EntryPoint::new(UNMATCHED, "MCP").with_credential(&caller.name);
            return Err(unread(&entry, unfit_arguments(message, Some("name"))));
        };
        let schema = tool.input_schema.as_ref();
        // Answers and refusals show in the log and the counters as those of the REST routes
        // do, under the tool's name and the method `MCP`.
        let entry = EntryPoint::new(&tool.name, "MCP").with_credential(&caller.name);
        let refuse = |error| unread(&entry, error);
        let outcome = match name {
            LIST => self.list(&entry, caller, read(schema, arguments).map_err(refuse)?, numbers).await,
            SEARCH => self.search(&entry, caller, read(schema, arguments).map_err(refuse)?, numbers).await,
            COUNT => self.count(&entry, caller, read(schema, arguments).map_err(refuse)?).await,
            GET => self.get(&entry, caller, read(schema, arguments).map_err(refuse)?).await,
            _ /* ARCHIVE, the only tool left */ => {
                return Ok(self.archive(&entry, caller, read(schema, arguments).map_err(refuse)?).await);
            }
        };
        Ok(outcome.unwrap_or_else(|problem| {
            entry.refused(&problem);
            tool_error(&problem, &retry_guidance(&problem))
        }))
    }

    /// The JSON text of number argument `name` as the call carried it (see [`ArgumentNumbers`];
    /// serde_json's own rendering of `number` where the body was not read for it), written as
    /// the integer it names when it names one: JSON Schema's `integer`, which the tools'
    /// `inputSchema` says, takes `2.0` and `1e2` as 2 and 100, so the tool does too.
    fn number_text(numbers: &ArgumentNumbers, name: &str, number: &Number) -> String {
        let text = numbers.0.get(name).cloned().unwrap_or_else(|| number.to_string());
        integer_digits(&text).unwrap_or(text)
    }

    async fn list(
        &self,
        entry: &EntryPoint<'_>,
        caller: &Caller,
        args: ListArgs,
        numbers: &ArgumentNumbers,
    ) -> Result<CallToolResult, Problem> {
        // `page_size` and `cursor` are read by the REST route's extractor, from the query it
        // would have been sent: the same number gets the same code, or the same clamping.
        let page_size = args.page_size.as_ref().map(|size| Self::number_text(numbers, "page_size", size));
        let query = rest_query(caller, [("page_size", page_size.clone()), ("cursor", args.cursor.clone())])?;
        let request = PageRequest::from_parts(&query, &self.state.completeness)?;
        let inventory = inventory_query(&args.owner, &args.tenant)?;
        let cursor_sent = args.cursor.is_some();
        let envelope = inventory::list_page(&self.state, caller, &request, &inventory).await?;
        let envelope = match &self.state.faults {
            None => envelope,
            Some(faults) => {
                let pairs = [("owner", args.owner), ("tenant", args.tenant), ("page_size", page_size.clone())];
                let stands_for = rest_request(LIST_ROUTE, pairs, args.cursor)?;
                let (state, caller) = (self.state.clone(), caller.clone());
                let first_page = move || async move {
                    let query = rest_query(&caller, [("page_size", page_size)])?;
                    let request = PageRequest::from_parts(&query, &state.completeness)?;
                    inventory::list_page(&state, &caller, &request, &inventory).await
                };
                faults.fault_answer(stands_for, envelope, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &envelope)?;
        // This service gives evidence with the last page of every whole, current traversal.
        let traversal = explain::Traversal { cursor_sent, evidence_when_whole: true };
        let verdict = explain::traversal_page_verdict(&envelope.completeness, envelope.items.len(), traversal);
        structured_result(&envelope, &verdict).map_err(internal)
    }

    async fn search(
        &self,
        entry: &EntryPoint<'_>,
        caller: &Caller,
        args: SearchArgs,
        numbers: &ArgumentNumbers,
    ) -> Result<CallToolResult, Problem> {
        // As `page_size`: the REST route's extractor reads the budget, capped the same way.
        let budget_ms = args.time_budget_ms.as_ref().map(|ms| Self::number_text(numbers, "time_budget_ms", ms));
        let budget = TimeBudget::from_parts(
            &rest_query(caller, [("time_budget_ms", budget_ms.clone())])?,
            &self.state.completeness,
        )?;
        let envelope = search::search_records(&self.state, caller, &args.q, args.tenant.as_deref(), &budget).await?;
        let envelope = match &self.state.faults {
            None => envelope,
            Some(faults) => {
                let pairs =
                    [("q", Some(args.q.clone())), ("tenant", args.tenant.clone()), ("time_budget_ms", budget_ms)];
                let mut stands_for = rest_request(SEARCH_ROUTE, pairs, None)?;
                stands_for.extensions_mut().insert(budget);
                let (state, caller) = (self.state.clone(), caller.clone());
                // A search has no cursor: the layer never asks for its first page, which is itself.
                let first_page = move || async move {
                    search::search_records(&state, &caller, &args.q, args.tenant.as_deref(), &budget).await
                };
                faults.fault_answer(stands_for, envelope, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &envelope)?;
        tool_result(&envelope).map_err(internal)
    }

    async fn count(&self, entry: &EntryPoint<'_>, caller: &Caller, args: CountArgs) -> Result<CallToolResult, Problem> {
        let inventory = inventory_query(&args.owner, &args.tenant)?;
        let aggregate = inventory::count(&self.state, caller, &inventory).await?;
        let aggregate = match &self.state.faults {
            None => aggregate,
            Some(faults) => {
                let stands_for = rest_request(COUNT_ROUTE, [("owner", args.owner), ("tenant", args.tenant)], None)?;
                let (state, caller) = (self.state.clone(), caller.clone());
                // A count has no cursor: the layer never asks for its first page, which is itself.
                let first_page = move || async move { inventory::count(&state, &caller, &inventory).await };
                faults.fault_answer(stands_for, aggregate, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &aggregate)?;
        structured_result(&aggregate, &count_verdict(&aggregate)).map_err(internal)
    }

    async fn get(&self, entry: &EntryPoint<'_>, caller: &Caller, args: GetArgs) -> Result<CallToolResult, Problem> {
        let view = account::account_view(&self.state, caller, &args.id, args.fields.iter().map(String::as_str)).await?;
        let view = match &self.state.faults {
            None => view,
            Some(faults) => {
                let fields = (!args.fields.is_empty()).then(|| args.fields.join(","));
                let stands_for = rest_request(&ACCOUNT_ROUTE.replace("{id}", &view.id), [("fields", fields)], None)?;
                // A single resource has no cursor: the layer never asks for its first page.
                let no_first_page = || {
                    std::future::ready(Err(Problem::new(ProblemCode::Internal, "a single resource has no first page")))
                };
                faults.fault_answer(stands_for, view, no_first_page).await?
            }
        };
        // Fields left out show to operators as they do over REST (a single resource demands
        // nothing, so this never refuses).
        entry.answer(RequireComplete(false), &view)?;
        structured_result(&view, &field_verdict(&view)?).map_err(internal)
    }

    async fn archive(&self, entry: &EntryPoint<'_>, caller: &Caller, args: ArchiveArgs) -> CallToolResult {
        let verified =
            Evidence::verify(&self.state.completeness, args.evidence.as_deref().unwrap_or(""), &caller.credential());
        let done = match verified {
            Ok(evidence) => {
                let done = archive::archive_with(&self.state, caller, &evidence, args.ids).await;
                if done.is_ok() {
                    entry.accepted(&evidence);
                }
                done
            }
            Err(problem) => Err(problem),
        };
        match done.and_then(|done| structured_result(&done, &archived_verdict(&done)).map_err(internal)) {
            Ok(result) => result,
            Err(problem) => {
                entry.refused(&problem);
                // The approval request answers a refusal for the evidence alone: the options it
                // gives (take the inventory again, ask for a wider credential) fix nothing else.
                let guidance = approval_request(caller, &problem).unwrap_or_else(|| {
                    let done = if http::outcome_unknown(&problem) {
                        "The archive may have been applied, or not: list the accounts again before calling again."
                    } else {
                        "Nothing has been archived."
                    };
                    format!("{done} {}", retry_guidance(&problem)).trim_end().to_owned()
                });
                tool_error(&problem, &guidance)
            }
        }
    }
}

/// What to do about a refusal that only time mends (a database outage: the REST route's
/// `Retry-After`, which a tool result has no header for); empty for any other.
fn retry_guidance(problem: &Problem) -> String {
    problem.retry_after().map_or_else(String::new, |seconds| format!("Call again in {seconds} seconds."))
}

/// The REST route `list_service_accounts` stands for, whose answers `--faults` faults as the
/// tool's ([`FaultLayer::fault_answer`](completeness::testing::faults::FaultLayer::fault_answer)).
const LIST_ROUTE: &str = "/service-accounts";
/// The REST route `search_service_accounts` stands for.
const SEARCH_ROUTE: &str = "/search";
/// The REST route `count_service_accounts` stands for.
const COUNT_ROUTE: &str = "/service-accounts/count";
/// The REST route `get_service_account` stands for, `{id}` its account's id.
const ACCOUNT_ROUTE: &str = "/service-accounts/{id}";

/// The `GET` of the REST route at `path` that a call with the arguments `pairs` and `cursor`
/// stands for, as `--faults` faults it.
fn rest_request<const N: usize>(
    path: &str,
    pairs: [(&str, Option<String>); N],
    cursor: Option<String>,
) -> Result<axum::extract::Request, Problem> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs.into_iter().chain([("cursor", cursor)]) {
        if let Some(value) = value {
            query.append_pair(name, &value);
        }
    }
    axum::http::Request::get(format!("{path}?{}", query.finish()))
        .body(Body::empty())
        .map_err(|_| Problem::new(ProblemCode::InvalidRequest, "the arguments are too long to be read"))
}

/// The request parts the REST route would have read `pairs` from (its query) as `caller`, for
/// the extractors that read them ([`PageRequest::from_parts`], [`TimeBudget::from_parts`]).
/// Arguments too long for any request's query (a cursor of tens of kilobytes) are refused as
/// the REST route refuses what it cannot read, never dropped: a cursor left out would be
/// answered as a first page.
fn rest_query<const N: usize>(caller: &Caller, pairs: [(&str, Option<String>); N]) -> Result<Parts, Problem> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut named = Vec::new();
    for (name, value) in pairs {
        if let Some(value) = value {
            query.append_pair(name, &value);
            named.push(name);
        }
    }
    let uri = Uri::try_from(format!("{PATH}?{}", query.finish())).map_err(|_| {
        let detail = format!("the arguments ({}) are too long to be read", named.join(", "));
        if named.contains(&"cursor") {
            Problem::new(ProblemCode::InvalidCursor, detail).with_parameter("cursor")
        } else {
            Problem::new(ProblemCode::InvalidRequest, detail)
        }
    })?;
    let (mut parts, ()) = axum::http::Request::new(()).into_parts();
    parts.uri = uri;
    parts.extensions.insert(caller.credential());
    Ok(parts)
}

/// The MCP protocol versions `/mcp` speaks, oldest first: 2025-06-18 and 2025-11-25 in a session
/// (`initialize`), 2026-07-28 without one. Not 2024-11-05 nor 2025-03-26, which require a server
/// to read JSON-RPC batches, which `/mcp` does not (a batch is refused, 400 `INVALID_BODY`; the
/// layers before rmcp read one message): an `initialize` asking for either is answered with the
/// newest version of a session, 2025-11-25, as MCP has a server answer a version it does not
/// speak, and the client decides whether to go on. rmcp's negotiation does it, from this list.
pub const PROTOCOL_VERSIONS: &[ProtocolVersion] =
    &[ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// The versions of [`PROTOCOL_VERSIONS`] that have sessions, which a request in a session names.
pub const SESSION_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25];

/// `ServerHandler` methods, each `name(params) -> result: method`, that refuse their method
/// with [`not_offered`].
macro_rules! not_offered_methods {
    ($($name:ident($params:ty) -> $result:ty: $method:ty;)*) => {
        $(
            async fn $name(&self, _: $params, context: RequestContext<RoleServer>) -> Result<$result, ErrorData> {
                Err(not_offered::<$method>(&context))
            }
        )*
    };
}

impl ServerHandler for InventoryTools {
    /// [`PROTOCOL_VERSIONS`], which bounds what `initialize` agrees to, what `server/discover`
    /// lists and what a request of the current protocol may name.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("service_accounts", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "An inventory of service accounts whose every list, search and count says whether it is complete. \
                 Read `complete` before anything else, and `incomplete_reasons` when it is false; each tool's \
                 description says what its reasons mean. An empty or short answer shows that nothing else exists \
                 only when `complete` is true, no warning is stale and, on a page reached with a cursor, every page \
                 before it lacked nothing but the next page and none was stale. A refusal is a tool error starting with \
                 `REFUSED (CODE)`. Archive only with the `evidence` of a complete owner=none inventory.",
            )
    }

    /// Every tool, on one page. A `cursor` can only come from a page that named a next one,
    /// and none does, so any `cursor` is invalid: `-32602`, as MCP's pagination asks.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if request.is_some_and(|request| request.cursor.is_some()) {
            return Err(refused_by_handler(
                &context,
                PATH,
                ErrorData::invalid_params(
                    "invalid `cursor`: every tool is listed on the first page, which names no next one; \
                     call tools/list without a cursor",
                    Some(json!({"code": ProblemCode::InvalidCursor.as_str()})),
                ),
            ));
        }
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The authentication layer put the caller on the HTTP request that carried this call.
        let parts = context.extensions.get::<Parts>();
        let caller = parts
            .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the request carries no authenticated credential", None))?;
        let numbers = parts.and_then(|parts| parts.extensions.get::<ArgumentNumbers>()).cloned().unwrap_or_default();
        // rmcp runs the call outside the request's span: its events go in the same span again,
        // so that they carry the request id.
        let span =
            parts.map_or_else(tracing::Span::none, |parts| telemetry::request_span(&parts.extensions, &parts.method));
        let arguments = request.arguments.unwrap_or_default();
        self.call(&caller, &request.name, arguments, &numbers).instrument(span).await.map(CallToolResponse::from)
    }

    /// rmcp hands over any request it could not read as the method it names. For a method
    /// this server serves, that means params that do not fit the protocol's schema (say
    /// `arguments: []`): an invalid-params error saying why, not "method not found", which
    /// would tell an agent that the server has no tools at all. serde's reason is told without
    /// the value it quotes (a string there may be an evidence token: rmcp logs the error).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let unfit = match request.method.as_str() {
            CallToolRequestMethod::VALUE => request.params_as::<CallToolRequestParams>().map(|read| read.is_some()),
            ListToolsRequestMethod::VALUE => request.params_as::<PaginatedRequestParams>().map(|read| read.is_some()),
            method => {
                // As a REST request no route matched: `NOT_FOUND`, under `unmatched`.
                let error = ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("unknown method `{}`", shown(method)),
                    Some(json!({"code": ProblemCode::NotFound.as_str()})),
                );
                return Err(refused_by_handler(&context, UNMATCHED, error));
            }
        };
        let reason = match unfit {
            Err(e) => without_values(&e.to_string()),
            Ok(false) => "they are missing".to_owned(),
            // They fit, read on their own: what failed was reading them as sent (a member given
            // twice is refused before, by `members_given_once`).
            Ok(true) => "they could not be read as sent".to_owned(),
        };
        let route = route_of(Some(&request.method), request.params.as_ref().map_or(&Value::Null, |p| &p["name"]));
        let error = unfit_arguments(
            format!("the params of `{}` do not fit the protocol's schema: {reason}", request.method),
            None,
        );
        Err(refused_by_handler(&context, route, error))
    }

    // The capabilities this server does not offer: each of their methods is refused as
    // `not_offered` says, where rmcp's default answer carries no `data` and leaves no event.
    not_offered_methods! {
        complete(CompleteRequestParams) -> CompleteResult: CompleteRequestMethod;
        get_prompt(GetPromptRequestParams) -> GetPromptResponse: GetPromptRequestMethod;
        list_prompts(Option<PaginatedRequestParams>) -> ListPromptsResult: ListPromptsRequestMethod;
        list_resources(Option<PaginatedRequestParams>) -> ListResourcesResult: ListResourcesRequestMethod;
        list_resource_templates(Option<PaginatedRequestParams>) -> ListResourceTemplatesResult:
            ListResourceTemplatesRequestMethod;
        read_resource(ReadResourceRequestParams) -> ReadResourceResponse: ReadResourceRequestMethod;
    }
}

/// The refusal of method `M` of a capability this server does not offer (completions, prompts,
/// resources): `-32601` with `data.code` `NOT_FOUND` and a message that names what the
/// server offers, observed under `/mcp` as any other method's refusal.
fn not_offered<M: ConstString>(context: &RequestContext<RoleServer>) -> ErrorData {
    let error = ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("`{}` is not served: this server offers tools only (`tools/list`, `tools/call`)", M::VALUE),
        Some(json!({"code": ProblemCode::NotFound.as_str()})),
    );
    refused_by_handler(context, PATH, error)
}

/// `error`, a refusal by this handler of a message rmcp read, observed under `route` and
/// method `MCP` with the stable code of its `data`, in the name of the request's credential.
fn refused_by_handler(context: &RequestContext<RoleServer>, route: &str, error: ErrorData) -> ErrorData {
    if let Some(parts) = context.extensions.get::<Parts>() {
        let code = error.data.as_ref().and_then(|data| data["code"].as_str()).unwrap_or_default();
        let problem = Problem::new(problem_code(code), error.message.to_string());
        // rmcp runs the handler outside the request's span: the event goes in it again, so
        // that it carries the request id (as a tool call's do).
        let _span = telemetry::request_span(&parts.extensions, &parts.method).entered();
        refused_call(&parts.extensions, route, &problem);
    }
    error
}

/// serde's message without the value it quotes: `invalid type: string "…", expected a map`
/// becomes `invalid type: string, expected a map`.
fn without_values(message: &str) -> String {
    for lead in ["invalid type: ", "invalid value: "] {
        if let Some(start) = message.find(lead) {
            let rest = &message[start + lead.len()..];
            if let Some(end) = rest.rfind(", expected ") {
                let kind = rest[..end].split(['`', '"']).next().unwrap_or_default().trim();
                return format!("{}{lead}{kind}{}", &message[..start], &rest[end..]);
            }
        }
    }
    message.to_owned()
}

const LIST: &str = "list_service_accounts";
const SEARCH: &str = "search_service_accounts";
const COUNT: &str = "count_service_accounts";
const GET: &str = "get_service_account";
const ARCHIVE: &str = "archive_service_accounts";
/// Every tool's name.
const TOOLS: [&str; 5] = [LIST, SEARCH, COUNT, GET, ARCHIVE];

/// The inventory filters of `list` and `count`, as the REST query reads them.
fn inventory_query(owner: &Option<String>, tenant: &Option<String>) -> Result<InventoryQuery, Problem> {
    let pairs: Vec<(String, String)> = [("owner", owner), ("tenant", tenant)]
        .into_iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| (name.to_owned(), v.clone())))
        .collect();
    InventoryQuery::parse(&pairs)
}

/// `list_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    /// `none` for accounts without an owner, or an owner's name; absent for every account.
    #[schemars(pattern(openapi::OWNER_FILTER_PATTERN))]
    owner: Option<String>,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    tenant: Option<String>,
    /// Items per page, a positive integer; any size above the server's maximum, however large,
    /// is reduced to it (with a PAGE_SIZE_REDUCED warning).
    #[schemars(with = "Option<u64>", range(min = 1))]
    page_size: Option<Number>,
    /// `next_cursor` of the previous page, with the same filters; absent for the first page.
    #[schemars(length(min = 1))]
    cursor: Option<String>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of a result that is
    /// incomplete for any reason but MORE_PAGES_AVAILABLE.
    #[serde(default)]
    require_complete: bool,
}

/// `search_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Part of an account's name, as names are written: lower-case letters, digits and '-'
    /// (the match is case-sensitive).
    #[schemars(length(min = 1, max = 64), pattern(super::account::NAME_PATTERN))]
    q: String,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    tenant: Option<String>,
    /// How long the search may take, in milliseconds, a positive integer; any budget above the
    /// server's maximum, however large, is capped to it.
    #[schemars(with = "Option<u64>", range(min = 1))]
    time_budget_ms: Option<Number>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of an incomplete result.
    #[serde(default)]
    require_complete: bool,
}

/// `count_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CountArgs {
    /// `none` for accounts without an owner, or an owner's name; absent for every account.
    #[schemars(pattern(openapi::OWNER_FILTER_PATTERN))]
    owner: Option<String>,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    tenant: Option<String>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of a lower bound.
    #[serde(default)]
    require_complete: bool,
}

/// `get_service_account` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetArgs {
    /// The account's id, e.g. `sa-000001`.
    #[schemars(pattern(openapi::ACCOUNT_ID_PATTERN))]
    id: String,
    /// Fields to fill: any field name; `secret_fingerprint` is only filled when named here. A
    /// field named twice is filled once, as in the REST route's `fields=`.
    #[serde(default)]
    fields: Vec<String>,
}

/// `archive_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ArchiveArgs {
    /// The accounts to archive, each named once: ids from the inventory the evidence comes from.
    #[schemars(
        length(min = 1, max = archive::MAX_TARGETS),
        inner(pattern(openapi::ACCOUNT_ID_PATTERN)),
        extend("uniqueItems" = true)
    )]
    ids: Vec<String>,
    /// `evidence` of the last page of a complete `list_service_accounts` traversal with owner `none`.
    #[schemars(length(min = 1))]
    evidence: Option<String>,
}

/// Reads a tool's arguments, checked against its `inputSchema` first: an unknown member, a
/// missing one, or one of the wrong JSON type is a JSON-RPC invalid-params error naming the
/// argument and the type it must have, never its value (which may be a cursor or an evidence
/// token, and rmcp logs the error). Any JSON number passes where the schema says `integer`:
/// which numbers are valid is the shared logic's to say, with its problem code.
fn read<T: DeserializeOwned>(schema: &JsonObject, arguments: JsonObject) -> Result<T, ErrorData> {
    let unfit = |argument: &str, message: String| unfit_arguments(message, Some(argument));
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, value) in &arguments {
        let Some(property) = properties.get(name) else {
            let known: Vec<String> = properties.keys().map(|name| format!("`{name}`")).collect();
            let message = format!("unknown argument `{}`; this tool takes {}", shown(name), known.join(", "));
            return Err(unfit(name, message));
        };
        if !fits(value, property) {
            return Err(unfit(name, format!("argument `{name}` must be {}", expected(property))));
        }
    }
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    if let Some(missing) = required.into_iter().find(|name| !arguments.contains_key(*name)) {
        return Err(unfit(missing, format!("argument `{missing}` is missing")));
    }
    serde_json::from_value(Value::Object(arguments))
        .map_err(|_| unfit_arguments("the arguments do not fit the tool's inputSchema", None))
}

/// The stable code of a call whose arguments (or tool name) cannot be read: the service's own,
/// in the `data` of the JSON-RPC error.
const INVALID_ARGUMENTS: &str = "INVALID_ARGUMENTS";

/// The problem code of a JSON-RPC error's `data.code`: this service's own (counted by name in
/// the metrics), or a standard one.
fn problem_code(code: &str) -> ProblemCode {
    if code == INVALID_ARGUMENTS { ProblemCode::custom(INVALID_ARGUMENTS) } else { ProblemCode::parse(code) }
}

/// `error`, a call refused before its tool ran, observed first as a REST route's refusal is:
/// its `problem` event, with the code `INVALID_ARGUMENTS` and the status a REST route would
/// answer (400).
fn unread(entry: &EntryPoint<'_>, error: ErrorData) -> ErrorData {
    entry.refused(&Problem::new(ProblemCode::custom(INVALID_ARGUMENTS), error.message.to_string()));
    error
}

/// The invalid-params error of a call that cannot be read; `argument` names the one at fault,
/// when one is. The message says that nothing ran and names the code too: a host that passes
/// an agent only the message (not `data`) loses neither.
fn unfit_arguments(message: impl Into<String>, argument: Option<&str>) -> ErrorData {
    let data = match argument {
        Some(argument) => json!({"code": INVALID_ARGUMENTS, "argument": shown(argument)}),
        None => json!({"code": INVALID_ARGUMENTS}),
    };
    let message = format!("{}; the tool did not run ({INVALID_ARGUMENTS})", message.into());
    ErrorData::invalid_params(message, Some(data))
}

/// The JSON types `schema` allows (its `type`, one name or several); empty when it says none.
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(several) => several.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// True when `value` has a JSON type `schema` allows, and so does each item of an array.
fn fits(value: &Value, schema: &Value) -> bool {
    let allowed = types(schema);
    let is = |name: &str| allowed.is_empty() || allowed.contains(&name);
    match value {
        Value::Null => is("null"),
        Value::Bool(_) => is("boolean"),
        Value::Number(_) => is("number") || is("integer"),
        Value::String(_) => is("string"),
        Value::Object(_) => is("object"),
        Value::Array(items) => is("array") && items.iter().all(|item| fits(item, &schema["items"])),
    }
}

/// What a value of `schema` is, in words: "a string or null", "an array of strings".
fn expected(schema: &Value) -> String {
    let one = |name: &str| match name {
        "array" => {
            let items: Vec<&str> = types(&schema["items"])
                .into_iter()
                .map(|item| match item {
                    "string" => "strings",
                    "integer" => "integers",
                    "number" => "numbers",
                    "boolean" => "booleans",
                    "object" => "objects",
                    _ => "values",
                })
                .collect();
            if items.is_empty() { "an array".to_owned() } else { format!("an array of {}", items.join(" or ")) }
        }
        "integer" => "an integer".to_owned(),
        "object" => "an object".to_owned(),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    };
    let all: Vec<String> = types(schema).into_iter().map(one).collect();
    if all.is_empty() { "a JSON value".to_owned() } else { all.join(" or ") }
}

fn internal(error: serde_json::Error) -> Problem {
    Problem::new(ProblemCode::Internal, format!("the result could not be serialized: {error}"))
}

/// How to read a list, search or count whose incomplete reasons can be `reasons` and whose
/// warnings can be `warnings` (what `complete` true and false mean for it, `whole` and `part`):
/// what each reason means and what to do about it, and what a stale warning takes away, so
/// that a description names no code its tool never answers with.
fn reading(reasons: &[ReasonCode], warnings: &[WarningCode], whole: &str, part: &str) -> String {
    let meaning = |code: &ReasonCode| match code {
        ReasonCode::VisibilityRestricted => {
            "this credential cannot read part of the scope, and no retry or next page shows it: name a `tenant` it \
             reads for a complete answer over that tenant, or ask a person with a credential that reads them all"
        }
        ReasonCode::MorePagesAvailable => "call again with `cursor` set to `next_cursor`",
        ReasonCode::TimeBudgetExceeded => "the time budget ran out first; a larger `time_budget_ms` may reach more",
        ReasonCode::SourceUnavailable => "a source failed to answer; ask again later",
        ReasonCode::ResultLimitReached => "there are more matches than the result limit; narrow `q` or name a `tenant`",
        _ => "what was returned is a part",
    };
    let codes: Vec<String> = reasons.iter().map(|code| format!("{}: {}", code.as_str(), meaning(code))).collect();
    let stale = if warnings.contains(&WarningCode::StaleIndex) {
        " A STALE_INDEX warning (or any warning with `stale: true`) means part of the answer came from a copy that \
         lags: even when `complete` is true, an empty `items` then does not prove absence; ask again later."
    } else {
        ""
    };
    format!(
        "Read `complete` before anything else: true means {whole}; false means {part}, and `incomplete_reasons` \
         says why, one stable `code` each ({}). `continuation` is the next step to take, when there is one. The \
         first text line is the verdict; the JSON after it is `structuredContent`. A refusal is a tool error \
         starting with `REFUSED (CODE)`.{}",
        codes.join("; "),
        stale
    )
}

/// The tools, in the order of the REST routes, each schema with only the formats JSON Schema
/// defines ([`json_schema_formats_only`]).
fn tools() -> Vec<Tool> {
    let mut tools = described_tools();
    for tool in &mut tools {
        let mut schemas = [Some(&mut tool.input_schema), tool.output_schema.as_mut()];
        for schema in schemas.iter_mut().flatten() {
            json_schema_formats_only(Arc::make_mut(schema));
        }
    }
    tools
}

/// The formats JSON Schema (draft 2020-12, the dialect of MCP's tool schemas) defines.
const JSON_SCHEMA_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops from `schema` (its members and subschemas, `$defs` included) every `format` that
/// JSON Schema does not define ([`JSON_SCHEMA_FORMATS`]): the OpenAPI document's and schemars'
/// `uint64`, `int64`, `uint32`, `double`, which name a number's width. Their meaning is in
/// `minimum` and `maximum` already, and a JSON Schema validator does not know them: Ajv (the
/// TypeScript SDK's) warns about each, and refuses to compile a schema with one in strict mode.
/// The OpenAPI document keeps them, as OpenAPI's format registry defines them. Only keywords
/// whose values are schemas are entered, so a property named `format` stays. A width's bound
/// the schema does not state yet (`uint64`'s largest value, say) is written as `minimum` or
/// `maximum` where the format goes, so that no bound is lost with it.
fn json_schema_formats_only(schema: &mut JsonObject) {
    if let Some(format) = schema.get("format").and_then(Value::as_str).map(str::to_owned)
        && !JSON_SCHEMA_FORMATS.contains(&format.as_str())
    {
        schema.remove("format");
        let (least, most): (Option<Value>, Option<Value>) = match format.as_str() {
            "uint64" => (Some(0.into()), Some(u64::MAX.into())),
            "uint32" => (Some(0.into()), Some(u32::MAX.into())),
            "int64" => (Some(i64::MIN.into()), Some(i64::MAX.into())),
            "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
            _ => (None, None),
        };
        for (keyword, exclusive, bound) in
            [("minimum", "exclusiveMinimum", least), ("maximum", "exclusiveMaximum", most)]
        {
            if let Some(bound) = bound
                && !schema.contains_key(keyword)
                && !schema.contains_key(exclusive)
            {
                schema.insert(keyword.to_owned(), bound);
            }
        }
    }
    let subschema = |value: &mut Value| {
        if let Value::Object(schema) = value {
            json_schema_formats_only(schema);
        }
    };
    for (keyword, value) in schema.iter_mut() {
        match (keyword.as_str(), value) {
            ("properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas", Value::Object(map)) => {
                map.values_mut().for_each(subschema);
            }
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(schemas)) => {
                schemas.iter_mut().for_each(subschema);
            }
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "contentSchema",
                value,
            ) => subschema(value),
            _ => {}
        }
    }
}

/// The tools as they are described and typed, in the order of the REST routes.
fn described_tools() -> Vec<Tool> {
    let document = openapi::document_json();
    let output = |component: &str| output_schema(&document, component);
    let read_only = |title: &str| {
        ToolAnnotations::with_title(title).read_only(true).destructive(false).idempotent(true).open_world(false)
    };
    // A page reached with a cursor covers the scope only with the pages before it (contract
    // §8), as its verdict says; a search has no pages.
    let whole_page = "the result covers the whole scope (an empty `items` then proves absence); on a page reached \
                      with a cursor (`page.resumed: true`), the traversal it ends covers it only if every page \
                      before it lacked nothing but the next page and none was stale";
    let whole = "the result covers the whole scope (an empty `items` then proves absence, unless a warning is \
                 stale)";
    let part = "it does not";
    vec![
        Tool::new(
            LIST,
            format!(
                "List service accounts that are not archived (GET /service-accounts), a page at a time at a frozen \
                 snapshot. Page with `cursor` = `next_cursor` (same filters) until `next_cursor` is null; the last \
                 page of a complete traversal carries `evidence`. A verdict starting STARTED OVER answers a cursor \
                 with the first page again: drop the pages read before it. One starting COMPLETE PAGE, INCOMPLETE \
                 TRAVERSAL ends a traversal an earlier page of which was partial or stale. {}",
                reading(ListServiceAccountsReason::ALL, ListServiceAccountsReason::WARNINGS, whole_page, part)
            ),
            input_schema::<ListArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccountPage"))
        .with_annotations(read_only("List service accounts")),
        Tool::new(
            SEARCH,
            format!(
                "Search service accounts by name (GET /search) across the directory, audit and legacy sources \
                 within a time budget. Hits include archived accounts and say nothing of their state: read one \
                 with {GET} to tell. {}",
                reading(SearchReason::ALL, SearchReason::WARNINGS, whole, part)
            ),
            input_schema::<SearchArgs>(),
        )
        .with_raw_output_schema(output("SearchResult"))
        .with_annotations(read_only("Search service accounts")),
        Tool::new(
            COUNT,
            format!(
                "Count service accounts that are not archived (GET /service-accounts/count): `relation` says how \
                 `count` relates to the truth: `exact`, or `lower_bound` when `complete` is false (it then counts only what this credential \
                 can read). {}",
                reading(
                    CountServiceAccountsReason::ALL,
                    CountServiceAccountsReason::WARNINGS,
                    "`count` is exact over the whole scope",
                    "it is a lower bound"
                )
            ),
            input_schema::<CountArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccountCount"))
        .with_annotations(read_only("Count service accounts")),
        Tool::new(
            GET,
            "Read one service account (GET /service-accounts/{id}). Every field is present; a field this call did \
             not fill is null and named in `omitted_fields` with why (NO_ACCESS, SOURCE_FAILED, NOT_REQUESTED), so \
             null there means \"not told\", never \"no value\". A refusal is a tool error starting with \
             `REFUSED (CODE)`.",
            input_schema::<GetArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccount"))
        .with_annotations(read_only("Read a service account")),
        Tool::new(
            ARCHIVE,
            "Archive unowned service accounts (POST /service-accounts/archive); `archived` lists them. Needs \
             `evidence` from the last page of a complete list_service_accounts traversal with owner `none` \
             (complete: true), naming only ids of that inventory. Without evidence, with evidence of another or an \
             incomplete inventory, or when a target changed since, it is refused as a whole with a tool error \
             (`REFUSED (CODE)`, what is missing, the options) and nothing is archived; any other refusal archives \
             nothing either.",
            input_schema::<ArchiveArgs>(),
        )
        .with_raw_output_schema(output("Archived"))
        .with_annotations(
            ToolAnnotations::with_title("Archive service accounts")
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}

/// The JSON Schema of a tool's arguments (draft 2020-12), with the tenants and requestable
/// fields as the REST routes check them.
fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        if let Some(tenant) = properties.get_mut("tenant") {
            let mut tenants: Vec<Value> = TENANTS.iter().map(|t| Value::from(*t)).collect();
            tenants.push(Value::Null);
            tenant["enum"] = Value::Array(tenants);
        }
        // Any field, each as often as wanted: the REST route's `fields=id,id` fills `id` once.
        if let Some(fields) = properties.get_mut("fields") {
            fields["items"] = json!({"type": "string", "enum": account::FIELDS});
        }
    }
    match schema.to_value() {
        Value::Object(object) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The schema of OpenAPI component `component` as a standalone JSON Schema: `$defs` holds the
/// components it reaches, and only those. An agent reads every byte of `tools/list`, and the
/// whole document's components in each of five tools would be most of it.
fn output_schema(document: &Value, component: &str) -> Arc<JsonObject> {
    let components = &document["components"]["schemas"];
    let mut root = components.get(component).cloned().unwrap_or_else(|| Value::Object(JsonObject::new()));
    let mut pending = Vec::new();
    relocate_refs(&mut root, &mut pending);
    let mut defs = JsonObject::new();
    while let Some(name) = pending.pop() {
        if let (false, Some(schema)) = (defs.contains_key(&name), components.get(&name)) {
            let mut schema = schema.clone();
            relocate_refs(&mut schema, &mut pending);
            defs.insert(name, schema);
        }
    }
    let mut root = match root {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    };
    root.insert("$schema".to_owned(), json!("https://json-schema.org/draft/2020-12/schema"));
    root.insert("type".to_owned(), json!("object"));
    if !defs.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
    Arc::new(root)
}

/// Rewrites `#/components/schemas/X` references to `#/$defs/X`, pushing each `X` on `reached`.
fn relocate_refs(value: &mut Value, reached: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                match member {
                    Value::String(target) if key == "$ref" => {
                        if let Some(name) = target.strip_prefix("#/components/schemas/") {
                            reached.push(name.to_owned());
                            *target = format!("#/$defs/{name}");
                        }
                    }
                    other => relocate_refs(other, reached),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| relocate_refs(item, reached)),
        _ => {}
    }
}

/// The verdict line of a single account: which fields were not filled, and why.
fn field_verdict(view: &AccountView) -> Result<String, Problem> {
    let json = serde_json::to_value(view).map_err(internal)?;
    let omitted = json["omitted_fields"].as_object().cloned().unwrap_or_default();
    Ok(if omitted.is_empty() {
        format!("ACCOUNT {}: every field filled.", view.id)
    } else {
        let why: Vec<String> =
            omitted.iter().map(|(field, code)| format!("{field}: {}", code.as_str().unwrap_or("?"))).collect();
        format!(
            "ACCOUNT {} (PARTIAL_FIELD_SET): not filled, so null does not mean no value: {}.",
            view.id,
            why.join(", ")
        )
    })
}

/// The verdict line of a count: complete or why not, whether the number is exact, and the
/// filters it counted under; an incomplete one says that what it could not count is not in it.
fn count_verdict(aggregate: &Aggregate<u64, CountServiceAccountsReason>) -> String {
    let completeness = aggregate.completeness();
    let head = explain::verdict_head(completeness);
    let relation = match aggregate.relation() {
        Relation::Exact => "exactly",
        Relation::LowerBound => "at least",
        Relation::Estimate => "about",
    };
    let counted = explain::counted(usize::try_from(*aggregate.value()).unwrap_or(usize::MAX), NOUN);
    let absence = if completeness.is_complete() { "" } else { ": the rest was not counted, so it proves no absence" };
    format!(
        "{head}: {relation} {counted}{} in scope{absence}.{}",
        explain::matching(completeness.scope()),
        what_next(completeness)
    )
}

/// What the tools' verdicts call their items.
const NOUN: &str = "service accounts";

fn archived_verdict(done: &archive::Archived) -> String {
    format!("ARCHIVED: {}, in snapshot {}.", explain::counted(done.archived.len(), NOUN), done.snapshot)
}

/// The most targets an approval request names; the problem's `targets` holds them all.
const NAMED_TARGETS: usize = 20;

/// What a person must see before the archive can go ahead: the evidence that is missing and
/// the options, which depend on what was missing (targets outside the inventory are taken out,
/// targets that changed are read again: a new inventory alone mends neither). `None` for a
/// refusal that is not about the evidence (an empty or repeated `ids`, an outage), which no new
/// inventory or wider credential mends. It is headed NOT ARCHIVED, not as a request for
/// permission: no person's yes lets the same call through.
fn approval_request(caller: &Caller, problem: &Problem) -> Option<String> {
    if !problem.code().refuses_evidence() {
        return None;
    }
    let targets = {
        let ids: Vec<&str> = problem
            .extension("targets")
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut named = ids.iter().take(NAMED_TARGETS).copied().collect::<Vec<_>>().join(", ");
        if ids.len() > NAMED_TARGETS {
            named.push_str(&format!(" and {} more (`targets` lists them all)", ids.len() - NAMED_TARGETS));
        }
        named
    };
    let inventory = format!(
        "take the inventory again: call {LIST} with owner \"none\" and follow `next_cursor` until `complete` is true, \
         then call {ARCHIVE} with ids from it and its `evidence`"
    );
    let (missing, first) = match problem.code() {
        ProblemCode::EvidenceRequired => (
            "no evidence was given: an incomplete inventory (complete: false, e.g. VISIBILITY_RESTRICTED or a \
             traversal stopped before its last page) never carries any"
                .to_owned(),
            inventory.clone(),
        ),
        ProblemCode::EvidenceExpired => {
            ("the evidence expired, or its snapshot is no longer retained".to_owned(), inventory.clone())
        }
        ProblemCode::EvidenceCredentialMismatch => (
            "the evidence was issued to another credential, or this credential's permissions changed since".to_owned(),
            inventory.clone(),
        ),
        ProblemCode::TargetNotInEvidence => (
            format!(
                "these targets are not in the inventory the evidence covers (owned, archived or outside its filters): {targets}"
            ),
            format!("call {ARCHIVE} again without them, with the same evidence; or {inventory}"),
        ),
        ProblemCode::TargetChanged => (
            format!(
                "these targets changed since the inventory (now owned, archived, perhaps by an earlier call of \
                 yours, or gone): {targets}"
            ),
            format!(
                "read them with {GET}: one with `archived: true` is archived already, and no call is needed for it; \
                 for the others, {inventory}"
            ),
        ),
        _ => (
            "the evidence does not prove a complete inventory of unowned accounts that holds every target".to_owned(),
            inventory.clone(),
        ),
    };
    Some(format!(
        "NOT ARCHIVED: nothing has been changed; archiving as credential '{}' needs evidence of a complete inventory \
         of unowned accounts holding every target.\n\
         Missing: {missing}.\n\
         Options:\n\
         1. {first};\n\
         2. if the inventory says VISIBILITY_RESTRICTED, name a `tenant` this credential reads (the inventory and \
         its evidence then cover that tenant), or ask a person holding a credential that reads every tenant;\n\
         3. abandon the action.",
        caller.name
    ))
}
