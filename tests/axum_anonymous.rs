//! A service without authentication: one line of configuration gives every request the
//! anonymous credential, and paging with honest cursors works without any middleware.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use completeness::config::CompletenessConfig;
use completeness::cursor::{CursorKeys, QueryBinding};
use completeness::routing::get;
use completeness::{Envelope, PageRequest, Problem, Scope, completeness};
use serde_json::Value;
use tower::ServiceExt;

#[completeness(resource = "numbers", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_numbers(request: PageRequest) -> Result<Envelope<u64, ListNumbersReason>, Problem> {
    let scope = Scope::new("numbers", "every number").with_snapshot("s-1");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    let after: u64 = page.position().map_or(Ok(0), str::parse).unwrap_or(0);
    let rows: Vec<u64> = (after + 1..=25).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, u64::to_string))
}

fn app(config: CompletenessConfig) -> Router {
    Router::new().route("/numbers", get(list_numbers).into()).with_state(config)
}

async fn call(app: &Router, uri: &str) -> (StatusCode, Value) {
    let response = app.clone().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn without_a_credential_layer_a_request_is_401() {
    let app = app(CompletenessConfig::new(CursorKeys::ephemeral()));
    let (status, body) = call(&app, "/numbers").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["code"], "UNAUTHENTICATED");
}

#[tokio::test]
async fn the_anonymous_credential_pages_through_everything() {
    let app = app(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential());
    let mut uri = "/numbers?page_size=10".to_owned();
    let mut seen = Vec::new();
    loop {
        let (status, body) = call(&app, &uri).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        seen.extend(body["items"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()));
        if body["complete"] == true {
            break;
        }
        uri = format!("/numbers?page_size=10&cursor={}", body["next_cursor"].as_str().unwrap());
    }
    assert_eq!(seen, (1..=25).collect::<Vec<_>>());
}

/// The same list, with the next page's reason added by hand: after the page facts, or before
/// them. Either way `page.cursor` states the contract of the cursor (contract §2.2 R10).
#[completeness(resource = "numbers", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_numbers_by_hand(
    axum::extract::Query(order): axum::extract::Query<std::collections::HashMap<String, String>>,
    request: PageRequest,
) -> Result<Envelope<u64, ListNumbersByHandReason>, Problem> {
    use completeness::reason::MorePagesAvailable;
    let scope = Scope::new("numbers", "every number").with_snapshot("s-1");
    let mut page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    page.pin_snapshot("s-1");
    let after: u64 = page.position().map_or(Ok(0), str::parse).unwrap_or(0);
    let size = page.applied_size();
    let rows: Vec<u64> = (after + 1..=25).take(usize::try_from(size).unwrap()).collect();
    let more = rows.last().filter(|last| **last < 25).map(|last| page.next_cursor(&last.to_string()));
    let completeness = if order.get("reason").map(String::as_str) == Some("first") {
        let mut block = completeness::Completeness::complete(scope);
        if let Some(next) = more {
            block.push_reason(MorePagesAvailable::from(next));
        }
        block.with_page(page.page_info(rows.len(), None))
    } else {
        let mut block = page.completeness(scope, rows.len(), None);
        if let Some(next) = more {
            block.push_reason(MorePagesAvailable::from(next));
        }
        block
    };
    Ok(Envelope::new(rows, completeness))
}

#[tokio::test]
async fn a_next_page_added_by_hand_states_its_cursor_contract() {
    let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential();
    let app = Router::new().route("/numbers", get(list_numbers_by_hand).into()).with_state(config);
    for order in ["reason=first", "reason=last"] {
        let mut uri = format!("/numbers?page_size=10&{order}");
        let mut seen = Vec::new();
        loop {
            let (status, body) = call(&app, &uri).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            completeness::testing::assert_envelope_invariants(&body);
            seen.extend(body["items"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()));
            if body["complete"] == true {
                assert!(body["page"]["cursor"].is_null(), "{order}: no next page, no contract: {body}");
                break;
            }
            let contract = &body["page"]["cursor"];
            assert_eq!(contract["freezes_snapshot"], true, "{order}: {body}");
            assert!(contract["expires_at"].as_str().is_some_and(|at| at.ends_with('Z')), "{order}: {body}");
            assert_eq!(contract["invalidated_by"], serde_json::json!(["filters", "ordering", "credential"]));
            uri = format!("/numbers?page_size=10&{order}&cursor={}", body["next_cursor"].as_str().unwrap());
        }
        assert_eq!(seen, (1..=25).collect::<Vec<_>>(), "{order}");
    }
}

/// Two endpoints that leave the resource for `#[completeness]` to fill, with the same (no)
/// filters and ordering.
#[completeness(resource = "even_numbers", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_even(request: PageRequest) -> Result<Envelope<u64, ListEvenReason>, Problem> {
    let scope = Scope::new("", "every even number");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    let after: u64 = page.position().map_or(Ok(0), str::parse).unwrap_or(0);
    let rows: Vec<u64> = (after + 1..=40).filter(|n| n % 2 == 0).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, u64::to_string))
}

#[completeness(resource = "odd_numbers", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_odd(request: PageRequest) -> Result<Envelope<u64, ListOddReason>, Problem> {
    let scope = Scope::new("", "every odd number");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    let after: u64 = page.position().map_or(Ok(0), str::parse).unwrap_or(0);
    let rows: Vec<u64> = (after + 1..=40).filter(|n| n % 2 == 1).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, u64::to_string))
}

/// A cursor of one is refused by the other (the route binds it when the scope names no
/// resource yet), rather than resuming the odd numbers after an even one, which would skip
/// some without a word.
#[tokio::test]
async fn endpoints_that_leave_the_resource_to_the_declaration_do_not_share_cursors() {
    let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential();
    let app =
        Router::new().route("/even", get(list_even).into()).route("/odd", get(list_odd).into()).with_state(config);
    let (status, even) = call(&app, "/even?page_size=5").await;
    assert_eq!(status, StatusCode::OK, "{even}");
    let cursor = even["next_cursor"].as_str().expect("a next page");
    let (status, odd) = call(&app, &format!("/odd?page_size=5&cursor={cursor}")).await;
    assert_eq!((status, odd["code"].as_str()), (StatusCode::BAD_REQUEST, Some("CURSOR_QUERY_MISMATCH")), "{odd}");
    let (status, next) = call(&app, &format!("/even?page_size=5&cursor={cursor}")).await;
    assert_eq!(status, StatusCode::OK, "{next}");
    assert_eq!(next["items"], serde_json::json!([12, 14, 16, 18, 20]));
}

/// The OpenAPI parameters the framework describes for its own extractors are the ones they read:
/// each value the schemas allow is taken, and one they refuse is a 400 naming the parameter.
#[cfg(feature = "openapi")]
#[tokio::test]
async fn the_described_parameters_are_the_ones_the_extractors_read() {
    use completeness::schema::parameters;
    let app = app(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential());
    let described: Vec<serde_json::Value> = [parameters::paging(), parameters::require_complete()]
        .concat()
        .iter()
        .map(|parameter| serde_json::to_value(parameter).unwrap())
        .collect();
    let names: Vec<&str> = described.iter().map(|parameter| parameter["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["page_size", "cursor", "require_complete", "Prefer"]);
    assert_eq!(described[0]["schema"]["minimum"], 1);
    let (status, first) = call(&app, "/numbers?page_size=1").await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let cursor = first["next_cursor"].as_str().unwrap();
    let (status, _) = call(&app, &format!("/numbers?page_size=1&cursor={cursor}")).await;
    assert_eq!(status, StatusCode::OK);
    for value in described[2]["schema"]["enum"].as_array().unwrap() {
        let (status, body) =
            call(&app, &format!("/numbers?page_size=30&require_complete={}", value.as_str().unwrap())).await;
        assert_eq!(status, StatusCode::OK, "require_complete={value}: {body}");
    }
    for (query, parameter) in [("page_size=0", "page_size"), ("require_complete=yes", "require_complete")] {
        let (status, body) = call(&app, &format!("/numbers?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["parameter"], parameter, "{query}: {body}");
    }
}
