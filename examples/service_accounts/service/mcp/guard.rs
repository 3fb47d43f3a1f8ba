//! The guards around `/mcp`'s transport: the hosts and origins it serves, the input it reads as
//! sent, rmcp's transport refusals as problems, and answers read whole before they leave.

use std::net::{IpAddr, SocketAddr};

use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::http::header::{ALLOW, CONTENT_TYPE, HOST, ORIGIN};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use completeness::{Problem, ProblemCode};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use super::super::{http, refusals};

/// The answer to a `POST /mcp` (a JSON-RPC request: a tool call, a listing) is one message,
/// as plain JSON or as an event stream that ends after it (the session-based protocol), and
/// rmcp writes it into the body only once the call has been answered. It is read whole here, so
/// that the request log's line, written when the response leaves, says when the call ended,
/// with its real latency and not when rmcp began it (a slow tool call would otherwise log `200`
/// in a millisecond, before it even ran). Its events, here none before the answer, arrive with
/// it. The stream a `GET /mcp` opens for notifications lasts as long as the session and stays
/// a stream.
pub(super) async fn whole_answers(request: Request, next: Next) -> Response {
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
/// here, since its media type was right (and no version of [`PROTOCOL_VERSIONS`](super::PROTOCOL_VERSIONS) has
/// batches). JSON answers (JSON-RPC errors, problems) pass as they are.
pub(super) async fn transport_refusal(request: Request, next: Next) -> Response {
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
        StatusCode::UNSUPPORTED_MEDIA_TYPE if sent_as_json && said.as_deref().is_some_and(not_json) => {
            let broken = "The body of an MCP request is not valid JSON (a JSON-RPC message is one JSON object).";
            Problem::new(ProblemCode::InvalidBody, format!("{broken} {}", said.unwrap_or_default()))
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

/// True when rmcp's refusal of a body quotes a syntax error of serde_json (the body is not JSON
/// at all: `NaN`, a number out of range, a body cut short), not a message of another shape.
fn not_json(said: &str) -> bool {
    const SYNTAX: [&str; 14] = [
        "EOF while parsing",
        "expected value",
        "expected `:`",
        "expected `,` or",
        "expected ident",
        "invalid escape",
        "invalid number",
        "number out of range",
        "invalid unicode code point",
        "control character",
        "key must be a string",
        "lone leading surrogate",
        "trailing comma",
        "trailing characters",
    ];
    SYNTAX.iter().any(|syntax| said.contains(syntax))
}

/// `/mcp` reads one JSON-RPC message from its body and nothing from its query, as a write of the
/// REST routes does (`routes::refuse_unread_input`), and input it would not read is refused the
/// same way before rmcp sees it, changing nothing: any query parameter (400 `INVALID_REQUEST`,
/// so that `POST /mcp?dry_run=true` cannot archive while the client believes it only asked),
/// and a body not sent as plain JSON (two `Content-Type` fields, a `Content-Encoding` other than `identity`, a
/// `Transfer-Encoding` other than `chunked`, another media type: 415 `INVALID_BODY`, see
/// `completeness::extract::declared_json`).
pub(super) async fn input_as_sent(request: Request, next: Next) -> Response {
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
pub(super) fn declares_json(headers: &HeaderMap) -> bool {
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
pub(super) async fn same_origin_only(request: Request, next: Next) -> Response {
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
