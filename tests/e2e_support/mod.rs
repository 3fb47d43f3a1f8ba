//! Shared by the end-to-end tests: starts the service_accounts example in-process on a free
//! loopback port and talks to it over real HTTP with reqwest.

#![allow(dead_code)] // each test file uses a different part of the service and of these helpers

#[path = "../../examples/service_accounts/service/mod.rs"]
pub mod service;

#[path = "../../examples/service_accounts/demo.rs"]
pub mod demo;

#[path = "../postgres_support/mod.rs"]
pub mod postgres;

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;

pub use service::Config;

/// A small, fast configuration: `accounts` accounts on a free port, the usual source latencies.
pub fn config(accounts: u32) -> Config {
    Config { addr: "127.0.0.1:0".parse().unwrap(), accounts, ..Config::default() }
}

/// The store a test's services run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite in memory (the example's default).
    Sqlite,
    /// A fresh database on the test PostgreSQL server (see `postgres_support`).
    Postgres,
}

tokio::task_local! {
    /// The backend of the running test case, set by [`both_backends!`].
    pub static BACKEND: Backend;
}

/// The running test case's backend: SQLite unless [`both_backends!`] says otherwise.
pub fn backend() -> Backend {
    BACKEND.try_with(|b| *b).unwrap_or(Backend::Sqlite)
}

/// Runs each test function once on SQLite and once on PostgreSQL: `mod NAME { fn sqlite; fn postgres }`.
#[allow(unused_macros)] // a test file whose cases run on one backend only does not use it
macro_rules! both_backends {
    ($( $(#[$meta:meta])* async fn $name:ident() $body:block )*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            $(#[$meta])*
            async fn sqlite() {
                $crate::e2e_support::BACKEND.scope($crate::e2e_support::Backend::Sqlite, async move $body).await
            }
            $(#[$meta])*
            async fn postgres() {
                $crate::e2e_support::BACKEND.scope($crate::e2e_support::Backend::Postgres, async move $body).await
            }
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use both_backends;

/// A running service and a client for it.
pub struct Harness {
    /// The service.
    pub running: service::Running,
    client: reqwest::Client,
    /// The PostgreSQL database made for this service alone, released with the harness (a field,
    /// not a `Drop` of `Harness`, so that a test can still move `running` out to stop it).
    database: Option<postgres::Release>,
}

/// One HTTP answer: status, content type and JSON body.
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The `content-type` header.
    pub content_type: String,
    /// `Retry-After`, when sent.
    pub retry_after: Option<String>,
    /// `Preference-Applied`, when sent.
    pub preference_applied: Option<String>,
    /// `WWW-Authenticate`, when sent.
    pub www_authenticate: Option<String>,
    /// The body as JSON (`Null` when empty or not JSON).
    pub body: Value,
}

impl Answer {
    /// The problem `code`, or "" when the body has none.
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    /// The codes of `incomplete_reasons`.
    pub fn reasons(&self) -> Vec<String> {
        self.body["incomplete_reasons"]
            .as_array()
            .map(|a| a.iter().map(|r| r["code"].as_str().unwrap_or("").to_owned()).collect())
            .unwrap_or_default()
    }

    /// The ids of `items`.
    pub fn ids(&self) -> Vec<String> {
        self.body["items"]
            .as_array()
            .map(|a| a.iter().map(|i| i["id"].as_str().unwrap_or("").to_owned()).collect())
            .unwrap_or_default()
    }

    /// Asserts a 4xx problem response with `code`.
    pub fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "status of {self:?}");
        assert_eq!(self.content_type, "application/problem+json", "content type of {self:?}");
        assert_eq!(self.code(), code, "code of {self:?}");
        assert_eq!(self.body["status"], status, "problem status member of {self:?}");
        // One title per code: the runtime's for its codes, the service's own for the others.
        let title = self.body["title"].as_str().unwrap_or_default();
        match completeness::ProblemCode::parse(code) {
            completeness::ProblemCode::Other(_) => {
                assert!(!title.is_empty() && title != "Request failed", "a title of its own in {self:?}")
            }
            known => assert_eq!(title, known.title(), "title of {self:?}"),
        }
    }
}

impl Harness {
    /// Starts the service with `config`, on a fresh PostgreSQL database when the test case runs
    /// on PostgreSQL and `config` names no database.
    pub async fn start(mut config: Config) -> Harness {
        let mut database = None;
        if backend() == Backend::Postgres && config.db.is_none() {
            let url = postgres::fresh_database().await;
            config.db = Some(url.as_str().into());
            database = Some(postgres::Release::of(&url));
        }
        let running = service::start(config).await.expect("the service starts");
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        Harness { running, client, database }
    }

    /// The store, for checks that nothing changed.
    pub fn store(&self) -> &service::store::Store {
        &self.running.state.store
    }

    /// Sends a request with an optional bearer token and optional raw body.
    pub async fn send(&self, method: Method, path: &str, token: Option<&str>, body: Option<Vec<u8>>) -> Answer {
        let mut request = self.client.request(method, format!("{}{path}", self.running.url()));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body);
        }
        self.answer(request).await
    }

    /// Sends a prepared request builder's request.
    pub async fn answer(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.expect("the service answers");
        let status = response.status();
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let content_type = header("content-type").unwrap_or_default();
        let retry_after = header("retry-after");
        let preference_applied = header("preference-applied");
        let www_authenticate = header("www-authenticate");
        let bytes = response.bytes().await.expect("a body");
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Answer { status, content_type, retry_after, preference_applied, www_authenticate, body }
    }

    /// Writes `request` (a whole HTTP/1.1 request, which should ask to close the connection) on a
    /// plain TCP connection, and returns the response's status line and everything after it. For
    /// what an HTTP client library cannot send, or reports as a failed write when the server
    /// answers before it has read the whole request.
    pub async fn raw(&self, request: &str) -> (String, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(self.running.addr).await.unwrap();
        let (mut reader, mut writer) = stream.split();
        // The server may answer and close before the whole request is written; a failed write is expected then.
        let (_, response) = tokio::join!(writer.write_all(request.as_bytes()), async {
            let mut response = Vec::new();
            let _ = reader.read_to_end(&mut response).await;
            response
        });
        let response = String::from_utf8_lossy(&response).into_owned();
        let (status, rest) = response.split_once("\r\n").unwrap_or((&response, ""));
        (status.to_owned(), rest.to_owned())
    }

    /// A request builder for `path` (for custom headers).
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{path}", self.running.url()))
    }

    /// `POST /mcp` as `token`, carrying the JSON-RPC request `method` with `params` (and `id`)
    /// on the current protocol, which needs no session: `_meta` in the params, the method (and
    /// the `tool` it names) in headers too, as that protocol asks. For what an MCP client
    /// library would not send.
    pub fn mcp_request(
        &self,
        token: &str,
        id: u64,
        method: &str,
        tool: Option<&str>,
        mut params: Value,
    ) -> reqwest::RequestBuilder {
        let version = rmcp::model::ProtocolVersion::V_2026_07_28.to_string();
        params["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        let mut request = self
            .request(Method::POST, "/mcp")
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", &version)
            .header("mcp-method", method);
        if let Some(tool) = tool {
            request = request.header("mcp-name", tool);
        }
        request.json(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    /// `GET /metrics` (no credential): the counters in the Prometheus text format. They are
    /// the process's, shared by every service a test binary starts.
    pub async fn metrics(&self) -> String {
        let response = self.request(Method::GET, "/metrics").send().await.expect("the service answers");
        assert_eq!(response.status(), 200, "/metrics needs no credential");
        let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        response.text().await.unwrap()
    }

    /// `GET path` as `token`.
    pub async fn get(&self, path: &str, token: &str) -> Answer {
        self.send(Method::GET, path, Some(token), None).await
    }

    /// `POST path` with a JSON body as `token`.
    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Answer {
        self.send(Method::POST, path, Some(token), Some(serde_json::to_vec(body).unwrap())).await
    }

    /// `PATCH path` with a JSON body as `token`.
    pub async fn patch(&self, path: &str, token: &str, body: &Value) -> Answer {
        self.send(Method::PATCH, path, Some(token), Some(serde_json::to_vec(body).unwrap())).await
    }

    /// `DELETE path` as `token`.
    pub async fn delete(&self, path: &str, token: &str) -> Answer {
        self.send(Method::DELETE, path, Some(token), None).await
    }

    /// Follows `next_cursor` from `first` (a path with query) until `complete` or an error;
    /// returns every page's answer.
    pub async fn traverse(&self, first: &str, token: &str) -> Vec<Answer> {
        let mut pages = vec![self.get(first, token).await];
        let base = first.split_once('?').map_or(first, |(p, _)| p).to_owned();
        let query = first.split_once('?').map_or("", |(_, q)| q).to_owned();
        while let Some(cursor) = pages.last().and_then(|p| p.body["next_cursor"].as_str().map(str::to_owned)) {
            assert!(pages.len() < 10_000, "a traversal that never ends");
            let path = format!("{base}?{query}&cursor={}", encode(&cursor));
            pages.push(self.get(&path, token).await);
        }
        pages
    }
}

/// Percent-encodes a query value (`application/x-www-form-urlencoded`).
pub fn encode(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// A log writer for tests: what a subscriber's fmt layer writes goes into one shared buffer
/// (`.with_writer({ let log = log.clone(); move || log.clone() })`).
#[derive(Clone, Default)]
pub struct LogBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for LogBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
