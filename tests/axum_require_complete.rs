//! contract §5.3 through a real Router: `require_complete=true` / `Prefer: handling=strict`.

use crate::axum_common;

use axum::body::Body;
use axum_common::*;
use serde_json::json;

async fn strict(app: &axum::Router, reasons: &str) -> Reply {
    get_as(app, "admin", &format!("/strict?require_complete=true&reasons={reasons}")).await
}

#[tokio::test]
async fn visibility_restricted_among_the_reasons_is_403() {
    let (app, _) = app(config(K1));
    let reply = strict(&app, "limit,visibility,source").await;
    reply.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    let codes: Vec<&str> =
        reply.body["incomplete_reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["RESULT_LIMIT_REACHED", "VISIBILITY_RESTRICTED", "SOURCE_UNAVAILABLE"]);
    assert!(reply.headers.get("retry-after").is_none());
    // No retry shows what is hidden: no recovery is offered, though other reasons have one.
    assert!(reply.body.get("continuation").is_none(), "a 403 offers no new attempt: {}", reply.body);
    let hidden = strict(&app, "more,visibility").await;
    hidden.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    assert!(hidden.body.get("continuation").is_none(), "never the next page of a refused traversal: {}", hidden.body);
    // The detail names the causes (not the next page, the normal course of paging) and the way on.
    assert_eq!(
        hidden.body["detail"],
        "The request demanded a complete result; this one is incomplete (VISIBILITY_RESTRICTED). No retry shows what \
         is hidden: ask a narrower question this credential reads whole, or have a person with a credential that \
         reads the whole scope ask."
    );
}

#[tokio::test]
async fn result_limit_reached_without_visibility_is_422() {
    let (app, _) = app(config(K1));
    let reply = strict(&app, "source,limit").await;
    reply.assert_problem(422, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(reply.body["incomplete_reasons"][1]["limit"], 2);
    // The narrower question the status speaks of, not the first reason's wait.
    assert_eq!(reply.body["continuation"], json!({"kind": "narrow_query", "hint": "add a tenant filter"}));
    let detail = reply.body["detail"].as_str().unwrap();
    assert!(detail.ends_with("Asking again cuts it the same way: narrow the query (add a tenant filter)."), "{detail}");
}

#[tokio::test]
async fn other_reasons_are_503_with_retry_after_when_known() {
    let (app, _) = app(config(K1));
    let reply = strict(&app, "source").await;
    reply.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(reply.headers["retry-after"], "7");
    assert_eq!(reply.body["incomplete_reasons"][0]["source"], "legacy");
    assert_eq!(reply.body["continuation"], json!({"kind": "retry_after", "seconds": 7}));
    let quota = strict(&app, "quota,source").await;
    quota.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(quota.headers["retry-after"], "30", "the largest known wait");
    assert_eq!(quota.body["continuation"], json!({"kind": "retry_after", "seconds": 30}), "the wait the header gives");
    let unknown = strict(&app, "source_unknown_retry").await;
    unknown.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    assert!(unknown.headers.get("retry-after").is_none(), "no Retry-After is invented");
    let detail = unknown.body["detail"].as_str().unwrap();
    assert!(detail.ends_with("A new attempt may get a complete answer later; none is promised."), "{detail}");
}

#[tokio::test]
async fn more_pages_available_alone_is_not_a_failure() {
    let (app, _) = app(config(K1));
    let reply = strict(&app, "more").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["complete"], false);
    let paged = get_as(&app, "admin", "/accounts?require_complete=true").await;
    assert_eq!(paged.status, 200);
    assert_eq!(paged.body["incomplete_reasons"][0]["code"], "MORE_PAGES_AVAILABLE");
    let mixed = strict(&app, "more,source").await;
    mixed.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(mixed.body["continuation"], json!({"kind": "retry_after", "seconds": 7}), "the cursor is not it");
    assert_eq!(
        mixed.body["detail"],
        "The request demanded a complete result; this one is incomplete (SOURCE_UNAVAILABLE). Ask again after 7 s."
    );
}

#[tokio::test]
async fn prefer_handling_strict_demands_completeness_like_the_query_parameter() {
    let (app, _) = app(config(K1));
    // The last: a byte outside ASCII in a quoted string (RFC 9110's obs-text) hides nothing.
    let prefers: [&[u8]; 3] = [
        b"respond-async, handling=strict",
        b"handling = \"strict\"; reason=audit",
        b"handling=strict, note=\"caf\xe9\"",
    ];
    for prefer in prefers {
        let prefer = axum::http::HeaderValue::from_bytes(prefer).unwrap();
        let request = axum::http::Request::get("/strict?reasons=visibility")
            .header("authorization", "Bearer admin")
            .header("prefer", prefer)
            .body(Body::empty())
            .unwrap();
        send(&app, request).await.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    }
    // Both answers of the URL depend on the preference, so a shared cache keys them by it
    // (`RequireComplete::apply`; the routes' own layer is tested with `#[completeness]`).
    let lenient = get_as(&app, "admin", "/strict?reasons=visibility").await;
    assert_eq!((lenient.status.as_u16(), lenient.body["complete"].clone()), (200, json!(false)));
    let request = axum::http::Request::get("/strict?reasons=visibility")
        .header("authorization", "Bearer admin")
        .header("prefer", "handling=strict")
        .body(Body::empty())
        .unwrap();
    let refused = send(&app, request).await;
    for reply in [&lenient, &refused] {
        let vary: Vec<_> = reply.headers.get_all("vary").iter().map(|v| v.to_str().unwrap().to_owned()).collect();
        assert!(vary.iter().any(|v| v.eq_ignore_ascii_case("prefer")), "Vary: {vary:?}");
    }
    // The incomplete-and-empty page of a restricted credential is refused too.
    let hidden = get_as(&app, "north", "/accounts?tenant=south&require_complete=true").await;
    hidden.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
}

#[tokio::test]
async fn without_the_demand_an_incomplete_result_is_a_200_and_a_complete_one_always_is() {
    let (app, _) = app(config(K1));
    let lenient = get_as(&app, "admin", "/strict?reasons=visibility").await;
    assert_eq!(lenient.status, 200);
    assert_eq!(lenient.body["complete"], false);
    let complete = strict(&app, "").await;
    assert_eq!(complete.status, 200);
    assert_eq!(complete.body["complete"], true);
    assert_eq!(complete.body["items"], json!([1, 2]));
}

#[tokio::test]
async fn a_malformed_require_complete_is_400_invalid_request() {
    let (app, _) = app(config(K1));
    get_as(&app, "admin", "/strict?require_complete=maybe").await.assert_problem(400, "INVALID_REQUEST");
}

#[tokio::test]
async fn require_complete_given_twice_is_400_whichever_values() {
    let (app, _) = app(config(K1));
    for query in [
        "require_complete=true&require_complete=false",
        "require_complete=false&require_complete=true",
        "require_complete=1&require_complete=1",
    ] {
        // `reasons=` makes the answer complete: only the duplicate can refuse it.
        let reply = get_as(&app, "admin", &format!("/strict?{query}&reasons=")).await;
        reply.assert_problem(400, "INVALID_REQUEST");
        assert_eq!(reply.body["parameter"], "require_complete", "{query}");
        assert!(reply.body["detail"].as_str().unwrap().contains("more than once"), "{query}: {:?}", reply.body);
    }
}

mod framing {
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use completeness::reason::{MorePagesAvailable, SourceUnavailable};
    use completeness::routing::get;
    use completeness::{
        Aggregate, Completeness, CompletenessConfig, CursorKeys, Envelope, Relation, Scope, completeness,
    };
    use tower::ServiceExt;

    fn partial() -> Envelope<u32> {
        Envelope::incomplete(vec![], Scope::new("numbers", "all"), SourceUnavailable::new("legacy"))
    }

    async fn no_content() -> (StatusCode, Envelope<u32>) {
        (StatusCode::NO_CONTENT, partial())
    }

    async fn partial_content() -> (StatusCode, Envelope<u32>) {
        (StatusCode::PARTIAL_CONTENT, partial())
    }

    async fn redirected() -> (StatusCode, [(header::HeaderName, &'static str); 1], Envelope<u32>) {
        (StatusCode::FOUND, [(header::LOCATION, "/elsewhere")], partial())
    }

    async fn as_text() -> ([(header::HeaderName, &'static str); 1], Envelope<u32>) {
        ([(header::CONTENT_TYPE, "text/plain")], partial())
    }

    async fn as_problem() -> ([(header::HeaderName, &'static str); 1], Envelope<u32>) {
        ([(header::CONTENT_TYPE, "application/problem+json")], partial())
    }

    async fn created() -> (StatusCode, Envelope<u32>) {
        (StatusCode::CREATED, partial())
    }

    async fn partial_answer() -> Envelope<u32> {
        partial()
    }

    #[completeness(resource = "numbers", reasons(SourceUnavailable))]
    async fn whole() -> Envelope<u32, WholeReason> {
        Envelope::complete(vec![1, 2], Scope::new("numbers", "all"))
    }

    /// A service's own reason without a `recovery`: it never offers a cursor.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold are hidden.")]
    pub struct LegalHold;

    /// A service's own reason with a `recovery`: it may offer a cursor of its own.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "UPSTREAM_PAGED", kind = truncation, message = "The upstream has more.", recovery = UpstreamPaged::next, next_cursor)]
    pub struct UpstreamPaged {
        cursor: String,
    }

    impl UpstreamPaged {
        fn next(&self) -> Option<completeness::Continuation> {
            Some(completeness::Continuation::NextCursor { cursor: self.cursor.clone() })
        }
    }

    #[completeness(resource = "numbers", reasons(LegalHold))]
    async fn held() -> Envelope<u32, HeldReason> {
        Envelope::complete(vec![1, 2], Scope::new("numbers", "all"))
    }

    /// A service's own reason whose `recovery` is a retry: without `next_cursor`, it offers no
    /// cursor, and a recovery that returns one anyway is left out.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "REPLICA_BEHIND", kind = source, message = "The replica is behind.", recovery = ReplicaBehind::retry)]
    pub struct ReplicaBehind {
        cursor: Option<String>,
    }

    impl ReplicaBehind {
        fn retry(&self) -> Option<completeness::Continuation> {
            Some(match &self.cursor {
                Some(cursor) => completeness::Continuation::NextCursor { cursor: cursor.clone() },
                None => completeness::Continuation::RetryAfter { seconds: 5 },
            })
        }
    }

    #[completeness(resource = "numbers", reasons(ReplicaBehind))]
    async fn behind(query: axum::extract::RawQuery) -> Envelope<u32, BehindReason> {
        match query.0.as_deref() {
            Some("cursor_anyway") => {
                let behind = ReplicaBehind { cursor: Some("c1.k1.never-offered".to_owned()) };
                Envelope::incomplete(vec![1], Scope::new("numbers", "all"), behind)
            }
            _ => Envelope::complete(vec![1, 2], Scope::new("numbers", "all")),
        }
    }

    /// A service's own truncation that offers no next page: the same request is cut again.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "UPSTREAM_MAY_HAVE_TRUNCATED", kind = truncation, message = "The upstream may have cut it.")]
    pub struct UpstreamMayHaveTruncated;

    /// A service's own truncation whose recovery is a narrower question.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "SHARD_TOO_LARGE", kind = truncation, message = "The shard is too large.", recovery = ShardTooLarge::narrower)]
    pub struct ShardTooLarge;

    impl ShardTooLarge {
        fn narrower(&self) -> Option<completeness::Continuation> {
            Some(completeness::Continuation::NarrowQuery { hint: "name one shard".to_owned() })
        }
    }

    #[completeness(resource = "numbers", reasons(UpstreamMayHaveTruncated, ShardTooLarge, SourceUnavailable))]
    async fn truncated(query: axum::extract::RawQuery) -> Envelope<u32, TruncatedReason> {
        let scope = Scope::new("numbers", "all");
        let mut page = match query.0.as_deref().unwrap_or_default() {
            q if q.contains("narrower") => Envelope::incomplete(vec![1], scope, ShardTooLarge),
            _ => Envelope::incomplete(vec![1], scope, UpstreamMayHaveTruncated),
        };
        page.completeness.push_reason(SourceUnavailable::new("mirror").retry_after(9));
        page
    }

    #[completeness(resource = "numbers", reasons(UpstreamPaged, SourceUnavailable, MorePagesAvailable))]
    async fn relayed(query: axum::extract::RawQuery) -> Envelope<u32, RelayedReason> {
        let scope = Scope::new("numbers", "all");
        let upstream = UpstreamPaged { cursor: "u-2".to_owned() };
        match query.0.as_deref().unwrap_or_default() {
            // Two cursors: the next page's, and the upstream's, which no client can follow.
            q if q.contains("paged") && q.contains("more") => {
                let mut page = Envelope::incomplete(vec![1], scope, MorePagesAvailable::new("p-2"));
                page.completeness.push_reason(upstream);
                page
            }
            q if q.contains("paged") && q.contains("failed") => {
                let mut page = Envelope::incomplete(vec![1], scope, upstream);
                page.completeness.push_reason(SourceUnavailable::new("mirror"));
                page
            }
            q if q.contains("paged") => Envelope::incomplete(vec![1], scope, upstream),
            _ => Envelope::complete(vec![1, 2], scope),
        }
    }

    /// The page `relayed` answers for `paged&failed`, as a relaying service holds it: read back
    /// from its JSON, its own reason without the cursor it offered.
    async fn relayed_from_the_wire() -> Envelope<u32> {
        let typed = relayed(axum::extract::RawQuery(Some("paged&failed".to_owned()))).await;
        serde_json::from_value(serde_json::to_value(&typed).unwrap()).unwrap()
    }

    /// A single resource (contract §2.7): it never pages.
    #[derive(completeness::ResultEnvelope)]
    struct Numbered {
        number: u32,
        label: completeness::Field<String>,
    }

    #[completeness(resource = "numbers", reasons())]
    async fn numbered() -> Numbered {
        Numbered { number: 1, label: completeness::Field::Filled("one".into()) }
    }

    async fn empty_cursor() -> Envelope<u32> {
        Envelope::incomplete(vec![1], Scope::new("numbers", "all"), MorePagesAvailable::new(""))
    }

    async fn count_with_empty_cursor() -> Aggregate<u64> {
        let block = Completeness::incomplete(Scope::new("numbers", "all"), MorePagesAvailable::new(""));
        Aggregate::count(1, Relation::LowerBound, block)
    }

    async fn answered(uri: &str) -> (StatusCode, serde_json::Value) {
        let app = axum::Router::new()
            .route("/no-content", get(no_content).into())
            .route("/partial-content", get(partial_content).into())
            .route("/redirected", get(redirected).into())
            .route("/as-text", get(as_text).into())
            .route("/as-problem", get(as_problem).into())
            .route("/created", get(created).post(created).into())
            .route("/empty-cursor", get(empty_cursor).into())
            .route("/count-empty-cursor", get(count_with_empty_cursor).into())
            .route("/whole", get(whole).into())
            .route("/held", get(held).into())
            .route("/relayed", get(relayed).into())
            .route("/truncated", get(truncated).into())
            .route("/relayed-from-the-wire", get(relayed_from_the_wire).into())
            .route("/behind", get(behind).into())
            .route("/partial", get(partial_answer).into())
            .route("/numbered", get(numbered).into())
            // A second demand layer, around the routes' own: a strict refusal passes it as it is.
            .layer(completeness::require::DemandLayer)
            .with_state(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential());
        let (method, uri) = uri.split_once(' ').unwrap_or(("GET", uri));
        let request = Request::builder().method(method).uri(uri).body(Body::empty()).unwrap();
        let response = app.oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null))
    }

    /// An answer with a completeness block goes out as JSON with the status 200 (201 for a
    /// creation). In another frame a client loses it (a 204 drops the body) or does not read it
    /// as the answer (a 206, a redirect, a body not declared JSON): the route answers the 500
    /// `INTERNAL` problem instead, so the incomplete answer never vanishes into a success.
    #[tokio::test]
    async fn an_answer_in_a_frame_a_client_would_lose_or_misread_is_the_500_problem() {
        for (uri, said) in [
            ("/no-content", "with the status 204 No Content"),
            ("/partial-content", "with the status 206 Partial Content"),
            ("/redirected", "with the status 302 Found"),
            ("/as-text", "declared as text/plain, not a JSON answer"),
            ("/as-problem", "declared as application/problem+json, not a JSON answer"),
            // A creation answers a write; a read answered 201 is refused by clients (contract §5).
            ("/created", "with the status 201 Created"),
        ] {
            let (status, body) = answered(uri).await;
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{uri}: {body}");
            assert_eq!(body["code"], "INTERNAL", "{uri}");
            assert!(body["detail"].as_str().unwrap().contains(said), "{uri}: {body}");
        }
        let (status, body) = answered("POST /created").await;
        assert_eq!(status, StatusCode::CREATED);
        assert_eq!(body["incomplete_reasons"][0]["code"], "SOURCE_UNAVAILABLE", "{body}");
    }

    /// A strict demand's refusal carries the report of the answer it replaced, with its error
    /// status: a second demand layer passes it as the refusal, not as a misframed answer.
    #[tokio::test]
    async fn a_strict_refusal_passes_a_second_demand_layer_as_it_is() {
        let (status, body) = answered("/partial?require_complete=true").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{body}");
    }

    /// A page whose only reason is a service's own truncation that hands out the next cursor is
    /// paging by its own name: a strict demand lets it through, as it lets `MORE_PAGES_AVAILABLE`
    /// alone (contract §5.3); beside another reason, the demand refuses it.
    #[tokio::test]
    async fn a_strict_demand_lets_a_services_own_paging_through() {
        let (status, body) = answered("/relayed?paged&require_complete=true").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            (body["next_cursor"].as_str(), body["incomplete_reasons"][0]["code"].as_str()),
            (Some("u-2"), Some("UPSTREAM_PAGED"))
        );
        // Beside a failure, or beside the next page's own cursor (a client keeps the service's
        // reason then: its cursor is not the one sent), the demand refuses it.
        for beside in ["failed", "more"] {
            let (status, body) = answered(&format!("/relayed?paged&{beside}&require_complete=true")).await;
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{beside}: {body}");
            assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{beside}: {body}");
        }
        // The same page relayed (read from its JSON) is refused the same way: its own reason is
        // still paging, not a limit the same request meets again.
        let (status, body) = answered("/relayed-from-the-wire?require_complete=true").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    }

    /// A service's own truncation other than its paging is a limit the same request meets again:
    /// a strict demand refuses it with 422, as `RESULT_LIMIT_REACHED`, not with a 503 that invites
    /// the same request (beside a source's wait), carrying the narrower question when one is
    /// offered (contract §5.3).
    #[tokio::test]
    async fn a_services_own_truncation_other_than_paging_is_refused_with_422() {
        let (status, body) = answered("/truncated?require_complete=true").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE", "{body}");
        assert!(
            body.get("continuation").is_none(),
            "no narrower question was offered, and a wait would not help: {body}"
        );
        let (status, body) = answered("/truncated?narrower&require_complete=true").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body["continuation"],
            serde_json::json!({"kind": "narrow_query", "hint": "name one shard"}),
            "{body}"
        );
    }

    /// A route that never pages (its declared reasons offer no next page) refuses a read that
    /// sends a cursor (it cannot be one of its pages) instead of answering as if it were the
    /// next page, which would start the client's traversal over without a word.
    #[tokio::test]
    async fn a_cursor_sent_to_a_route_that_never_pages_is_400_cursor_query_mismatch() {
        // A service's own reason offers none without `next_cursor`, though its `recovery` be a retry.
        for route in ["/whole", "/held", "/behind"] {
            let (status, body) = answered(&format!("{route}?cursor=c1.k1.from-another-route")).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{route}: {body}");
            assert_eq!(
                (body["code"].as_str(), body["parameter"].as_str()),
                (Some("CURSOR_QUERY_MISMATCH"), Some("cursor")),
                "{route}"
            );
            let (status, body) = answered(route).await;
            assert_eq!((status, body["complete"].clone()), (StatusCode::OK, true.into()), "{route}: {body}");
        }
        // A single resource never pages either.
        let (status, body) = answered("/numbered?cursor=c1.k1.from-a-list").await;
        assert_eq!(
            (status, body["code"].as_str(), body["parameter"].as_str()),
            (StatusCode::BAD_REQUEST, Some("CURSOR_QUERY_MISMATCH"), Some("cursor")),
            "{body}"
        );
        let (status, body) = answered("/numbered").await;
        assert_eq!((status, body["label"].clone()), (StatusCode::OK, "one".into()), "{body}");
        // One with `next_cursor` may hand out a cursor of its own, which the handler reads.
        let (status, body) = answered("/relayed?cursor=c1.k1.from-the-upstream").await;
        assert_eq!((status, body["complete"].clone()), (StatusCode::OK, true.into()), "{body}");
        // A cursor the reason's recovery returns without `next_cursor` is not sent: the route
        // would refuse it.
        let (status, body) = answered("/behind?cursor_anyway").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            (body["next_cursor"].clone(), body["continuation"].clone()),
            (serde_json::Value::Null, serde_json::Value::Null),
            "{body}"
        );
        assert_eq!(body["incomplete_reasons"][0]["code"], "REPLICA_BEHIND", "{body}");
    }

    /// An empty cursor breaks R7 (given back, many servers read it as none: the first page
    /// again); the answer does not go out with one, but as the 500 `INTERNAL` problem.
    #[tokio::test]
    async fn an_answer_with_an_empty_cursor_is_the_500_problem() {
        for uri in ["/empty-cursor", "/count-empty-cursor"] {
            let (status, body) = answered(uri).await;
            assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{uri}: {body}");
            assert_eq!(body["code"], "INTERNAL");
            assert!(body["detail"].as_str().unwrap().contains("`next_cursor` is the empty string"), "{uri}: {body}");
        }
    }
}

/// `completeness::Problem` documents a route's error responses: every strict refusal, and a
/// problem with a member of the service's own, passes its schema; one without a code does not.
#[cfg(feature = "openapi")]
#[tokio::test]
async fn the_problem_schema_takes_the_refusals_the_runtime_sends() {
    #[utoipa::path(get, path = "/strict", responses((status = 503, content_type = "application/problem+json", body = completeness::Problem)))]
    #[allow(dead_code)]
    async fn refused() {}
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(refused))]
    struct Api;

    let document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
    let root = json!({"$ref": "#/components/schemas/Problem", "components": document["components"]});
    let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
    let (app, _) = app(config(K1));
    for reasons in ["limit,visibility,source", "source,limit", "source", "quota,source"] {
        let reply = strict(&app, reasons).await;
        assert!(reply.status.is_client_error() || reply.status.is_server_error(), "{reasons}");
        assert!(
            validator.is_valid(&reply.body),
            "{reasons}: {:?}: {}",
            validator.validate(&reply.body).err(),
            reply.body
        );
    }
    let own = serde_json::to_value(
        completeness::Problem::new(completeness::ProblemCode::custom("QUOTA_FROZEN"), "frozen")
            .with_extension("outcome", "unknown"),
    )
    .unwrap();
    assert!(validator.is_valid(&own), "{own}");
    let mut no_code = own.clone();
    no_code.as_object_mut().unwrap().remove("code");
    assert!(!validator.is_valid(&no_code), "{no_code}");
}
