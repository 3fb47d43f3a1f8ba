//! `Result<R, E>` takes any error type, and an error type can answer with a success status:
//! `Err(Json(vec![..]))` goes out as a 200 list without a completeness block. On the routes of
//! `completeness::routing` whose success value always carries a block, such an answer is not
//! sent: it becomes the 500 `INTERNAL` problem. Nor, on any route of it, is a JSON success
//! without a block that its type does not vouch for (`Exempt`, a derived single resource): an
//! error side answering 200 beside `()`, a `StatusCode` or an `Exempt`, or a type that
//! implements `ReportsCompleteness` by hand. An error with an error status, the success side,
//! and a text error with a 200 go out as they are.

use axum::Router;
use axum::body::Body;
use axum::http::header::HeaderMap;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Json, extract::Query};
use completeness::config::CompletenessConfig;
use completeness::cursor::CursorKeys;
use completeness::routing::get;
use completeness::{Envelope, Exempt, Scope};
use serde_json::Value;
use std::collections::HashMap;
use tower::ServiceExt;

/// The side the handler answers on: `?side=ok`, `err_list` (a list with a 200), `err_status`
/// (a list with a 400), `err_headers` (a list after response parts, a 200).
type Side = Query<HashMap<String, String>>;

fn side(query: &Side) -> &str {
    query.get("side").map(String::as_str).unwrap_or("ok")
}

fn numbers() -> Envelope<u64> {
    Envelope::complete(vec![1, 2], Scope::new("numbers", "every number"))
}

async fn list_or_json_list(query: Side) -> Result<Envelope<u64>, Json<Vec<u64>>> {
    match side(&query) {
        "ok" => Ok(numbers()),
        _ => Err(Json(vec![1, 2, 3])),
    }
}

async fn list_or_response(query: Side) -> Result<Envelope<u64>, Response> {
    match side(&query) {
        "ok" => Ok(numbers()),
        "err_status" => Err((StatusCode::BAD_REQUEST, Json(vec![1, 2, 3])).into_response()),
        _ => Err((HeaderMap::new(), Json(vec![1, 2, 3])).into_response()),
    }
}

async fn single_or_text(query: Side) -> Result<Exempt<Json<u64>>, &'static str> {
    match side(&query) {
        "ok" => Ok(Exempt::new(Json(7), "one number")),
        _ => Err("a text error with a 200"),
    }
}

/// A team's own error, which answers with its list and a 200.
enum ApiError {
    Items(Vec<u64>),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::Items(items) => Json(items).into_response(),
        }
    }
}

async fn nothing_or_list(query: Side) -> Result<(), Json<Vec<u64>>> {
    match side(&query) {
        "ok" => Ok(()),
        _ => Err(Json(vec![1, 2, 3])),
    }
}

async fn status_or_error(query: Side) -> Result<StatusCode, ApiError> {
    match side(&query) {
        "ok" => Ok(StatusCode::NO_CONTENT),
        _ => Err(ApiError::Items(vec![4, 5])),
    }
}

async fn exempt_or_list(query: Side) -> Result<Exempt<Json<Vec<u64>>>, (StatusCode, Json<Vec<u64>>)> {
    match side(&query) {
        "ok" => Ok(Exempt::new(Json(vec![1, 2]), "the two numbers there are")),
        _ => Err((StatusCode::OK, Json(vec![6]))),
    }
}

/// A list wrapper that says, by a hand-written implementation, that it reports nothing.
struct Items(Vec<u64>);

impl IntoResponse for Items {
    fn into_response(self) -> Response {
        Json(self.0).into_response()
    }
}

impl completeness::report::ReportsCompleteness for Items {
    fn completeness_report(&self) -> Option<&dyn completeness::report::CompletenessReport> {
        None
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn completeness::report::CompletenessReport> {
        None
    }
}

async fn hand_written() -> Items {
    Items(vec![7, 8])
}

/// axum's own `Result`, whose `ErrorResponse` may hold any response, a list too.
async fn list_or_axum_error(query: Side) -> axum::response::Result<Envelope<u64>> {
    match side(&query) {
        "ok" => Ok(numbers()),
        "err_status" => Err(StatusCode::BAD_REQUEST.into()),
        _ => Err(Json(vec![1, 2, 3]).into()),
    }
}

fn app() -> Router {
    Router::new()
        .route("/nothing", get(nothing_or_list).into())
        .route("/status", get(status_or_error).into())
        .route("/exempt", get(exempt_or_list).into())
        .route("/hand-written", get(hand_written).into())
        .route("/json", get(list_or_json_list).into())
        .route("/response", get(list_or_response).into())
        .route("/axum-result", get(list_or_axum_error).into())
        .route("/single", get(single_or_text).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential())
}

async fn call(uri: &str) -> (StatusCode, Value) {
    let response = app().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into_owned())))
}

#[tokio::test]
async fn a_list_from_the_error_side_with_a_success_status_is_not_sent() {
    for uri in ["/json?side=err_list", "/response?side=err_headers", "/axum-result?side=err_list"] {
        let (status, body) = call(uri).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{uri}: {body}");
        assert_eq!(body["code"], "INTERNAL", "{uri}: {body}");
        assert!(body["detail"].as_str().unwrap().contains("error side"), "{uri}: {body}");
        assert!(body.get("items").is_none() && !body.is_array(), "{uri}: the list is not sent: {body}");
    }
}

#[tokio::test]
async fn the_success_side_and_an_error_status_go_out_as_they_are() {
    for uri in ["/json?side=ok", "/response?side=ok", "/axum-result?side=ok"] {
        let (status, body) = call(uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
        assert_eq!(body["complete"], true, "{uri}: {body}");
        assert_eq!(body["items"], serde_json::json!([1, 2]), "{uri}: {body}");
    }
    let (status, body) = call("/response?side=err_status").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "an error status is an error, whatever it holds: {body}");
    assert_eq!(body, serde_json::json!([1, 2, 3]));
    let (status, _) = call("/axum-result?side=err_status").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "axum's error response goes out as it is");
}

#[tokio::test]
async fn a_single_resource_answers_either_side_as_it_is() {
    let (status, body) = call("/single?side=ok").await;
    assert_eq!((status, body), (StatusCode::OK, serde_json::json!(7)));
    let (status, body) = call("/single?side=err").await;
    assert_eq!((status, body), (StatusCode::OK, Value::String("a text error with a 200".into())));
}

#[tokio::test]
async fn a_json_success_without_a_block_its_type_does_not_vouch_for_is_not_sent() {
    for uri in ["/nothing?side=err", "/status?side=err", "/exempt?side=err", "/hand-written"] {
        let (status, body) = call(uri).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{uri}: {body}");
        assert_eq!(body["code"], "INTERNAL", "{uri}: {body}");
        assert!(!body.is_array(), "{uri}: the list is not sent: {body}");
    }
    // What the types vouch for goes out: nothing, a bare status, an exempt value.
    assert_eq!(call("/nothing?side=ok").await.0, StatusCode::OK);
    assert_eq!(call("/status?side=ok").await.0, StatusCode::NO_CONTENT);
    assert_eq!(call("/exempt?side=ok").await, (StatusCode::OK, serde_json::json!([1, 2])));
}
