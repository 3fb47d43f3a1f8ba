//! Refusals made outside the handlers, each answered as an RFC 9457 problem with a stable code.
//!
//! - [`limits`] enforces the request limits below hyper's own, so an oversized URI, header
//!   block or body is refused here, with a problem body, before hyper would refuse it without one;
//!   and it reads the body whole, within the read timeout, before anything else runs.
//! - [`as_problem`] turns any other error response that is not a problem yet (an axum
//!   extractor's plain-text rejection, a fallback) into one, keyed by its status in [`REFUSALS`].
//! - [`around`] puts both, and axum's body limit, around a router.
//!
//! Where no body is possible: hyper itself answers, with an empty body and before any of this
//! code runs, a request line whose URI is longer than 65,534 bytes (414), a request head larger
//! than its read buffer ([`super::serve::MAX_BUFFERED_HEAD`], 64 KiB) or with more than 100 headers (431), a request whose
//! body length cannot be read (a `Content-Length` that is not a number, or two that differ: 400),
//! and a request that is not HTTP at all (400); and it closes, without an answer, a connection
//! that has not sent a whole request head within the read timeout ([`super::serve`]). Every
//! request within those bounds gets a problem.

use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header::{ALLOW, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use axum::http::uri::Authority;
use axum::http::{HeaderValue, StatusCode, Version};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use completeness::server::response::PROBLEM_JSON;
use completeness::{Credential, Problem, ProblemCode};
use futures_util::StreamExt;

/// The longest request target (path and query) served, in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The largest header block served (names and values), in bytes.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The largest request body read, in bytes (a thousand archive targets fit with room to spare).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The problem code and detail of each status a refusal outside the handlers can have (and the
/// 503 of a database outage, which [`super::http::store_problem`] answers wherever the store is
/// read, authentication included): the one table both [`as_problem`] and the OpenAPI document
/// read.
pub const REFUSALS: [(u16, &str, &str); 11] = [
    (400, "INVALID_REQUEST", "The request could not be read."),
    (403, "FORBIDDEN", "This request is not allowed here."),
    (404, "NOT_FOUND", "No such route. See /openapi.json for the routes this service serves."),
    (405, "METHOD_NOT_ALLOWED", "This route does not accept that method; `Allow` lists the ones it does."),
    (
        406,
        "NOT_ACCEPTABLE",
        "The answer cannot be given in a media type the request accepts; /mcp needs `Accept: application/json, text/event-stream`.",
    ),
    (
        408,
        "REQUEST_TIMEOUT",
        "The request body did not arrive in full within the read timeout; nothing was done. Send the request again, whole.",
    ),
    (413, "INVALID_BODY", "The request body is larger than 65536 bytes."),
    (414, "URI_TOO_LONG", "The request target is longer than 8192 bytes."),
    (415, "INVALID_BODY", "The body of an MCP request must be sent as `Content-Type: application/json`."),
    (431, "HEADERS_TOO_LARGE", "The request headers are larger than 16384 bytes."),
    (503, "SERVICE_UNAVAILABLE", "The service cannot answer right now; retry after the seconds `Retry-After` gives."),
];

/// The titles of the problem codes of this service's own in [`REFUSALS`]; a code the runtime
/// knows has the runtime's title.
const OWN_TITLES: [(&str, &str); 6] = [
    ("METHOD_NOT_ALLOWED", "Method not allowed"),
    ("NOT_ACCEPTABLE", "Not acceptable"),
    ("REQUEST_TIMEOUT", "Request timeout"),
    ("URI_TOO_LONG", "Request target too long"),
    ("HEADERS_TOO_LARGE", "Request headers too large"),
    ("SERVICE_UNAVAILABLE", "Service unavailable"),
];

/// The problem a refusal with `status` is answered with.
pub fn refusal(status: StatusCode) -> Problem {
    refusal_saying(status, None)
}

/// [`refusal`], its detail followed by `also` (what the part that refused said) when given.
pub fn refusal_saying(status: StatusCode, also: Option<&str>) -> Problem {
    let (code, detail) = REFUSALS.iter().find(|(s, ..)| *s == status.as_u16()).map_or(
        if status.is_server_error() {
            ("INTERNAL", "The server failed.")
        } else {
            ("INVALID_REQUEST", "The request was refused.")
        },
        |(_, code, detail)| (*code, *detail),
    );
    let detail = match also {
        Some(also) => format!("{detail} {also}"),
        None => detail.to_owned(),
    };
    let problem = Problem::new(ProblemCode::custom(code), detail).with_status(status.as_u16());
    match OWN_TITLES.iter().find(|(own, _)| *own == code) {
        Some((_, title)) => problem.with_title(*title),
        None => problem,
    }
}

/// `router` behind the refusals: [`limits`] first (the body given `read_timeout` to arrive),
/// then every error response below it answered [`as_problem`], a body read cut at
/// [`MAX_BODY_BYTES`], and a handler that panics (a bug) answered with the 500 `INTERNAL`
/// problem, where the connection would be dropped unanswered (the panic's message goes to the
/// process's standard error, the request log's line is an `ERROR`).
pub fn around<S: Clone + Send + Sync + 'static>(router: Router<S>, read_timeout: Duration) -> Router<S> {
    router
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(tower_http::catch_panic::CatchPanicLayer::new())
        .layer(middleware::map_response(as_problem))
        .layer(middleware::from_fn(move |request: Request, next: Next| limits(request, next, read_timeout)))
}

/// Refuses a request over [`MAX_URI_BYTES`], [`MAX_HEADER_BYTES`] or (by its
/// `Content-Length`) [`MAX_BODY_BYTES`], or without one good `Host` ([`host_is_wrong`]), then
/// reads its body whole: 413 beyond [`MAX_BODY_BYTES`] however it is framed, 408
/// `REQUEST_TIMEOUT` when it has not arrived within `read_timeout`. Nothing below runs on a
/// body that is not all there, so a client that stops sending halfway holds no handler,
/// database connection or lock while it waits.
pub async fn limits(request: Request, next: Next, read_timeout: Duration) -> Response {
    let target = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    let headers: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
    let declared_body = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    if target > MAX_URI_BYTES {
        return refusal(StatusCode::URI_TOO_LONG).into_response();
    }
    if headers > MAX_HEADER_BYTES {
        return refusal(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE).into_response();
    }
    if declared_body > MAX_BODY_BYTES as u64 {
        return refusal(StatusCode::PAYLOAD_TOO_LARGE).into_response();
    }
    if let Some(why) = host_is_wrong(&request) {
        return refusal_saying(StatusCode::BAD_REQUEST, Some(why)).into_response();
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(read_timeout, read_body(body)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(refused)) => return refused,
        Err(_) => return refusal(StatusCode::REQUEST_TIMEOUT).into_response(),
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// Why `request`'s `Host` cannot be taken, if it cannot. HTTP/1.1 (RFC 9112 §3.2) requires a
/// server to refuse with 400 a request without one, with two, or with one that is not a host
/// and port: otherwise which server it was sent to is a guess, and a check of it (the MCP
/// endpoint's, against DNS rebinding) judges one of two values while something else may read
/// the other. An HTTP/1.0 request may leave it out. For the same reason a target in absolute
/// form (`POST http://host/mcp`) must name the host its `Host` field names: RFC 9112, section 3.2.2,
/// makes the target's the one that counts, and the checks here read the field.
fn host_is_wrong(request: &Request) -> Option<&'static str> {
    // An absolute target is an `http` or `https` URI without user information (RFC 9110,
    // section 4.2.4: a sender must not send it), whatever the version and `Host` field.
    if request.uri().scheme_str().is_some_and(|scheme| !matches!(scheme, "http" | "https")) {
        return Some("Its target names a scheme other than http or https; send the path alone.");
    }
    if request.uri().authority().is_some_and(|target| target.as_str().contains('@')) {
        return Some("Its target names a user; send the path alone, and credentials in `Authorization`.");
    }
    let mut hosts = request.headers().get_all(HOST).iter();
    let (first, second) = (hosts.next(), hosts.next());
    match (first, second) {
        (Some(_), Some(_)) => Some("It names its host twice (two `Host` fields); send one."),
        (None, _) if request.version() == Version::HTTP_10 => None,
        (None, _) => Some("An HTTP/1.1 request names its host in a `Host` field; send one."),
        (Some(host), None) => {
            let authority = host.to_str().ok().and_then(|host| host.parse::<Authority>().ok());
            match authority {
                Some(authority)
                    if !authority.host().is_empty()
                        && !authority.as_str().contains('@')
                        && let Ok(port) = port_of(&authority) =>
                {
                    let target = request.uri().authority();
                    // A port left out is the default port of the target's scheme, in both.
                    let default = if request.uri().scheme_str() == Some("https") { 443 } else { 80 };
                    match target {
                        Some(target)
                            if !target.host().eq_ignore_ascii_case(authority.host())
                                || port_of(target).map(|target| target.unwrap_or(default))
                                    != Ok(port.unwrap_or(default)) =>
                        {
                            Some(
                                "Its target names another host than its `Host` field; send the path alone, or \
                                 the same host in both.",
                            )
                        }
                        _ => None,
                    }
                }
                _ => Some("Its `Host` field is not a host with an optional port."),
            }
        }
    }
}

/// The port an authority names: `None` when it names none (`host`, or `host:` with an empty
/// port, which RFC 3986 allows), an error when what follows the colon is not a TCP port
/// (`host:abc`, `host:99999`). `Authority` parses those, and its `port_u16` reads them as
/// no port at all, that is the default one.
pub fn port_of(authority: &Authority) -> Result<Option<u16>, ()> {
    // `host()` keeps an IPv6 address's brackets, so what follows it (after any userinfo) is
    // `""` or `":<port>"`.
    let host_and_port = authority.as_str().rsplit_once('@').map_or(authority.as_str(), |(_, rest)| rest);
    match host_and_port.get(authority.host().len()..).unwrap_or_default().strip_prefix(':') {
        None | Some("") => Ok(None),
        Some(port) if port.bytes().all(|b| b.is_ascii_digit()) => port.parse().map(Some).map_err(|_| ()),
        Some(_) => Err(()),
    }
}

/// The whole body, refused with 413 beyond [`MAX_BODY_BYTES`] however it is framed, and with
/// 400 when the connection breaks off before its end.
async fn read_body(body: Body) -> Result<Bytes, Response> {
    let mut stream = body.into_data_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else {
            let unread = "The request body could not be read to its end.";
            return Err(refusal_saying(StatusCode::BAD_REQUEST, Some(unread)).into_response());
        };
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(refusal(StatusCode::PAYLOAD_TOO_LARGE).into_response());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(bytes))
}

/// Replaces the body of an error response that is not JSON yet with the problem of its
/// status, keeping `Allow` and the credential the authentication left on it. A JSON body is kept: it is a problem already, or the JSON-RPC error
/// the MCP endpoint answers a call with, which an MCP client reads.
pub async fn as_problem(response: Response) -> Response {
    if !is_unexplained_error(&response) {
        return response;
    }
    let allow = response.headers().get(ALLOW).cloned();
    let mut replaced = replacing(refusal(response.status()), allow);
    // The credential the authentication left for the observe layer outside (`routes::authenticate`).
    if let Some(credential) = response.extensions().get::<Credential>() {
        replaced.extensions_mut().insert(credential.clone());
    }
    replaced
}

/// True when `response` is an error whose body is not JSON yet: one to answer with a problem.
pub fn is_unexplained_error(response: &Response) -> bool {
    let status = response.status();
    (status.is_client_error() || status.is_server_error()) && !is_json(response)
}

/// `problem` as the response that replaces a refusal, keeping the refusal's `Allow`.
pub fn replacing(problem: Problem, allow: Option<HeaderValue>) -> Response {
    let mut response = problem.into_response();
    if let Some(allow) = allow {
        response.headers_mut().insert(ALLOW, allow);
    }
    response
}

/// True when `response` has a JSON body (`application/json` or a problem).
fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(str::trim)
        .is_some_and(|essence| {
            essence.eq_ignore_ascii_case("application/json") || essence.eq_ignore_ascii_case(PROBLEM_JSON)
        })
}
