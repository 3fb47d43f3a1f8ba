//! `GET /openapi.json`: the OpenAPI 3.1 document of every route, built with utoipa. Each list,
//! search and count documents its own reason enum, taken from the enum `#[completeness]`
//! generated for the handler, so the document cannot drift from what the code can report.

use axum::Json;
use completeness::{Exempt, ReasonCode, WarningCode};
use serde_json::Value;
use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, HttpMethod, InfoBuilder, OpenApi, OpenApiBuilder, PathItem, PathsBuilder, Ref,
    RefOr, Required, ResponseBuilder, Schema,
};

use super::inventory::{CountServiceAccountsReason, ListServiceAccountsReason};
use super::search::SearchReason;

/// `GET /openapi.json`.
pub async fn document() -> Exempt<Json<Value>> {
    let value = serde_json::to_value(openapi()).unwrap_or(Value::Null);
    Exempt::new(Json(value), "the API description, not a list")
}

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

fn nullable(kind: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::from_iter([kind, Type::Null]))
}

fn reference(name: &str) -> RefOr<Schema> {
    Ref::from_schema_name(name).into()
}

fn array_of(items: RefOr<Schema>) -> ArrayBuilder {
    ArrayBuilder::new().items(items)
}

/// An object schema with `properties`, all of them required (the contract never omits a member).
fn object(description: &str, properties: Vec<(&str, RefOr<Schema>)>) -> RefOr<Schema> {
    let mut builder = ObjectBuilder::new().description(Some(description));
    for (name, schema) in properties {
        builder = builder.property(name, schema).required(name);
    }
    builder.into()
}

/// The reason objects one endpoint can report: `code` is exactly its declared codes.
fn reason_schema(endpoint: &str, codes: &[ReasonCode]) -> RefOr<Schema> {
    let codes: Vec<&str> = codes.iter().map(ReasonCode::as_str).collect();
    ObjectBuilder::new()
        .description(Some(format!("An incomplete reason of {endpoint}; programs branch on `code` only.")))
        .property("code", string().enum_values(Some(codes)))
        .required("code")
        .property("message", string())
        .required("message")
        .into()
}

fn warning_schema(codes: &[WarningCode]) -> RefOr<Schema> {
    let codes: Vec<&str> = codes.iter().map(WarningCode::as_str).collect();
    ObjectBuilder::new()
        .description(Some("A warning: it changes confidence or freshness, never `complete`."))
        .property("code", string().enum_values(Some(codes)))
        .required("code")
        .property("message", string())
        .required("message")
        .into()
}

/// The members every completeness block carries (DESIGN §2.1), with this endpoint's reason and warning schemas.
fn completeness_members(reason: &str, warning: &str, collection: bool) -> Vec<(&'static str, RefOr<Schema>)> {
    let mut members = vec![
        ("status", string().enum_values(Some(["complete", "partial"])).into()),
        ("complete", ObjectBuilder::new().schema_type(Type::Boolean).into()),
        ("truncated", ObjectBuilder::new().schema_type(Type::Boolean).into()),
        ("incomplete_reasons", array_of(reference(reason)).into()),
        ("continuation", nullable(Type::Object).description(Some("How to recover; null when complete.")).into()),
        ("next_cursor", nullable(Type::String).into()),
        ("scope", reference("Scope")),
        ("warnings", array_of(reference(warning)).into()),
    ];
    if collection {
        members.push(("page", nullable(Type::Object).description(Some("Pagination facts (DESIGN 2.4).")).into()));
        members.push(("evidence", nullable(Type::String).description(Some("Only on a complete inventory.")).into()));
    }
    members
}

fn collection(description: &str, item: &str, reason: &str, warning: &str) -> RefOr<Schema> {
    let mut members = completeness_members(reason, warning, true);
    members.push(("items", array_of(reference(item)).into()));
    object(description, members)
}

fn json_response(description: &str, schema: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", ContentBuilder::new().schema(Some(reference(schema))).build())
        .build()
}

fn problem_response(codes: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(format!("RFC 9457 problem; codes: {codes}"))
        .content("application/problem+json", ContentBuilder::new().schema(Some(reference("Problem"))).build())
        .build()
}

fn query(name: &str, description: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(string()))
        .build()
}

fn path(name: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(string()))
        .build()
}

fn body(schema: &str) -> Option<utoipa::openapi::request_body::RequestBody> {
    Some(
        RequestBodyBuilder::new()
            .content("application/json", ContentBuilder::new().schema(Some(reference(schema))).build())
            .required(Some(Required::True))
            .build(),
    )
}

const COMMON_PROBLEMS: &str = "INVALID_REQUEST, UNAUTHENTICATED, COMPLETE_RESULT_UNAVAILABLE";

/// The document.
pub fn openapi() -> OpenApi {
    let owner = query("owner", "`none` for unowned accounts, or an owner's name");
    let tenant = query("tenant", "north, south or east; absent: every tenant");
    let require = query("require_complete", "true: an incomplete result is a problem response (DESIGN 2.8)");
    let list = OperationBuilder::new()
        .operation_id(Some("list_service_accounts"))
        .summary(Some("The inventory, keyset-paginated at a snapshot"))
        .parameters(Some([
            owner.clone(),
            tenant.clone(),
            query("page_size", "positive integer; clamped to the maximum"),
            query("cursor", "next_cursor of the previous page"),
            require.clone(),
        ]))
        .response("200", json_response("A page of the inventory", "ServiceAccountPage"))
        .response(
            "4XX",
            problem_response(&format!(
                "{COMMON_PROBLEMS}, INVALID_PAGE_SIZE, INVALID_CURSOR, CURSOR_QUERY_MISMATCH, \
                 CURSOR_CREDENTIAL_MISMATCH, CURSOR_EXPIRED"
            )),
        );
    let create = OperationBuilder::new()
        .operation_id(Some("create_service_account"))
        .request_body(body("NewServiceAccount"))
        .response("201", json_response("The account and the snapshot holding the change", "Mutation"))
        .response("4XX", problem_response("INVALID_BODY, UNAUTHENTICATED, FORBIDDEN"));
    let count = OperationBuilder::new()
        .operation_id(Some("count_service_accounts"))
        .parameters(Some([owner, tenant.clone(), require.clone()]))
        .response("200", json_response("The count with its relation", "ServiceAccountCount"))
        .response("4XX", problem_response(COMMON_PROBLEMS));
    let get = OperationBuilder::new()
        .operation_id(Some("get_service_account"))
        .parameters(Some([path("id"), query("fields", "comma-separated fields to fill, e.g. secret_fingerprint")]))
        .response("200", json_response("Every declared field; unfilled ones in omitted_fields", "ServiceAccount"))
        .response("4XX", problem_response("INVALID_REQUEST, UNAUTHENTICATED, NOT_FOUND"));
    let patch = OperationBuilder::new()
        .operation_id(Some("set_service_account_owner"))
        .parameter(path("id"))
        .request_body(body("OwnerChange"))
        .response("200", json_response("The account and the snapshot holding the change", "Mutation"))
        .response("4XX", problem_response("INVALID_BODY, UNAUTHENTICATED, NOT_FOUND"));
    let delete = OperationBuilder::new()
        .operation_id(Some("delete_service_account"))
        .parameter(path("id"))
        .response("200", json_response("The deleted account and the snapshot holding the change", "Mutation"))
        .response("4XX", problem_response("UNAUTHENTICATED, NOT_FOUND"));
    let archive = OperationBuilder::new()
        .operation_id(Some("archive_service_accounts"))
        .summary(Some("Archive unowned accounts, with the evidence of a complete owner=none inventory"))
        .request_body(body("ArchiveRequest"))
        .response("200", json_response("Every named account was archived", "Archived"))
        .response(
            "4XX",
            problem_response(
                "EVIDENCE_REQUIRED (428), EVIDENCE_INVALID, EVIDENCE_EXPIRED, EVIDENCE_CREDENTIAL_MISMATCH, \
                 TARGET_NOT_IN_EVIDENCE (412), TARGET_CHANGED (409), INVALID_BODY",
            ),
        );
    let search = OperationBuilder::new()
        .operation_id(Some("search"))
        .summary(Some("Federated search over directory, audit and legacy"))
        .parameters(Some([
            query("q", "part of the name"),
            tenant,
            query("time_budget_ms", "positive milliseconds; capped by the server"),
            require,
        ]))
        .response("200", json_response("The merged hits", "SearchResult"))
        .response("4XX", problem_response(&format!("{COMMON_PROBLEMS}, INVALID_TIME_BUDGET")));
    let revoke = OperationBuilder::new()
        .operation_id(Some("revoke_tenant"))
        .parameters(Some([path("name"), path("tenant")]))
        .response("200", json_response("The credential's new grant and permission epoch", "Grant"))
        .response("4XX", problem_response("INVALID_REQUEST, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND"));

    let mut service_accounts = PathItem::new(HttpMethod::Get, list);
    service_accounts.post = Some(create.build());
    let mut one = PathItem::new(HttpMethod::Get, get);
    one.patch = Some(patch.build());
    one.delete = Some(delete.build());
    let paths = PathsBuilder::new()
        .path("/service-accounts", service_accounts)
        .path("/service-accounts/count", PathItem::new(HttpMethod::Get, count))
        .path("/service-accounts/archive", PathItem::new(HttpMethod::Post, archive))
        .path("/service-accounts/{id}", one)
        .path("/search", PathItem::new(HttpMethod::Get, search))
        .path("/credentials/{name}/revoke-tenant/{tenant}", PathItem::new(HttpMethod::Post, revoke))
        .path(
            "/openapi.json",
            PathItem::new(
                HttpMethod::Get,
                OperationBuilder::new().response(
                    "200",
                    ResponseBuilder::new()
                        .description("This document")
                        .content("application/json", ContentBuilder::new().build())
                        .build(),
                ),
            ),
        )
        .path(
            "/metrics",
            PathItem::new(
                HttpMethod::Get,
                OperationBuilder::new()
                    .summary(Some("Counters in the Prometheus text format; no credential needed"))
                    .response(
                        "200",
                        ResponseBuilder::new()
                            .description("The framework's counters (completeness_*_total)")
                            .content("text/plain", ContentBuilder::new().build())
                            .build(),
                    ),
            ),
        );

    let text = |d: &str| -> RefOr<Schema> { string().description(Some(d)).into() };
    let opt_text = |d: &str| -> RefOr<Schema> { nullable(Type::String).description(Some(d)).into() };
    let flag = || -> RefOr<Schema> { ObjectBuilder::new().schema_type(Type::Boolean).into() };
    let mut count_members = completeness_members("CountServiceAccountsReason", "ServiceAccountCountWarning", false);
    count_members.push(("count", ObjectBuilder::new().schema_type(Type::Integer).into()));
    count_members.push(("relation", string().enum_values(Some(["exact", "lower_bound", "estimate"])).into()));
    let components = ComponentsBuilder::new()
        .schema("ListServiceAccountsReason", reason_schema("GET /service-accounts", ListServiceAccountsReason::ALL))
        .schema("ListServiceAccountsWarning", warning_schema(ListServiceAccountsReason::WARNINGS))
        .schema(
            "CountServiceAccountsReason",
            reason_schema("GET /service-accounts/count", CountServiceAccountsReason::ALL),
        )
        .schema("ServiceAccountCountWarning", warning_schema(CountServiceAccountsReason::WARNINGS))
        .schema("SearchReason", reason_schema("GET /search", SearchReason::ALL))
        .schema("SearchWarning", warning_schema(SearchReason::WARNINGS))
        .schema(
            "ServiceAccountPage",
            collection(
                "A page of the inventory",
                "ServiceAccountItem",
                "ListServiceAccountsReason",
                "ListServiceAccountsWarning",
            ),
        )
        .schema("SearchResult", collection("Merged search hits", "SearchHit", "SearchReason", "SearchWarning"))
        .schema("ServiceAccountCount", object("A count and how it relates to the truth", count_members))
        .schema(
            "Scope",
            object(
                "What the response claims to cover",
                vec![
                    ("resource", text("e.g. service_accounts")),
                    ("visibility", text("what the credential can read, in words")),
                    ("snapshot", opt_text("e.g. s-42")),
                    ("filters", ObjectBuilder::new().description(Some("the applied filters, echoed")).into()),
                ],
            ),
        )
        .schema(
            "ServiceAccountItem",
            object(
                "An inventory item",
                vec![
                    ("id", text("sa-000042")),
                    ("name", text("svc-north-00042")),
                    ("tenant", text("north, south or east")),
                    ("owner", opt_text("null when unowned")),
                    ("created_at", text("RFC 3339")),
                ],
            ),
        )
        .schema(
            "SearchHit",
            object(
                "A search hit",
                vec![
                    ("id", text("account id")),
                    ("name", text("account name")),
                    ("tenant", text("tenant")),
                    ("source", string().enum_values(Some(["directory", "audit", "legacy"])).into()),
                ],
            ),
        )
        .schema(
            "ServiceAccount",
            object(
                "One account; a null listed in omitted_fields was not filled, any other null is genuine",
                vec![
                    ("id", text("sa-000042")),
                    ("name", text("svc-north-00042")),
                    ("tenant", text("tenant")),
                    ("owner", opt_text("null when unowned")),
                    ("owner_email", opt_text("admin only")),
                    ("description", opt_text("free text")),
                    ("created_at", text("RFC 3339")),
                    ("last_used_at", opt_text("from the usage source")),
                    ("secret_fingerprint", opt_text("only with fields=secret_fingerprint")),
                    ("archived", flag()),
                    (
                        "omitted_fields",
                        ObjectBuilder::new()
                            .description(Some("field -> NO_ACCESS | SOURCE_FAILED | NOT_REQUESTED"))
                            .into(),
                    ),
                    ("warnings", array_of(reference("ServiceAccountWarning")).into()),
                ],
            ),
        )
        .schema("ServiceAccountWarning", warning_schema(&[WarningCode::PartialFieldSet]))
        .schema(
            "NewServiceAccount",
            object(
                "A new account",
                vec![
                    ("name", text("1-64 of a-z, 0-9, -")),
                    ("tenant", text("north, south or east")),
                    ("owner", opt_text("owner or null")),
                ],
            ),
        )
        .schema("OwnerChange", object("The new owner", vec![("owner", opt_text("owner or null"))]))
        .schema(
            "Mutation",
            object(
                "A mutation's result",
                vec![
                    ("account", ObjectBuilder::new().into()),
                    ("snapshot", text("the snapshot holding the change")),
                    ("deleted", flag()),
                ],
            ),
        )
        .schema(
            "ArchiveRequest",
            object(
                "Targets and the evidence of a complete owner=none inventory that contains them",
                vec![("ids", array_of(string().into()).into()), ("evidence", text("the inventory's evidence token"))],
            ),
        )
        .schema(
            "Archived",
            object(
                "What was archived",
                vec![("archived", array_of(string().into()).into()), ("snapshot", text("the snapshot holding it"))],
            ),
        )
        .schema(
            "Grant",
            object(
                "A credential's permissions",
                vec![
                    ("credential", text("admin, north or south")),
                    ("tenants", array_of(string().into()).into()),
                    ("permission_epoch", ObjectBuilder::new().schema_type(Type::Integer).into()),
                ],
            ),
        )
        .schema(
            "Problem",
            object(
                "RFC 9457 problem with a stable code",
                vec![
                    ("type", text("urn:completeness:problem:...")),
                    ("title", text("short title")),
                    ("status", ObjectBuilder::new().schema_type(Type::Integer).into()),
                    ("detail", text("for people")),
                    ("code", text("stable code; programs branch on it")),
                ],
            ),
        )
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("service_accounts")
                .version("0.1.0")
                .description(Some("Every list, search and count says whether it is complete, and why not.")),
        )
        .paths(paths)
        .components(Some(components))
        .build()
}
