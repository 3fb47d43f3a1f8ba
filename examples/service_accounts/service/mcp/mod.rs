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
//! 3. Arguments that cannot be read (a wrong JSON type, a missing or unknown member) are
//!    refused before anything runs, as the call's protocol version has it
//!    ([`UnfitArguments`](arguments::UnfitArguments)): a tool error `REFUSED
//!    (INVALID_ARGUMENTS)` from 2025-11-25 on, a JSON-RPC invalid-params error with `data.code`
//!    `INVALID_ARGUMENTS` in 2025-06-18. Unknown tools and `arguments` that are not an object
//!    are that JSON-RPC error in every version (an unknown tool names the tools there are).
//!    The message names the argument and the type it must have, never the value, which may be
//!    a cursor or an evidence token: rmcp logs JSON-RPC errors.
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
//!     `data.code`), under a bounded route ([`route_of`](messages::route_of)) and the method `MCP`. A method MCP does
//!     not define is `-32601` with `data.code` `NOT_FOUND`, under `unmatched`; so is one of a
//!     capability this server does not offer (`resources/list`, `resources/read`,
//!     `resources/subscribe`, `prompts/list`, `prompts/get`, `completion/complete`), under
//!     `/mcp`, and so is `ping` of protocol 2026-07-28, which has none, under `unmatched`.
//!     `logging/setLevel`, which MCP deprecates, and the methods of tasks and skills, which rmcp
//!     refuses as no capability of theirs is declared, stay rmcp's own `-32601`, without `data`
//!     and without an event.
//! 11. The protocol versions are [`PROTOCOL_VERSIONS`]: 2025-06-18 and 2025-11-25 with a session,
//!     2026-07-28 without one. 2024-11-05 and 2025-03-26, whose servers must read JSON-RPC
//!     batches (refused here, 400 `INVALID_BODY`), are not agreed to: an `initialize` asking for
//!     either is answered with 2025-11-25, and the client decides; a request in a session whose
//!     `MCP-Protocol-Version` names another version than the session agreed to (one without
//!     sessions here, or none this server speaks, among them) is refused (400
//!     `INVALID_REQUEST`, [`SESSION_VERSIONS`]). A
//!     session is initialized once: another `initialize` in it is refused with `-32600` and
//!     changes nothing.

mod arguments;
mod guard;
mod handler;
mod in_flight;
mod members_given_twice;
mod messages;
mod schemas;
mod sessions;
mod tool_list;
mod tools;
mod verdicts;

use std::sync::Arc;

use axum::Router;
use axum::middleware;
use rmcp::model::ProtocolVersion;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::state::AppState;
use super::{refusals, routes};

pub use guard::allowed_hosts;
pub(super) use tool_list::zero_counters;
pub use tools::InventoryTools;
// The end-to-end tests read these as `mcp::NAME`; the service itself and the benches do not.
#[allow(unused_imports)]
pub use in_flight::{InFlight, MAX_IDS_PER_SESSION, Taken};
#[allow(unused_imports)]
pub use sessions::{MAX_SESSIONS_PER_CREDENTIAL, TOO_MANY_SESSIONS};

use guard::{input_as_sent, same_origin_only, transport_refusal, whole_answers};
use in_flight::one_request_per_id;
use messages::{members_given_once, ping_where_there_is_one};
use sessions::{Sessions, sessions_of_their_credential};

/// Where the MCP endpoint is mounted.
pub const PATH: &str = "/mcp";

/// The `/mcp` routes: the streamable HTTP service behind the bearer authentication of the REST
/// routes; [`routes::router`] puts them behind the same refusals and request log. Cancelling
/// `stop` ends every session (and its event streams), so the server can stop.
///
/// Around the service, outermost first: the authentication, [`answered_before_sessions_end`],
/// [`transport_refusal`] (rmcp's
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
        .layer(middleware::from_fn_with_state(state.mcp_calls.clone(), answered_before_sessions_end))
        .route_layer(middleware::from_fn_with_state(state, routes::authenticate))
}

/// Tracks each `/mcp` request until its answer is ready ([`Service::mcp_calls`]): a replica
/// that stops ends the MCP sessions, and with them any tool call still running, only once the
/// calls in flight have been answered (or `--stop-timeout` has passed), as the REST requests in
/// flight are.
///
/// [`Service::mcp_calls`]: super::state::Service::mcp_calls
async fn answered_before_sessions_end(
    axum::extract::State(calls): axum::extract::State<tokio_util::task::TaskTracker>,
    request: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    calls.track_future(next.run(request)).await
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
