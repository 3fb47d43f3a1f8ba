//! The agent's MCP transport: the service's `/mcp` tools through an rmcp client over
//! streamable HTTP, read with the same strictness as the REST answers.

use std::time::{Duration, SystemTime};

use completeness::client::FetchError;
use completeness::client::http::retry_after_seconds;
use completeness::mcp::refusal_problem;
use completeness::{Envelope, StandardReason};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{ClientInitializeError, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

/// An MCP session with the service, as one credential.
pub struct McpInventory {
    client: RunningService<RoleClient, ClientConfig>,
    /// How long one request (the handshake, a tool call, the close) may take.
    timeout: Duration,
}

impl McpInventory {
    /// Starts a session with the MCP endpoint of the service at `server` (its base URL, or the
    /// endpoint itself when it ends with `/mcp`), authenticated as `token`. Each request of the
    /// session gives up after `timeout`, as a REST request does.
    ///
    /// The limit is on each MCP request, not on the HTTP client: a whole-request timeout there
    /// would also cut the session's long-lived event stream. A handshake the endpoint refused
    /// with a 5xx or a 429 (the service answers 503 while its database, which authentication
    /// reads, cannot be reached) is [`FetchError::Unserved`], which may be waited out as a
    /// refused read is; any other failure is [`FetchError::Transport`].
    pub async fn connect(server: &str, token: &str, timeout: Duration) -> Result<McpInventory, FetchError> {
        let server = server.trim_end_matches('/');
        let endpoint = if server.ends_with("/mcp") { server.to_owned() } else { format!("{server}/mcp") };
        let config = StreamableHttpClientTransportConfig::with_uri(endpoint.as_str()).auth_header(token);
        // One pooled connection for the whole tour: rmcp's default client opens a new one for every
        // call. The endpoint never redirects, so a redirect is an error rather than a hop.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| FetchError::Transport(format!("no HTTP client: {e}")))?;
        let handshake = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("cleanup_agent", env!("CARGO_PKG_VERSION")),
        )
        .serve(StreamableHttpClientTransport::with_client(http, config));
        let no_session = |why: String| format!("no MCP session with {endpoint} as '{token}': {why}");
        let handshake = within(timeout, handshake).await.map_err(|late| FetchError::Transport(no_session(late)))?;
        let client = handshake.map_err(|e| {
            // The transport's error is where the status is; rmcp's initialize error gives it no `source`.
            let transport = match &e {
                ClientInitializeError::TransportError { error, .. } => {
                    Some(error.error.as_ref() as &(dyn std::error::Error + 'static))
                }
                _ => None,
            };
            // A refusal with its problem (a 401 of an unknown credential) is that problem, as
            // over REST.
            if let Some(problem) = transport.and_then(problem_answered) {
                return FetchError::Problem(problem);
            }
            match transport.and_then(http_refusal) {
                Some((status, retry_after)) => FetchError::Unserved {
                    status,
                    retry_after,
                    message: no_session(format!(
                        "the MCP endpoint answered HTTP {status}{}",
                        retry_after.map_or_else(String::new, |seconds| format!(" with Retry-After: {seconds} s"))
                    )),
                },
                None => FetchError::Transport(no_session(transport.map_or_else(|| e.to_string(), innermost))),
            }
        })?;
        Ok(McpInventory { client, timeout })
    }

    /// One page of `list_service_accounts` with `arguments` and `cursor`: the envelope, strictly
    /// read from `structuredContent`, or the refusal's problem.
    pub async fn page(
        &self,
        arguments: &Map<String, Value>,
        cursor: Option<String>,
    ) -> Result<Envelope<Value, StandardReason>, FetchError> {
        let mut arguments = arguments.clone();
        if let Some(cursor) = cursor {
            arguments.insert("cursor".to_owned(), Value::String(cursor));
        }
        let structured = self.call("list_service_accounts", arguments).await?;
        serde_json::from_value(structured).map_err(|e| FetchError::Contract(e.to_string()))
    }

    /// `archive_service_accounts` of `ids` with `evidence`: what was archived, or why not, read
    /// as a REST answer is (the agent's `NotArchived` judges both the same way): a tool error
    /// carrying a problem is that problem, any other failure no answer it can read.
    pub async fn archive(&self, ids: &[&str], evidence: &str) -> Result<Value, FetchError> {
        let arguments = json!({"ids": ids, "evidence": evidence});
        let Value::Object(arguments) = arguments else { unreachable!("a json! object literal is an object") };
        self.call("archive_service_accounts", arguments).await
    }

    /// Ends the session (waiting at most the request timeout for the server to hear it).
    pub async fn close(self) {
        let _ = within(self.timeout, self.client.cancel()).await;
    }

    /// Calls `tool` with `arguments`: the `structuredContent` of its result, as the REST route's
    /// answer; the problem of a tool error, as the route's problem; an HTTP refusal of the call
    /// before any tool ran (a 5xx or a 429 of the endpoint itself, or of a proxy: the service
    /// answers 503 while its database, which authentication reads, cannot be reached), whose
    /// body rmcp does not read, as REST's refusal without a problem body
    /// ([`FetchError::Unserved`]); and a call that got no result, or a result that is neither,
    /// as no answer ([`FetchError::Transport`]) or one that does not read ([`FetchError::Contract`]).
    async fn call(&self, tool: &str, arguments: Map<String, Value>) -> Result<Value, FetchError> {
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let called = within(self.timeout, self.client.call_tool(params)).await;
        let result =
            called.map_err(|late| FetchError::Transport(format!("{tool}: {late}")))?.map_err(
                |e| match http_refusal(&e) {
                    Some((status, retry_after)) => FetchError::Unserved {
                        status,
                        retry_after,
                        message: format!(
                            "{tool}: the MCP endpoint answered HTTP {status}{}, a body rmcp does not read ({e})",
                            retry_after.map_or_else(String::new, |seconds| format!(" with Retry-After: {seconds} s"))
                        ),
                    },
                    None => FetchError::Transport(format!("{tool}: {e}")),
                },
            )?;
        answer(&result).map_err(|text| match refusal_problem(&result) {
            Some(problem) => FetchError::Problem(problem),
            None => FetchError::Contract(format!("{tool}: {text}")),
        })
    }
}

/// The HTTP status, and `Retry-After` in seconds, of a request that `error` (or an error it
/// was caused by) says was answered with one instead of a JSON-RPC message (rmcp's
/// `HttpStatusError`, for a 429 or a 5xx).
fn http_refusal(error: &(dyn std::error::Error + 'static)) -> Option<(u16, Option<u64>)> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        // `HttpStatus` is transparent: the chain goes from the transport's error past it.
        let status = match current.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::HttpStatus(status)) => Some(status),
            _ => current.downcast_ref::<HttpStatusError>(),
        };
        if let Some(status) = status {
            // In seconds or as an HTTP date, as over REST.
            let wait = status.retry_after.as_deref().and_then(|value| retry_after_seconds(value, SystemTime::now()));
            return Some((status.status, wait));
        }
        cause = current.source();
    }
    None
}

/// The problem a 4xx refusal of the endpoint carried, when the transport kept its body: rmcp
/// reads a 401 or 403 without a challenge (which `/mcp` sends none of: it offers no OAuth) as
/// an unexpected response, `HTTP {status}: {the start of its body}`.
fn problem_answered(error: &(dyn std::error::Error + 'static)) -> Option<completeness::Problem> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(StreamableHttpError::UnexpectedServerResponse(text)) =
            current.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            let (_, body) = text.strip_prefix("HTTP 4")?.split_once(": ")?;
            return serde_json::from_str(body).ok();
        }
        cause = current.source();
    }
    None
}

/// What `error` comes down to, without rmcp's wording, which names its transport's types: the
/// HTTP client's error and its last cause (`error sending request for url (..): Connection
/// refused (os error 111)`). rmcp's client error gives no `source`, so it is opened here.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let chain = || std::iter::successors(Some(error), |cause| cause.source());
    let request = chain().find_map(|cause| match cause.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
        Some(StreamableHttpError::Client(request)) => Some(request),
        _ => None,
    });
    let Some(request) = request else { return error.to_string() };
    match std::iter::successors(std::error::Error::source(request), |cause| cause.source()).last() {
        Some(last) => format!("{request}: {last}"),
        None => request.to_string(),
    }
}

/// `request`'s output, or the error that it got no answer within `timeout`.
async fn within<T>(timeout: Duration, request: impl Future<Output = T>) -> Result<T, String> {
    tokio::time::timeout(timeout, request).await.map_err(|_| format!("timed out after {} s", timeout.as_secs_f64()))
}

/// The `structuredContent` of a successful result; the text of a refusal otherwise.
fn answer(result: &CallToolResult) -> Result<Value, String> {
    let text = || result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
    match (&result.structured_content, result.is_error) {
        (Some(structured), Some(false) | None) => Ok(structured.clone()),
        _ => Err(text()),
    }
}
