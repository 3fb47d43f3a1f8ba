//! Client mistakes in bodies and query strings are problem responses, never 500s.

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use axum::routing::{get, post};
use completeness::{JsonBody, PathParams, QueryParams};
use serde::Deserialize;
use tower::ServiceExt;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NewAccount {
    name: String,
    tenant: String,
}

#[derive(Debug, Deserialize)]
struct Filters {
    limit: Option<u32>,
}

/// A filter struct that allows the framework's own parameters beside its own filter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read by serde only
struct ListFilters {
    status: Option<String>,
    page_size: Option<u64>,
    cursor: Option<String>,
    time_budget_ms: Option<String>,
    require_complete: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Batch {
    accounts: Vec<Limits>,
}

#[derive(Debug, Deserialize)]
struct Limits {
    count: u8,
}

fn app() -> Router {
    Router::new()
        .route("/accounts", post(|JsonBody(a): JsonBody<NewAccount>| async move { format!("{}@{}", a.name, a.tenant) }))
        .route(
            "/batch",
            post(|JsonBody(b): JsonBody<Batch>| async move {
                b.accounts.iter().map(|a| u32::from(a.count)).sum::<u32>().to_string()
            }),
        )
        .route("/names", post(|JsonBody(names): JsonBody<Vec<String>>| async move { names.join(",") }))
        .route("/maybe", post(|JsonBody(a): JsonBody<Option<NewAccount>>| async move { format!("{a:?}") }))
        .route("/owners/{id}/widgets", get(|PathParams(id): PathParams<u32>| async move { id.to_string() }))
        .route("/misrouted", get(|PathParams(id): PathParams<u32>| async move { id.to_string() }))
        .route("/count", get(|QueryParams(f): QueryParams<Filters>| async move { format!("{:?}", f.limit) }))
        .route("/list", get(|QueryParams(f): QueryParams<ListFilters>| async move { format!("{:?}", f.status) }))
}

async fn call(request: Request<Body>) -> (u16, String, serde_json::Value) {
    let response = app().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let content_type =
        response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, content_type, serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null))
}

#[tokio::test]
async fn a_bad_json_body_is_a_400_invalid_body_problem() {
    for body in ["{", "[]", "", "{\"name\": 1, \"tenant\": \"north\"}", "{\"name\":\"a\",\"tenant\":\"b\",\"x\":1}"] {
        let request =
            Request::post("/accounts").header("content-type", "application/json").body(Body::from(body)).unwrap();
        let (status, content_type, problem) = call(request).await;
        assert_eq!((status, content_type.as_str()), (400, "application/problem+json"), "for {body:?}");
        assert_eq!(problem["code"], "INVALID_BODY");
    }
    let ok = Request::post("/accounts").header("content-type", "application/json").body(Body::from(GOOD)).unwrap();
    assert_eq!(call(ok).await.0, 200);
}

const GOOD: &str = r#"{"name":"svc","tenant":"north"}"#;

/// A path segment that does not parse is a 400 `INVALID_REQUEST` problem naming it, where axum's
/// `Path` answers plain text; a route without the parameter read is the service's mistake, 500.
#[tokio::test]
async fn a_path_that_does_not_parse_is_a_400_problem() {
    let (status, content_type, problem) = call(Request::get("/owners/abc/widgets").body(Body::empty()).unwrap()).await;
    assert_eq!((status, content_type.as_str()), (400, "application/problem+json"), "{problem}");
    assert_eq!(problem["code"], "INVALID_REQUEST");
    assert!(problem["detail"].as_str().unwrap().contains("abc"), "{problem}");
    let ok = app().oneshot(Request::get("/owners/7/widgets").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(ok.status(), 200);
    let (status, _, problem) = call(Request::get("/misrouted").body(Body::empty()).unwrap()).await;
    assert_eq!((status, problem["code"].as_str()), (500, Some("INTERNAL")), "{problem}");
}

/// A struct is read from a JSON object only: serde's derive would also take its members as an
/// array in field order, which the struct's schema does not allow. A body that is a list where
/// the route takes one is read as a list. The detail names the member that does not fit.
#[tokio::test]
async fn a_struct_body_is_an_object_and_a_mistake_is_named_by_its_member() {
    let post = |uri: &str, body: &'static str| {
        Request::post(uri).header("content-type", "application/json").body(Body::from(body)).unwrap()
    };
    for uri in ["/accounts", "/maybe"] {
        let (status, _, problem) = call(post(uri, r#"["svc", "north"]"#)).await;
        assert_eq!((status, problem["code"].as_str()), (400, Some("INVALID_BODY")), "{uri}: {problem}");
        assert!(problem["detail"].as_str().unwrap().contains("JSON array"), "{problem}");
    }
    let (status, _, problem) = call(post("/batch", r#"{"accounts": [{"count": 1}, {"count": 999}]}"#)).await;
    assert_eq!(status, 400, "{problem}");
    assert!(problem["detail"].as_str().unwrap().contains("accounts[1].count: invalid value"), "{problem}");
    let (status, _, problem) = call(post("/batch", r#"{"accounts": []} {}"#)).await;
    assert_eq!((status, problem["code"].as_str()), (400, Some("INVALID_BODY")), "trailing data: {problem}");
    let names = app().oneshot(post("/names", r#"["a", "b"]"#)).await.unwrap();
    assert_eq!(names.status(), 200);
    assert_eq!(&axum::body::to_bytes(names.into_body(), 100).await.unwrap()[..], b"a,b");
}

/// A body not declared as JSON is refused before it is read, as axum's `Json` refuses it: a
/// browser posts `text/plain` to another site without asking, so reading it as JSON anyway
/// would let another site drive the route with the user's cookies.
#[tokio::test]
async fn a_body_not_declared_as_json_is_a_415_invalid_body_problem() {
    for content_type in [None, Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("json")] {
        let mut request = Request::post("/accounts");
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let (status, media, problem) = call(request.body(Body::from(GOOD)).unwrap()).await;
        assert_eq!((status, media.as_str()), (415, "application/problem+json"), "for {content_type:?}");
        assert_eq!(problem["code"], "INVALID_BODY");
        assert!(problem["detail"].as_str().unwrap_or_default().contains("application/json"), "{problem}");
    }
    // A missing body is missing whatever it is declared as: the 400 says so.
    for content_type in [None, Some("text/plain")] {
        let mut request = Request::post("/accounts");
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let (status, _, problem) = call(request.body(Body::empty()).unwrap()).await;
        assert_eq!((status, problem["code"].as_str()), (400, Some("INVALID_BODY")), "for {content_type:?}");
    }
    for content_type in [
        "application/json",
        "Application/JSON; charset=utf-8",
        "application/json; charset=\"UTF-8\"",
        "application/merge-patch+json",
    ] {
        let request = Request::post("/accounts").header("content-type", content_type).body(Body::from(GOOD)).unwrap();
        assert_eq!(call(request).await.0, 200, "for {content_type}");
    }
    // JSON is UTF-8: a body declared in another charset would be read as UTF-8 all the same.
    for content_type in ["application/json; charset=latin1", "application/json;charset=\"utf-16\""] {
        let request = Request::post("/accounts").header("content-type", content_type).body(Body::from(GOOD)).unwrap();
        let (status, _, problem) = call(request).await;
        assert_eq!((status, problem["code"].as_str()), (415, Some("INVALID_BODY")), "{content_type}: {problem}");
        assert!(problem["detail"].as_str().unwrap_or_default().contains("read as UTF-8"), "{problem}");
    }
}

/// Nor is a body read as another than the client declared: two `Content-Type` fields (the
/// first JSON), or a content or transfer coding this reader does not undo, are refused the same way.
#[tokio::test]
async fn a_body_declared_twice_or_coded_is_a_415_invalid_body_problem() {
    let twice = Request::post("/accounts")
        .header("content-type", "application/json")
        .header("content-type", "text/plain")
        .body(Body::from(GOOD))
        .unwrap();
    let (status, _, problem) = call(twice).await;
    assert_eq!((status, problem["code"].as_str()), (415, Some("INVALID_BODY")), "{problem}");
    assert!(problem["detail"].as_str().unwrap_or_default().contains("twice"), "{problem}");
    for coding in ["gzip", "identity, br", "x-custom"] {
        let coded = Request::post("/accounts")
            .header("content-type", "application/json")
            .header("content-encoding", coding)
            .body(Body::from(GOOD))
            .unwrap();
        let (status, _, problem) = call(coded).await;
        assert_eq!((status, problem["code"].as_str()), (415, Some("INVALID_BODY")), "{coding}: {problem}");
        assert!(problem["detail"].as_str().unwrap_or_default().contains("Content-Encoding"), "{problem}");
    }
    // `chunked` is framing the HTTP server removes; a coding before it stays on the bytes.
    for coding in ["gzip, chunked", "x-custom,chunked"] {
        let coded = Request::post("/accounts")
            .header("content-type", "application/json")
            .header("transfer-encoding", coding)
            .body(Body::from(GOOD))
            .unwrap();
        let (status, _, problem) = call(coded).await;
        assert_eq!((status, problem["code"].as_str()), (415, Some("INVALID_BODY")), "{coding}: {problem}");
        assert!(problem["detail"].as_str().unwrap_or_default().contains("Transfer-Encoding"), "{problem}");
    }
    let chunked = Request::post("/accounts")
        .header("content-type", "application/json")
        .header("transfer-encoding", "chunked")
        .body(Body::from(GOOD))
        .unwrap();
    assert_eq!(call(chunked).await.0, 200);
    let identity = Request::post("/accounts")
        .header("content-type", "application/json")
        .header("content-encoding", "Identity")
        .body(Body::from(GOOD))
        .unwrap();
    assert_eq!(call(identity).await.0, 200);
}

#[tokio::test]
async fn an_unreadable_query_is_a_400_invalid_request_problem() {
    for uri in ["/count?limit=abc", "/count?limit=-1", "/count?limit=99999999999"] {
        let (status, content_type, problem) = call(Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!((status, content_type.as_str()), (400, "application/problem+json"), "for {uri}");
        assert_eq!(problem["code"], "INVALID_REQUEST");
    }
    assert_eq!(call(Request::get("/count?limit=5").body(Body::empty()).unwrap()).await.0, 200);
}

/// A fault of a parameter the struct reads is named in `parameter`, in serde's words without
/// axum's preface.
#[tokio::test]
async fn a_query_parameter_at_fault_is_named() {
    let cases = [
        ("/list?status=open&status=closed", "status", "duplicate field `status`"),
        ("/list?owner=none", "owner", "owner: unknown field `owner`"),
    ];
    for (uri, parameter, said) in cases {
        let (status, _, problem) = call(Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(
            (status, &problem["code"], &problem["parameter"]),
            (400, &"INVALID_REQUEST".into(), &parameter.into()),
            "{problem}"
        );
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.starts_with(&format!("The query string does not fit: {said}")), "{detail}");
        assert!(!detail.contains("Failed to deserialize"), "axum's preface: {detail}");
    }
    let (_, _, problem) = call(Request::get("/count?limit=abc").body(Body::empty()).unwrap()).await;
    assert_eq!(problem["parameter"], "limit", "{problem}");
    assert!(problem["detail"].as_str().unwrap().starts_with("The query string does not fit: limit: "), "{problem}");
}

/// The framework's own parameters, given twice or unreadable, get their own problems from a
/// filter struct that names them, as their extractors give them (contract §5.4), whatever
/// type the struct gives them and whichever extractor runs first.
#[tokio::test]
async fn the_frameworks_own_parameters_keep_their_codes_in_a_filter_struct() {
    let cases = [
        ("/list?cursor=a&cursor=b", "INVALID_CURSOR", "cursor"),
        ("/list?page_size=3&page_size=4", "INVALID_PAGE_SIZE", "page_size"),
        ("/list?page_size=abc", "INVALID_PAGE_SIZE", "page_size"),
        ("/list?time_budget_ms=5&time_budget_ms=6", "INVALID_TIME_BUDGET", "time_budget_ms"),
        ("/list?require_complete=true&require_complete=true", "INVALID_REQUEST", "require_complete"),
    ];
    for (uri, code, parameter) in cases {
        let (status, _, problem) = call(Request::get(uri).body(Body::empty()).unwrap()).await;
        assert_eq!(
            (status, &problem["code"], &problem["parameter"]),
            (400, &code.into(), &parameter.into()),
            "{uri}: {problem}"
        );
    }
    let fits = "/list?status=open&page_size=3&cursor=a&time_budget_ms=5&require_complete=true";
    assert_eq!(call(Request::get(fits).body(Body::empty()).unwrap()).await.0, 200);
}
