//! A reqwest-based client for completeness services: pages read with the strict
//! deserializer, problem responses as typed errors (`client` feature).

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::collect::FetchError;
use crate::contract::envelope::Envelope;
use crate::contract::media::{declares_json, declares_problem};
use crate::contract::params::CURSOR;
use crate::contract::reason::StandardReason;
use crate::server::problem::Problem;

/// A client of one service, authenticating with a bearer token.
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
/// [`Scope::differs_from`]: crate::Scope::differs_from
#[derive(Debug, Clone)]
pub struct ServiceClient {
    http: reqwest::Client,
    base: String,
    token: String,
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

    /// A client of the service at `base_url` (e.g. `http://127.0.0.1:3000`) using
    /// `token`, with [`ServiceClient::DEFAULT_TIMEOUT`] per request.
    pub fn new(base_url: &str, token: &str) -> Result<ServiceClient, FetchError> {
        ServiceClient::with_timeout(base_url, token, ServiceClient::DEFAULT_TIMEOUT)
    }

    /// A client whose requests each time out after `timeout`.
    ///
    /// The base URL is an absolute `http` or `https` URL without a query or a fragment (a path
    /// prefix is kept), and the token is text that fits a header; anything else is a
    /// [`FetchError::Setup`] here, not a failure of every request later.
    pub fn with_timeout(base_url: &str, token: &str, timeout: Duration) -> Result<ServiceClient, FetchError> {
        let base = reqwest::Url::parse(base_url).map_err(|e| {
            FetchError::Setup(format!(
                "the base URL '{}' is not an absolute URL: {e}",
                text_excerpt(base_url.as_bytes())
            ))
        })?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(FetchError::Setup(format!(
                "the base URL '{}' is not an http or https URL",
                text_excerpt(base_url.as_bytes())
            )));
        }
        if base.query().is_some() || base.fragment().is_some() {
            return Err(FetchError::Setup(format!(
                "the base URL '{}' has a query or a fragment, which every request's path would be written \
                 after: give the query parameters to `pages`",
                text_excerpt(base_url.as_bytes())
            )));
        }
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            return Err(FetchError::Setup(
                "the token cannot be sent in an Authorization header: it holds a line break or another \
                 character a header cannot carry"
                    .to_owned(),
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::custom(same_origin_only))
            .build()
            .map_err(|e| transport(e, timeout))?;
        Ok(ServiceClient {
            http,
            base: base_url.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            timeout,
            max_body: ServiceClient::DEFAULT_MAX_BODY,
        })
    }

    /// The same client reading response bodies of at most `bytes`: a longer one is a
    /// [`FetchError::Contract`], read no further (the timeout bounds a response's time, this
    /// its memory).
    pub fn with_max_body(mut self, bytes: usize) -> ServiceClient {
        self.max_body = bytes;
        self
    }

    /// The pages of the list at `path` with `query`, to hand to `collect_all`.
    pub fn pages<T>(&self, path: &str, query: &[(&str, &str)]) -> PageFetcher<T> {
        PageFetcher {
            client: self.clone(),
            path: path.to_owned(),
            query: query.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            _items: std::marker::PhantomData,
        }
    }

    /// `GET path?query`, strictly deserialized; a problem response becomes [`FetchError::Problem`].
    /// Only a `200` with a JSON body is an answer (a read creates nothing, so a `201` is not).
    pub async fn get<T: DeserializeOwned>(&self, path: &str, query: &[(String, String)]) -> Result<T, FetchError> {
        self.send(self.http.get(self.url(path)).bearer_auth(&self.token).query(query), Answers::Read).await
    }

    /// `POST path` with a JSON body; a problem response becomes [`FetchError::Problem`].
    /// A `200` or a `201` with a JSON body is an answer.
    pub async fn post<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, FetchError> {
        self.send(self.http.post(self.url(path)).bearer_auth(&self.token).json(body), Answers::Write).await
    }

    async fn send<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
        answers: Answers,
    ) -> Result<T, FetchError> {
        let request = request.build().map_err(|e| FetchError::Setup(format!("the request cannot be built: {e}")))?;
        let asked = request.url().clone();
        let response = self.http.execute(request).await.map_err(|e| transport(e, self.timeout))?;
        if let Some(change) = changed_question(&asked, response.url()) {
            return Err(FetchError::Contract(format!(
                "status {}: a redirect from {asked} to {} {change}, so its answer is not the answer to the \
                 request sent",
                response.status(),
                response.url()
            )));
        }
        read(response, answers, self.timeout, self.max_body).await
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }
}

/// Fetches the pages of one list query; `fetch(None)` is the first page.
#[derive(Debug, Clone)]
pub struct PageFetcher<T> {
    client: ServiceClient,
    path: String,
    query: Vec<(String, String)>,
    _items: std::marker::PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> PageFetcher<T> {
    /// Fetches the page at `cursor` (the first page for `None`).
    pub async fn fetch(&self, cursor: Option<String>) -> Result<Envelope<T, StandardReason>, FetchError> {
        let mut query = self.query.clone();
        if let Some(cursor) = cursor {
            query.push((CURSOR.to_owned(), cursor));
        }
        self.client.get(&self.path, &query).await
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
) -> Result<T, FetchError> {
    let status = response.status();
    // Seconds only; an HTTP date is left to the problem body, when it says.
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
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
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(e, timeout))? {
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
            let said = format!("status {status} without a problem body: {}", excerpt());
            // A server error without a problem is most likely a proxy's page: the service did not answer.
            Err(if status.is_server_error() { FetchError::Transport(said) } else { FetchError::Contract(said) })
        }
    }
}

/// Follows a redirect only within the origin (scheme, host and port) it was sent to: the
/// answer of another origin is not the service's, whatever it says (and it got no credential:
/// reqwest drops `Authorization` across origins). A redirect not followed is answered as
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

/// A request that got no answer: a timeout says so, any other failure comes with its causes
/// (reqwest's own message names only the request, not why it failed).
fn transport(error: reqwest::Error, timeout: Duration) -> FetchError {
    let url = error.url().map(|url| format!(" ({url})")).unwrap_or_default();
    if error.is_timeout() {
        return FetchError::Transport(format!("timed out after {} s{url}", timeout.as_secs_f64()));
    }
    let causes = std::iter::successors(std::error::Error::source(&error), |cause| cause.source());
    FetchError::Transport(causes.fold(error.to_string(), |message, cause| format!("{message}: {cause}")))
}
