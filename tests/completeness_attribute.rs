//! What `#[completeness]` and `#[derive(ResultEnvelope)]` do at run time: the generated reason
//! type, `scope.resource` filling, `require_complete` (contract §5.3) through a real router, and
//! the derived wire shape in the four states.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use completeness::reason::{MorePagesAvailable, VisibilityRestricted};
use completeness::routing::get;
use completeness::{
    Completeness, Envelope, Reason, ReasonCode, ReportsCompleteness, ResultEnvelope, Scope, completeness,
};
use completeness::{CompletenessConfig, CursorKeys};
use tower::ServiceExt;

#[completeness(resource = "service_accounts", reasons(MorePagesAvailable, VisibilityRestricted))]
async fn list_accounts(
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Envelope<String, ListAccountsReason> {
    let scope = Scope::new("", "service accounts readable by credential 'north'");
    let mut page = Envelope::complete(vec![], scope);
    for (key, value) in query {
        match (key.as_str(), value.as_str()) {
            ("state", "hidden") => page.completeness.push_reason(VisibilityRestricted::new()),
            ("state", "more") => page.completeness.push_reason(MorePagesAvailable::new("c1.k1.next")),
            ("item", name) => page.items.push(name.to_owned()),
            _ => {}
        }
    }
    page
}

/// `POST` is chained on the same checked method router (a search taking its filters by query).
fn app() -> Router {
    Router::new()
        .route("/service-accounts", get(list_accounts).post(list_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()))
}

async fn call(uri: &str) -> (StatusCode, serde_json::Value) {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

async fn send(request: Request<Body>) -> (StatusCode, serde_json::Value) {
    let response = app().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[test]
fn generated_reason_type_holds_exactly_the_declared_codes() {
    assert_eq!(ListAccountsReason::ALL, &[ReasonCode::MorePagesAvailable, ReasonCode::VisibilityRestricted]);
    let declared = serde_json::json!({"code": "VISIBILITY_RESTRICTED", "message": "hidden"});
    let reason: ListAccountsReason = serde_json::from_value(declared).unwrap();
    assert_eq!(reason.code(), ReasonCode::VisibilityRestricted);
    assert!(matches!(reason.as_standard(), completeness::StandardReason::VisibilityRestricted(_)));
    let reported: ListAccountsReason = MorePagesAvailable::new("c1.k1.next").into();
    assert_eq!(reported.recovery().and_then(|c| c.cursor().map(str::to_owned)).as_deref(), Some("c1.k1.next"));
    let undeclared = serde_json::json!({"code": "RESULT_LIMIT_REACHED", "message": "cap", "limit": 5});
    let error = serde_json::from_value::<ListAccountsReason>(undeclared).unwrap_err();
    assert!(error.to_string().contains("not one this endpoint declares"), "{error}");
}

/// The same reasons, declared in another order, by another endpoint.
#[expect(dead_code, reason = "declared for its generated reason type, never routed")]
#[completeness(resource = "archived_accounts", reasons(VisibilityRestricted, MorePagesAvailable))]
async fn list_archived() -> Envelope<String, ListArchivedReason> {
    Envelope::complete(vec![], Scope::new("", "all"))
}

#[test]
fn the_declared_codes_keep_their_declaration_order() {
    assert_eq!(ListArchivedReason::ALL, &[ReasonCode::VisibilityRestricted, ReasonCode::MorePagesAvailable]);
}

#[tokio::test]
async fn a_handler_is_called_directly_with_its_own_arguments() {
    let query = axum::extract::Query(vec![("state".to_owned(), "hidden".to_owned())]);
    let page = list_accounts(query).await;
    assert_eq!(page.completeness_report().map(|r| r.is_complete()), Some(false));
    assert_eq!(page.completeness.scope().resource, "service_accounts", "the declared resource fills the scope");
}

#[tokio::test]
async fn incomplete_and_empty_is_a_200_with_reasons_when_nothing_is_demanded() {
    let (status, body) = call("/service-accounts?state=hidden").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["complete"], false);
    assert_eq!(body["items"], serde_json::json!([]));
    assert_eq!(body["scope"]["resource"], "service_accounts");
    assert_eq!(body["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
}

#[tokio::test]
async fn demanded_completeness_turns_hidden_records_into_a_403_problem() {
    let (status, body) = call("/service-accounts?state=hidden&item=a&require_complete=true").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(body["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
}

#[tokio::test]
async fn a_chained_method_gets_the_demand_like_the_first() {
    let post = |uri: &str| Request::post(uri).body(Body::empty()).unwrap();
    let (status, body) = send(post("/service-accounts?state=hidden&require_complete=true")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE");
    let (status, body) = send(post("/service-accounts?state=hidden")).await;
    assert_eq!((status, body["complete"].clone()), (StatusCode::OK, false.into()));
}

/// `on(filter, ..)` checks and layers like `get`, and a layer put on the chain wraps the checked
/// handlers: the demand still judges the handler's own answer, and the layer's header is on it.
#[tokio::test]
async fn a_method_filter_and_a_layer_on_the_chain_keep_the_checks() {
    use axum::routing::MethodFilter;
    async fn stamp(mut response: axum::response::Response) -> axum::response::Response {
        response.headers_mut().insert("x-stamped", "1".parse().unwrap());
        response
    }
    let app = Router::new()
        .route(
            "/service-accounts",
            completeness::routing::on(MethodFilter::GET.or(MethodFilter::PUT), list_accounts)
                .layer(axum::middleware::map_response(stamp))
                .into(),
        )
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
    for method in ["GET", "PUT"] {
        let request = |uri: &str| Request::builder().method(method).uri(uri).body(Body::empty()).unwrap();
        let refused = app.clone().oneshot(request("/service-accounts?state=hidden&require_complete=true")).await;
        let refused = refused.unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{method}: the demand applies");
        assert_eq!(refused.headers()["x-stamped"], "1", "{method}: the layer wraps the refusal too");
        let answer = app.clone().oneshot(request("/service-accounts?state=more")).await.unwrap();
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(answer.headers()["x-stamped"], "1");
    }
    let post = Request::post("/service-accounts").body(Body::empty()).unwrap();
    assert_eq!(app.oneshot(post).await.unwrap().status(), StatusCode::METHOD_NOT_ALLOWED);
}

/// The answer of a route depends on `Prefer: handling=strict`, so every answer that reports
/// completeness says `Vary: Prefer`, lenient or refused, and a refusal the preference asked
/// for says it was applied.
#[tokio::test]
async fn answers_vary_by_the_strict_preference() {
    let vary_prefer = |response: &axum::response::Response| {
        response.headers().get_all("vary").iter().any(|v| v.to_str().is_ok_and(|v| v.eq_ignore_ascii_case("prefer")))
    };
    let lenient = app().oneshot(Request::get("/service-accounts?state=hidden").body(Body::empty()).unwrap()).await;
    let lenient = lenient.unwrap();
    assert_eq!(lenient.status(), StatusCode::OK);
    assert!(vary_prefer(&lenient), "{:?}", lenient.headers());
    let strict = Request::get("/service-accounts?state=hidden").header("prefer", "handling=strict");
    let refused = app().oneshot(strict.body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(vary_prefer(&refused), "{:?}", refused.headers());
    assert_eq!(refused.headers().get("preference-applied").unwrap(), "handling=strict");
}

#[tokio::test]
async fn demanded_completeness_lets_a_page_with_more_pages_through() {
    let (status, body) = call("/service-accounts?state=more&item=a&require_complete=true").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["next_cursor"], "c1.k1.next");
}

#[tokio::test]
async fn demanded_completeness_passes_complete_empty_and_complete_with_items() {
    let (status, body) = call("/service-accounts?require_complete=true").await;
    assert_eq!(
        (status, body["complete"].clone(), body["items"].clone()),
        (StatusCode::OK, true.into(), serde_json::json!([]))
    );
    let (status, body) = call("/service-accounts?item=a&require_complete=true").await;
    assert_eq!((status, body["items"].clone()), (StatusCode::OK, serde_json::json!(["a"])));
}

#[tokio::test]
async fn a_malformed_demand_is_a_400_problem() {
    let (status, body) = call("/service-accounts?require_complete=maybe").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "INVALID_REQUEST");
}

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<String>,
    sources: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness<ListAccountsReason>,
}

#[test]
fn derived_envelope_writes_head_data_then_tail_in_all_four_states() {
    let scope = || Scope::new("service_accounts", "records readable by credential 'admin'");
    let cases = [
        (vec!["a".to_owned()], Completeness::complete(scope()), "complete"),
        (vec![], Completeness::complete(scope()), "complete"),
        (vec!["a".to_owned()], Completeness::incomplete(scope(), VisibilityRestricted::new()), "partial"),
        (vec![], Completeness::incomplete(scope(), VisibilityRestricted::new()), "partial"),
    ];
    for (hits, completeness, status) in cases {
        let search = Search { hits: hits.clone(), sources: vec!["directory".into()], completeness };
        let text = serde_json::to_string(&search).unwrap();
        let order = [
            "status",
            "complete",
            "truncated",
            "hits",
            "sources",
            "incomplete_reasons",
            "continuation",
            "next_cursor",
            "page",
            "scope",
            "warnings",
            "evidence",
        ];
        let positions: Vec<usize> = order
            .iter()
            .map(|key| text.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{key} missing")))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "members out of order: {text}");
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json.as_object().unwrap().len(), order.len());
        assert_eq!(json["status"], status);
        assert_eq!(json["complete"], status == "complete");
        assert_eq!(json["hits"], serde_json::json!(hits));
    }
}

#[cfg(feature = "openapi")]
#[test]
fn openapi_schema_of_the_reason_type_lists_the_declared_codes() {
    let schema = <ListAccountsReason as utoipa::PartialSchema>::schema();
    let json = serde_json::to_value(&schema).unwrap();
    let codes: Vec<&serde_json::Value> =
        json["oneOf"].as_array().unwrap().iter().map(|b| &b["properties"]["code"]["enum"]).collect();
    assert_eq!(codes, [&serde_json::json!(["MORE_PAGES_AVAILABLE"]), &serde_json::json!(["VISIBILITY_RESTRICTED"])]);
    assert_eq!(
        <ListAccountsReason as utoipa::ToSchema>::name(),
        "DeclaredReason_MorePagesAvailable_VisibilityRestricted",
        "named for its codes: endpoints declaring the same reasons share one schema"
    );
}

/// An always-complete endpoint's reason schema matches no reason, in a form tools take (no empty
/// `enum`), so its OpenAPI schema refuses a response that reports one.
#[cfg(feature = "openapi")]
#[test]
fn openapi_schema_of_an_always_complete_endpoint_refuses_every_reason() {
    let schema = serde_json::to_value(<ListUsersReason as utoipa::PartialSchema>::schema()).unwrap();
    assert!(!schema.to_string().contains("\"enum\":[]"), "{schema}");
    let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
    for reason in [
        serde_json::json!({"code": "VISIBILITY_RESTRICTED", "message": "m"}),
        serde_json::json!({"code": "LEGAL_HOLD", "message": "m", "kind": "visibility"}),
        serde_json::json!({}),
    ] {
        assert!(!validator.is_valid(&reason), "{reason} against {schema}");
    }
}

#[cfg(feature = "json-schema")]
#[test]
fn json_schema_of_the_reason_type_lists_the_declared_codes() {
    let schema = schemars::schema_for!(ListAccountsReason);
    let json = serde_json::to_value(&schema).unwrap();
    let codes: Vec<&serde_json::Value> =
        json["oneOf"].as_array().unwrap().iter().map(|b| &b["properties"]["code"]["const"]).collect();
    assert_eq!(codes, ["MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"]);
}

#[completeness(resource = "users", reasons())]
async fn list_users() -> Envelope<String, ListUsersReason> {
    // A typo: the scope names another resource than the attribute.
    Envelope::complete(vec![], completeness::Scope::new("accounts", "all"))
}

/// The declared resource is the one the answer names, even when the handler's scope says
/// another; a request is never made to panic over it (a warning event names both).
#[tokio::test]
async fn a_scope_naming_another_resource_is_answered_with_the_declared_one() {
    let page = list_users().await;
    assert_eq!(page.completeness.scope().resource, "users");
}

#[expect(dead_code, reason = "declared for its generated reason type, never routed")]
#[completeness(resource = "service_accounts", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_paged() -> Envelope<String, ListPagedReason> {
    Envelope::complete(vec![], Scope::new("", "all"))
}

/// A block built over the standard reasons (e.g. by shared paging code) and converted into an
/// endpoint's declared type goes out as that endpoint declares: its resource, and only its
/// warnings (its OpenAPI document lists no other code), but for a stale one, which is kept:
/// without it the answer would read as current.
#[test]
fn a_block_mapped_into_a_declared_type_keeps_only_what_it_declares() {
    use completeness::warning::{OrderingDefaulted, PageSizeReduced, StaleIndex};
    let shared: Completeness =
        Completeness::incomplete(Scope::new("accounts", "all"), MorePagesAvailable::new("c1.k1.n"))
            .with_warning(PageSizeReduced::new(500, 100))
            .with_warning(OrderingDefaulted::new("id"))
            .with_warning(StaleIndex::new("search"));
    let mapped: Completeness<ListPagedReason> = shared.map_reasons(|reason| match reason {
        completeness::StandardReason::MorePagesAvailable(more) => more.into(),
        other => panic!("not declared: {other:?}"),
    });
    assert_eq!(mapped.scope().resource, "service_accounts");
    let codes: Vec<_> = mapped.warnings().iter().map(|w| w.code().as_str().to_owned()).collect();
    assert_eq!(codes, ["PAGE_SIZE_REDUCED", "STALE_INDEX"]);
    assert_eq!(mapped.next_cursor(), Some("c1.k1.n"), "the reasons and their continuation are kept");
    let wire = serde_json::to_value(Envelope::new(Vec::<String>::new(), mapped)).unwrap();
    assert_eq!(wire["warnings"].as_array().map(Vec::len), Some(2));
    assert_eq!(wire["scope"]["resource"], "service_accounts");
}

/// A relayed answer (an older upstream's, with evidence beside a stale warning, which readers
/// accept) goes out of an endpoint without the evidence: a change needs current state.
#[test]
fn a_block_mapped_into_a_declared_type_drops_evidence_beside_a_stale_warning() {
    let upstream = serde_json::json!({
        "status": "complete", "complete": true, "truncated": false, "incomplete_reasons": [],
        "continuation": null, "next_cursor": null, "page": null, "evidence": "ev1.k1.p.m",
        "scope": {"resource": "service_accounts", "visibility": "all", "snapshot": "s-4", "filters": {}},
        "warnings": [{"code": "STALE_INDEX", "message": "The index lags.", "source": "search"}]
    });
    let read: Completeness = serde_json::from_value(upstream.clone()).expect("readers accept it");
    assert_eq!(read.evidence(), Some("ev1.k1.p.m"));
    assert_eq!(read.to_standard().evidence(), Some("ev1.k1.p.m"), "a client's copy keeps what it read");
    let mapped: Completeness<ListPagedReason> = read.map_reasons(|reason| panic!("complete: {reason:?}"));
    assert_eq!(mapped.evidence(), None);
    assert_eq!(mapped.warnings().len(), 1, "the stale warning stays");
    let mut current = upstream;
    current["warnings"] = serde_json::json!([]);
    let read: Completeness = serde_json::from_value(current).unwrap();
    let mapped: Completeness<ListPagedReason> = read.map_reasons(|reason| panic!("complete: {reason:?}"));
    assert_eq!(mapped.evidence(), Some("ev1.k1.p.m"), "a current answer keeps its evidence");
}

/// `scope_mut` may change the scope's description, filters and snapshot, but not the declared
/// resource: the change is undone when the borrow ends.
#[test]
fn scope_mut_keeps_the_declared_resource() {
    let mut block: Completeness<ListPagedReason> = Completeness::complete(Scope::new("", "all"));
    {
        let mut scope = block.scope_mut();
        scope.resource = "another_resource".to_owned();
        scope.visibility = "accounts of tenant north".to_owned();
    }
    assert_eq!(block.scope().resource, "service_accounts");
    assert_eq!(block.scope().visibility, "accounts of tenant north");
    let mut open: Completeness = Completeness::complete(Scope::new("", "all"));
    open.scope_mut().resource = "accounts".to_owned();
    assert_eq!(open.scope().resource, "accounts", "a block of no endpoint takes any resource");
}

/// Page facts built for three rows, of which the handler drops one (hidden from the caller):
/// `page.returned` counts what goes out (contract §2.2 R11), in a derived envelope, in an
/// `Envelope` serialized as it is (e.g. into an MCP tool result), and over HTTP.
#[tokio::test]
async fn page_returned_counts_the_items_written_whatever_the_page_facts_said() {
    let facts = completeness::PageInfo::new(3, None, 3, "id ascending").with_resumed(false);
    let block = || -> Completeness<ListAccountsReason> {
        Completeness::incomplete(Scope::new("", "all"), VisibilityRestricted::new()).with_page(facts.clone())
    };
    let kept = vec!["a".to_owned(), "c".to_owned()];
    let derived = Search { hits: kept.clone(), sources: vec![], completeness: block() };
    let envelope = Envelope::new(kept.clone(), block());
    for (what, json) in [
        ("derived", serde_json::to_value(&derived).unwrap()),
        ("envelope", serde_json::to_value(&envelope).unwrap()),
        ("tool result", completeness::mcp::tool_result(&envelope).unwrap().structured_content.unwrap()),
    ] {
        assert_eq!(json["page"]["returned"], 2, "{what}: {json}");
        completeness::testing::assert_envelope_invariants(&json);
    }
    let response = axum::response::IntoResponse::into_response(derived);
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(json["page"]["returned"], 2, "over HTTP: {json}");
}

/// A count has no pages to follow: `MORE_PAGES_AVAILABLE` alone on an aggregate is an
/// incomplete count, refused under a strict demand, where a list's page passes (contract §5.3).
#[tokio::test]
async fn a_strict_demand_refuses_an_aggregate_whose_only_reason_is_more_pages() {
    use completeness::{Aggregate, Relation};
    async fn count() -> Aggregate<u64> {
        let block = Completeness::incomplete(Scope::new("service_accounts", "all"), MorePagesAvailable::new("c1"));
        Aggregate::count(40, Relation::LowerBound, block)
    }
    let app =
        Router::new().route("/count", get(count).into()).with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
    let request = Request::get("/count?require_complete=true").body(Body::empty()).unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let lenient = app.oneshot(Request::get("/count").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(lenient.status(), StatusCode::OK, "without a demand the count is answered, partial");
}

/// Handlers written by a `macro_rules!` macro, as services generating one handler per resource
/// do: a `$body:block` fragment arrives wrapped in an invisible group, and is still a body.
macro_rules! listing {
    ($name:ident, $resource:literal -> $ret:ty $body:block) => {
        #[completeness(resource = $resource, reasons(VisibilityRestricted))]
        async fn $name() -> $ret $body
    };
}

listing!(list_groups, "groups" -> Envelope<String, ListGroupsReason> {
    Envelope::incomplete(vec![], Scope::new("groups", "groups readable by 'north'"), VisibilityRestricted::new())
});

#[tokio::test]
async fn a_handler_whose_body_a_macro_rules_fragment_gives_is_annotated() {
    let page = list_groups().await;
    assert!(!page.is_complete());
    assert_eq!(page.completeness.scope().resource, "groups");
    assert_eq!(ListGroupsReason::ALL, [completeness::ReasonCode::VisibilityRestricted]);
}

/// A handler written twice under opposite `cfg`s in an annotated `impl` block, as a service
/// with two stores does: only the one compiled in declares its reason type.
struct Directory;

#[completeness]
impl Directory {
    #[cfg(not(test))]
    #[completeness(resource = "names", reasons())]
    async fn names() -> Envelope<String, DirectoryNamesReason> {
        Envelope::complete(vec!["from the store".into()], Scope::new("names", "all"))
    }

    #[cfg(test)]
    #[completeness(resource = "names", reasons(VisibilityRestricted))]
    async fn names() -> Envelope<String, DirectoryNamesReason> {
        Envelope::incomplete(vec![], Scope::new("names", "names readable by 'north'"), VisibilityRestricted::new())
    }
}

#[tokio::test]
async fn handlers_under_opposite_cfgs_in_an_impl_block_each_declare_their_own() {
    assert_eq!(DirectoryNamesReason::ALL, [completeness::ReasonCode::VisibilityRestricted], "the cfg(test) one");
    assert!(!Directory::names().await.is_complete());
}

/// Standard names written through their module imported on its own (`use completeness::reason`),
/// as a service that keeps its imports short does: read as the standard ones, so a paginated
/// handler's declaration is complete.
mod through_the_module {
    use completeness::{Envelope, PageRequest, Problem, QueryBinding, Scope, completeness, reason, warning};

    #[completeness(resource = "numbers", reasons(reason::MorePagesAvailable), warnings(warning::PageSizeReduced))]
    pub async fn list_numbers(request: PageRequest) -> Result<Envelope<u64, ListNumbersReason>, Problem> {
        let scope = Scope::new("numbers", "every number");
        let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
        Ok(page.envelope(scope, vec![1, 2], u64::to_string))
    }

    #[test]
    fn standard_names_through_their_module_are_the_standard_codes() {
        assert_eq!(ListNumbersReason::ALL, [completeness::ReasonCode::MorePagesAvailable]);
        assert_eq!(ListNumbersReason::WARNINGS, [completeness::WarningCode::PageSizeReduced]);
        let _: axum::Router<completeness::CompletenessConfig> =
            axum::Router::new().route("/numbers", completeness::routing::get(list_numbers).into());
    }
}

/// `#[completeness(..)]` inside `cfg_attr` in an annotated `impl` block, as on a free function:
/// expanded where its condition holds, and the function left as written where it does not.
struct Conditional;

#[completeness]
impl Conditional {
    #[cfg_attr(all(), completeness(resource = "names", reasons(VisibilityRestricted)))]
    async fn names() -> Envelope<String, ConditionalNamesReason> {
        Envelope::incomplete(vec![], Scope::new("names", "names readable by 'north'"), VisibilityRestricted::new())
    }

    #[cfg_attr(any(), completeness(resource = "names", reasons(VisibilityRestricted)))]
    #[cfg_attr(all(), allow(clippy::unused_async))]
    async fn unannotated() -> Envelope<String> {
        Envelope::complete(vec!["plain".into()], Scope::new("names", "all"))
    }
}

#[tokio::test]
async fn completeness_inside_cfg_attr_in_an_impl_block_is_expanded_where_it_holds() {
    assert_eq!(ConditionalNamesReason::ALL, [completeness::ReasonCode::VisibilityRestricted]);
    assert!(!Conditional::names().await.is_complete());
    assert!(Conditional::unannotated().await.is_complete());
}
