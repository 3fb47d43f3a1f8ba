//! The reqwest page fetcher against a real axum server on 127.0.0.1.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use completeness::client::http::{Retries, ServiceClient, ServiceClientBuilder, reqwest};
use completeness::client::{CollectLimits, FetchError, collect_all};
use completeness::testing::{MemorySource, Mutation};
use completeness::{Envelope, Problem, ProblemCode, ReasonCode, Scope};
use serde_json::{Value, json};

type Shared = Arc<Mutex<MemorySource>>;

async fn numbers(
    State(source): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) != Some("Bearer admin") {
        return Problem::new(ProblemCode::Unauthenticated, "unknown credential").into_response();
    }
    page(&source, &query)
}

/// The page a query asks for; with `expire`, the snapshot expires after the second page.
fn page(source: &Shared, query: &HashMap<String, String>) -> Response {
    let mut source = source.lock().unwrap();
    if source.fetches() == 2 && query.contains_key("expire") {
        source.apply(Mutation::Insert(999));
        source.apply(Mutation::ExpireOldSnapshots);
    }
    match source.fetch(query.get("cursor").map(String::as_str)) {
        Ok(page) => page.into_response(),
        Err(FetchError::Problem(problem)) => problem.into_response(),
        Err(other) => (StatusCode::INTERNAL_SERVER_ERROR, other.to_string()).into_response(),
    }
}

/// A source that is down, and says when to ask again (in the header only).
async fn busy() -> Response {
    Problem::new(ProblemCode::parse("SOURCE_DOWN"), "the source is down")
        .with_status(503)
        .with_retry_after(12)
        .into_response()
}

/// A body that contradicts its status: 500, but a body that says 410 `CURSOR_EXPIRED`.
async fn contradicting() -> Response {
    let problem = Problem::new(ProblemCode::CursorExpired, "expired");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "application/problem+json")],
        serde_json::to_string(&problem).unwrap(),
    )
        .into_response()
}

/// A proxy's part of a body (206), and a body a proxy changed (203): a whole, complete page
/// each, but not the server's whole answer.
async fn partial(Path(status): Path<u16>) -> Response {
    let page = Envelope::<u64>::complete(vec![], Scope::new("numbers", "every number"));
    (StatusCode::from_u16(status).unwrap(), axum::Json(page)).into_response()
}

/// A redirect to `/partial/200` of the server at `to` (this one, or another origin), with the
/// query it was sent.
async fn redirect(Query(query): Query<HashMap<String, String>>, RawQuery(raw): RawQuery) -> Response {
    let to = query.get("to").cloned().unwrap_or_default();
    let raw = raw.unwrap_or_default();
    (StatusCode::FOUND, [(header::LOCATION, format!("{to}/partial/200?{raw}"))]).into_response()
}

/// A redirect within the origin that drops the query it was sent: a cursor, a filter.
async fn redirect_dropping_the_query() -> Response {
    (StatusCode::FOUND, [(header::LOCATION, "/partial/200")]).into_response()
}

/// A redirect to itself, for ever.
async fn redirect_loop() -> Response {
    (StatusCode::FOUND, [(header::LOCATION, "/loop")]).into_response()
}

/// A gzip-compressed page the client did not ask to be compressed, with a status that is no answer.
async fn binary() -> Response {
    let gzip = [0x1f_u8, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0x56, 0xca, 0x2c];
    (StatusCode::BAD_GATEWAY, [(header::CONTENT_ENCODING, "gzip")], gzip.to_vec()).into_response()
}

/// A complete page served with `application/problem+json`: a success that calls itself a failure.
async fn success_as_problem() -> Response {
    let page = Envelope::<u64>::complete(vec![], Scope::new("numbers", "every number"));
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/problem+json")], serde_json::to_string(&page).unwrap())
        .into_response()
}

/// A complete page served as `text/plain`, as `application/vnd.numbers+json`, or (`none`)
/// without a `Content-Type`: only the JSON media type is the service's JSON answer.
async fn typed(Path(media_type): Path<String>) -> Response {
    let page =
        serde_json::to_string(&Envelope::<u64>::complete(vec![], Scope::new("numbers", "every number"))).unwrap();
    let mut response = (StatusCode::OK, page).into_response();
    if media_type == "none" {
        response.headers_mut().remove(header::CONTENT_TYPE);
    } else {
        let media_type = media_type.replace('_', "/");
        response.headers_mut().insert(header::CONTENT_TYPE, media_type.parse().unwrap());
    }
    response
}

/// A problem body naming `code` twice: it would read as either code.
async fn twice_coded() -> Response {
    let body = r#"{"type":"about:blank","title":"Gone","status":410,"detail":"expired","code":"INVALID_CURSOR","code":"CURSOR_EXPIRED"}"#;
    (StatusCode::GONE, [(header::CONTENT_TYPE, "application/problem+json")], body).into_response()
}

/// A gateway's page in front of the service.
async fn gateway() -> Response {
    (StatusCode::BAD_GATEWAY, [(header::CONTENT_TYPE, "text/html")], "<html>502 Bad Gateway</html>").into_response()
}

/// An endpoint that breaks the contract: no `complete` member.
async fn broken() -> Response {
    axum::Json(serde_json::json!({"items": [], "next_cursor": null})).into_response()
}

/// A page of 100,000 numbers, streamed without a length.
async fn streamed() -> Response {
    let chunks = (0..100).map(|i| {
        let head = if i == 0 { "{\"items\": [" } else { "," };
        let numbers: Vec<String> = (0..1000).map(|n| (i * 1000 + n).to_string()).collect();
        Ok::<_, std::io::Error>(format!("{head}{}", numbers.join(",")))
    });
    axum::body::Body::from_stream(futures_util::stream::iter(chunks)).into_response()
}

/// `/numbers` from a service whose items are its member `tickets` (a derived envelope's own
/// field); with `both`, also `items`.
async fn tickets(State(source): State<Shared>, Query(query): Query<HashMap<String, String>>) -> Response {
    let answer = page(&source, &query);
    let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX).await.unwrap();
    let mut body: serde_json::Map<String, Value> = serde_json::from_slice(&bytes).unwrap();
    let items = body.remove("items").expect("a page");
    if query.contains_key("both") {
        body.insert("items".to_owned(), items.clone());
    }
    body.insert("tickets".to_owned(), items);
    axum::Json(body).into_response()
}

async fn serve(source: MemorySource) -> (String, Shared) {
    let shared = Arc::new(Mutex::new(source));
    let app = axum::Router::new()
        .route("/numbers", get(numbers))
        .route("/tickets", get(tickets))
        .route("/broken", get(broken))
        .route("/busy", get(busy))
        .route("/contradicting", get(contradicting))
        .route("/gateway", get(gateway))
        .route("/partial/{status}", get(partial))
        .route("/twice-coded", get(twice_coded))
        .route("/redirect", get(redirect))
        .route("/loop", get(redirect_loop))
        .route("/drop-query", get(redirect_dropping_the_query))
        .route("/binary", get(binary))
        .route("/success-as-problem", get(success_as_problem))
        .route("/typed/{media_type}", get(typed))
        .route("/streamed", get(streamed))
        .route("/flaky", get(flaky))
        .layer(axum::Extension(Refused::default()))
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), shared)
}

/// `/numbers` whose pages reached with a cursor are each refused once first, as `outage` says:
/// `STATUS:SECONDS` (a `Retry-After` of that many seconds) or `STATUS:` (no wait named). The
/// fetch count of the source counts only the pages answered.
async fn flaky(
    State(source): State<Shared>,
    axum::Extension(refused): axum::Extension<Refused>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    // Each request of this server (its whole query, cursor included) is refused once: a run
    // that asks with other parameters gets refusals of its own.
    if let (Some(_), Some(outage)) = (query.get("cursor"), query.get("outage")) {
        let request = format!("{:?}", query.iter().collect::<std::collections::BTreeMap<_, _>>());
        let mut refused = refused.lock().unwrap();
        if !refused.contains(&request) {
            refused.push(request);
            let (status, wait) = outage.split_once(':').unwrap();
            let mut problem = Problem::new(ProblemCode::parse("SOURCE_DOWN"), "the source is down")
                .with_status(status.parse().unwrap());
            if let Ok(seconds) = wait.parse() {
                problem = problem.with_retry_after(seconds);
            }
            // `body`: the wait in the body's continuation instead; `deadline`: a larger budget;
            // `plain`: no problem at all, a proxy's page with the status and `Retry-After`.
            match query.get("also").map(String::as_str) {
                Some("plain") => {
                    let mut response =
                        (StatusCode::from_u16(status.parse().unwrap()).unwrap(), "upstream busy").into_response();
                    if let Ok(seconds) = wait.parse::<u64>() {
                        response.headers_mut().insert(header::RETRY_AFTER, seconds.into());
                    }
                    return response;
                }
                Some("body") => {
                    let longer = completeness::Continuation::RetryAfter { seconds: 2 };
                    problem = problem.with_continuation(&longer);
                }
                Some("deadline") => {
                    let budget = completeness::Continuation::RetryWithDeadline { minimum_seconds: 1 };
                    problem = problem.with_continuation(&budget);
                }
                _ => {}
            }
            let mut response = problem.into_response();
            if wait == "date" {
                let in_two_seconds = std::time::SystemTime::now() + Duration::from_secs(2);
                let date = httpdate_of(in_two_seconds);
                response.headers_mut().insert(header::RETRY_AFTER, date.parse().unwrap());
            }
            return response;
        }
    }
    page(&source, &query)
}

/// The requests `/flaky` refused already, per server.
type Refused = Arc<Mutex<Vec<String>>>;

/// `time` as an HTTP date (RFC 9110 section 5.6.7), rounded up to the next whole second.
pub(crate) fn httpdate_of(time: std::time::SystemTime) -> String {
    let seconds = time.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 1;
    jiff::Timestamp::from_second(seconds as i64).unwrap().strftime("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn limits() -> CollectLimits {
    CollectLimits { max_pages: 100, max_items: 10_000, deadline: Duration::from_secs(30) }
}

#[tokio::test]
async fn collects_every_page_over_http_with_the_strict_deserializer() {
    let (base, source) = serve(MemorySource::new(45, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, (1..=45).collect::<Vec<u64>>());
    assert_eq!(source.lock().unwrap().fetches(), 5, "ceil(45 / 10) requests, no probe");
}

/// A query that names a `cursor` is refused before anything is sent: a traversal begun there is
/// the tail of another, no answer to the question, however complete its last page says it is.
#[tokio::test]
async fn pages_refuse_a_query_that_names_a_cursor_and_send_nothing() {
    let (base, source) = serve(MemorySource::new(45, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let first = client.pages::<u64>("/numbers", &[]).fetch(None).await.unwrap();
    let cursor = first.completeness.next_cursor().unwrap().to_owned();
    let fetches = source.lock().unwrap().fetches();
    let tail = client.pages::<u64>("/numbers", &[("cursor", cursor.as_str())]);
    match collect_all(|cursor| tail.fetch(cursor), limits()).await {
        Err(FetchError::Setup(why)) => assert!(why.contains("names `cursor`") && why.contains("resume"), "{why}"),
        other => panic!("a setup error, got {other:?}"),
    }
    assert_eq!(source.lock().unwrap().fetches(), fetches, "nothing was sent");
}

/// A service whose items are a member of its own (`tickets`) is read with that name, as strictly
/// as any page; without it, under another name, or with `items` besides, its answer does not read.
#[tokio::test]
async fn a_page_whose_items_are_a_member_of_its_own_is_read_by_that_name() {
    let (base, _source) = serve(MemorySource::new(25, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let tickets = client.pages::<u64>("/tickets", &[]).items_member("tickets");
    let collected = collect_all(|cursor| tickets.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, (1..=25).collect::<Vec<u64>>());

    let refused = |fetched: Result<Envelope<u64>, FetchError>| match fetched {
        Err(FetchError::Contract(why)) => why,
        other => panic!("a contract error, got {other:?}"),
    };
    let unnamed = refused(client.pages::<u64>("/tickets", &[]).fetch(None).await);
    assert!(unnamed.contains("missing `items`"), "{unnamed}");
    assert!(
        unnamed.contains("its one array is `tickets`") && unnamed.contains("items_member(\"tickets\")"),
        "{unnamed}"
    );
    let other = refused(client.pages::<u64>("/tickets", &[]).items_member("orders").fetch(None).await);
    assert!(other.contains("no member `orders`, which holds its items"), "{other}");
    let both = client.pages::<u64>("/tickets", &[("both", "1")]).items_member("tickets");
    let both = refused(both.fetch(None).await);
    assert!(both.contains("a member `items` besides `tickets`"), "{both}");
}

#[tokio::test]
async fn a_410_cursor_expired_over_http_ends_the_collection_with_snapshot_expired() {
    let (base, source) = serve(MemorySource::new(45, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let pages = client.pages::<u64>("/numbers", &[("expire", "yes")]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(!collected.is_complete());
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired]);
    assert_eq!(collected.items, (1..=20).collect::<Vec<u64>>());
    assert_eq!(source.lock().unwrap().fetches(), 3, "no silent restart");
    let json = serde_json::to_value(&collected).unwrap();
    assert_eq!(
        json["incomplete_reasons"][0]["message"], "snapshot s-1 is no longer retained",
        "the server's own words"
    );
    // A real expiry, in the server's words: the restart it offered, not one the collector made up.
    assert_eq!(json["continuation"], json!({"kind": "restart", "reason": "snapshot gone"}), "{json}");
}

/// A body longer than the client's bound is refused, not read whole into memory: with its
/// length said up front, or streamed.
#[tokio::test]
async fn a_body_over_the_clients_bound_is_a_contract_error() {
    let (base, _) = serve(MemorySource::new(45, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap().with_max_body(300);
    for path in ["/numbers", "/streamed"] {
        let pages = client.pages::<u64>(path, &[]);
        match pages.fetch(None).await {
            Err(FetchError::Contract(message)) => {
                assert!(message.contains("a body longer than 300 bytes"), "{path}: {message}");
            }
            other => panic!("{path}: expected a contract error, got {other:?}"),
        }
    }
    let whole = ServiceClient::new(&base, "admin").unwrap();
    let page = whole.pages::<u64>("/numbers", &[]).fetch(None).await.expect("under the default bound");
    assert_eq!(page.items, (1..=10).collect::<Vec<u64>>(), "the first page, read whole");
}

#[tokio::test]
async fn a_problem_response_is_a_typed_error() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "mallory").unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
    let problem = error.problem().expect("a problem");
    assert_eq!(*problem.code(), ProblemCode::Unauthenticated);
    assert_eq!(problem.status(), 401);
}

#[tokio::test]
async fn a_response_without_complete_is_rejected_not_defaulted() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let pages = client.pages::<Value>("/broken", &[]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Contract(message)) => assert!(message.contains("complete"), "{message}"),
        other => panic!("expected a contract error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_unreachable_server_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let client = ServiceClient::new(&format!("http://{address}"), "admin").unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(error, FetchError::Transport(_)), "{error:?}");
}

/// What the server said beside the body is kept (`Retry-After`); a body that contradicts its
/// status is not trusted; a proxy's error page is no answer from the service.
#[tokio::test]
async fn problems_keep_retry_after_and_bodies_that_contradict_or_lack_a_problem_are_told_apart() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let fetch = |path: &'static str| {
        let pages = client.pages::<u64>(path, &[]);
        async move { collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err() }
    };
    let busy = fetch("/busy").await;
    assert_eq!(busy.problem().map(Problem::retry_after), Some(Some(12)), "{busy:?}");
    match fetch("/contradicting").await {
        FetchError::Contract(message) => assert!(message.contains("says status 410"), "{message}"),
        other => panic!("expected a contract error, got {other:?}"),
    }
    match fetch("/gateway").await {
        FetchError::Unserved { status: 502, message, .. } => {
            assert!(message.contains("502") && message.contains("Bad Gateway"), "{message}")
        }
        other => panic!("expected no answer of the service's, got {other:?}"),
    }
}

#[tokio::test]
async fn a_partial_or_transformed_success_and_a_problem_naming_its_code_twice_are_not_read() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    for status in [206, 203] {
        let pages = client.pages::<u64>(&format!("/partial/{status}"), &[]);
        match collect_all(|cursor| pages.fetch(cursor), limits()).await {
            Err(FetchError::Contract(message)) => {
                assert!(message.contains("not the server's whole answer"), "{message}")
            }
            other => panic!("status {status}: expected a contract error, got {other:?}"),
        }
    }
    let pages = client.pages::<u64>("/twice-coded", &[]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Contract(message)) => assert!(
            message.contains("status 410 Gone with a problem body (application/problem+json) that does not read: ")
                && message.contains("`code` is given twice"),
            "says why the problem does not read: {message}"
        ),
        other => panic!("expected a contract error, got {other:?}"),
    }
    let read = serde_json::from_str::<Problem>(r#"{"status":410,"code":"INVALID_CURSOR","code":"CURSOR_EXPIRED"}"#);
    assert!(read.unwrap_err().to_string().contains("`code` is given twice"));
}

/// Only a whole answer of the service is read: a success that is not one (accepted for later,
/// no content, a delta, a creation answering a read), a success whose body calls itself a
/// problem or is not declared JSON, and the answer of another origin reached by a redirect
/// (which got no credential) are contract errors, never a page. A redirect within the service's
/// origin is followed.
#[tokio::test]
async fn only_a_whole_answer_of_the_service_itself_is_read() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let (other, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    for status in [201, 202, 204, 226] {
        let pages = client.pages::<u64>(&format!("/partial/{status}"), &[]);
        match collect_all(|cursor| pages.fetch(cursor), limits()).await {
            Err(FetchError::Contract(message)) => {
                assert!(message.contains("not an answer this client reads (it reads 200 to a read)"), "{message}")
            }
            other => panic!("status {status}: expected a contract error, got {other:?}"),
        }
    }
    for (media_type, said) in [("text_plain", "Content-Type text/plain"), ("none", "no Content-Type")] {
        let pages = client.pages::<u64>(&format!("/typed/{media_type}"), &[]);
        match collect_all(|cursor| pages.fetch(cursor), limits()).await {
            Err(FetchError::Contract(message)) => {
                assert!(message.contains(&format!("status 200 OK with {said}: not a JSON answer")), "{message}")
            }
            other => panic!("{media_type}: expected a contract error, got {other:?}"),
        }
    }
    let pages = client.pages::<u64>("/typed/application_vnd.numbers+json", &[]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.expect("a +json media type is JSON");
    assert!(collected.is_complete());
    let pages = client.pages::<u64>("/success-as-problem", &[]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Contract(message)) => assert!(message.contains("a success that says it failed"), "{message}"),
        other => panic!("expected a contract error, got {other:?}"),
    }
    let pages = client.pages::<u64>("/redirect", &[("to", other.as_str())]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Contract(message)) => assert!(
            message.contains(&format!("302 Found: a redirect to {other}/partial/200?to=")),
            "the message names where it led: {message}"
        ),
        other => panic!("a redirect to another origin: expected a contract error, got {other:?}"),
    }
    let pages = client.pages::<u64>("/loop", &[]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Contract(message)) => {
            assert!(message.contains("a redirect to /loop, not followed (this client follows at most 10"), "{message}")
        }
        other => panic!("a redirect loop: expected a contract error, got {other:?}"),
    }
    let pages = client.pages::<u64>("/binary", &[]);
    match collect_all(|cursor| pages.fetch(cursor), limits()).await {
        Err(FetchError::Unserved { status: 502, retry_after: None, message }) => {
            assert!(message.ends_with("without a problem body: (14 bytes that are not text)"), "{message}")
        }
        other => panic!("a compressed 502: expected no answer of the service's, got {other:?}"),
    }
    let pages = client.pages::<u64>("/redirect", &[("to", base.as_str())]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.expect("a redirect within the origin");
    assert!(collected.is_complete());
}

/// A redirect that drops or changes the query asks another question: the first page answering a
/// cursor, the whole set answering a filter. Its answer is a contract error, never a page, even
/// when it is a complete one within the origin.
#[tokio::test]
async fn a_redirect_that_changes_the_query_is_not_read_as_the_answer() {
    let (base, _) = serve(MemorySource::new(5, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let pages = client.pages::<u64>("/drop-query", &[("owner", "none")]);
    for cursor in [None, Some("c1".to_owned())] {
        match pages.fetch(cursor.clone()).await {
            Err(FetchError::Contract(message)) => assert!(
                message.contains("/partial/200 dropped or changed the query parameters ")
                    && message.contains("owner")
                    && (cursor.is_none() || message.contains("cursor")),
                "{message}"
            ),
            other => panic!("cursor {cursor:?}: expected a contract error, got {other:?}"),
        }
    }
    let pages = client.pages::<u64>("/redirect", &[("to", base.as_str()), ("owner", "none")]);
    assert!(pages.fetch(Some("c1".to_owned())).await.expect("the query kept").completeness.is_complete());
}

/// A client set up wrong says so when it is built, as a setup error, not a transport error a
/// caller would retry on every request.
#[test]
fn a_client_set_up_wrong_is_refused_when_built() {
    let cases = [
        ("not a url", "admin", "is not an absolute URL"),
        ("ftp://127.0.0.1/", "admin", "is not an http or https URL"),
        ("http://127.0.0.1:3000/api?x=1", "admin", "has a query or a fragment"),
        ("http://127.0.0.1:3000", "ad\nmin", "cannot be sent in an Authorization header"),
    ];
    for (base, token, said) in cases {
        match ServiceClient::new(base, token) {
            Err(FetchError::Setup(message)) => assert!(message.contains(said), "{base}: {message}"),
            other => panic!("{base}: expected a setup error, got {other:?}"),
        }
    }
    assert!(ServiceClient::new("http://127.0.0.1:3000/api/", "admin").is_ok(), "a path prefix is kept");
}

/// The headers of each request a server got, in the order it got them.
type Seen = Arc<Mutex<Vec<HeaderMap>>>;

async fn record(State(seen): State<Seen>, request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    seen.lock().unwrap().push(request.headers().clone());
    next.run(request).await
}

/// The API key a service behind a key takes, in `X-Api-Key`.
const API_KEY: &str = "k-3f9a-not-a-bearer";

/// Numbers behind an API key in `X-Api-Key` (`key`), or open to any request (`None`).
async fn keyed_numbers(
    State((source, key)): State<(Shared, Option<&'static str>)>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(key) = key
        && headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(key)
    {
        return Problem::new(ProblemCode::Unauthenticated, "no API key, or an unknown one").into_response();
    }
    page(&source, &query)
}

/// A creation behind the same key: the body back, `201`.
async fn keyed_create(
    State((_, key)): State<(Shared, Option<&'static str>)>,
    headers: HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> Response {
    if let Some(key) = key
        && headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some(key)
    {
        return Problem::new(ProblemCode::Unauthenticated, "no API key, or an unknown one").into_response();
    }
    (StatusCode::CREATED, axum::Json(body)).into_response()
}

/// A complete page, half a second late.
async fn slow() -> Response {
    tokio::time::sleep(Duration::from_millis(500)).await;
    axum::Json(Envelope::<u64>::complete(vec![], Scope::new("numbers", "every number"))).into_response()
}

/// A service that takes an API key (`Some`) or no credential (`None`), recording the headers of
/// every request it gets, redirects included.
async fn serve_behind(source: MemorySource, key: Option<&'static str>) -> (String, Seen) {
    let seen = Seen::default();
    let app = axum::Router::new()
        .route("/numbers", get(keyed_numbers))
        .route("/items", axum::routing::post(keyed_create))
        .route("/partial/{status}", get(partial))
        .route("/redirect", get(redirect))
        .route("/slow", get(slow))
        .with_state((Arc::new(Mutex::new(source)), key))
        .layer(axum::middleware::from_fn_with_state(seen.clone(), record));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), seen)
}

/// A service that takes an API key in a header of its own is read with that header, and with
/// nothing else: the items and the completeness as the server sent them, complete or not, and a
/// write as well as a read.
#[tokio::test]
async fn a_service_behind_an_api_key_is_read_with_the_key_in_its_own_header() {
    let (base, seen) = serve_behind(MemorySource::new(45, 10), Some(API_KEY)).await;
    let client = ServiceClient::builder(&base).header("X-Api-Key", API_KEY).build().unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, (1..=45).collect::<Vec<u64>>());
    let created: Value = client.post("/items", &serde_json::json!({"name": "n-46"})).await.unwrap();
    assert_eq!(created, serde_json::json!({"name": "n-46"}));
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(seen.len(), 6, "five pages and a write");
    for headers in &seen {
        assert_eq!(headers.get_all("x-api-key").iter().collect::<Vec<_>>(), [API_KEY], "{headers:?}");
        assert!(headers.get(header::AUTHORIZATION).is_none(), "no other credential: {headers:?}");
    }

    let (base, _) = serve_behind(MemorySource::new(45, 10), Some(API_KEY)).await;
    let client = ServiceClient::builder(&base).header("X-Api-Key", API_KEY).build().unwrap();
    let pages = client.pages::<u64>("/numbers", &[("expire", "yes")]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(!collected.is_complete());
    assert_eq!(collected.completeness.reason_codes(), vec![ReasonCode::SnapshotExpired]);
    assert_eq!(collected.items, (1..=20).collect::<Vec<u64>>());

    let bearer = ServiceClient::new(&base, API_KEY).unwrap();
    let error = bearer.pages::<u64>("/numbers", &[]).fetch(None).await.unwrap_err();
    assert_eq!(error.problem().map(Problem::status), Some(401), "the key as a bearer token is no key: {error:?}");
}

/// A service that takes no credential (a private network, an anonymous credential layer) is
/// read without one: no `Authorization` header at all, not an empty one.
#[tokio::test]
async fn a_service_without_authentication_is_read_with_no_credential() {
    let (base, seen) = serve_behind(MemorySource::new(25, 10), None).await;
    let client = ServiceClient::builder(&base).build().unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete());
    assert_eq!(collected.items, (1..=25).collect::<Vec<u64>>());
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    for headers in seen.iter() {
        assert!(headers.get(header::AUTHORIZATION).is_none(), "{headers:?}");
        assert!(headers.get("x-api-key").is_none(), "{headers:?}");
    }
}

/// Default headers set on reqwest's builder arrive with every request; one named like the
/// credential does not add a second credential: the chosen one is sent, alone.
#[tokio::test]
async fn default_headers_set_in_configure_arrive_beside_the_credential() {
    let (base, seen) = serve_behind(MemorySource::new(15, 10), Some(API_KEY)).await;
    let client = ServiceClient::builder(&base)
        .header("X-Api-Key", API_KEY)
        .configure(|transport| {
            let mut defaults = HeaderMap::new();
            defaults.insert("x-tenant", "south".parse().unwrap());
            defaults.insert("x-api-key", "k-stale".parse().unwrap());
            transport.user_agent("inventory-audit/2.0").default_headers(defaults)
        })
        .build()
        .unwrap();
    let pages = client.pages::<u64>("/numbers", &[]);
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert_eq!(collected.items, (1..=15).collect::<Vec<u64>>());
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    for headers in seen.iter() {
        assert_eq!(headers.get(header::USER_AGENT).unwrap(), "inventory-audit/2.0");
        assert_eq!(headers.get("x-tenant").unwrap(), "south");
        assert_eq!(headers.get_all("x-api-key").iter().collect::<Vec<_>>(), [API_KEY], "{headers:?}");
    }
}

/// A redirect to another origin is refused with a credential of the service's own header as
/// with a bearer token, even when `configure` asks reqwest to follow every redirect: reqwest drops
/// only `Authorization` across origins, so following would hand `X-Api-Key` to the other
/// origin. Within the origin, the redirect is followed and the key goes along.
#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_and_the_key_stays_with_the_service() {
    let (base, seen_here) = serve_behind(MemorySource::new(5, 10), Some(API_KEY)).await;
    let (other, seen_there) = serve_behind(MemorySource::new(5, 10), None).await;
    let client = ServiceClient::builder(&base)
        .header("X-Api-Key", API_KEY)
        .configure(|transport| transport.redirect(reqwest::redirect::Policy::limited(10)))
        .build()
        .unwrap();
    let pages = client.pages::<u64>("/redirect", &[("to", other.as_str())]);
    match pages.fetch(None).await {
        Err(FetchError::Contract(message)) => {
            assert!(message.contains(&format!("302 Found: a redirect to {other}/partial/200?to=")), "{message}")
        }
        other => panic!("a redirect to another origin: expected a contract error, got {other:?}"),
    }
    assert!(seen_there.lock().unwrap().is_empty(), "the other origin got a request: {:?}", seen_there.lock().unwrap());

    let pages = client.pages::<u64>("/redirect", &[("to", base.as_str())]);
    assert!(pages.fetch(None).await.expect("a redirect within the origin").completeness.is_complete());
    let seen_here = seen_here.lock().unwrap();
    assert_eq!(seen_here.len(), 3, "the refused redirect, then a redirect and where it led");
    for headers in seen_here.iter() {
        assert_eq!(headers.get("x-api-key").unwrap(), API_KEY);
    }
}

/// The client's timeout holds whatever `configure` sets as reqwest's, longer or shorter; a
/// shorter read timeout set there ends a request sooner, and the error says it was not the
/// client's.
#[tokio::test]
async fn the_clients_timeout_holds_over_configure_and_a_transport_timeout_is_told_apart() {
    let (base, _) = serve_behind(MemorySource::new(5, 10), None).await;
    let patient = ServiceClient::builder(&base)
        .timeout(Duration::from_secs(10))
        .configure(|transport| transport.timeout(Duration::from_millis(50)))
        .build()
        .unwrap();
    let page = patient.pages::<u64>("/slow", &[]).fetch(None).await.expect("within the client's 10 s");
    assert!(page.completeness.is_complete());

    let hasty = ServiceClient::builder(&base)
        .timeout(Duration::from_millis(100))
        .configure(|transport| transport.timeout(Duration::from_secs(60)))
        .build()
        .unwrap();
    match hasty.pages::<u64>("/slow", &[]).fetch(None).await {
        Err(FetchError::Transport(message)) => assert!(message.starts_with("timed out after 0.1 s ("), "{message}"),
        other => panic!("expected the client's timeout, got {other:?}"),
    }

    let stalled = ServiceClient::builder(&base)
        .configure(|transport| transport.read_timeout(Duration::from_millis(100)))
        .build()
        .unwrap();
    match stalled.pages::<u64>("/slow", &[]).fetch(None).await {
        Err(FetchError::Transport(message)) => assert!(
            message.contains("before the client's timeout of 30 s: a connect or read timeout of the transport"),
            "{message}"
        ),
        other => panic!("expected the transport's read timeout, got {other:?}"),
    }
}

/// A credential that cannot be sent as given is refused when the client is built, as a setup
/// error that names the header and never the value: a name that is no header name (not shown
/// either: it may be the value, given in its place), a value with a line break (a header
/// smuggled in) or outside ASCII, an empty one, a header the request's framing owns, a
/// credential given twice, a password in the base URL.
#[test]
fn a_credential_that_cannot_be_sent_is_refused_when_built_without_saying_it() {
    let secret = "s3cr3t-7d2e";
    let cases: Vec<(ServiceClientBuilder, &str)> = vec![
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("X Api Key", secret),
            "the name given for a credential header is not a header name",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key:", secret),
            "the name given for a credential header is not a header name",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("", secret),
            "the name given for a credential header is not a header name",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header(&format!("{secret}/base64=="), "X-Api-Key"),
            "the name given for a credential header is not a header name",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key", &format!("{secret}\r\nX-Role: admin")),
            "the value of the credential header 'x-api-key' cannot be sent",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key", &format!("{secret}-clé")),
            "the value of the credential header 'x-api-key' cannot be sent",
        ),
        (ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key", " "), "'x-api-key' is empty"),
        (ServiceClient::builder("http://127.0.0.1:3000").header("Content-Length", "0"), "framed"),
        (ServiceClient::builder("http://127.0.0.1:3000").header("Host", "inventory.internal"), "framed"),
        (
            ServiceClient::builder("http://127.0.0.1:3000").bearer(secret).header("Authorization", secret),
            "'authorization' is given twice",
        ),
        (
            ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key", secret).header("x-api-key", secret),
            "'x-api-key' is given twice",
        ),
        (ServiceClient::builder("http://127.0.0.1:3000").bearer(""), "the bearer token is empty"),
        (
            ServiceClient::builder("http://127.0.0.1:3000").bearer(&format!("{secret}\n")),
            "cannot be sent in an Authorization header",
        ),
        (
            ServiceClient::builder(&format!("http://audit:{secret}@127.0.0.1:3000")),
            "'http://127.0.0.1:3000/' carries a user and a password",
        ),
        // Where the parser finds a user and password that a reading of the text would not.
        (
            ServiceClient::builder(&format!("http:audit:{secret}@127.0.0.1:3000")),
            "'http://127.0.0.1:3000/' carries a user and a password",
        ),
        (
            ServiceClient::builder(&format!("http:\\\\audit:{secret}@127.0.0.1:3000")),
            "'http://127.0.0.1:3000/' carries a user and a password",
        ),
        // A URL that does not parse, with an `@`: not shown at all.
        (
            ServiceClient::builder(&format!("http://audit:x#{secret}@127.0.0.1:3000")),
            "'(not shown: it may hold a password)' is not an absolute URL",
        ),
    ];
    for (builder, said) in cases {
        let shown = format!("{builder:?}");
        assert!(!shown.contains(secret), "the builder's Debug: {shown}");
        match builder.build() {
            Err(FetchError::Setup(message)) => {
                assert!(message.contains(said), "{shown}: {message}");
                assert!(!message.contains(secret), "{shown}: the message says the secret: {message}");
            }
            other => panic!("{shown}: expected a setup error, got {other:?}"),
        }
    }
}

/// A client's `Debug` (and its page fetcher's, and its builder's) names the header its
/// credential travels in, never the credential: a `Debug` ends up in logs and panic messages.
/// Nor does an error of a request that carried it.
#[tokio::test]
async fn neither_debug_nor_an_error_shows_the_credential() {
    let secret = "tok-7c1e-secret";
    let bearer = ServiceClient::new("http://127.0.0.1:3000", secret).unwrap();
    let keyed = ServiceClient::builder("http://127.0.0.1:3000").header("X-Api-Key", secret);
    let keyed_shown = format!("{keyed:?}");
    let keyed = keyed.build().unwrap();
    for (shown, header) in [
        (format!("{bearer:?}"), "authorization"),
        (format!("{bearer:#?}"), "authorization"),
        (format!("{:?}", bearer.pages::<u64>("/numbers", &[])), "authorization"),
        (format!("{keyed:?}"), "x-api-key"),
        (keyed_shown, "x-api-key"),
    ] {
        assert!(!shown.contains(secret), "{shown}");
        assert!(shown.to_lowercase().contains(header), "the header is named: {shown}");
    }

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let client = ServiceClient::builder(&format!("http://{address}")).header("X-Api-Key", secret).build().unwrap();
    let error = client.pages::<u64>("/numbers", &[]).fetch(None).await.unwrap_err();
    assert!(matches!(error, FetchError::Transport(_)), "{error:?}");
    assert!(!format!("{error:?} {error}").contains(secret), "{error:?}");
}

/// A page refused with an outage, asked again after its wait, takes the refused page's place:
/// the traversal goes on and ends complete with every item once (contract §2.4). Without
/// `retrying`, the refusal ends the collection as an error.
#[tokio::test]
async fn a_retrying_fetcher_asks_a_refused_page_again_after_its_wait_and_the_traversal_goes_on() {
    let (base, source) = serve(MemorySource::new(25, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let refused = client.pages::<u64>("/flaky", &[("outage", "503:1")]);
    let error = collect_all(|cursor| refused.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(&error, FetchError::Problem(problem) if problem.status() == 503), "{error:?}");

    let source_fetches = source.lock().unwrap().fetches();
    let retries = Retries { attempts: 2, longest_wait: Duration::from_secs(5), unnamed_wait: Duration::ZERO };
    let pages = client.pages::<u64>("/flaky", &[("outage", "503:1"), ("again", "yes")]).retrying(retries);
    let started = std::time::Instant::now();
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete(), "{:?}", collected.completeness);
    assert_eq!(collected.items, (1..=25).collect::<Vec<u64>>(), "every item once");
    assert_eq!(source.lock().unwrap().fetches() - source_fetches, 3, "each page answered once");
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited as asked, twice: {:?}", started.elapsed());
}

/// What is not asked again: a 429 that names no wait, a wait longer than the fetcher takes,
/// and a refusal still there after the last attempt; a 5xx naming no wait is asked again after
/// `unnamed_wait`.
#[tokio::test]
async fn a_retrying_fetcher_returns_what_it_may_not_ask_again() {
    let (base, _) = serve(MemorySource::new(25, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let quick = Retries { attempts: 1, longest_wait: Duration::from_secs(5), unnamed_wait: Duration::ZERO };
    for (outage, status) in [("429:", 429), ("503:60", 503)] {
        let pages = client.pages::<u64>("/flaky", &[("outage", outage)]).retrying(quick);
        let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
        assert!(matches!(&error, FetchError::Problem(p) if p.status() == status), "{outage}: {error:?}");
    }
    let unnamed = client.pages::<u64>("/flaky", &[("outage", "500:")]).retrying(quick);
    let collected = collect_all(|cursor| unnamed.fetch(cursor), limits()).await.unwrap();
    assert!(collected.is_complete(), "a 5xx naming no wait is asked again");
    let none = Retries { attempts: 0, ..quick };
    let pages = client.pages::<u64>("/flaky", &[("outage", "502:"), ("n", "0")]).retrying(none);
    let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(&error, FetchError::Problem(p) if p.status() == 502), "no attempt left: {error:?}");
    assert_eq!(Retries::default().wait_after(&Problem::new(ProblemCode::InvalidRequest, "no")), None, "a 4xx");
}

/// A 5xx or `429` without a problem body (a proxy's page) is no answer of the service's, and is
/// asked again as a problem with its status would be: after its `Retry-After`, or not at all for
/// a `429` that names no wait.
#[tokio::test]
async fn a_retrying_fetcher_asks_again_after_a_refusal_without_a_problem_body() {
    let (base, _) = serve(MemorySource::new(25, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let retries = Retries { attempts: 1, longest_wait: Duration::from_secs(5), unnamed_wait: Duration::ZERO };
    let refused = client.pages::<u64>("/flaky", &[("outage", "503:1"), ("also", "plain")]);
    let error = collect_all(|cursor| refused.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(&error, FetchError::Unserved { status: 503, retry_after: Some(1), .. }), "{error:?}");
    assert_eq!(retries.wait_after_error(&error), Some(Duration::from_secs(1)));
    let pages = client.pages::<u64>("/flaky", &[("outage", "503:1"), ("also", "plain"), ("n", "1")]).retrying(retries);
    let started = std::time::Instant::now();
    let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
    assert_eq!(collected.items, (1..=25).collect::<Vec<u64>>(), "every item once");
    assert!(started.elapsed() >= Duration::from_secs(2), "it waited as asked, twice: {:?}", started.elapsed());
    let pages = client.pages::<u64>("/flaky", &[("outage", "429:"), ("also", "plain")]).retrying(retries);
    let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(&error, FetchError::Unserved { status: 429, retry_after: None, .. }), "{error:?}");
    assert_eq!(retries.wait_after_error(&error), None, "a 429 that names no wait");
    assert_eq!(retries.wait_after_error(&FetchError::Transport("reset".into())), None, "no answer at all");
}

/// The wait a refusal names is read as the server wrote it: a `Retry-After` as an HTTP date, the
/// longer of a header and a body's `retry_after`; a continuation of another kind (a larger
/// budget) is not a wait, and the page is not asked again as it was.
#[tokio::test]
async fn a_retrying_fetcher_waits_for_a_date_and_for_the_longer_wait_and_not_past_another_way_on() {
    let (base, _) = serve(MemorySource::new(25, 10)).await;
    let client = ServiceClient::new(&base, "admin").unwrap();
    let retries = Retries { attempts: 1, longest_wait: Duration::from_secs(5), unnamed_wait: Duration::ZERO };
    for (query, waited) in
        [([("outage", "503:date"), ("also", "none")], 1), ([("outage", "503:1"), ("also", "body")], 2)]
    {
        let pages = client.pages::<u64>("/flaky", &query).retrying(retries);
        let started = std::time::Instant::now();
        let collected = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap();
        assert!(collected.is_complete(), "{query:?}");
        // Two pages refused once each.
        let least = Duration::from_secs(2 * waited);
        assert!(started.elapsed() >= least, "{query:?}: waited {:?}, at least {least:?}", started.elapsed());
    }
    let pages = client.pages::<u64>("/flaky", &[("outage", "503:"), ("also", "deadline")]).retrying(retries);
    let error = collect_all(|cursor| pages.fetch(cursor), limits()).await.unwrap_err();
    assert!(matches!(&error, FetchError::Problem(p) if p.status() == 503), "{error:?}");
}
