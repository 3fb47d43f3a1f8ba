//! Each JSON-RPC message as `/mcp` reads it before rmcp: its head, the checks that refuse what
//! rmcp would misread, `ping` where the protocol has none, and the JSON-RPC errors they answer.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use completeness::observe::{EntryPoint, UNMATCHED};
use completeness::{Problem, ProblemCode};
use rmcp::model::{CallToolRequestMethod, ConstString, ErrorCode, InitializeRequestParams, PingRequestMethod};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::super::auth::Caller;
use super::super::refusals;
use super::PATH;
use super::arguments::{INVALID_ARGUMENTS, argument_numbers, problem_code};
use super::guard::declares_json;
use super::in_flight::{CANCELLED, Cancellation};
use super::members_given_twice::{member_given_twice, refuse_twice};
use super::tool_list::TOOLS;

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
/// ([`ArgumentNumbers`](super::arguments::ArgumentNumbers)) for the tool.
pub(super) async fn members_given_once(request: Request, next: Next) -> Response {
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
pub(super) struct Head<'a> {
    /// `Some(Value::Null)` for `"id": null`, `None` when there is no `id`.
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default)]
    method: Option<Value>,
    #[serde(borrow, default)]
    pub(super) params: Option<&'a RawValue>,
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
pub(super) fn route_of(method: Option<&str>, name: &Value) -> &'static str {
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
pub(super) fn observed(mut response: Response, extensions: &axum::http::Extensions, route: &str) -> Response {
    if let Some(RpcRefusal(problem)) = response.extensions_mut().remove() {
        refused_call(extensions, route, &problem);
    }
    response
}

/// Observes `problem`, a refusal of a JSON-RPC message under `route` and method `MCP`, in the
/// name of the credential the authentication put in `extensions`.
pub(super) fn refused_call(extensions: &axum::http::Extensions, route: &str, problem: &Problem) {
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
/// credential: [`sessions_of_their_credential`](super::sessions::sessions_of_their_credential) has answered any
/// other 404). The lifecycle of
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
/// refusal is observed under ([`route_of`]), for [`one_request_per_id`](super::in_flight::one_request_per_id).
#[derive(Debug, Clone)]
pub(super) struct RequestId {
    pub(super) id: Value,
    pub(super) route: &'static str,
}

/// Marks a `ping` request, as [`members_given_once`] read it, for [`ping_where_there_is_one`].
#[derive(Debug, Clone, Copy)]
struct Ping;

/// Protocol 2026-07-28, which has no session, has no `ping` either (it left with the
/// connection it kept alive), and rmcp answers one `-32601` with the message `ping` alone
/// (HTTP 404). That answer becomes the one a method MCP does not define gets
/// ([`InventoryTools::on_custom_request`](super::InventoryTools#method.on_custom_request)): `-32601`,
/// `data.code` `NOT_FOUND` and a message
/// saying what to call instead, observed under `unmatched`, with the same status. A `ping` in a
/// session (2025-06-18, 2025-11-25) is answered `{}`, as those versions have it, and passes.
pub(super) async fn ping_where_there_is_one(request: Request, next: Next) -> Response {
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

/// The JSON-RPC error `code` answering the request `id`, as the answer to its `POST`: `200`,
/// `application/json`. `data.code` is the stable code of the refusal, which the answer carries
/// as an [`RpcRefusal`] too, to be observed.
pub(super) fn json_rpc_error(id: &Value, code: ErrorCode, message: String, data: Value) -> Response {
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
pub(super) fn invalid_params(id: &Value, message: String, data: Value) -> Response {
    json_rpc_error(id, ErrorCode::INVALID_PARAMS, message, data)
}

/// At most 64 characters of a name the client chose, for a message.
pub(super) fn shown(name: &str) -> String {
    const MAX: usize = 64;
    if name.chars().count() <= MAX { name.to_owned() } else { name.chars().take(MAX).collect::<String>() + "…" }
}
