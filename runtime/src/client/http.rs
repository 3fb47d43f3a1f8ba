//! A reqwest-based client for completeness services: pages read with the strict
//! deserializer, problem responses as typed errors (`client` feature).

use std::fmt;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::client::collect::FetchError;
use crate::contract::envelope::{Envelope, ITEMS};
use crate::contract::media::{declares_json, declares_problem};
use crate::contract::params::CURSOR;
use crate::contract::reason::StandardReason;
use crate::server::problem::Problem;

/// The reqwest the client is built on, re-exported so that the transport settings given to
/// [`ServiceClientBuilder::configure`] (a [`reqwest::Certificate`], a [`reqwest::Identity`], a
/// [`reqwest::Proxy`]) are made with the very version it takes, without a dependency to keep in
/// step.
pub use reqwest;

/// A client of one service, sending the credential it was built with: a bearer token, a header
/// of the service's own (an API key), or none.
///
/// `complete: true` speaks of the scope the server names, so a client checks that it is the
/// scope it asked for before it takes the answer for the whole ([`Scope::differs_from`]):
/// a server or a gateway that narrows the query answers another question.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use completeness_runtime::client::http::ServiceClient;
/// use completeness_runtime::client::{CollectLimits, collect_all};
/// use serde_json::json;
///
/// let client = ServiceClient::new("http://127.0.0.1:3000", "admin")?;
/// let listing = client.pages::<serde_json::Value>("/service-accounts", &[("owner", "none")]);
/// let collected = collect_all(|cursor| listing.fetch(cursor), CollectLimits::default()).await?;
/// if let Some(difference) =
///     collected.completeness.scope().differs_from("service_accounts", &[("owner", json!("none"))])
/// {
///     return Err(format!("an answer to another question: {difference}").into());
/// }
/// println!("complete: {}", collected.is_complete());
/// # Ok(()) }
/// ```
///
/// [`ServiceClient::new`] sends a bearer token. [`ServiceClient::builder`] sends another
/// credential, or none, and takes transport settings of reqwest's own (roots of trust, a client
/// certificate, a proxy, default headers):
///
/// ```no_run
/// # fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
///
/// use completeness_runtime::client::http::{ServiceClient, reqwest};
///
/// let internal_ca = reqwest::Certificate::from_pem(&std::fs::read("internal-ca.pem")?)?;
/// let client = ServiceClient::builder("https://inventory.internal:8443")
///     .header("X-Api-Key", &std::env::var("INVENTORY_API_KEY")?)
///     .timeout(Duration::from_secs(10))
///     .configure(|transport| transport.add_root_certificate(internal_ca).user_agent("cleanup/1.4"))
///     .build()?;
/// # Ok(()) }
/// ```
///
/// Its `Debug` names the credential's header, never its value.
///
/// [`Scope::differs_from`]: crate::Scope::differs_from
#[derive(Clone)]
pub struct ServiceClient {
    http: reqwest::Client,
    base: String,
    /// The credential sent with every request, each value marked sensitive (reqwest and its
    /// logs print `Sensitive` in its place); empty when the service takes none.
    credentials: HeaderMap,
    /// How long one request may take.
    timeout: Duration,
    /// The largest response body read.
    max_body: usize,
}

impl ServiceClient {
    /// How long one request may take unless the client is built with another timeout.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

    /// The largest response body read unless the client is built with another bound: 64 MiB.
    pub const DEFAULT_MAX_BODY: usize = 64 << 20;

    /// A client of the service at `base_url` (e.g. `http://127.0.0.1:3000`) sending `token` as
    /// a bearer token, with [`ServiceClient::DEFAULT_TIMEOUT`] per request: the builder with
    /// [`ServiceClientBuilder::bearer`].
    pub fn new(base_url: &str, token: &str) -> Result<ServiceClient, FetchError> {
        ServiceClient::builder(base_url).bearer(token).build()
    }

    /// A client sending `token` as a bearer token whose requests each time out after `timeout`:
    /// the builder with [`ServiceClientBuilder::bearer`] and [`ServiceClientBuilder::timeout`].
    ///
    /// The base URL is an absolute `http` or `https` URL without a query, a fragment or a user
    /// and password (a path prefix is kept), and the token is text that fits a header, not empty
    /// (a variable that was not set: build without [`ServiceClientBuilder::bearer`] to send no
    /// credential); anything else is a [`FetchError::Setup`] here, not a failure of every
    /// request later.
    pub fn with_timeout(base_url: &str, token: &str, timeout: Duration) -> Result<ServiceClient, FetchError> {
        ServiceClient::builder(base_url).bearer(token).timeout(timeout).build()
    }

    /// A client of the service at `base_url` to set up: its credential (none unless one is
    /// given), its timeout, its bound on a body, its transport. Nothing is checked until
    /// [`ServiceClientBuilder::build`].
    pub fn builder(base_url: &str) -> ServiceClientBuilder {
        ServiceClientBuilder {
            base_url: base_url.to_owned(),
            credentials: Vec::new(),
            timeout: ServiceClient::DEFAULT_TIMEOUT,
            max_body: ServiceClient::DEFAULT_MAX_BODY,
            transport: Vec::new(),
        }
    }

    /// The same client reading response bodies of at most `bytes`: a longer one is a
    /// [`FetchError::Contract`], read no further (the timeout bounds a response's time, this
    /// its memory).
    pub fn with_max_body(mut self, bytes: usize) -> ServiceClient {
        self.max_body = bytes;
        self
    }

    /// The pages of the list at `path` with `query`, to hand to `collect_all`. The query is the
    /// question: its filters and `page_size`, never a `cursor` (the fetcher adds each page's),
    /// since a traversal begun at a cursor is no answer to it: such a query is refused, unsent,
    /// with [`FetchError::Setup`] (a traversal a limit stopped goes on with `resume`).
    pub fn pages<T>(&self, path: &str, query: &[(&str, &str)]) -> PageFetcher<T> {
        PageFetcher {
            client: self.clone(),
            path: path.to_owned(),
            query: query.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            retries: None,
            items_member: None,
            _items: std::marker::PhantomData,
        }
    }

    /// `GET path?query`, strictly deserialized; a problem response becomes [`FetchError::Problem`].
    /// Only a `200` with a JSON body is an answer (a read creates nothing, so a `201` is not).
    pub async fn get<T: DeserializeOwned>(&self, path: &str, query: &[(String, String)]) -> Result<T, FetchError> {
        self.send(self.http.get(self.url(path)).query(query), Answers::Read).await
    }

    /// `POST path` with a JSON body; a problem response becomes [`FetchError::Problem`].
    /// A `200` or a `201` with a JSON body is an answer.
    pub async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, FetchError> {
        self.send(self.http.post(self.url(path)).json(body), Answers::Write).await
    }

    /// Sends a request with the credential and reads its answer: every request goes through
    /// here, so none goes out without the credential, and none with another.
    async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        answers: Answers,
    ) -> Result<T, FetchError> {
        let mut request =
            request.build().map_err(|e| FetchError::Setup(format!("the request cannot be built: {e}")))?;
        // reqwest adds a default header only where the request has none, so one of the same name
        // set with `configure` is not sent beside the credential.
        for (name, value) in &self.credentials {
            request.headers_mut().insert(name, value.clone());
        }
        let asked = request.url().clone();
        let started = Instant::now();
        let response = self.http.execute(request).await.map_err(|e| transport(e, self.timeout, started))?;
        if let Some(change) = changed_question(&asked, response.url()) {
            return Err(FetchError::Contract(format!(
                "status {}: a redirect from {asked} to {} {change}, so its answer is not the answer to the \
                 request sent",
                response.status(),
                response.url()
            )));
        }
        read(response, answers, self.timeout, self.max_body, started).await
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }
}

/// The credential's header names, its values left out: a `Debug` output ends up in logs and
/// panic messages.
impl fmt::Debug for ServiceClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceClient")
            .field("base", &self.base)
            .field("credential_headers", &self.credentials.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("max_body", &self.max_body)
            .finish_non_exhaustive()
    }
}

/// Sets up a [`ServiceClient`]: from [`ServiceClient::builder`], then [`build`](Self::build).
///
/// The client keeps two settings of its transport for itself, whatever [`configure`](Self::configure)
/// sets: its redirect policy, which follows a redirect only within the origin a request was sent
/// to (reqwest drops `Authorization` across origins, but not a header of the service's own such as
/// `X-Api-Key`, so a redirect to another origin would hand it the credential), and its timeout
/// per request, which its error messages state. Everything else is the user's.
#[must_use = "a builder sets nothing up until `build` is called"]
pub struct ServiceClientBuilder {
    base_url: String,
    /// The credential headers as given, checked when built.
    credentials: Vec<Given>,
    timeout: Duration,
    max_body: usize,
    /// The user's transport settings, applied in the order given, before the client's own.
    transport: Vec<Box<dyn FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder + Send>>,
}

/// A credential header as given to the builder.
enum Given {
    Bearer(String),
    Header(String, String),
}

impl ServiceClientBuilder {
    /// Sends `token` as `Authorization: Bearer <token>` with every request.
    pub fn bearer(mut self, token: &str) -> ServiceClientBuilder {
        self.credentials.push(Given::Bearer(token.to_owned()));
        self
    }

    /// Sends the header `name: value` with every request, a credential (e.g. `X-Api-Key`): its
    /// value is marked sensitive, so reqwest and the logs that print its requests show
    /// `Sensitive` in its place, and [`ServiceClient`]'s `Debug` names the header only. Call it
    /// once per header for a credential of several (a key and a secret); a name given twice,
    /// `Authorization` with [`bearer`](Self::bearer) too, is a setup error.
    ///
    /// A header that is no credential, the same for every request (`User-Agent`), goes in
    /// [`configure`](Self::configure)'s default headers.
    pub fn header(mut self, name: &str, value: &str) -> ServiceClientBuilder {
        self.credentials.push(Given::Header(name.to_owned(), value.to_owned()));
        self
    }

    /// How long one request may take, from sending it to the end of its body
    /// ([`ServiceClient::DEFAULT_TIMEOUT`] unless set).
    pub fn timeout(mut self, timeout: Duration) -> ServiceClientBuilder {
        self.timeout = timeout;
        self
    }

    /// The largest response body read ([`ServiceClient::DEFAULT_MAX_BODY`] unless set), as
    /// [`ServiceClient::with_max_body`].
    pub fn max_body(mut self, bytes: usize) -> ServiceClientBuilder {
        self.max_body = bytes;
        self
    }

    /// Transport settings on reqwest's own builder: roots of trust and a client identity
    /// (`add_root_certificate`, `identity`), a proxy, default headers (`user_agent`,
    /// `default_headers`), the connection pool, a connect or read timeout. Called more than
    /// once, each applies after the last.
    ///
    /// A redirect policy and a timeout set here are replaced by the client's own (see
    /// [`ServiceClientBuilder`]): set the timeout with [`timeout`](Self::timeout). A connect or
    /// read timeout set here shorter than it ends a request earlier, and its error says so.
    /// A credential goes in [`bearer`](Self::bearer) or [`header`](Self::header), not in a
    /// default header, which is not marked sensitive unless you mark it.
    pub fn configure(
        mut self,
        transport: impl FnOnce(reqwest::ClientBuilder) -> reqwest::ClientBuilder + Send + 'static,
    ) -> ServiceClientBuilder {
        self.transport.push(Box::new(transport));
        self
    }

    /// The client, or a [`FetchError::Setup`] saying what is set up wrong: a base URL that is not
    /// an absolute `http` or `https` URL without a query, a fragment or a user and password (a
    /// path prefix is kept); a credential a header cannot carry, or empty; a transport reqwest
    /// cannot build. No error names a credential's value.
    pub fn build(self) -> Result<ServiceClient, FetchError> {
        let base = base_url(&self.base_url)?;
        let mut credentials = HeaderMap::new();
        for given in &self.credentials {
            let (name, value) = given.header()?;
            if credentials.contains_key(&name) {
                return Err(FetchError::Setup(format!(
                    "the credential header '{name}' is given twice (`bearer` sends authorization): give it once"
                )));
            }
            credentials.insert(name, value);
        }
        let transport = self.transport.into_iter().fold(reqwest::Client::builder(), |builder, set| set(builder));
        let http = transport
            .redirect(reqwest::redirect::Policy::custom(same_origin_only))
            .timeout(self.timeout)
            .build()
            .map_err(|e| FetchError::Setup(with_causes(&e, &format!("the HTTP client cannot be built: {e}"))))?;
        Ok(ServiceClient { http, base, credentials, timeout: self.timeout, max_body: self.max_body })
    }
}

/// The credential's header names, its values left out, as [`ServiceClient`]'s.
impl fmt::Debug for ServiceClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self
            .credentials
            .iter()
            .map(|given| match given {
                Given::Bearer(_) => "authorization",
                Given::Header(name, _) if HeaderName::from_bytes(name.as_bytes()).is_ok() => name,
                Given::Header(..) => "(not a header name)",
            })
            .collect();
        f.debug_struct("ServiceClientBuilder")
            .field("base_url", &without_userinfo(&self.base_url))
            .field("credential_headers", &names)
            .field("timeout", &self.timeout)
            .field("max_body", &self.max_body)
            .field("transport_settings", &self.transport.len())
            .finish()
    }
}

impl Given {
    /// The header to send, or why it cannot be: a message that names the header, never the value.
    fn header(&self) -> Result<(HeaderName, HeaderValue), FetchError> {
        let (name, value) = match self {
            Given::Bearer(token) => {
                if token.trim().is_empty() {
                    return Err(FetchError::Setup(
                        "the bearer token is empty (read from a variable that is not set?): build the client \
                         without `bearer` to send no credential"
                            .to_owned(),
                    ));
                }
                let value = sendable(&format!("Bearer {token}")).ok_or_else(|| {
                    FetchError::Setup(
                        "the token cannot be sent in an Authorization header: it holds a line break or another \
                         character a header cannot carry"
                            .to_owned(),
                    )
                })?;
                (reqwest::header::AUTHORIZATION, value)
            }
            Given::Header(name, value) => {
                // Not shown: a name that is no header name may be the credential, given in its place.
                let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                    FetchError::Setup(
                        "the name given for a credential header is not a header name (letters, digits and \
                         !#$%&'*+-.^_`|~, without a space or a colon); it is not shown, in case it is the \
                         credential given in its place"
                            .to_owned(),
                    )
                })?;
                if FRAMING.contains(&name) {
                    return Err(FetchError::Setup(format!(
                        "the header '{name}' says how the request is framed or where it goes, which the client \
                         writes itself: it cannot carry a credential"
                    )));
                }
                if value.trim().is_empty() {
                    return Err(FetchError::Setup(format!(
                        "the value of the credential header '{name}' is empty (read from a variable that is not \
                         set?): build the client without `header` to send no credential"
                    )));
                }
                let value = sendable(value).ok_or_else(|| {
                    FetchError::Setup(format!(
                        "the value of the credential header '{name}' cannot be sent: it holds a line break or \
                         another character a header cannot carry"
                    ))
                })?;
                (name, value)
            }
        };
        Ok((name, value))
    }
}

/// Headers that say how a request is framed or routed: the client (hyper) writes them, and a
/// second one from a credential would make the request ambiguous, or another request.
const FRAMING: [HeaderName; 8] = [
    reqwest::header::HOST,
    reqwest::header::CONTENT_LENGTH,
    reqwest::header::CONTENT_TYPE,
    reqwest::header::CONTENT_ENCODING,
    reqwest::header::TRANSFER_ENCODING,
    reqwest::header::CONNECTION,
    reqwest::header::TE,
    reqwest::header::UPGRADE,
];

/// A credential as a header value marked sensitive, when it is one: printable ASCII (and
/// tabs). A character outside ASCII could be sent, but a server reads a header's value as
/// ASCII text and would find no credential where one was meant.
fn sendable(text: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(text).ok().filter(|value| value.to_str().is_ok())?;
    value.set_sensitive(true);
    Some(value)
}

/// The base URL without a trailing `/`, or why it cannot be one.
fn base_url(text: &str) -> Result<String, FetchError> {
    let shown = || text_excerpt(without_userinfo(text).as_bytes());
    let base = reqwest::Url::parse(text)
        .map_err(|e| FetchError::Setup(format!("the base URL '{}' is not an absolute URL: {e}", shown())))?;
    // reqwest would send a user and a password in the URL as a second credential (Basic).
    if !base.username().is_empty() || base.password().is_some() {
        return Err(FetchError::Setup(format!(
            "the base URL '{}' carries a user and a password: give the credential with `bearer` or `header`",
            shown()
        )));
    }
    if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
        return Err(FetchError::Setup(format!("the base URL '{}' is not an http or https URL", shown())));
    }
    if base.query().is_some() || base.fragment().is_some() {
        return Err(FetchError::Setup(format!(
            "the base URL '{}' has a query or a fragment, which every request's path would be written \
             after: give the query parameters to `pages`",
            shown()
        )));
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// A URL as a message or a `Debug` may show it: without its user and password when it parses
/// (the parser finds them where a reading of the text would not: `http:u:p@host`,
/// `http://u:p#ss@host`), and not at all when it does not parse and holds an `@`, which may
/// begin its host after a password.
fn without_userinfo(text: &str) -> String {
    match reqwest::Url::parse(text) {
        Ok(mut url) => {
            // Only a URL that cannot have a user and password refuses these; it has none.
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.to_string()
        }
        Err(_) if text.contains('@') => "(not shown: it may hold a password)".to_owned(),
        Err(_) => text.to_owned(),
    }
}

/// Fetches the pages of one list query; `fetch(None)` is the first page.
#[derive(Debug, Clone)]
pub struct PageFetcher<T> {
    client: ServiceClient,
    path: String,
    query: Vec<(String, String)>,
    /// How a refused page is asked again; never when `None`.
    retries: Option<Retries>,
    /// The member that holds the items, when it is not `items` ([`PageFetcher::items_member`]).
    items_member: Option<String>,
    _items: std::marker::PhantomData<fn() -> T>,
}

/// The whole seconds a `Retry-After` value asks to wait from `now` (RFC 9110 section 10.2.3):
/// its delta-seconds, or the time to its HTTP date rounded up (0 for a date past); `None` for a
/// value that is neither. [`ServiceClient`] reads the header so; this is for a client that reads
/// it itself, such as from an MCP transport's HTTP refusal.
pub fn retry_after_seconds(value: &str, now: std::time::SystemTime) -> Option<u64> {
    crate::contract::media::retry_after_seconds(value, now)
}

/// How a [`PageFetcher`] asks again for a page whose request was refused with a problem that
/// may be retried (contract §7: a 5xx, or a 429 that names a wait), or with such a status and no
/// problem body ([`FetchError::Unserved`]): the same request, after the
/// wait the refusal asks for, whose answer takes the refused one's place in the traversal
/// (contract §2.4). A refusal asking for a longer wait than [`Retries::longest_wait`], any other
/// refusal, and the last one after [`Retries::attempts`] are returned as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retries {
    /// How many times one page is asked again at most.
    pub attempts: u32,
    /// The longest wait taken before asking again.
    pub longest_wait: Duration,
    /// The wait after a 5xx that names none.
    pub unnamed_wait: Duration,
}

impl Default for Retries {
    /// 3 attempts, waits of at most 30 s, 1 s where a 5xx names none.
    fn default() -> Self {
        Retries { attempts: 3, longest_wait: Duration::from_secs(30), unnamed_wait: Duration::from_secs(1) }
    }
}

impl Retries {
    /// How long to wait before asking again after `problem`, when it may be retried: the longer
    /// of its `Retry-After` and the `retry_after` continuation of its body; for a 5xx that names
    /// neither, [`Retries::unnamed_wait`]. `None` for a refusal not to send again as it was (a
    /// 4xx says the request, as sent, will not be served; a 429 without a wait names no time; a
    /// continuation of another kind says what to change first, a larger budget or a new
    /// traversal, contract §2.4), or one that asks for longer than [`Retries::longest_wait`].
    pub fn wait_after(&self, problem: &Problem) -> Option<Duration> {
        use crate::contract::continuation::Continuation;
        let continuation = match problem.extension("continuation").map(Continuation::deserialize) {
            None => None,
            Some(Ok(Continuation::RetryAfter { seconds })) => Some(seconds),
            Some(_) => return None,
        };
        self.wait(problem.status(), problem.retry_after().max(continuation))
    }

    /// How long to wait before asking again after `error`, when it may be retried: a problem
    /// as [`Retries::wait_after`] says; a 5xx or `429` without a problem body
    /// ([`FetchError::Unserved`]) by its status and `Retry-After` alike. `None` for any other
    /// error: no answer at all, or one that breaks the contract, is not waited out here.
    pub fn wait_after_error(&self, error: &FetchError) -> Option<Duration> {
        match error {
            FetchError::Problem(problem) => self.wait_after(problem),
            FetchError::Unserved { status, retry_after, .. } => self.wait(*status, *retry_after),
            _ => None,
        }
    }

    /// The wait after a refusal with `status` that names `named` seconds, when it may be retried.
    fn wait(&self, status: u16, named: Option<u64>) -> Option<Duration> {
        if !Problem::may_be_retried(status, named.is_some()) {
            return None;
        }
        let wait = named.map_or(self.unnamed_wait, Duration::from_secs);
        (wait <= self.longest_wait).then_some(wait)
    }
}

impl<T> PageFetcher<T> {
    /// The same pages, each asked again after a refusal that may be retried, as `retries` says
    /// (by default a refused page is returned as the error it is). A traversal read through it
    /// goes on past an outage on any of its pages, where `collect_all` would otherwise end with
    /// the refusal. One fetch then takes at most `attempts + 1` requests and `attempts` waits of at
    /// most `longest_wait`; `CollectLimits::deadline` is checked only before the next page.
    pub fn retrying(mut self, retries: Retries) -> PageFetcher<T> {
        self.retries = Some(retries);
        self
    }

    /// The same pages, from a service whose answers hold their items in the member `name`
    /// rather than `items`: a `#[derive(ResultEnvelope)]` struct's own field (`tickets`, or
    /// `ticketList` under `rename_all = "camelCase"`; the completeness members keep their
    /// names). Each answer is read as strictly as an [`Envelope`], with that member for its
    /// items; one without it, or with an `items` member besides (which of the two is the
    /// collection the answer does not say), does not read ([`FetchError::Contract`]).
    pub fn items_member(mut self, name: &str) -> PageFetcher<T> {
        self.items_member = (name != ITEMS).then(|| name.to_owned());
        self
    }
}

/// A JSON object as the strict reader reads one: no member given twice, at any depth.
struct DistinctObject(serde_json::Map<String, serde_json::Value>);

impl<'de> Deserialize<'de> for DistinctObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::contract::members::distinct_members(deserializer).map(DistinctObject)
    }
}

/// The page an answer's `members` make, its items in the member `name`.
fn page_with_items_in<T: DeserializeOwned>(
    DistinctObject(mut members): DistinctObject,
    name: &str,
) -> Result<Envelope<T, StandardReason>, FetchError> {
    if members.contains_key(ITEMS) {
        return Err(FetchError::Contract(format!(
            "the answer has a member `{ITEMS}` besides `{name}`, which holds its items: which is the collection it \
             does not say"
        )));
    }
    let items = members
        .remove(name)
        .ok_or_else(|| FetchError::Contract(format!("the answer has no member `{name}`, which holds its items")))?;
    members.insert(ITEMS.to_owned(), items);
    Envelope::deserialize(serde_json::Value::Object(members))
        .map_err(|e| FetchError::Contract(format!("a page whose items are `{name}` that does not read: {e}")))
}

impl<T: DeserializeOwned> PageFetcher<T> {
    /// Fetches the page at `cursor` (the first page for `None`), asking again after a refusal
    /// as [`PageFetcher::retrying`] says.
    pub async fn fetch(&self, cursor: Option<String>) -> Result<Envelope<T, StandardReason>, FetchError> {
        if self.query.iter().any(|(name, _)| name == CURSOR) {
            return Err(FetchError::Setup(format!(
                "the query of `pages` names `{CURSOR}`: a traversal starts at its first page, and the fetcher adds \
                 each next cursor (one a limit stopped goes on with `resume`)"
            )));
        }
        let mut query = self.query.clone();
        if let Some(cursor) = cursor {
            query.push((CURSOR.to_owned(), cursor));
        }
        let mut attempts = 0;
        loop {
            let answer = match &self.items_member {
                None => self.client.get(&self.path, &query).await,
                Some(name) => self.client.get(&self.path, &query).await.and_then(|page| page_with_items_in(page, name)),
            };
            let wait = match (&answer, &self.retries) {
                (Err(error), Some(retries)) if attempts < retries.attempts => retries.wait_after_error(error),
                _ => None,
            };
            let Some(wait) = wait else { return answer };
            tokio::time::sleep(wait).await;
            attempts += 1;
        }
    }
}

/// What a request may be answered with.
#[derive(Clone, Copy)]
enum Answers {
    /// A read: `200`.
    Read,
    /// A write: `200`, or `201` for a creation.
    Write,
}

impl Answers {
    fn reads(self, status: u16) -> bool {
        match self {
            Answers::Read => status == 200,
            Answers::Write => matches!(status, 200 | 201),
        }
    }

    fn says(self) -> &'static str {
        match self {
            Answers::Read => "it reads 200 to a read",
            Answers::Write => "it reads 200, or 201 for a creation",
        }
    }
}

/// Reads a response: a success body strictly, a failure as a problem.
async fn read<T: DeserializeOwned>(
    mut response: reqwest::Response,
    answers: Answers,
    timeout: Duration,
    max_body: usize,
    started: Instant,
) -> Result<T, FetchError> {
    let status = response.status();
    // Seconds, or an HTTP date as the whole seconds to it, rounded up: waiting them never asks
    // before the date.
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| crate::contract::media::retry_after_seconds(value, std::time::SystemTime::now()));
    // The media type alone, without its parameters (`; charset=utf-8`).
    let response_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(';').next().unwrap_or_default().trim().to_owned());
    let location = response.headers().get(reqwest::header::LOCATION).map(|value| text_excerpt(value.as_bytes()));
    let too_long = || FetchError::Contract(format!("status {status}, a body longer than {max_body} bytes"));
    if response.content_length().is_some_and(|length| length > max_body as u64) {
        return Err(too_long());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(e, timeout, started))? {
        if body.len() + chunk.len() > max_body {
            return Err(too_long());
        }
        body.extend_from_slice(&chunk);
    }
    let excerpt = || text_excerpt(&body);
    // Not the server's whole answer: a part of a body (206, though this client sends no
    // `Range`), or a body a proxy changed (203). Either could be a cut list that says it is whole.
    if matches!(status.as_u16(), 203 | 206) {
        return Err(FetchError::Contract(format!(
            "status {status}: not the server's whole answer (a part of the body, or one a proxy changed), \
             so it is not read: {}",
            excerpt()
        )));
    }
    // A success that is not an answer read whole: accepted for later (202), no content (204),
    // a delta (226), or a creation answering a read (201). And a success whose body calls
    // itself a problem contradicts itself.
    if status.is_success() && !answers.reads(status.as_u16()) {
        return Err(FetchError::Contract(format!(
            "status {status}: not an answer this client reads ({}): {}",
            answers.says(),
            excerpt()
        )));
    }
    let is_problem = response_type.as_deref().is_some_and(declares_problem);
    if status.is_success() && is_problem {
        return Err(FetchError::Contract(format!(
            "status {status} with a problem body (application/problem+json): a success that says it failed: {}",
            excerpt()
        )));
    }
    // A body not declared JSON (a proxy's or a cache's page, a file served in the service's
    // place) is not the service's answer, even when it happens to parse.
    if status.is_success() && !response_type.as_deref().is_some_and(declares_json) {
        let declared = response_type.map_or_else(|| "no Content-Type".to_owned(), |t| format!("Content-Type {t}"));
        return Err(FetchError::Contract(format!(
            "status {status} with {declared}: not a JSON answer (application/json), so it is not read: {}",
            excerpt()
        )));
    }
    if status.is_success() {
        return serde_json::from_slice(&body).map_err(|e| {
            FetchError::Contract(format!("status {status}, a body that does not read: {e}: {}", excerpt()))
        });
    }
    // A redirect answered as itself: one to another origin, or the eleventh in a row.
    if status.is_redirection()
        && let Some(to) = &location
    {
        return Err(FetchError::Contract(format!(
            "status {status}: a redirect to {to}, not followed (this client follows at most {MAX_REDIRECTS} \
             redirects in a row, each within the origin the request was sent to)"
        )));
    }
    match serde_json::from_slice::<Problem>(&body) {
        // A body that contradicts its status is not trusted to say what went wrong.
        Ok(problem) if problem.status() != status.as_u16() => Err(FetchError::Contract(format!(
            "status {status} with a problem body that says status {}: {}",
            problem.status(),
            excerpt()
        ))),
        // `Retry-After` travels in the header only: the problem read from the body takes it from there.
        Ok(problem) => Err(FetchError::Problem(match retry_after {
            Some(seconds) => problem.with_retry_after(seconds),
            None => problem,
        })),
        // A body declared a problem that does not read as one says why, not that there is none.
        Err(error) if is_problem => Err(FetchError::Contract(format!(
            "status {status} with a problem body (application/problem+json) that does not read: {error}: {}",
            excerpt()
        ))),
        Err(_) => {
            let message = format!("status {status} without a problem body: {}", excerpt());
            // A server error (or a 429) without a problem is most likely a proxy's page: the
            // service did not answer, and may after a wait (the statuses a wait can mend).
            Err(match Problem::may_be_retried(status.as_u16(), true) {
                true => FetchError::Unserved { status: status.as_u16(), retry_after, message },
                false => FetchError::Contract(message),
            })
        }
    }
}

/// Follows a redirect only within the origin (scheme, host and port) it was sent to: the
/// answer of another origin is not the service's, whatever it says, and another origin gets no
/// request, so no credential (reqwest drops `Authorization` across origins, but it would send a
/// header of the service's own, `X-Api-Key`, along). A redirect not followed is answered as
/// itself, a status this client does not read.
fn same_origin_only(attempt: reqwest::redirect::Attempt<'_>) -> reqwest::redirect::Action {
    let origin =
        |url: &reqwest::Url| (url.scheme().to_owned(), url.host_str().map(str::to_owned), url.port_or_known_default());
    let first = attempt.previous().first().map(origin);
    if attempt.previous().len() > MAX_REDIRECTS || first.is_some_and(|first| first != origin(attempt.url())) {
        attempt.stop()
    } else {
        attempt.follow()
    }
}

/// How a redirect changed the question the request asked, when it did: the query a request
/// sends (its filters, its cursor, its page size) is the question, and a redirect that drops a
/// cursor or a filter, or adds one, is answered for another (a first page taken for the rest of
/// a traversal, a narrower scope taken for the whole). The path may move; the query may not.
fn changed_question(asked: &reqwest::Url, answered: &reqwest::Url) -> Option<String> {
    let pairs = |url: &reqwest::Url| {
        let mut pairs: Vec<(String, String)> =
            url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        pairs.sort();
        pairs
    };
    let (sent, kept) = (pairs(asked), pairs(answered));
    let dropped: Vec<&str> = sent.iter().filter(|pair| !kept.contains(pair)).map(|(k, _)| k.as_str()).collect();
    let added: Vec<&str> = kept.iter().filter(|pair| !sent.contains(pair)).map(|(k, _)| k.as_str()).collect();
    match (dropped.is_empty(), added.is_empty()) {
        (true, true) => None,
        (false, true) => Some(format!("dropped or changed the query parameters {}", dropped.join(", "))),
        (true, false) => Some(format!("added the query parameters {}", added.join(", "))),
        (false, false) => {
            Some(format!("changed the query parameters {} into {}", dropped.join(", "), added.join(", ")))
        }
    }
}

/// The most redirects followed in a row.
const MAX_REDIRECTS: usize = 10;

/// The start of a body (or a header) for a message: its first 200 bytes as text, or what it is
/// when it is not text (a compressed body the client did not ask for, an image): bytes written
/// raw into a message would garble the terminal or the log that shows it.
fn text_excerpt(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(200)];
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // Cut inside a character: the text before it.
        Err(error) if error.error_len().is_none() => std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or(""),
        Err(_) => return format!("({} bytes that are not text)", bytes.len()),
    };
    if text.contains(|c: char| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return format!("({} bytes that are not text)", bytes.len());
    }
    text.to_owned()
}

/// A request that got no answer, `started` when it was sent: a timeout says so, any other
/// failure comes with its causes (reqwest's own message names only the request, not why it
/// failed).
fn transport(error: reqwest::Error, timeout: Duration, started: Instant) -> FetchError {
    let url = error.url().map(|url| format!(" ({url})")).unwrap_or_default();
    if error.is_timeout() {
        let waited = started.elapsed();
        // The client's timeout starts after `started`, so a timeout sooner is another one: a
        // connect or read timeout set with `configure`, which the client's would misstate.
        if waited < timeout {
            return FetchError::Transport(format!(
                "timed out after {:.1} s, before the client's timeout of {} s: a connect or read timeout of \
                 the transport{url}",
                waited.as_secs_f64(),
                timeout.as_secs_f64()
            ));
        }
        return FetchError::Transport(format!("timed out after {} s{url}", timeout.as_secs_f64()));
    }
    FetchError::Transport(with_causes(&error, &error.to_string()))
}

/// `message`, then each cause of `error` in turn.
fn with_causes(error: &reqwest::Error, message: &str) -> String {
    let causes = std::iter::successors(std::error::Error::source(error), |cause| cause.source());
    causes.fold(message.to_owned(), |message, cause| format!("{message}: {cause}"))
}
