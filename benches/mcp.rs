//! Per-call latency of the same page of 100 service accounts over MCP (`tools/call
//! list_service_accounts` through an rmcp client over streamable HTTP) and over REST
//! (`GET /service-accounts` through reqwest), against one service on loopback. Prints the
//! latency ratio MCP/REST, measured in the same run, for both ways a client can connect:
//! the current protocol (2026-07-28: no session, each call answered with plain JSON) and the
//! session-based protocol (2025-11-25 `initialize`: a session, each answer an event stream).
//!
//! The rmcp clients share REST's pooled reqwest client, so both sides keep one connection.
//! rmcp's default client opens a new connection for every call (it turns pooling off); it is
//! measured too, as its own line.
//!
//! Then where the gap goes: the two steps whose work differs between the protocols, timed in
//! process on the bodies this run exchanged. The server encodes the envelope once for REST, and
//! for MCP twice (`structuredContent` and the text block) inside a JSON-RPC message; the client
//! decodes the REST body as JSON, and the MCP message through rmcp's model (what rmcp's client
//! does with every response), printed beside the same message decoded as plain JSON. Last, the
//! server alone: the example's router answering the same page in process, without a connection.
//!
//! For a profiler, `MCP_BENCH_SERVER=rest|mcp MCP_BENCH_REQUESTS=N` runs only that last part, one
//! side, N requests (e.g. under `valgrind --tool=callgrind` at two values of N: the difference is
//! the cost of the requests between them, without the service's start).

use std::hint::black_box;
use std::time::{Duration, Instant};

use completeness::Envelope;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::model::{NumberOrString, ProtocolVersion, ServerJsonRpcMessage, ServerResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

#[path = "support/paired.rs"]
mod paired;
#[allow(dead_code)] // the bench serves the example service, not all of its parts
#[path = "../examples/service_accounts/service/mod.rs"]
mod service;

use paired::Paired;
use service::Config;
use service::db::ListItem;
use service::inventory::ListServiceAccountsReason;
use tokio::runtime::Runtime;

const PAGE: usize = 100;
const CALLS_PER_SAMPLE: u32 = 100;
const SAMPLES: u32 = 21;

type Client = RunningService<RoleClient, ClientConfig>;

/// One REST page: the parsed envelope's item count.
async fn rest_page(http: &reqwest::Client, url: &str) -> usize {
    let response = http.get(url).bearer_auth("admin").send().await.unwrap();
    assert!(response.status().is_success());
    let page: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    page["items"].as_array().map_or(0, Vec::len)
}

/// One MCP page: the structured envelope's item count.
async fn mcp_page(client: &Client) -> usize {
    let Value::Object(arguments) = json!({"page_size": PAGE}) else { unreachable!() };
    let params = CallToolRequestParams::new("list_service_accounts").with_arguments(arguments);
    let result = client.call_tool(params).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    result.structured_content.as_ref().and_then(|e| e["items"].as_array()).map_or(0, Vec::len)
}

/// An MCP session opened by hand: `initialize`, `notifications/initialized`; returns the session id.
async fn raw_session(http: &reqwest::Client, endpoint: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    let response = raw_post(http, endpoint, None, &initialize).send().await.unwrap();
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    response.bytes().await.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    raw_post(http, endpoint, Some(&session), &initialized).send().await.unwrap().bytes().await.unwrap();
    session
}

fn raw_post(http: &reqwest::Client, endpoint: &str, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let mut request = http
        .post(endpoint)
        .bearer_auth("admin")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
}

/// One MCP page through a bare HTTP client: the SSE event's envelope item count.
async fn raw_mcp_page(http: &reqwest::Client, endpoint: &str, session: &str) -> usize {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "list_service_accounts", "arguments": {"page_size": PAGE}}});
    let text = raw_post(http, endpoint, Some(session), &call).send().await.unwrap().text().await.unwrap();
    let data = text.lines().filter_map(|l| l.strip_prefix("data:")).find(|d| d.contains("\"result\"")).unwrap();
    let message: Value = serde_json::from_str(data.trim()).unwrap();
    message["result"]["structuredContent"]["items"].as_array().map_or(0, Vec::len)
}

/// The median over 11 samples of the mean time of 100 runs of `step`.
fn step_time<T>(mut step: impl FnMut() -> T) -> Duration {
    let mut samples: Vec<Duration> = (0..11)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..100 {
                black_box(step());
            }
            start.elapsed() / 100
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

/// Prints the encoding and decoding steps of one page on each side, from the REST body of this
/// run (read back as the typed envelope the server wrote), against `gap`, the measured per-call
/// difference between MCP and REST.
fn where_the_gap_goes(rest_body: &[u8], gap: Duration) {
    let envelope: Envelope<ListItem, ListServiceAccountsReason> =
        serde_json::from_slice(rest_body).expect("the REST body reads back as the typed envelope");
    let message = |envelope: &Envelope<ListItem, ListServiceAccountsReason>| {
        let result = completeness::mcp::tool_result(envelope).expect("the envelope serializes");
        // What rmcp's server writes for a call answered with plain JSON.
        serde_json::to_vec(&ServerJsonRpcMessage::response(
            ServerResult::CallToolResult(result),
            NumberOrString::Number(1),
        ))
        .expect("the message serializes")
    };
    let mcp_body = message(&envelope);
    let parsed: ServerJsonRpcMessage = serde_json::from_slice(&mcp_body).expect("rmcp reads the message");
    assert!(matches!(parsed.into_response(), Some((ServerResult::CallToolResult(_), _))), "a tool result");

    let encode_rest = step_time(|| serde_json::to_vec(&envelope).unwrap());
    let encode_mcp = step_time(|| message(&envelope));
    let decode_rest = step_time(|| serde_json::from_slice::<Value>(rest_body).unwrap());
    let decode_mcp = step_time(|| serde_json::from_slice::<ServerJsonRpcMessage>(&mcp_body).unwrap());
    let decode_plain = step_time(|| serde_json::from_slice::<Value>(&mcp_body).unwrap());
    let explained = (encode_mcp + decode_mcp).saturating_sub(encode_rest + decode_rest);
    println!(
        "\nwhere the gap goes, per call, one page ({} bytes over REST, {} over MCP):",
        rest_body.len(),
        mcp_body.len()
    );
    println!(
        "  server, encode: REST envelope {encode_rest:.2?}; MCP tool result in its JSON-RPC message {encode_mcp:.2?} (+{:.2?})",
        encode_mcp.saturating_sub(encode_rest)
    );
    println!(
        "  client, decode: REST body as JSON {decode_rest:.2?}; MCP message through rmcp's model {decode_mcp:.2?} (+{:.2?}), \
         the same message as plain JSON {decode_plain:.2?}",
        decode_mcp.saturating_sub(decode_rest)
    );
    println!(
        "  together {explained:.2?} of the {gap:.2?} per-call gap (best MCP call, current protocol, minus best REST call)"
    );
}

/// Mean time per call over `CALLS_PER_SAMPLE` calls of `page`.
async fn per_call<F: Future<Output = usize>>(mut page: impl FnMut() -> F) -> Duration {
    let start = Instant::now();
    for _ in 0..CALLS_PER_SAMPLE {
        black_box(page().await);
    }
    start.elapsed() / CALLS_PER_SAMPLE
}

/// An rmcp client of `endpoint` that connects with `lifecycle`, over `http` (a pooled client)
/// or, without one, over rmcp's default client, which opens a new connection for every call.
async fn connect(endpoint: &str, lifecycle: ClientLifecycleMode, http: Option<&reqwest::Client>) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(endpoint.to_owned()).auth_header("admin");
    let transport = match http {
        Some(http) => StreamableHttpClientTransport::with_client(http.clone(), config),
        None => StreamableHttpClientTransport::from_config(config),
    };
    ClientConfig::new(ClientCapabilities::default(), Implementation::new("bench", "1.0.0"))
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("an MCP client")
}

/// The body of a `tools/call` at the current protocol, as an rmcp client sends it.
const CALL_AT_CURRENT_PROTOCOL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_service_accounts","arguments":{"page_size":100},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// One request to the example's router in process (no connection, no client): the body's length.
async fn in_process(router: &axum::Router, mcp: bool) -> usize {
    use tower::ServiceExt;
    let request = axum::http::Request::builder().header("host", "localhost").header("authorization", "Bearer admin");
    let request = if mcp {
        request
            .method("POST")
            .uri("/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "list_service_accounts")
            .body(axum::body::Body::from(CALL_AT_CURRENT_PROTOCOL))
    } else {
        request.uri(format!("/service-accounts?page_size={PAGE}")).body(axum::body::Body::empty())
    };
    let response = router.clone().oneshot(request.unwrap()).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().len()
}

/// The example's router on a runtime of its own with one thread, called in process: no
/// connection, no client.
///
/// One thread: rmcp runs each call in tasks it spawns, and called from outside a multi-thread
/// runtime's workers each of them would wake a worker thread, a cost of this harness that a
/// served connection, already on a worker, does not pay.
struct InProcess {
    router: axum::Router,
    /// Kept for as long as the router serves.
    _state: service::state::AppState,
    /// Last, so that it is dropped after what runs on it.
    runtime: Runtime,
}

impl InProcess {
    fn new() -> InProcess {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let config = Config { addr: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
        let stop = tokio_util::sync::CancellationToken::new();
        let (_state, router) = runtime.block_on(service::build(config, stop)).expect("the service builds");
        InProcess { router, _state, runtime }
    }

    /// The mean time per call of `calls` requests of one side, MCP (current protocol) or REST.
    fn per_call(&self, mcp: bool, calls: u32) -> Duration {
        self.runtime.block_on(async {
            let start = Instant::now();
            for _ in 0..calls {
                black_box(in_process(&self.router, mcp).await);
            }
            start.elapsed() / calls.max(1)
        })
    }
}

/// The server's share of the gap: the same page answered by the example's router in process
/// ([`InProcess`]), REST and MCP (current protocol), best of five runs of 300 calls each.
fn server_alone() {
    let server = InProcess::new();
    let best = |mcp: bool| (0..5).map(|_| server.per_call(mcp, 300)).min().unwrap_or_default();
    let (rest, mcp) = (best(false), best(true));
    println!(
        "  server alone (its router called in process on one thread, no connection or client): REST {rest:.2?}, \
         MCP {mcp:.2?} \
         per call (+{:.2?}), ratio {:.2}",
        mcp.saturating_sub(rest),
        mcp.as_secs_f64() / rest.as_secs_f64()
    );
}

/// The MCP/REST latency ratio over `SAMPLES` paired samples, after one warm-up sample of each.
fn paired(runtime: &Runtime, http: &reqwest::Client, url: &str, client: &Client) -> Paired {
    runtime.block_on(per_call(|| rest_page(http, url)));
    runtime.block_on(per_call(|| mcp_page(client)));
    Paired::measure(
        SAMPLES,
        || runtime.block_on(per_call(|| mcp_page(client))),
        || runtime.block_on(per_call(|| rest_page(http, url))),
    )
}

fn main() {
    // For a profiler (see the module doc): N requests of one side, in process, as `server_alone`
    // sends them, and nothing else.
    if let Ok(side) = std::env::var("MCP_BENCH_SERVER") {
        let requests: u32 = std::env::var("MCP_BENCH_REQUESTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .expect("MCP_BENCH_REQUESTS is the number of requests to send");
        let mcp = match side.as_str() {
            "rest" => false,
            "mcp" => true,
            other => panic!("MCP_BENCH_SERVER is rest or mcp, not {other}"),
        };
        InProcess::new().per_call(mcp, requests);
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (running, http, url, clients, raw_best, rest_body) = runtime.block_on(async {
        let config = Config { addr: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
        let running = service::start(config).await.expect("the service starts");
        let url = format!("{}/service-accounts?page_size={PAGE}", running.url());
        let endpoint = format!("{}/mcp", running.url());
        let http = reqwest::Client::new();
        let current = || ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let clients = [
            ("current protocol (no session), one pooled connection", connect(&endpoint, current(), Some(&http)).await),
            (
                "current protocol, rmcp's default client (a connection per call)",
                connect(&endpoint, current(), None).await,
            ),
            (
                "2025-11-25 session (event stream), one pooled connection",
                connect(&endpoint, ClientLifecycleMode::Initialize, Some(&http)).await,
            ),
        ];
        assert_eq!(rest_page(&http, &url).await, PAGE, "REST returns a page of 100");
        for (name, client) in &clients {
            assert_eq!(mcp_page(client).await, PAGE, "MCP, {name}, returns the same page of 100");
        }
        let raw_session = raw_session(&http, &endpoint).await;
        assert_eq!(raw_mcp_page(&http, &endpoint, &raw_session).await, PAGE, "so does a bare MCP POST");
        let mut raw_best = Duration::MAX;
        for _ in 0..5 {
            raw_best = raw_best.min(per_call(|| raw_mcp_page(&http, &endpoint, &raw_session)).await);
        }
        let rest_body = http.get(&url).bearer_auth("admin").send().await.unwrap().bytes().await.unwrap();
        (running, http, url, clients, raw_best, rest_body)
    });

    let ratios = clients.each_ref().map(|(name, client)| (*name, paired(&runtime, &http, &url, client)));
    let rest_best = ratios.iter().map(|(_, ratio)| ratio.best_b).min().unwrap_or_default();
    println!("\nper-call latency, the same page of {PAGE} service accounts over loopback (same run):");
    println!("  REST GET /service-accounts, reqwest: best {rest_best:.2?} per call");
    for (name, ratio) in &ratios {
        println!("  MCP tools/call, {name}: best {:.2?} per call", ratio.best_a);
    }
    println!("    the same call in a 2025-06-18 session, POSTed by reqwest: best {raw_best:.2?} per call");
    for (name, ratio) in &ratios {
        println!(
            "  latency ratio MCP/REST, {name} ({CALLS_PER_SAMPLE} calls a sample): {}; target <= 1.5",
            ratio.summary()
        );
    }
    // The first client is the current protocol over the pooled connection.
    where_the_gap_goes(&rest_body, ratios[0].1.best_a.saturating_sub(rest_best));
    server_alone();
    runtime.block_on(async {
        for (_, client) in clients {
            client.cancel().await.expect("the client ends");
        }
        running.stop().await.expect("the service stops");
    });
}
