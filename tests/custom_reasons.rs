//! A service's own reasons and warnings (contract §3.3, §3.5): declared next to standard ones,
//! routed through a real `Router`, read back typed by a client that knows them and kept whole by
//! one that does not, classified by kind, listed in the schemas and the MCP verdict.

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use completeness::routing::get;
use completeness::testing::{arb_envelope, assert_envelope_invariants};
use completeness::warning::StaleIndex;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{
    Continuation, Decision, Envelope, Intent, Reason, ReasonCode, ReasonKind, Scope, StandardReason, Warning,
    WarningCatalog, WarningCode, completeness, decide,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Records under a legal hold are hidden from everyone but the legal team.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under legal hold {hold} are hidden.")]
pub struct LegalHold {
    hold: String,
}

/// The upstream API cut its answer short without saying where. (Its keys are spread over two
/// attributes, as serde's may be: the tests below read all four back.)
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "UPSTREAM_TRUNCATED", kind = truncation)]
#[reason(message = "The upstream API may have cut its answer.", recovery = UpstreamTruncated::narrow)]
pub struct UpstreamTruncated;

impl UpstreamTruncated {
    fn narrow(&self) -> Option<Continuation> {
        Some(Continuation::NarrowQuery { hint: "ask for one tenant at a time".into() })
    }
}

/// An upstream that pages on its own: the answer stops where the upstream's page did, and its
/// cursor is the way on (contract §2.2 R7: a service's own reason may offer a next page).
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "UPSTREAM_PAGED", kind = truncation, message = "The upstream has more.", recovery = UpstreamPaged::next, next_cursor)]
pub struct UpstreamPaged {
    cursor: String,
}

impl UpstreamPaged {
    fn next(&self) -> Option<Continuation> {
        Some(Continuation::NextCursor { cursor: self.cursor.clone() })
    }
}

/// A replica serving reads lags behind the primary: what it answers may be out of date.
#[derive(Debug, Clone, PartialEq, completeness::Warning)]
#[warning(
    code = "REPLICA_LAG",
    owner = "storage-team",
    review_by = "2027-06-30",
    message = "The replica lags by {seconds} s.",
    stale
)]
pub struct ReplicaLag {
    seconds: u64,
}

mod reasons {
    /// A shard is being rebalanced: its records are missing for now.
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "SHARD_REBALANCING", kind = source, message = "Shard {shard} is being rebalanced.")]
    pub struct ShardRebalancing {
        pub shard: u32,
    }
}

#[completeness(
    resource = "documents",
    reasons(MorePagesAvailable, LegalHold, UpstreamTruncated, reasons::ShardRebalancing, VisibilityRestricted),
    warnings(StaleIndex, ReplicaLag)
)]
async fn list_documents(
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Envelope<String, ListDocumentsReason> {
    let mut page = Envelope::complete(vec![], Scope::new("", "documents readable by credential 'clerk'"));
    for (key, value) in query {
        match (key.as_str(), value.as_str()) {
            ("hold", hold) => page.completeness.push_reason(LegalHold { hold: hold.to_owned() }),
            ("upstream", _) => page.completeness.push_reason(UpstreamTruncated),
            ("shard", shard) => {
                page.completeness.push_reason(reasons::ShardRebalancing { shard: shard.parse().unwrap_or(0) })
            }
            ("lag", seconds) => page.completeness.push_warning(ReplicaLag { seconds: seconds.parse().unwrap_or(0) }),
            ("item", item) => page.items.push(item.to_owned()),
            _ => {}
        }
    }
    page
}

async fn call(uri: &str) -> (StatusCode, Value) {
    let app: Router = Router::new()
        .route("/documents", get(list_documents).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
    let response = app.oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[test]
fn the_declaration_lists_custom_codes_beside_standard_ones_in_order() {
    assert_eq!(
        ListDocumentsReason::ALL,
        &[
            ReasonCode::MorePagesAvailable,
            ReasonCode::custom("LEGAL_HOLD"),
            ReasonCode::custom("UPSTREAM_TRUNCATED"),
            ReasonCode::custom("SHARD_REBALANCING"),
            ReasonCode::VisibilityRestricted,
        ]
    );
    assert_eq!(ListDocumentsReason::WARNINGS, &[WarningCode::StaleIndex, WarningCode::custom("REPLICA_LAG")]);
    let declared = <ListDocumentsReason as Reason>::declared_set().expect("a declared set");
    assert_eq!(declared.stale, &[true, true], "STALE_INDEX by its code, REPLICA_LAG by `#[warning(stale)]`");
    let everything = <ListEverythingReason as Reason>::declared_set().unwrap();
    let stale: Vec<&WarningCode> =
        everything.warnings.iter().zip(everything.stale).filter(|(_, s)| **s).map(|(c, _)| c).collect();
    assert_eq!(stale, [&WarningCode::StaleIndex], "the one stale standard warning");
}

#[tokio::test]
async fn incomplete_and_empty_with_a_custom_visibility_reason() {
    let (status, body) = call("/documents?hold=h-17").await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope_invariants(&body);
    assert_eq!((body["complete"].clone(), body["items"].clone()), (json!(false), json!([])));
    assert_eq!(body["truncated"], false, "a visibility reason does not truncate");
    assert_eq!(
        body["incomplete_reasons"][0],
        json!({"code": "LEGAL_HOLD", "message": "Records under legal hold h-17 are hidden.", "kind": "visibility", "hold": "h-17"})
    );
    assert_eq!(body["continuation"], Value::Null);
    assert_eq!(body["scope"]["resource"], "documents");
}

#[tokio::test]
async fn a_custom_truncation_sets_truncated_and_offers_its_recovery() {
    let (status, body) = call("/documents?upstream=1&item=a").await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope_invariants(&body);
    assert_eq!(body["truncated"], true);
    assert_eq!(
        body["incomplete_reasons"][0],
        json!({"code": "UPSTREAM_TRUNCATED", "message": "The upstream API may have cut its answer.", "kind": "truncation"})
    );
    assert_eq!(body["continuation"], json!({"kind": "narrow_query", "hint": "ask for one tenant at a time"}));
    let page: Envelope<String> = serde_json::from_value(body).unwrap();
    assert_eq!(decide(&page, Intent::ClaimAbsence), Decision::NarrowQuery);
    assert_eq!(decide(&page, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[tokio::test]
async fn the_four_states_with_custom_reasons_and_warnings() {
    for (query, complete, empty) in
        [("", true, true), ("item=a&lag=3", true, false), ("shard=4&item=a", false, false), ("shard=4", false, true)]
    {
        let (status, body) = call(&format!("/documents?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert_envelope_invariants(&body);
        assert_eq!(body["complete"], complete, "{query}");
        assert_eq!(body["items"].as_array().unwrap().is_empty(), empty, "{query}");
    }
    let (_, body) = call("/documents?lag=3").await;
    assert_eq!(
        body["warnings"][0],
        json!({"code": "REPLICA_LAG", "message": "The replica lags by 3 s.", "stale": true, "seconds": 3})
    );
}

#[tokio::test]
async fn a_stale_custom_warning_keeps_a_complete_empty_answer_from_proving_absence() {
    let (status, body) = call("/documents?lag=3").await;
    assert_eq!(status, StatusCode::OK);
    assert_envelope_invariants(&body);
    assert_eq!((body["complete"].clone(), body["items"].clone()), (json!(true), json!([])));
    // A client that knows the type and one that does not read the same `stale`.
    let known: Envelope<String, ListDocumentsReason> = serde_json::from_value(body.clone()).unwrap();
    let unknown: Envelope<String> = serde_json::from_value(body.clone()).unwrap();
    for warning in [&known.completeness.warnings()[0], &unknown.completeness.warnings()[0]] {
        assert!(warning.is_stale(), "{warning:?}");
        assert_eq!(warning.to_details::<ReplicaLag>(), Some(Ok(ReplicaLag { seconds: 3 })), "`stale` is no detail");
    }
    assert_eq!(decide(&unknown, Intent::Report), Decision::Proceed);
    assert_eq!(decide(&unknown, Intent::ClaimAbsence), Decision::RefuseOrRequestReview);
    assert_eq!(decide(&known, Intent::ClaimAbsence), Decision::RefuseOrRequestReview);
    assert_eq!(serde_json::to_value(&unknown).unwrap()["warnings"], body["warnings"], "kept whole");

    // The same answer without the warning proves absence: the warning made the difference.
    let (_, current) = call("/documents").await;
    let current: Envelope<String> = serde_json::from_value(current).unwrap();
    assert_eq!(decide(&current, Intent::ClaimAbsence), Decision::Proceed);
}

/// A warning with a standard reason's code is refused by the strict reader: a server that sent
/// a reason as a warning (`VISIBILITY_RESTRICTED`, `MORE_PAGES_AVAILABLE`) would otherwise answer
/// `complete: true` with records hidden or pages left (contract §3.5). A warning's own code,
/// standard or a service's, reads.
#[test]
fn a_warning_with_a_reasons_code_is_refused() {
    let mut body = serde_json::to_value(Envelope::<String>::complete(vec![], Scope::new("documents", "all"))).unwrap();
    for code in ["VISIBILITY_RESTRICTED", "MORE_PAGES_AVAILABLE", "SOURCE_UNAVAILABLE"] {
        body["warnings"] = json!([{"code": code, "message": "records were hidden"}]);
        let error = serde_json::from_value::<Envelope<String>>(body.clone()).unwrap_err().to_string();
        assert!(error.contains("is a standard reason"), "{code}: {error}");
    }
    for code in ["DEPRECATED_FIELD", "REPLICA_LAG"] {
        body["warnings"] = json!([{"code": code, "message": "m", "field": "f"}]);
        assert!(serde_json::from_value::<Envelope<String>>(body.clone()).is_ok(), "{code}");
    }
}

#[test]
fn stale_on_the_wire_is_a_boolean_and_absent_means_current() {
    let read = |warning: Value| serde_json::from_value::<Warning>(warning);
    let current = read(json!({"code": "CACHE_WARM", "message": "m"})).unwrap();
    assert!(!current.is_stale());
    let said_false = read(json!({"code": "CACHE_WARM", "message": "m", "stale": false})).unwrap();
    assert!(!said_false.is_stale() && said_false.details().is_empty(), "{said_false:?}");
    assert!(read(json!({"code": "CACHE_COLD", "message": "m", "stale": true})).unwrap().is_stale());
    // STALE_INDEX is stale by its code, and sends no `stale` member (readers before it know);
    // read back, with or without one, it is the same warning.
    let index = Warning::from(StaleIndex::new("audit"));
    assert!(index.is_stale());
    let wire = serde_json::to_value(&index).unwrap();
    assert_eq!(wire.get("stale"), None);
    assert_eq!(read(wire.clone()).unwrap(), index);
    let mut said = wire;
    said["stale"] = json!(true);
    assert_eq!(read(said).unwrap(), index);

    // The strict reader refuses a `stale` it cannot read as true or false (R13).
    let mut body = serde_json::to_value(Envelope::<String>::complete(vec![], Scope::new("documents", "all"))).unwrap();
    body["warnings"] = json!([{"code": "REPLICA_LAG", "message": "m", "stale": "yes"}]);
    let error = serde_json::from_value::<Envelope<String>>(body.clone()).unwrap_err().to_string();
    assert!(error.contains("R13") && error.contains("not a boolean"), "{error}");
    // Evidence beside a stale warning (an older server's) is read, but backs no change.
    body["warnings"] = json!([{"code": "REPLICA_LAG", "message": "m", "stale": true}]);
    body["evidence"] = json!("ev1.k.p.m");
    // The test kit, which checks a server's own answers, names the server's rule it breaks.
    let broken = completeness::testing::check_envelope_invariants(&body).unwrap_err();
    assert!(broken.iter().any(|v| v.contains("beside a stale warning") && v.contains("§6")), "{broken:?}");
    let read: Envelope<String> = serde_json::from_value(body).expect("R9 holds: the answer is complete");
    assert_eq!(read.completeness.evidence(), Some("ev1.k.p.m"));
    assert_eq!(decide(&read, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[tokio::test]
async fn demanding_completeness_of_a_custom_visibility_reason_is_403() {
    let (status, body) = call("/documents?hold=h-1&require_complete=true").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(body["incomplete_reasons"][0]["code"], "LEGAL_HOLD");
    let (status, _) = call("/documents?shard=2&require_complete=true").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "a source kind is retryable");
}

#[tokio::test]
async fn a_client_that_knows_the_type_reads_it_back_through_the_strict_deserializer() {
    let (_, body) = call("/documents?hold=h-17&shard=9").await;
    let page: Envelope<String, ListDocumentsReason> = serde_json::from_value(body).unwrap();
    let reasons = page.completeness.reasons();
    assert_eq!(reasons[0].kind(), ReasonKind::Visibility);
    let hold = reasons[0].as_standard().to_details::<LegalHold>().expect("LEGAL_HOLD").expect("reads");
    assert_eq!(hold, LegalHold { hold: "h-17".into() });
    let shard = reasons[1].as_standard().to_details::<reasons::ShardRebalancing>().unwrap().unwrap();
    assert_eq!(shard.shard, 9);
    assert!(reasons[0].as_standard().to_details::<UpstreamTruncated>().is_none(), "another code");
}

#[tokio::test]
async fn an_old_client_keeps_an_unknown_code_whole_and_classifies_it_by_kind() {
    let (_, body) = call("/documents?shard=9&item=a").await;
    let page: Envelope<String> = serde_json::from_value(body.clone()).unwrap();
    assert!(!page.is_complete());
    let StandardReason::Custom(reason) = &page.completeness.reasons()[0] else { panic!("kept as a custom reason") };
    assert_eq!((reason.code(), reason.kind()), ("SHARD_REBALANCING", ReasonKind::Source));
    assert_eq!(reason.details()["shard"], 9);
    assert_eq!(decide(&page, Intent::ClaimAbsence), Decision::RetryLater, "a source reason: retry later");
    assert_eq!(serde_json::to_value(&page).unwrap()["incomplete_reasons"], body["incomplete_reasons"], "kept whole");
}

#[test]
fn a_reason_without_a_kind_is_treated_as_the_most_cautious() {
    let mut body = serde_json::to_value(Envelope::<String>::complete(vec![], Scope::new("documents", "all"))).unwrap();
    body["complete"] = json!(false);
    body["status"] = json!("partial");
    body["evidence"] = Value::Null;
    body["incomplete_reasons"] = json!([{"code": "REGION_DRAINING", "message": "A region is draining."}]);
    for truncated in [false, true] {
        body["truncated"] = json!(truncated);
        let page: Envelope<String> = serde_json::from_value(body.clone()).expect("an unknown kind may truncate or not");
        assert_eq!(page.completeness.reasons()[0].kind(), ReasonKind::Unknown);
        assert_eq!(decide(&page, Intent::ClaimAbsence), Decision::RefuseOrRequestReview);
        assert_eq!(decide(&page, Intent::Investigate), Decision::RefuseOrRequestReview);
    }
    body["incomplete_reasons"][0]["kind"] = json!("sideways");
    let error = serde_json::from_value::<Envelope<String>>(body).unwrap_err().to_string();
    assert!(error.contains("not a reason kind") && error.contains("R12"), "{error}");
}

#[test]
fn a_declared_reason_of_another_kind_on_the_wire_is_refused() {
    let wire = json!({"code": "LEGAL_HOLD", "message": "m", "kind": "budget", "hold": "h"});
    let error = serde_json::from_value::<ListDocumentsReason>(wire).unwrap_err().to_string();
    assert!(error.contains("declared of kind `visibility`"), "{error}");
}

#[test]
fn the_catalog_takes_owner_and_review_date_from_the_warning_type() {
    let catalog = WarningCatalog::new().declare::<ReplicaLag>("reads may miss the latest writes");
    let entry = catalog.get(&WarningCode::custom("REPLICA_LAG")).expect("catalogued");
    assert_eq!(entry.owner, "storage-team");
    assert_eq!(entry.review_by.to_string(), "2027-06-30");
    assert!(catalog.require([&WarningCode::custom("REPLICA_LAG")]).is_ok());
}

#[test]
fn a_warning_reads_back_typed() {
    let warning = Warning::from(ReplicaLag { seconds: 12 });
    assert_eq!(warning.to_details::<ReplicaLag>(), Some(Ok(ReplicaLag { seconds: 12 })));
    assert!(warning.to_details::<StaleIndex>().is_none());
}

/// The schemas of `list_documents`'s reason type accept every reason it sends, standard and its
/// own, and hold a service's own reason to its code and kind (contract §3.3): one sent without
/// its kind, or under another kind, is refused.
#[cfg(all(feature = "openapi", feature = "json-schema"))]
#[test]
fn the_reason_schemas_take_custom_codes_with_their_kinds() {
    let openapi = serde_json::to_value(<ListDocumentsReason as utoipa::PartialSchema>::schema()).unwrap();
    let json = serde_json::to_value(schemars::schema_for!(ListDocumentsReason)).unwrap();
    let sent: Vec<Value> = [
        StandardReason::from(completeness::reason::MorePagesAvailable::new("c1.next")),
        LegalHold { hold: "H-7".into() }.into(),
        UpstreamTruncated.into(),
        reasons::ShardRebalancing { shard: 3 }.into(),
        completeness::reason::VisibilityRestricted::new().into(),
    ]
    .iter()
    .map(|reason| serde_json::to_value(reason).unwrap())
    .collect();
    for (what, schema) in [("openapi", openapi), ("json-schema", json)] {
        assert_eq!(schema["oneOf"].as_array().map(Vec::len), Some(5), "{what}: one branch per declared code");
        let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{what}: {e}"));
        for reason in &sent {
            assert!(validator.is_valid(reason), "{what} refuses {reason}: {:?}", validator.validate(reason).err());
        }
        let mut kindless = sent[1].clone();
        kindless.as_object_mut().unwrap().remove("kind");
        assert!(!validator.is_valid(&kindless), "{what}: a custom reason without its kind is accepted");
        let mut other_kind = sent[1].clone();
        other_kind["kind"] = json!("truncation");
        assert!(!validator.is_valid(&other_kind), "{what}: LEGAL_HOLD under another kind is accepted");
        let mut unheld = sent[1].clone();
        unheld.as_object_mut().unwrap().remove("hold");
        assert!(!validator.is_valid(&unheld), "{what}: LEGAL_HOLD without its `hold` is accepted");
    }
}

/// The JSON Schema of the endpoint's response accepts what it answers in the four states (its
/// own reasons and warnings included), and refuses an answer the contract forbids: a complete
/// one with a reason or a continuation, a status that is not derived, an incomplete one with
/// evidence or without a reason, `truncated` without a truncating reason, an empty cursor, a
/// code the endpoint does not declare, and a stale warning of its own without `stale`.
#[cfg(feature = "json-schema")]
#[tokio::test]
async fn the_json_schema_of_the_response_takes_its_answers_and_refuses_forbidden_ones() {
    let schema = schemars::schema_for!(Envelope<String, ListDocumentsReason>).to_value();
    let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
    let mut answers = Vec::new();
    for query in ["item=a", "", "item=a&hold=H-7", "hold=H-7", "upstream=1&shard=3&lag=4", "lag=4&item=b"] {
        let (status, body) = call(&format!("/documents?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert!(validator.is_valid(&body), "refuses ?{query}: {body}: {:?}", validator.validate(&body).err());
        answers.push(body);
    }
    let [complete, _, partial, _, truncated, _] = answers.as_slice() else { unreachable!() };
    let refused = |mut answer: Value, edit: &dyn Fn(&mut Value), what: &str| {
        edit(&mut answer);
        assert!(!validator.is_valid(&answer), "accepts {what}: {answer}");
    };
    let reason = partial["incomplete_reasons"][0].clone();
    refused(complete.clone(), &|a| a["incomplete_reasons"] = json!([reason.clone()]), "complete with a reason");
    refused(complete.clone(), &|a| a["status"] = json!("partial"), "complete with status partial");
    refused(
        complete.clone(),
        &|a| a["continuation"] = json!({"kind": "next_cursor", "cursor": "c1.next"}),
        "complete with a continuation",
    );
    refused(partial.clone(), &|a| a["evidence"] = json!("ev1.x.y.z"), "evidence on a partial answer");
    refused(partial.clone(), &|a| a["incomplete_reasons"] = json!([]), "incomplete without a reason");
    refused(partial.clone(), &|a| a["truncated"] = json!(true), "truncated by a visibility reason");
    refused(truncated.clone(), &|a| a["truncated"] = json!(false), "not truncated by UPSTREAM_TRUNCATED");
    refused(complete.clone(), &|a| a["next_cursor"] = json!(""), "an empty cursor");
    refused(
        partial.clone(),
        &|a| a["incomplete_reasons"] = json!([{"code": "QUOTA_EXHAUSTED", "message": "q", "retry_after_seconds": 5}]),
        "a code the endpoint does not declare",
    );
    let lag = truncated["warnings"][0].clone();
    assert_eq!((&lag["code"], &lag["stale"]), (&json!("REPLICA_LAG"), &json!(true)));
    refused(
        truncated.clone(),
        &|a| {
            a["warnings"][0].as_object_mut().unwrap().remove("stale");
        },
        "its own stale warning without `stale`",
    );
    refused(truncated.clone(), &|a| a["warnings"][0]["stale"] = json!(false), "its own stale warning said current");
    refused(
        truncated.clone(),
        &|a| {
            a["warnings"][0].as_object_mut().unwrap().remove("seconds");
        },
        "REPLICA_LAG without its `seconds`",
    );
}

/// The OpenAPI schema of the endpoint's response, with the components it lists, takes what it
/// answers in the four states, and refuses an answer without a member of §2.1 or with a code
/// the endpoint does not declare.
#[cfg(feature = "openapi")]
#[tokio::test]
async fn the_openapi_schema_of_the_response_takes_its_answers() {
    use utoipa::{PartialSchema, ToSchema};
    type Response = Envelope<String, ListDocumentsReason>;
    let mut components = vec![(Response::name().into_owned(), Response::schema())];
    Response::schemas(&mut components);
    let components: serde_json::Map<String, Value> =
        components.into_iter().map(|(name, schema)| (name, serde_json::to_value(schema).unwrap())).collect();
    for name in ["Scope", "PageInfo", "Continuation", "CursorContract"] {
        assert!(components.contains_key(name), "`{name}` is listed: {:?}", components.keys());
    }
    let root = json!({
        "$ref": format!("#/components/schemas/{}", Response::name()),
        "components": {"schemas": components},
    });
    let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
    let mut answers = Vec::new();
    for query in ["item=a", "", "item=a&hold=H-7", "hold=H-7", "upstream=1&shard=3&lag=4"] {
        let (status, body) = call(&format!("/documents?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert!(validator.is_valid(&body), "refuses ?{query}: {body}: {:?}", validator.validate(&body).err());
        answers.push(body);
    }
    let mut without = answers[0].clone();
    without.as_object_mut().unwrap().remove("page");
    assert!(!validator.is_valid(&without), "an answer without `page`: {without}");
    let mut undeclared = answers[3].clone();
    undeclared["incomplete_reasons"][0] = json!({"code": "QUOTA_EXHAUSTED", "message": "q", "retry_after_seconds": 5});
    assert!(!validator.is_valid(&undeclared), "a code the endpoint does not declare: {undeclared}");
}

/// The same two endpoints in an OpenAPI document: two components, each with its own warnings,
/// so that each endpoint's answers pass its own (one shared name once gave both the warnings of
/// whichever was listed last).
#[cfg(all(feature = "openapi", feature = "json-schema"))]
#[tokio::test]
async fn two_endpoints_of_one_reason_set_are_two_openapi_components() {
    use utoipa::{PartialSchema, ToSchema};
    type Documents = Envelope<String, ListDocumentsReason>;
    type Tagged = Envelope<String, ListTaggedReason>;
    assert_ne!(Documents::name(), Tagged::name());
    let mut components =
        vec![(Documents::name().into_owned(), Documents::schema()), (Tagged::name().into_owned(), Tagged::schema())];
    Documents::schemas(&mut components);
    Tagged::schemas(&mut components);
    let components: serde_json::Map<String, Value> =
        components.into_iter().map(|(name, schema)| (name, serde_json::to_value(schema).unwrap())).collect();
    let validator = |name: &str| {
        let root = json!({"$ref": format!("#/components/schemas/{name}"), "components": {"schemas": components}});
        jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"))
    };
    let (documents, tagged) = (validator(&Documents::name()), validator(&Tagged::name()));
    let (_, lagging) = call("/documents?lag=4&item=a").await;
    assert_eq!(lagging["warnings"][0]["code"], "REPLICA_LAG");
    assert!(documents.is_valid(&lagging), "{:?}", documents.validate(&lagging).err());
    assert!(!tagged.is_valid(&lagging), "the endpoint without the warning refuses it");
    let plain = serde_json::to_value(list_tagged().await).unwrap();
    assert!(tagged.is_valid(&plain), "{:?}", tagged.validate(&plain).err());
}

/// The same reasons as `list_documents`, without its warnings, over items that leave a member
/// out when it is empty.
#[cfg(feature = "json-schema")]
#[completeness(
    resource = "documents",
    reasons(MorePagesAvailable, LegalHold, UpstreamTruncated, reasons::ShardRebalancing, VisibilityRestricted)
)]
async fn list_tagged() -> Envelope<String, ListTaggedReason> {
    Envelope::complete(vec!["d-1".into()], Scope::new("documents", "all"))
}

#[cfg(feature = "json-schema")]
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Tagged {
    id: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

/// Two endpoints that declare the same reasons and other warnings are two schemas in one
/// document, and an item that leaves a member out is what the response's schema describes
/// (it is generated for what the server writes).
#[cfg(feature = "json-schema")]
#[tokio::test]
async fn two_endpoints_of_one_reason_set_keep_their_own_warnings_in_one_schema() {
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Both {
        documents: Envelope<String, ListDocumentsReason>,
        tagged: Envelope<String, ListTaggedReason>,
        skipping: Envelope<Tagged, ListTaggedReason>,
    }
    let schema = completeness::schema::response_json::<Both>().to_value();
    let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
    let (_, documents) = call("/documents?lag=4&item=a").await;
    let tagged = serde_json::to_value(list_tagged().await).unwrap();
    let skipping: Envelope<Tagged, ListTaggedReason> =
        Envelope::complete(vec![Tagged { id: "d-1".into(), tags: vec![] }], Scope::new("documents", "all"));
    let skipping = serde_json::to_value(skipping).unwrap();
    assert_eq!(skipping["items"][0], json!({"id": "d-1"}), "the empty tags are left out");
    let both = json!({"documents": documents, "tagged": tagged, "skipping": skipping});
    assert!(validator.is_valid(&both), "refuses {both}: {:?}", validator.validate(&both).err());
    let mut lagging = both.clone();
    lagging["tagged"]["warnings"] = documents["warnings"].clone();
    assert!(!validator.is_valid(&lagging), "REPLICA_LAG on an endpoint that does not declare it: {lagging}");
}

#[cfg(feature = "mcp")]
#[test]
fn the_mcp_verdict_claims_no_absence_under_a_stale_custom_warning() {
    let mut page: Envelope<String, ListDocumentsReason> = Envelope::complete(vec![], Scope::new("documents", "all"));
    page.completeness.push_warning(ReplicaLag { seconds: 4 });
    let result = completeness::mcp::tool_result(&page).unwrap();
    let text = serde_json::to_value(&result.content[0]).unwrap()["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("COMPLETE BUT STALE (REPLICA_LAG): 0 documents"), "{text}");
    assert!(text.contains("not evidence of absence"), "{text}");
    assert!(!text.contains("exist in"), "{text}");
}

#[test]
fn an_approval_request_on_a_stale_complete_answer_says_to_read_again() {
    let mut page: Envelope<String, ListDocumentsReason> =
        Envelope::complete(vec!["doc-1".into()], Scope::new("documents", "all"));
    page.completeness.push_warning(ReplicaLag { seconds: 4 });
    let request = completeness::client::ApprovalRequest::new("archive", "documents", &page);
    let text = request.to_string();
    assert!(text.contains("not read from current state (REPLICA_LAG)"), "{text}");
    assert!(text.contains("covers the whole scope as it was read, not as it is now (REPLICA_LAG)"), "{text}");
    // A program reading the request learns which warnings are stale without parsing prose.
    assert_eq!(request.stale_warnings, ["REPLICA_LAG"]);
    assert_eq!(request.to_json()["stale_warnings"], json!(["REPLICA_LAG"]));
    let current: Envelope<String, ListDocumentsReason> =
        Envelope::complete(vec!["doc-1".into()], Scope::new("documents", "all"));
    let request = completeness::client::ApprovalRequest::new("archive", "documents", &current);
    assert!(request.stale_warnings.is_empty());
    assert!(request.to_string().contains("The evidence covers the whole scope.\n"));
}

#[cfg(feature = "mcp")]
#[test]
fn the_mcp_verdict_names_custom_codes() {
    let page: Envelope<String, ListDocumentsReason> =
        Envelope::incomplete(vec![], Scope::new("documents", "all"), LegalHold { hold: "h-2".into() });
    let result = completeness::mcp::tool_result(&page).unwrap();
    let text = serde_json::to_value(&result.content[0]).unwrap()["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("INCOMPLETE") && text.contains("LEGAL_HOLD"), "{text}");
}

/// Every standard reason and warning declared on one endpoint.
#[expect(dead_code, reason = "declared for its generated reason type, never routed")]
#[completeness(
    resource = "everything",
    reasons(
        MorePagesAvailable,
        ResultLimitReached,
        TimeBudgetExceeded,
        SourceUnavailable,
        VisibilityRestricted,
        QuotaExhausted,
        ClientLimitReached,
        SnapshotExpired
    ),
    warnings(StaleIndex, PartialFieldSet, DefaultScopeApplied, PageSizeReduced, OrderingDefaulted, DeprecatedField)
)]
async fn list_everything() -> Envelope<String, ListEverythingReason> {
    Envelope::complete(vec![], Scope::new("everything", "all"))
}

#[test]
fn declaring_every_standard_name_gives_the_runtime_tables() {
    assert_eq!(ListEverythingReason::ALL, ReasonCode::KNOWN);
    assert_eq!(ListEverythingReason::WARNINGS, WarningCode::KNOWN);
}

proptest! {
    /// Any envelope, standard and custom reasons in the mix, keeps every rule on the wire and
    /// reads back as it was written.
    #[test]
    fn envelopes_with_custom_reasons_keep_the_rules(envelope in arb_envelope()) {
        let wire = serde_json::to_value(&envelope).unwrap();
        assert_envelope_invariants(&wire);
        let back: Envelope<u32> = serde_json::from_value(wire.clone()).unwrap();
        prop_assert_eq!(serde_json::to_value(&back).unwrap(), wire);
        let custom = back.completeness.reasons().iter().filter(|r| matches!(r, StandardReason::Custom(_))).count();
        let codes = back.completeness.reason_codes();
        prop_assert_eq!(custom, codes.iter().filter(|c| !c.is_standard()).count());
    }
}

/// What a server builds from a service's own reason that offers a next page, its own strict
/// reader accepts: `next_cursor` and the continuation carry the cursor, for any client.
#[test]
fn a_custom_reason_offering_a_next_page_sets_next_cursor_and_reads_back() {
    let page = Envelope::<String, StandardReason>::incomplete(
        vec!["a".into()],
        Scope::new("documents", "all"),
        UpstreamPaged { cursor: "u-2".into() },
    );
    let body = serde_json::to_value(&page).unwrap();
    assert_envelope_invariants(&body);
    assert_eq!(body["next_cursor"], "u-2");
    assert_eq!(body["continuation"], json!({"kind": "next_cursor", "cursor": "u-2"}));
    let read: Envelope<String> = serde_json::from_value(body).expect("the strict reader accepts it");
    assert_eq!(read.completeness.next_cursor(), Some("u-2"));
    assert_eq!(read.completeness.reasons()[0].kind(), ReasonKind::Truncation);
    // The only reason of the service's own, a truncation whose continuation is the cursor, is
    // pagination by its own name: go on with the traversal.
    assert_eq!(decide(&read, Intent::ClaimAbsence), Decision::ContinueSearch);
    // Beside another of the service's own, the cursor could be either's: `decide` takes the
    // cautious way past a truncation of the service's own, a narrower question.
    let mut two = serde_json::to_value(&page).unwrap();
    two["incomplete_reasons"]
        .as_array_mut()
        .unwrap()
        .push(json!({"code": "ARCHIVE_PENDING", "message": "more in the archive", "kind": "truncation"}));
    let two: Envelope<String> = serde_json::from_value(two).expect("the strict reader accepts it");
    assert_eq!(decide(&two, Intent::ClaimAbsence), Decision::NarrowQuery);
}

/// A warning whose details are written by hand, and write the members of its own head.
#[derive(Debug, Clone)]
struct HandWrittenWarning;

impl completeness::WarningDetails for HandWrittenWarning {
    const CODE: WarningCode = WarningCode::custom("HAND_WRITTEN");
    const STALE: bool = true;
    fn message(&self) -> String {
        "written by hand".to_owned()
    }
    fn write_details<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("stale", &false)?;
        map.serialize_entry("code", "OTHER_CODE")?;
        map.serialize_entry("message", "another message")?;
        map.serialize_entry("region", "eu-2")
    }
    fn read_details(_object: &serde_json::Map<String, Value>) -> Result<Self, String> {
        Ok(HandWrittenWarning)
    }
}

/// A code made at run time is held to the same form: `custom` panics rather than make a code
/// every reader refuses, or one that reads as a standard reason without its details.
#[test]
fn a_custom_code_is_screaming_snake_case_and_not_standard() {
    let made = |code: &'static str| std::panic::catch_unwind(|| ReasonCode::custom(code)).is_ok();
    assert!(made("LEGAL_HOLD"));
    assert!(!made("legal-hold"));
    assert!(!made("MORE_PAGES_AVAILABLE"));
    let warned = |code: &'static str| std::panic::catch_unwind(|| WarningCode::custom(code)).is_ok();
    assert!(warned("REPLICA_LAG"));
    assert!(!warned("replica_lag"));
    assert!(!warned("STALE_INDEX"));
}

/// Its head goes out once, the one it declares.
#[test]
fn warning_details_written_by_hand_never_name_a_head_member_twice() {
    let text = serde_json::to_string(&Warning::from(HandWrittenWarning)).unwrap();
    assert_eq!(text, r#"{"code":"HAND_WRITTEN","message":"written by hand","stale":true,"region":"eu-2"}"#);
}

/// A reason whose details are written by hand, and write a member of the reason's own head.
#[derive(Debug, Clone)]
struct HandWritten;

impl completeness::ReasonDetails for HandWritten {
    const CODE: completeness::ReasonCode = completeness::ReasonCode::custom("HAND_WRITTEN");
    const KIND: completeness::ReasonKind = completeness::ReasonKind::Visibility;
    fn default_message(&self) -> String {
        "written by hand".to_owned()
    }
    fn write_details<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("kind", "truncation")?;
        map.serialize_entry("region", "eu-2")
    }
    fn read_details(_object: &serde_json::Map<String, Value>) -> Result<Self, String> {
        Ok(HandWritten)
    }
    fn recovery(&self) -> Option<completeness::Continuation> {
        None
    }
    fn into_reason(self) -> completeness::StandardReason {
        completeness::StandardReason::Custom(completeness::reason::CustomReason::from_details(&self))
    }
}

/// Its `kind` goes out once, the one it declares: a second `kind` would read as visibility here
/// and as truncation in a reader that keeps the last, and the strict reader refuses it.
#[test]
fn details_written_by_hand_never_name_a_head_member_twice() {
    let envelope: Envelope<String> = Envelope::incomplete(vec![], Scope::new("records", "all"), HandWritten);
    let text = serde_json::to_string(&envelope).unwrap();
    assert_eq!(text.matches(r#""kind":"#).count(), 1, "{text}");
    let back: Envelope<String> = serde_json::from_str(&text).unwrap();
    assert_eq!(back.completeness.reasons()[0].kind(), completeness::ReasonKind::Visibility);
    assert!(text.contains(r#""region":"eu-2""#), "{text}");
}

/// A reason written by hand whose recovery contract §3.3 does not allow: a way on beside a
/// visibility reason, or a next page from a kind that is not truncation.
#[derive(Debug, Clone)]
struct HandWrittenWayOn {
    kind: u8,
}

impl completeness::ReasonDetails for HandWrittenWayOn {
    const CODE: completeness::ReasonCode = completeness::ReasonCode::custom("HAND_WAY_ON");
    const KIND: completeness::ReasonKind = completeness::ReasonKind::Source;
    fn default_message(&self) -> String {
        "a source pages on its own".to_owned()
    }
    fn write_details<M: serde::ser::SerializeMap>(&self, _: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &serde_json::Map<String, Value>) -> Result<Self, String> {
        Ok(HandWrittenWayOn { kind: 0 })
    }
    fn recovery(&self) -> Option<completeness::Continuation> {
        Some(match self.kind {
            0 => Continuation::NextCursor { cursor: "c-2".into() },
            _ => Continuation::RetryAfter { seconds: 5 },
        })
    }
    fn into_reason(self) -> completeness::StandardReason {
        completeness::StandardReason::Custom(completeness::reason::CustomReason::from_details(&self))
    }
}

/// The same, of kind visibility.
#[derive(Debug, Clone)]
struct HandWrittenHold;

impl completeness::ReasonDetails for HandWrittenHold {
    const CODE: completeness::ReasonCode = completeness::ReasonCode::custom("HAND_HOLD");
    const KIND: completeness::ReasonKind = completeness::ReasonKind::Visibility;
    fn default_message(&self) -> String {
        "records on hold are hidden".to_owned()
    }
    fn write_details<M: serde::ser::SerializeMap>(&self, _: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &serde_json::Map<String, Value>) -> Result<Self, String> {
        Ok(HandWrittenHold)
    }
    fn recovery(&self) -> Option<completeness::Continuation> {
        Some(Continuation::RetryAfter { seconds: 5 })
    }
    fn into_reason(self) -> completeness::StandardReason {
        completeness::StandardReason::Custom(completeness::reason::CustomReason::from_details(&self))
    }
}

/// What `#[derive(Reason)]` refuses at compile time, details written by hand have left out when
/// reported (contract §3.3): no way on beside a visibility reason, no next page from a source
/// reason (which does not say it may offer one), while a retry from it stays.
#[test]
fn a_way_on_the_contract_does_not_allow_is_left_out_of_details_written_by_hand() {
    use completeness::ReasonDetails;
    // Only a truncation may offer a cursor unless it says so.
    const { assert!(!HandWrittenWayOn::MAY_OFFER_A_CURSOR) };
    let reason = |details: StandardReason| Envelope::<String>::incomplete(vec![], Scope::new("r", "all"), details);
    let hold = reason(HandWrittenHold.into_reason());
    assert_eq!(hold.completeness.continuation(), None);
    let paged = reason(HandWrittenWayOn { kind: 0 }.into_reason());
    assert_eq!((paged.completeness.continuation(), paged.completeness.next_cursor()), (None, None));
    let retried = reason(HandWrittenWayOn { kind: 1 }.into_reason());
    assert_eq!(retried.completeness.continuation(), Some(&Continuation::RetryAfter { seconds: 5 }));
}

/// `?stale_page=N`: numbers 1 to 9 in keyset order, page `N` (1-based) read from a lagging
/// replica; `?partial_page=N`: page `N` also says a source was unavailable, marked partial before
/// its cursor is signed (`unmarked_page=N`, `unmarked_stale_page=N`: the same without the mark;
/// `late_page=N`, `late_stale_page=N`: marked after the cursor is signed; `early_return_page=N`:
/// the reason pushed, then returned before the evidence step; `unchecked_page=N`: a whole page
/// returned before the evidence step; `after_evidence_page=N`, `after_evidence_stale_page=N`:
/// the reason, or the stale warning, pushed after the evidence step). Every other page asks for
/// evidence. `?unpinned=1`: the traversal pins no snapshot (`late_pin=1`: only after its cursor
/// is signed); `?upto=N`: the numbers end at `N`.
#[completeness(
    resource = "numbers",
    reasons(MorePagesAvailable, SourceUnavailable),
    warnings(PageSizeReduced, ReplicaLag)
)]
async fn list_numbers(
    request: completeness::page_request::PageRequest,
    axum::extract::Query(query): axum::extract::Query<Vec<(String, String)>>,
) -> Result<Envelope<u64, ListNumbersReason>, completeness::Problem> {
    let asked = |name: &str| query.iter().find(|(k, _)| k == name).and_then(|(_, v)| v.parse::<u64>().ok());
    let scope = Scope::new("numbers", "every number");
    let mut page = request.bind(completeness::QueryBinding::for_scope(&scope, "ascending"))?;
    let late_pin = asked("late_pin").is_some();
    if asked("unpinned").is_none() && !late_pin {
        page.pin_snapshot("s-1");
    }
    let after: u64 = page.position().and_then(|p| p.parse().ok()).unwrap_or(0);
    let this_page = Some(after / page.applied_size() + 1);
    let stale = asked("stale_page") == this_page;
    if stale {
        page.mark_stale();
    }
    let marked = asked("partial_page") == this_page;
    if marked {
        page.mark_partial();
    }
    let rows: Vec<u64> = (after + 1..=asked("upto").unwrap_or(9)).take(page.fetch_size()).collect();
    let mut envelope: Envelope<u64, ListNumbersReason> = page.envelope(scope, rows, |n| format!("{n}"));
    if late_pin {
        page.pin_snapshot("s-1");
    }
    if stale || asked("unmarked_stale_page") == this_page {
        envelope.completeness.push_warning(ReplicaLag { seconds: 7 });
    }
    if marked || asked("unmarked_page") == this_page {
        envelope.completeness.push_reason(completeness::reason::SourceUnavailable::new("archive"));
    }
    if asked("late_page") == this_page {
        envelope.completeness.push_reason(completeness::reason::SourceUnavailable::new("archive"));
        page.mark_partial();
    }
    if asked("late_stale_page") == this_page {
        envelope.completeness.push_warning(ReplicaLag { seconds: 7 });
        page.mark_stale();
    }
    if asked("early_return_page") == this_page {
        envelope.completeness.push_reason(completeness::reason::SourceUnavailable::new("archive"));
        return Ok(envelope);
    }
    if asked("unchecked_page") == this_page {
        return Ok(envelope);
    }
    page.attach_evidence(&mut envelope.completeness);
    if asked("after_evidence_page") == this_page {
        envelope.completeness.push_reason(completeness::reason::SourceUnavailable::new("archive"));
    }
    if asked("after_evidence_stale_page") == this_page {
        envelope.completeness.push_warning(ReplicaLag { seconds: 7 });
    }
    Ok(envelope)
}

/// Every page of a traversal by cursor, in order.
async fn traverse(query: &str) -> Vec<Value> {
    let app: Router = Router::new()
        .route("/numbers", get(list_numbers).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential());
    let mut pages = Vec::new();
    let mut uri = format!("/numbers?page_size=3&{query}");
    loop {
        let response = app.clone().oneshot(Request::get(&uri).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value =
            serde_json::from_slice(&axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap()).unwrap();
        assert_envelope_invariants(&body);
        let next = body["next_cursor"].as_str().map(str::to_owned);
        pages.push(body);
        match next {
            Some(cursor) => uri = format!("/numbers?page_size=3&{query}&cursor={cursor}"),
            None => return pages,
        }
    }
}

/// A traversal one page of which was read from stale state backs no change: its last page is
/// complete and current, yet gets no evidence (contract §6); a current traversal's does.
#[tokio::test]
async fn a_traversal_with_a_stale_page_gets_no_evidence_on_its_last_page() {
    let current = traverse("").await;
    assert_eq!(current.len(), 3);
    assert!(current[2]["evidence"].is_string(), "a current traversal ends with evidence: {}", current[2]);

    let pages = traverse("stale_page=2").await;
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[1]["warnings"][0]["stale"], true, "{}", pages[1]);
    let last = &pages[2];
    assert_eq!((last["complete"].clone(), last["warnings"].clone()), (json!(true), json!([])), "{last}");
    assert_eq!(last["evidence"], Value::Null, "{last}");
    let read: Envelope<u64> = serde_json::from_value(last.clone()).unwrap();
    assert_eq!(decide(&read, Intent::Mutate), Decision::RefuseOrRequestReview);
}

/// Pages read at different times do not make one inventory (a row that moved across the cursor
/// between two of them is on neither): a traversal of several pages that pinned no snapshot gets
/// no evidence on its last page, complete as it is; one page read at once does.
#[tokio::test]
async fn a_traversal_pinned_to_no_snapshot_gets_no_evidence_on_its_last_page() {
    // Pinned after the cursor was signed is pinned too late: the cursor carries no snapshot.
    for unpinned in ["unpinned=1", "late_pin=1"] {
        let pages = traverse(unpinned).await;
        assert_eq!(pages.len(), 3, "{unpinned}");
        let last = &pages[2];
        let (complete, resumed) = (last["complete"].clone(), last["page"]["resumed"].clone());
        assert_eq!((complete, resumed), (json!(true), json!(true)), "{unpinned}: {last}");
        assert_eq!(last["evidence"], Value::Null, "{unpinned}: {last}");
    }

    let whole = traverse("unpinned=1&upto=3").await;
    assert_eq!(whole.len(), 1, "one page");
    assert_eq!(whole[0]["complete"], true, "{}", whole[0]);
    assert!(whole[0]["evidence"].is_string(), "one page read at once: {}", whole[0]);
}

/// A traversal one page of which was partial for another reason than the next page does not
/// make the inventory whole, though every later page is: its last page is complete and gets no
/// evidence (contract §6), whether the partial page is the first or a middle one, and whether
/// or not its handler marked it, before or after the cursor was signed. Only a cursor that
/// `attach_evidence` attested leads to evidence, so a handler that returns early after pushing
/// its reason, or skips the step on a whole page, withholds the evidence rather than granting it;
/// one that pushes its reason (or a stale warning) after the step has the attestation withdrawn.
#[tokio::test]
async fn a_traversal_with_a_partial_page_gets_no_evidence_on_its_last_page() {
    for partial_page in [1, 2] {
        let pages = traverse(&format!("partial_page={partial_page}")).await;
        assert_eq!(pages.len(), 3);
        let partial = &pages[partial_page - 1];
        assert_eq!(partial["complete"], false, "{partial}");
        assert_eq!(partial["incomplete_reasons"][1]["code"], "SOURCE_UNAVAILABLE", "{partial}");
        for later in &pages[partial_page..] {
            assert_eq!(later["evidence"], Value::Null, "{later}");
        }
        let last = &pages[2];
        assert_eq!((last["complete"].clone(), last["page"]["resumed"].clone()), (json!(true), json!(true)), "{last}");
    }

    let cases = [
        ("unmarked_page", 1),
        ("unmarked_page", 2),
        ("unmarked_stale_page", 1),
        // Marked, but after `Page::envelope` signed the cursor: the cursor did not say so.
        ("late_page", 1),
        ("late_page", 2),
        ("late_stale_page", 1),
        ("early_return_page", 1),
        ("early_return_page", 2),
        ("unchecked_page", 1),
        // Attested, then made partial or stale: the attestation is withdrawn.
        ("after_evidence_page", 1),
        ("after_evidence_page", 2),
        ("after_evidence_stale_page", 1),
    ];
    for (unmarked, first) in cases {
        let pages = traverse(&format!("{unmarked}={first}")).await;
        assert_eq!(pages.len(), 3, "{unmarked}={first}");
        let last = &pages[2];
        assert_eq!(last["complete"], true, "{unmarked}={first}: {last}");
        assert_eq!(last["evidence"], Value::Null, "{unmarked}={first}: {last}");
    }
}

/// The fault layer keeps the same rule as a server: once it faults a page partial (a reason
/// other than the next page, or a stale warning), the later pages of that traversal lose their
/// evidence, though it answers them unfaulted; a traversal it never faulted keeps the evidence
/// the service gave. A kit's layer remembers the faulted cursors; a serving layer signs them
/// again without the service's attestation, so the rule holds on a route the layer does not
/// wrap (another replica, the MCP tools, the service after a restart) with the same keys.
#[tokio::test]
async fn a_traversal_the_fault_layer_made_partial_gets_no_evidence_on_its_last_page() {
    use completeness::testing::faults::{FAULT_HEADER, FaultLayer, Schedule};
    let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential();
    let unwrapped: Router = Router::new().route("/numbers", get(list_numbers).into()).with_state(config.clone());
    let kit = unwrapped.clone().layer(FaultLayer::new(Schedule::header_only()));
    let serving = unwrapped.clone().layer(FaultLayer::serving(Schedule::header_only(), &config));
    let page = |app: Router, uri: String, fault: Option<&'static str>| async move {
        let mut request = Request::get(&uri);
        if let Some(fault) = fault {
            request = request.header(FAULT_HEADER, fault);
        }
        let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        assert_envelope_invariants(&body);
        body
    };
    // (layer that faults the first page, app that answers the later ones)
    let layers =
        [("kit", &kit, &kit), ("serving", &serving, &serving), ("serving, then unwrapped", &serving, &unwrapped)];
    for (layer, first, later) in layers {
        for faulted in [None, Some("SOURCE_UNAVAILABLE"), Some("REPLICA_LAG")] {
            let mut pages = vec![page(first.clone(), "/numbers?page_size=3".to_owned(), faulted).await];
            while let Some(cursor) = pages.last().unwrap()["next_cursor"].as_str() {
                assert!(pages.len() < 5, "runaway traversal");
                pages.push(page(later.clone(), format!("/numbers?page_size=3&cursor={cursor}"), None).await);
            }
            let last = pages.last().unwrap();
            assert_eq!((pages.len(), last["complete"].clone()), (3, json!(true)), "{layer}, {faulted:?}: {last}");
            match faulted {
                None => {
                    assert!(last["evidence"].is_string(), "{layer}: an unfaulted traversal keeps its evidence: {last}")
                }
                Some(_) => {
                    assert!(pages[0]["complete"] == false || pages[0]["warnings"][0]["stale"] == true, "{}", pages[0]);
                    for later in &pages[1..] {
                        assert_eq!(later["evidence"], Value::Null, "{layer}, {faulted:?}: {later}");
                    }
                }
            }
        }
    }
}

/// A detail field named with a raw identifier is the member of its name: `r#type` is `type`.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "TYPE_HIDDEN", kind = visibility, message = "Records of a hidden type are left out.")]
pub struct TypeHidden {
    r#type: String,
}

#[test]
fn a_raw_identifier_field_is_written_and_read_without_its_prefix() {
    let reason = StandardReason::from(TypeHidden { r#type: "secret".into() });
    let wire = serde_json::to_value(&reason).unwrap();
    assert_eq!(wire["type"], "secret", "{wire}");
    assert!(wire.get("r#type").is_none(), "{wire}");
    let back: StandardReason = serde_json::from_value(wire).unwrap();
    assert_eq!(back.to_details::<TypeHidden>(), Some(Ok(TypeHidden { r#type: "secret".into() })));
}

/// An endpoint's response named in utoipa's own route attribute, as `body = Envelope<T, R>`:
/// the document lists it as a component, with the components it refers to.
#[cfg(feature = "openapi")]
mod utoipa_route {
    use super::*;

    #[utoipa::path(
        get,
        path = "/documents",
        params(
            completeness::schema::parameters::PagingParams,
            completeness::schema::parameters::RequireCompleteParams
        ),
        responses((status = 200, body = Envelope<String, ListDocumentsReason>))
    )]
    #[allow(dead_code)]
    async fn documents() {}

    #[utoipa::path(get, path = "/search", params(completeness::schema::parameters::TimeBudgetParams))]
    #[allow(dead_code)]
    async fn search() {}

    #[utoipa::path(get, path = "/documents/count", responses((status = 200, body = completeness::Aggregate<u64, ListDocumentsReason>)))]
    #[allow(dead_code)]
    async fn count() {}

    #[derive(utoipa::OpenApi)]
    #[openapi(paths(documents, search, count))]
    struct Api;

    /// A count of documents as the endpoint would answer it: incomplete (a legal hold hides
    /// some), so at least this many.
    fn held_count() -> Value {
        let scope = Scope::new("documents", "all").with_snapshot("s-3");
        let block = completeness::Completeness::incomplete(scope, LegalHold { hold: "H-7".into() });
        let count: completeness::Aggregate<u64, ListDocumentsReason> =
            completeness::Aggregate::count(12, completeness::Relation::Exact, block);
        serde_json::to_value(count).unwrap()
    }

    /// Answers an aggregate's schema must refuse: each breaks contract §2.6 once.
    fn broken_counts(count: &Value) -> Vec<(&'static str, Value)> {
        let mut exact = count.clone();
        exact["relation"] = json!("exact");
        let mut two = count.clone();
        two["total"] = json!(13);
        let mut unrelated = count.clone();
        unrelated.as_object_mut().unwrap().remove("relation");
        let mut paged = count.clone();
        paged["page"] = json!(null);
        let mut named_twice = count.clone();
        named_twice.as_object_mut().unwrap().remove("count");
        vec![
            ("exact while incomplete", exact),
            ("two values", two),
            ("no relation", unrelated),
            ("a page", paged),
            ("no value", named_twice),
        ]
    }

    /// An aggregate named in utoipa's route attribute, `body = Aggregate<T, R>`, is a component
    /// with its block (no `page`, no `evidence`), its `relation` and its one value member (its
    /// name is chosen at run time), and the same through JSON Schema: each passes the count the
    /// endpoint answers and refuses each break of contract §2.6.
    #[test]
    fn an_aggregate_has_openapi_and_json_schemas_its_answers_pass() {
        let mut document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
        let name =
            completeness::schema::response_component(&document, "/documents/count", "get", "200", "application/json")
                .unwrap_or_else(|| panic!("a reference: {document}"))
                .to_owned();
        assert!(completeness::schema::add_aggregate_rules::<ListDocumentsReason>(&mut document, &name));
        let component = &document["components"]["schemas"][&name];
        assert!(component["properties"].get("page").is_none() && component["properties"].get("evidence").is_none());
        assert_eq!(component["properties"]["relation"]["enum"], json!(["exact", "lower_bound", "estimate"]));
        let root = json!({"$ref": format!("#/components/schemas/{name}"), "components": document["components"]});
        let openapi = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
        let json_schema = serde_json::to_value(completeness::schema::response_json::<
            completeness::Aggregate<u64, ListDocumentsReason>,
        >())
        .unwrap();
        let json_schema = jsonschema::draft202012::new(&json_schema).unwrap();
        let count = held_count();
        assert_eq!(count["relation"], "lower_bound", "{count}");
        for (which, validator) in [("openapi", &openapi), ("json schema", &json_schema)] {
            assert!(validator.is_valid(&count), "{which}: {:?}", validator.validate(&count).err());
            for (broken, answer) in broken_counts(&count) {
                assert!(!validator.is_valid(&answer), "{which} lets {broken} through: {answer}");
            }
        }
        // With the value's name known, the schema names it.
        let named = completeness::schema::aggregate_openapi::<ListDocumentsReason>(
            Some("count"),
            <u64 as utoipa::PartialSchema>::schema(),
        );
        let named = serde_json::to_value(named).unwrap();
        assert!(named["required"].as_array().unwrap().contains(&json!("count")), "{named}");
    }

    /// The framework's parameters go into utoipa's route attribute, each where its extractor
    /// reads it (the query or a header).
    #[test]
    fn the_frameworks_parameters_are_params_of_a_utoipa_route() {
        let document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
        let listed = |path: &str| -> Vec<(String, String)> {
            let parameters = document["paths"][path]["get"]["parameters"].as_array().cloned().unwrap_or_default();
            let place = |p: &Value| (p["name"].as_str().unwrap().to_owned(), p["in"].as_str().unwrap().to_owned());
            parameters.iter().map(place).collect()
        };
        let pair = |name: &str, place: &str| (name.to_owned(), place.to_owned());
        assert_eq!(
            listed("/documents"),
            [
                pair("page_size", "query"),
                pair("cursor", "query"),
                pair("require_complete", "query"),
                pair("Prefer", "header")
            ]
        );
        assert_eq!(listed("/search"), [pair("time_budget_ms", "query"), pair("request-timeout", "header")]);
    }

    #[tokio::test]
    async fn an_envelope_named_in_a_utoipa_route_is_a_component_its_answers_pass() {
        let mut document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
        let name = completeness::schema::response_component(&document, "/documents", "get", "200", "application/json")
            .unwrap_or_else(|| panic!("a reference: {document}"))
            .to_owned();
        let reference = format!("#/components/schemas/{name}");
        assert_eq!(
            document["paths"]["/documents"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            reference
        );
        assert!(
            completeness::schema::response_component(&document, "/documents", "post", "200", "application/json")
                .is_none()
        );
        assert!(completeness::schema::add_block_rules::<ListDocumentsReason>(&mut document, &name), "{document}");
        assert!(!completeness::schema::add_block_rules::<ListDocumentsReason>(&mut document.clone(), "Nothing"));
        let root = json!({"$ref": reference, "components": document["components"]});
        let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
        let (_, answer) = call("/documents?hold=H-7&lag=4").await;
        assert!(validator.is_valid(&answer), "{:?}", validator.validate(&answer).err());
        let mut undeclared = answer.clone();
        undeclared["incomplete_reasons"][0] =
            json!({"code": "QUOTA_EXHAUSTED", "message": "q", "retry_after_seconds": 5});
        assert!(!validator.is_valid(&undeclared), "a code the endpoint does not declare: {undeclared}");
        let mut complete_with_a_reason = answer.clone();
        complete_with_a_reason["complete"] = json!(true);
        complete_with_a_reason["status"] = json!("complete");
        assert!(!validator.is_valid(&complete_with_a_reason), "R2, added: {complete_with_a_reason}");
    }
}

/// A reason added to a deployed endpoint (contract §4, §7): a client reading the endpoint's
/// declared reasons refuses the answer and says why, pointing at the declaration rather than at
/// a malformed object, and at the reader that keeps it; a client of any reason keeps the new
/// code as an unknown one, classified by its kind, and the answer stays incomplete.
#[tokio::test]
async fn a_reason_the_declaration_does_not_name_is_refused_by_its_readers_and_kept_by_others() {
    let (_, mut answer) = call("/documents?hold=H-7").await;
    answer["incomplete_reasons"][0] =
        json!({"code": "TICKET_QUARANTINED", "kind": "source", "message": "Quarantined.", "ticket": 7});
    let refused = serde_json::from_value::<Envelope<String, ListDocumentsReason>>(answer.clone())
        .expect_err("the endpoint's reader refuses a code its declaration does not name");
    let said = refused.to_string();
    assert!(said.contains("TICKET_QUARANTINED is not one this endpoint declares"), "{said}");
    assert!(said.contains("contract §4") && !said.contains("R12"), "the declaration, not a malformed object: {said}");
    let kept: Envelope<String> = serde_json::from_value(answer).expect("a reader of any reason keeps it");
    assert!(!kept.completeness.is_complete());
    assert_eq!(kept.completeness.reasons()[0].code().as_str(), "TICKET_QUARANTINED");
    assert_eq!(kept.completeness.reasons()[0].kind(), ReasonKind::Source);
    assert_eq!(decide(&kept, Intent::ClaimAbsence), Decision::RetryLater);
}

/// A generic reason whose parameter carries no bounds: the derive bounds it as its impl needs,
/// as serde's derive does, where it once left one error per missing trait.
#[derive(Debug, Clone, PartialEq, completeness::Reason)]
#[reason(code = "BARE_HOLD", kind = visibility, message = "Hold {hold:?} hides records.")]
pub struct BareHold<T> {
    hold: T,
}

#[test]
fn a_generic_reason_needs_no_bounds_written() {
    let reason = StandardReason::from(BareHold { hold: 7_u32 });
    assert_eq!(reason.message(), "Hold 7 hides records.");
    let wire = serde_json::to_value(&reason).unwrap();
    assert_eq!(wire["hold"], 7, "{wire}");
    let back: StandardReason = serde_json::from_value(wire).unwrap();
    assert_eq!(back.to_details::<BareHold<u32>>(), Some(Ok(BareHold { hold: 7 })));
}

/// Detail members named as a partner's API names them, as a service must keep them on the wire:
/// `partnerID`, no snake_case name, and `LIMIT`, the name of a constant in scope too. The message
/// names each: it reads the field, where the derive once bound every field as a variable of its
/// name (warned of in every build, `non_snake_case`, denied here; and `LIMIT` read as the
/// constant's pattern, refused as refutable). The struct's own `allow` is the user's.
mod wire_member_names {
    #![deny(non_snake_case)]

    use completeness::{ReasonDetails, StandardReason, WarningDetails};

    /// A constant of the name of a field below.
    pub const LIMIT: u32 = 100;

    #[derive(Debug, Clone, PartialEq, completeness::Reason)]
    #[reason(
        code = "PARTNER_CAPPED",
        kind = truncation,
        message = "Partner {partnerID} capped at {LIMIT} {type}s [{LIMIT:>width$}] {{LIMIT}}."
    )]
    #[allow(non_snake_case)]
    pub struct PartnerCapped {
        pub partnerID: String,
        pub LIMIT: u32,
        pub width: usize,
        pub r#type: String,
    }

    #[derive(Debug, Clone, PartialEq, completeness::Warning)]
    #[warning(code = "PARTNER_LAG", owner = "partner-team", review_by = "2027-06-30", message = "{partnerURL} lags.")]
    #[allow(non_snake_case)]
    pub struct PartnerLag {
        pub partnerURL: String,
    }

    #[test]
    fn a_message_names_members_not_in_snake_case_and_named_like_a_constant() {
        let capped = PartnerCapped { partnerID: "p-7".into(), LIMIT: 3, width: 4, r#type: "order".into() };
        assert_eq!(capped.default_message(), "Partner p-7 capped at 3 orders [   3] {LIMIT}.");
        assert_ne!(LIMIT, capped.LIMIT, "the field, not the constant");
        let wire = serde_json::to_value(StandardReason::from(capped.clone())).unwrap();
        assert_eq!(wire["partnerID"], "p-7", "{wire}");
        assert_eq!(wire["LIMIT"], 3, "{wire}");
        let back: StandardReason = serde_json::from_value(wire).unwrap();
        assert_eq!(back.to_details::<PartnerCapped>(), Some(Ok(capped)));
        let lag = PartnerLag { partnerURL: "https://partner.example".into() };
        assert_eq!(lag.message(), "https://partner.example lags.");
    }
}
