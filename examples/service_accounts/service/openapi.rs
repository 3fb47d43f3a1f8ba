//! `GET /openapi.json`: the OpenAPI 3.1 document of every route, built with utoipa. Each list,
//! search and count documents its own reason type, taken from the type `#[completeness]`
//! generated for the handler, so the document cannot drift from what the code can report; the
//! same declaration fills each operation's `x-completeness` member. Every problem status an
//! operation answers with is listed with the problem schema, its `code` narrowed to the codes
//! the operation answers with at that status; bodies and parameters carry the constraints the
//! handlers enforce, and every route but this one requires the bearer scheme.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use completeness::config::CompletenessConfig;
use completeness::schema::{
    COMPLETE_ABOUT, EVIDENCE_ABOUT, STATUS_ABOUT, TRUNCATED_ABOUT, add_aggregate_rules, add_block_rules, parameters,
};
use completeness::{Exempt, ProblemCode, ReasonCode, WarningCode};
use serde_json::{Value, json};
use utoipa::PartialSchema;
use utoipa::openapi::extensions::{Extensions, ExtensionsBuilder};
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{
    AdditionalProperties, AllOfBuilder, ArrayBuilder, ObjectBuilder, OneOfBuilder, SchemaType, Type,
};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, HttpMethod, InfoBuilder, OpenApi, OpenApiBuilder, PathItem, PathsBuilder, Ref,
    RefOr, Required, ResponseBuilder, Schema,
};

use super::account::{FIELDS, MUTATION_EXEMPT, NAME_PATTERN, OWNER_PATTERN};
use super::archive::{ARCHIVE_EXEMPT, MAX_TARGETS};
use super::auth::DEFAULT_GRANTS;
use super::credentials::GRANT_EXEMPT;
use super::http::ACCOUNT_ARCHIVED;
use super::inventory::{CountServiceAccountsReason, ListServiceAccountsReason, RESOURCE};
use super::ready::READY_EXEMPT;
use super::refusals;
use super::search::SearchReason;
use super::seed::TENANTS;
use super::sources::SEARCH_SOURCES;
use super::state::AppState;

/// Why the document carries no completeness block.
pub const DOCUMENT_EXEMPT: &str = "the API description, not a list";

/// Why `GET /metrics` carries no completeness block.
pub const METRICS_EXEMPT: &str = "the service's counters in the Prometheus text format, not a list";

/// The warnings a single account may carry.
const ACCOUNT_WARNINGS: &[WarningCode] = &[WarningCode::PartialFieldSet];

/// `GET /openapi.json`: the document the service built when it started (it states the limits
/// its settings apply), as anyone may ask for it without a credential.
pub async fn document(State(state): State<AppState>) -> Exempt<Json<Value>> {
    Exempt::new(Json(Value::clone(&state.openapi)), DOCUMENT_EXEMPT)
}

/// The document as JSON, each response's schema with the rules of contract §2.2 a schema can
/// state over its block (`completeness::schema::add_block_rules`): utoipa's builders write no `if`,
/// so they are added to the JSON. The MCP tools' output schemas are taken from it.
pub fn document_json(settings: &CompletenessConfig) -> Value {
    let mut value = serde_json::to_value(openapi(settings)).unwrap_or(Value::Null);
    add_block_rules::<ListServiceAccountsReason>(&mut value, "ServiceAccountPage");
    add_block_rules::<SearchReason>(&mut value, "SearchResult");
    add_aggregate_rules::<CountServiceAccountsReason>(&mut value, "ServiceAccountCount");
    value
}

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// A string described by `description`.
fn text(description: &str) -> RefOr<Schema> {
    string().description(Some(description)).into()
}

fn nullable(kind: Type) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(SchemaType::from_iter([kind, Type::Null]))
}

fn reference(name: &str) -> RefOr<Schema> {
    Ref::from_schema_name(name).into()
}

/// `null`, or the component `name`.
fn nullable_reference(name: &str, description: &str) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(reference(name))
        .description(Some(description))
        .into()
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

/// The library's problem schema (contract §5.4), and the member this service adds: `outcome`,
/// on a write whose commit was not confirmed.
fn problem_schema() -> RefOr<Schema> {
    let mut problem = completeness::Problem::schema();
    if let RefOr::T(Schema::Object(object)) = &mut problem {
        let outcome =
            string().enum_values(Some(["unknown"])).description(Some("a write that may have been applied, or not"));
        object.properties.insert("outcome".to_owned(), outcome.into());
    }
    problem
}

/// An object schema for a request body: only `properties`, the `required` ones among them.
fn strict(description: &str, properties: Vec<(&str, RefOr<Schema>)>, required: &[&str]) -> RefOr<Schema> {
    let mut builder = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(description))
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for (name, schema) in properties {
        builder = builder.property(name, schema);
    }
    for name in required {
        builder = builder.required(*name);
    }
    builder.into()
}

fn owner_schema(description: &str) -> RefOr<Schema> {
    nullable(Type::String).pattern(Some(OWNER_PATTERN)).max_length(Some(64)).description(Some(description)).into()
}

/// The `warnings` array of an endpoint that declares `codes`, its items the component `name`;
/// an endpoint that declares none gets an array that must stay empty, never an empty enum.
fn warnings(name: &str, codes: &[WarningCode]) -> RefOr<Schema> {
    if codes.is_empty() {
        array_of(ObjectBuilder::new().into())
            .max_items(Some(0))
            .description(Some("always empty: this endpoint declares no warnings"))
            .into()
    } else {
        array_of(reference(name)).into()
    }
}

/// The components the reasons' schemas refer to (the standard reasons' detail objects).
fn reason_components() -> Vec<(String, RefOr<Schema>)> {
    let mut components = Vec::new();
    completeness::schema::reason_components(&mut components);
    components
}

/// The members every completeness block carries (contract §2.1), with this endpoint's reason and warning schemas.
fn completeness_members(reason: &str, warnings: RefOr<Schema>, collection: bool) -> Vec<(&'static str, RefOr<Schema>)> {
    let mut members = vec![
        ("status", string().enum_values(Some(["complete", "partial"])).description(Some(STATUS_ABOUT)).into()),
        ("complete", ObjectBuilder::new().schema_type(Type::Boolean).description(Some(COMPLETE_ABOUT)).into()),
        ("truncated", ObjectBuilder::new().schema_type(Type::Boolean).description(Some(TRUNCATED_ABOUT)).into()),
        ("incomplete_reasons", array_of(reference(reason)).into()),
        ("continuation", nullable_reference("Continuation", "How to recover; null when complete (contract §2.4).")),
        ("next_cursor", nullable(Type::String).into()),
        ("scope", reference("Scope")),
        ("warnings", warnings),
    ];
    if collection {
        members.push(("page", nullable_reference("PageInfo", "Pagination facts (contract §2.5).")));
        members.push(("evidence", nullable(Type::String).description(Some(EVIDENCE_ABOUT)).into()));
    }
    members
}

fn collection(description: &str, item: &str, reason: &str, warnings: RefOr<Schema>) -> RefOr<Schema> {
    let mut members = completeness_members(reason, warnings, true);
    members.push(("items", array_of(reference(item)).into()));
    object(description, members)
}

fn json_response(description: &str, schema: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", ContentBuilder::new().schema(Some(reference(schema))).build())
        .build()
}

/// The answer of a route that takes the demand for completeness: `Preference-Applied` when
/// the demand came as `Prefer: handling=strict`, and `Vary: Prefer`, since the same request
/// with the demand may be refused instead (contract §5.3).
fn demand_response(description: &str, schema: &str) -> utoipa::openapi::Response {
    let mut response = json_response(description, schema);
    response.headers.insert(PREFERENCE_APPLIED.to_owned(), RefOr::T(preference_applied()));
    response.headers.insert(VARY.to_owned(), RefOr::T(vary_prefer()));
    response
}

/// `Vary: Prefer` on an answer the demand for completeness decides between.
fn vary_prefer() -> Header {
    HeaderBuilder::new()
        // Header names are case-insensitive; JSON Schema's patterns are ECMA-262, which has no `(?i)`.
        .schema(Some(string().pattern(Some("(^|[ ,])[Pp][Rr][Ee][Ff][Ee][Rr]($|[ ,])"))))
        .description(Some("names `Prefer`: the answer depends on whether the request demanded a complete one"))
        .build()
}

const VARY: &str = "Vary";

/// The `Time-Budget-Ms` echo of an operation that takes a time budget (contract §5.2).
fn time_budget_echo() -> Header {
    HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1))))
        .description(Some(
            "the time budget applied, in milliseconds (capped by the server), once the request's was read: not \
             on a refusal made before (a 401, INVALID_TIME_BUDGET, a database outage)",
        ))
        .build()
}

/// Adds the `Time-Budget-Ms` echo to the responses of `operation` that can carry it: its
/// answer, and the problems its handler answers with once the budget is read (a strict refusal,
/// a filter it refuses). A refusal made before that has none: a 401, the transport's, the
/// budget's own `INVALID_TIME_BUDGET` (the header's description says so for the 400s).
fn with_budget_echo(mut operation: utoipa::openapi::path::Operation) -> utoipa::openapi::path::Operation {
    for (status, response) in &mut operation.responses.responses {
        if let ("200" | "400" | "403" | "422" | "503", RefOr::T(response)) = (status.as_str(), response) {
            response.headers.insert(completeness::budget::TIME_BUDGET_HEADER.to_owned(), RefOr::T(time_budget_echo()));
        }
    }
    operation
}

fn preference_applied() -> Header {
    HeaderBuilder::new()
        .schema(Some(string().enum_values(Some(["handling=strict"]))))
        .description(Some("sent when the request preferred `handling=strict` (RFC 7240)"))
        .build()
}

const PREFERENCE_APPLIED: &str = "Preference-Applied";

/// A problem response with `status`: `Retry-After` may come with a 503, and a refusal of an
/// incomplete answer says whether a `Prefer` demand was applied.
fn problem_response(status: u16, codes: &[String]) -> utoipa::openapi::Response {
    // The HTTP server refuses what it cannot read at all before the service sees it, with the
    // status alone: no problem body, no `x-request-id`.
    let bare = match status {
        400 => {
            " A request the HTTP server itself cannot parse (a malformed header line or Content-Length) gets \
                this status from it with no body."
        }
        414 | 431 => {
            " A request line or head past the HTTP server's own limits gets this status from it with \
                      no body."
        }
        _ => "",
    };
    // The problem schema, and the codes this operation answers with at this status: a client
    // generated from the document matches on them, and a code the document does not name fails
    // a schema check (the fuzz step's) rather than surprising one.
    let code = string()
        .enum_values(Some(codes.iter().map(String::as_str)))
        .description(Some("the codes of this status on this operation"));
    let schema = AllOfBuilder::new()
        .item(reference("Problem"))
        .item(ObjectBuilder::new().property("code", code))
        .description(Some("An RFC 9457 problem (`Problem`) with one of this response's codes."));
    let mut response = ResponseBuilder::new()
        .description(format!("RFC 9457 problem; codes: {}.{bare}", codes.join(", ")))
        .content("application/problem+json", ContentBuilder::new().schema(Some(schema)).build());
    if status == 401 {
        let challenge = HeaderBuilder::new()
            .schema(Some(string()))
            .description(Some("`Bearer`: the scheme to authenticate with (RFC 9110)"))
            .build();
        response = response.header("WWW-Authenticate", challenge);
    }
    if status == 503 {
        let seconds = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0));
        let retry = HeaderBuilder::new().schema(Some(seconds)).description(Some("seconds, when known")).build();
        response = response.header("Retry-After", retry);
    }
    if codes.iter().any(|code| code == ProblemCode::CompleteResultUnavailable.as_str()) {
        response = response.header(PREFERENCE_APPLIED, preference_applied()).header(VARY, vary_prefer());
    }
    response.build()
}

fn query(name: &str, description: &str, schema: ObjectBuilder) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

fn path(name: &str, schema: ObjectBuilder) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(schema))
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

/// The `owner` filter: `none` or an owner's name. The MCP tools' input schemas say the same.
pub const OWNER_FILTER_PATTERN: &str = "^[a-z][a-z0-9-]{0,63}$";

/// An account id. The MCP tools' input schemas say the same.
pub const ACCOUNT_ID_PATTERN: &str = "^sa-[0-9]{6,}$";

fn tenant_schema() -> ObjectBuilder {
    string().enum_values(Some(TENANTS))
}

/// The problem statuses an operation answers with, and the codes behind each.
type Problems = Vec<(u16, Vec<String>)>;

/// The statuses every operation can be refused with before its handler runs ([`refusals`]).
/// A body sent where none is read is refused too (`routes::refuse_unread_input`): too large
/// (413), or not plain JSON (415), on any operation; and one that does not arrive in full within
/// the read timeout (408), on any operation, since it is read (to be refused) on a read too.
fn transport(problems: &mut Problems) {
    let before_the_handler =
        refusals::REFUSALS.iter().filter(|(status, ..)| matches!(status, 408 | 413 | 414 | 415 | 431));
    for (status, code, _) in before_the_handler {
        add(problems, *status, code);
    }
}

fn add(problems: &mut Problems, status: u16, code: &str) {
    match problems.iter_mut().find(|(s, _)| *s == status) {
        Some((_, codes)) if !codes.iter().any(|c| c == code) => codes.push(code.to_owned()),
        Some(_) => {}
        None => problems.push((status, vec![code.to_owned()])),
    }
}

/// The statuses of an operation's problems, from the codes it can answer with: each code's
/// own status, plus the statuses `require_complete=true` maps its declared reasons to
/// (contract §5.3, the rule of `Problem::complete_result_unavailable`).
fn problems(codes: &[ProblemCode], declared: Option<&[ReasonCode]>, authenticated: bool) -> Problems {
    let mut problems = Problems::new();
    if authenticated {
        add(&mut problems, 401, ProblemCode::Unauthenticated.as_str());
        // Authentication reads the credential from the database, so a route behind it answers
        // a database outage, and any other failure of the database (`http::store_problem`),
        // whatever else it does.
        add(&mut problems, 503, refusals::refusal(StatusCode::SERVICE_UNAVAILABLE).code().as_str());
        add(&mut problems, 500, ProblemCode::Internal.as_str());
    }
    for code in codes {
        add(&mut problems, code.status(), code.as_str());
    }
    // Input an operation would not read (`routes::refuse_unread_input`): a body on a read or a
    // body-less write (`INVALID_BODY`), a query parameter on a write (`INVALID_REQUEST`).
    add(&mut problems, 400, ProblemCode::InvalidRequest.as_str());
    add(&mut problems, 400, ProblemCode::InvalidBody.as_str());
    if let Some(reasons) = declared {
        let unavailable = ProblemCode::CompleteResultUnavailable;
        for reason in reasons {
            match reason {
                ReasonCode::MorePagesAvailable => {}
                ReasonCode::VisibilityRestricted => add(&mut problems, 403, unavailable.as_str()),
                ReasonCode::ResultLimitReached => add(&mut problems, 422, unavailable.as_str()),
                _ => add(&mut problems, 503, unavailable.as_str()),
            }
        }
    }
    transport(&mut problems);
    problems.sort_by_key(|(status, _)| *status);
    problems
}

/// `problems` and the service's own `codes` beside them (each with its status), in status order.
fn also(mut problems: Problems, codes: &[(u16, &str)]) -> Problems {
    for (status, code) in codes {
        add(&mut problems, *status, code);
    }
    problems.sort_by_key(|(status, _)| *status);
    problems
}

fn with_problems(mut operation: OperationBuilder, problems: Problems) -> OperationBuilder {
    for (status, codes) in problems {
        operation = operation.response(status.to_string(), problem_response(status, &codes));
    }
    operation
}

/// The `x-completeness` member of an operation: what its handler declared it can report.
fn declared(resource: &str, reasons: &[ReasonCode], warnings: &[WarningCode]) -> Extensions {
    let reasons: Vec<&str> = reasons.iter().map(ReasonCode::as_str).collect();
    let warnings: Vec<&str> = warnings.iter().map(WarningCode::as_str).collect();
    ExtensionsBuilder::new()
        .add(EXTENSION, json!({"resource": resource, "reasons": reasons, "warnings": warnings}))
        .build()
}

/// The `x-completeness` member of an operation whose answer needs no completeness block, with why.
fn exempt(why: &str) -> Extensions {
    ExtensionsBuilder::new().add(EXTENSION, json!({"exempt": why})).build()
}

/// The extension member naming what each operation can report.
pub const EXTENSION: &str = "x-completeness";

/// The security scheme every route but `/openapi.json` requires.
pub const BEARER: &str = "bearer";

/// `paths` with `x-request-id` on every answer the service makes: the id of the request's log
/// line (`telemetry::request_log`), the client's own when it sent one usable id.
fn with_request_id(mut paths: utoipa::openapi::Paths) -> utoipa::openapi::Paths {
    let id = HeaderBuilder::new()
        .schema(Some(string().max_length(Some(super::telemetry::MAX_REQUEST_ID_BYTES))))
        .description(Some(format!(
            "the id the service's log gives this request: the client's `x-request-id` when it sent one printable \
             id of at most {} bytes without a comma, else a fresh UUID (not on a refusal the HTTP server makes \
             itself, which has no body either)",
            super::telemetry::MAX_REQUEST_ID_BYTES
        )))
        .build();
    for item in paths.paths.values_mut() {
        let operations = [&mut item.get, &mut item.post, &mut item.put, &mut item.patch, &mut item.delete];
        for operation in operations.into_iter().flatten() {
            for response in operation.responses.responses.values_mut() {
                if let RefOr::T(response) = response {
                    response.headers.insert(REQUEST_ID.to_owned(), RefOr::T(id.clone()));
                }
            }
        }
    }
    paths
}

const REQUEST_ID: &str = "X-Request-Id";

/// The document, with the page sizes, budgets and lifetimes `settings` apply.
pub fn openapi(settings: &CompletenessConfig) -> OpenApi {
    use ProblemCode::*;
    let owner =
        query("owner", "`none` for unowned accounts, or an owner's name", string().pattern(Some(OWNER_FILTER_PATTERN)));
    let tenant = query(
        "tenant",
        "absent: every tenant; a credential that cannot read them all then gets VISIBILITY_RESTRICTED: name a tenant \
         it reads for a complete answer over that tenant",
        tenant_schema(),
    );
    let id = || path("id", string().pattern(Some(ACCOUNT_ID_PATTERN)));
    let list = OperationBuilder::new()
        .operation_id(Some("list_service_accounts"))
        .summary(Some("The inventory, keyset-paginated at a snapshot"))
        .description(Some(
            "`time_budget_ms` is not accepted here: the inventory reads one local table at a snapshot, \
             with no source that could run out of time, so a budget could never change the answer.",
        ))
        .parameters(Some(
            [vec![owner.clone(), tenant.clone()], parameters::paging_for(settings), parameters::require_complete()]
                .concat(),
        ))
        .response("200", demand_response("A page of the inventory", "ServiceAccountPage"))
        .extensions(Some(declared(RESOURCE, ListServiceAccountsReason::ALL, ListServiceAccountsReason::WARNINGS)));
    let list = with_problems(
        list,
        problems(
            &[&[InvalidRequest, InvalidPageSize], ProblemCode::CURSOR_REFUSALS].concat(),
            Some(ListServiceAccountsReason::ALL),
            true,
        ),
    );
    let create = OperationBuilder::new()
        .operation_id(Some("create_service_account"))
        .request_body(body("NewServiceAccount"))
        .response("201", json_response("The account and the snapshot holding the change", "Mutation"))
        .extensions(Some(exempt(MUTATION_EXEMPT)));
    let create = with_problems(create, problems(&[InvalidBody, Forbidden], None, true));
    let count = OperationBuilder::new()
        .operation_id(Some("count_service_accounts"))
        .parameters(Some([vec![owner, tenant.clone()], parameters::require_complete()].concat()))
        .response("200", demand_response("The count with its relation", "ServiceAccountCount"))
        .extensions(Some(declared(RESOURCE, CountServiceAccountsReason::ALL, CountServiceAccountsReason::WARNINGS)));
    let count = with_problems(
        count,
        problems(&[InvalidRequest, CursorQueryMismatch], Some(CountServiceAccountsReason::ALL), true),
    );
    let field_list = format!("^({0})(,({0}))*$", FIELDS.join("|"));
    let get = OperationBuilder::new()
        .operation_id(Some("get_service_account"))
        .parameters(Some([
            id(),
            query(
                "fields",
                "comma-separated fields to fill, e.g. secret_fingerprint",
                string().pattern(Some(field_list)),
            ),
        ]))
        .response("200", json_response("Every declared field; unfilled ones in omitted_fields", "ServiceAccount"))
        .extensions(Some(
            ExtensionsBuilder::new()
                .add(
                    EXTENSION,
                    json!({"omitted_fields": ["NO_ACCESS", "SOURCE_FAILED", "NOT_REQUESTED"],
                           "warnings": [WarningCode::PartialFieldSet.as_str()]}),
                )
                .build(),
        ));
    let get = with_problems(get, problems(&[InvalidRequest, CursorQueryMismatch, NotFound], None, true));
    let patch = OperationBuilder::new()
        .operation_id(Some("set_service_account_owner"))
        .parameter(id())
        .request_body(body("OwnerChange"))
        .response("200", json_response("The account and the snapshot holding the change", "Mutation"))
        .extensions(Some(exempt(MUTATION_EXEMPT)));
    // A write whose credential lost the tenant while it waited for the write lock: FORBIDDEN.
    // An archived account is neither given an owner nor deleted.
    let patch_problems = problems(&[InvalidRequest, InvalidBody, NotFound, Forbidden], None, true);
    let patch = with_problems(patch, also(patch_problems, &[(409, ACCOUNT_ARCHIVED)]));
    let delete = OperationBuilder::new()
        .operation_id(Some("delete_service_account"))
        .parameter(id())
        .response("200", json_response("The deleted account and the snapshot holding the change", "Mutation"))
        .extensions(Some(exempt(MUTATION_EXEMPT)));
    let delete_problems = problems(&[InvalidRequest, NotFound, Forbidden], None, true);
    let delete = with_problems(delete, also(delete_problems, &[(409, ACCOUNT_ARCHIVED)]));
    let archive = OperationBuilder::new()
        .operation_id(Some("archive_service_accounts"))
        .summary(Some("Archive unowned accounts, with the evidence of a complete owner=none inventory"))
        .request_body(body("ArchiveRequest"))
        .response("200", json_response("Every named account was archived", "Archived"))
        .extensions(Some(exempt(ARCHIVE_EXEMPT)));
    let archive =
        with_problems(archive, problems(&[&[InvalidBody], ProblemCode::EVIDENCE_REFUSALS].concat(), None, true));
    let search = OperationBuilder::new()
        .operation_id(Some("search"))
        .summary(Some("Federated search over directory, audit and legacy"))
        .parameters(Some(
            [
                vec![
                    ParameterBuilder::new()
                        .name("q")
                        .parameter_in(ParameterIn::Query)
                        .required(Required::True)
                        .description(Some("part of the name, as names are written (case-sensitive)"))
                        .schema(Some(string().pattern(Some(NAME_PATTERN)).min_length(Some(1)).max_length(Some(64))))
                        .build(),
                    tenant,
                ],
                parameters::time_budget_for(settings),
                parameters::require_complete(),
            ]
            .concat(),
        ))
        .response("200", demand_response("The merged hits", "SearchResult"))
        .extensions(Some(declared("search_results", SearchReason::ALL, SearchReason::WARNINGS)));
    let search = with_problems(
        search,
        problems(&[InvalidRequest, CursorQueryMismatch, InvalidTimeBudget], Some(SearchReason::ALL), true),
    );
    let credential_names: Vec<&str> = DEFAULT_GRANTS.iter().map(|(name, _)| *name).collect();
    let revoke = OperationBuilder::new()
        .operation_id(Some("revoke_tenant"))
        .parameters(Some([path("name", string().enum_values(Some(credential_names))), path("tenant", tenant_schema())]))
        .response("200", json_response("The credential's new grant and permission epoch", "Grant"))
        .extensions(Some(exempt(GRANT_EXEMPT)));
    let revoke = with_problems(revoke, problems(&[InvalidRequest, Forbidden, NotFound], None, true));
    let document = OperationBuilder::new()
        .operation_id(Some("openapi_document"))
        .summary(Some("This document; with /metrics and /ready, the only routes that need no credential"))
        .securities(Some(Vec::<SecurityRequirement>::new()))
        .response(
            "200",
            ResponseBuilder::new()
                .description("This document")
                .content("application/json", ContentBuilder::new().schema(Some(ObjectBuilder::new())).build())
                .build(),
        )
        .extensions(Some(exempt(DOCUMENT_EXEMPT)));
    let document = with_problems(document, problems(&[InvalidRequest], None, false));

    // A prober holds no credential, yet the check reads the database: it answers its outage.
    let outage = refusals::refusal(StatusCode::SERVICE_UNAVAILABLE);
    let unavailable = outage.code();
    let ready_problems = also(
        problems(&[InvalidRequest], None, false),
        &[(503, unavailable.as_str()), (500, ProblemCode::Internal.as_str())],
    );
    let ready = with_problems(OperationBuilder::new(), ready_problems)
        .operation_id(Some("ready"))
        .summary(Some("Whether this replica can serve now (its database answers); no credential needed"))
        .securities(Some(Vec::<SecurityRequirement>::new()))
        .extensions(Some(exempt(READY_EXEMPT)))
        .response(
            "200",
            ResponseBuilder::new()
                .description("The replica can serve")
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .property("status", string().enum_values(Some(["ready"])))
                                .property("replica", string())
                                .required("status")
                                .required("replica")
                                .additional_properties(Some(AdditionalProperties::FreeForm(false))),
                        ))
                        .build(),
                )
                .build(),
        );

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
        .path("/search", PathItem::new(HttpMethod::Get, with_budget_echo(search.build())))
        .path("/credentials/{name}/revoke-tenant/{tenant}", PathItem::new(HttpMethod::Post, revoke))
        .path("/openapi.json", PathItem::new(HttpMethod::Get, document))
        .path("/ready", PathItem::new(HttpMethod::Get, ready))
        .path(
            "/metrics",
            PathItem::new(
                HttpMethod::Get,
                with_problems(OperationBuilder::new(), problems(&[InvalidRequest], None, false))
                    .operation_id(Some("metrics"))
                    .summary(Some("Counters in the Prometheus text format; no credential needed"))
                    .securities(Some(Vec::<SecurityRequirement>::new()))
                    .extensions(Some(exempt(METRICS_EXEMPT)))
                    .response(
                        "200",
                        ResponseBuilder::new()
                            .description("The framework's counters (completeness_*_total)")
                            .content(
                                "text/plain",
                                ContentBuilder::new()
                                    .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                                    .build(),
                            )
                            .build(),
                    ),
            ),
        );

    let opt_text = |d: &str| -> RefOr<Schema> { nullable(Type::String).description(Some(d)).into() };
    let flag = || -> RefOr<Schema> { ObjectBuilder::new().schema_type(Type::Boolean).into() };
    let mut count_members = completeness_members(
        "CountServiceAccountsReason",
        warnings("CountServiceAccountsWarning", CountServiceAccountsReason::WARNINGS),
        false,
    );
    count_members.push(("count", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).into()));
    count_members.push(("relation", string().enum_values(Some(["exact", "lower_bound", "estimate"])).into()));
    // The library's own schemas of the page facts and the continuation, as it writes them.
    let components = ComponentsBuilder::new()
        .schema_from::<completeness::scope::PageInfo>()
        .schema_from::<completeness::scope::CursorContract>()
        .schema_from::<completeness::scope::CursorBinding>()
        .schema_from::<completeness::Continuation>()
        .schemas_from_iter(reason_components())
        .schema("ListServiceAccountsReason", ListServiceAccountsReason::schema())
        .schema("ListServiceAccountsWarning", ListServiceAccountsReason::warning_schema())
        .schema("CountServiceAccountsReason", CountServiceAccountsReason::schema())
        .schema("SearchReason", SearchReason::schema())
        .schema("SearchWarning", SearchReason::warning_schema())
        .schema(
            "ServiceAccountPage",
            collection(
                "A page of the inventory",
                "ServiceAccountItem",
                "ListServiceAccountsReason",
                warnings("ListServiceAccountsWarning", ListServiceAccountsReason::WARNINGS),
            ),
        )
        .schema(
            "SearchResult",
            collection(
                "Merged search hits",
                "SearchHit",
                "SearchReason",
                warnings("SearchWarning", SearchReason::WARNINGS),
            ),
        )
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
                    ("source", string().enum_values(Some(SEARCH_SOURCES)).into()),
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
                            .description(Some("field -> why it was not filled"))
                            .additional_properties(Some(string().enum_values(Some([
                                "NO_ACCESS",
                                "SOURCE_FAILED",
                                "NOT_REQUESTED",
                            ]))))
                            .into(),
                    ),
                    ("warnings", array_of(reference("ServiceAccountWarning")).into()),
                ],
            ),
        )
        .schema("ServiceAccountWarning", completeness::schema::warnings_openapi(ACCOUNT_WARNINGS, &[false], &[]))
        .schema(
            "NewServiceAccount",
            strict(
                "A new account",
                vec![
                    ("name", string().pattern(Some(NAME_PATTERN)).min_length(Some(1)).max_length(Some(64)).into()),
                    ("tenant", tenant_schema().into()),
                    ("owner", owner_schema("the owner; null or absent: unowned")),
                ],
                &["name", "tenant"],
            ),
        )
        .schema(
            "OwnerChange",
            strict("The new owner", vec![("owner", owner_schema("the new owner; null clears it"))], &["owner"]),
        )
        .schema(
            "Mutation",
            object(
                "A mutation's result",
                vec![
                    ("account", reference("ServiceAccount")),
                    ("snapshot", text("the snapshot holding the change")),
                    ("deleted", flag()),
                ],
            ),
        )
        .schema(
            "ArchiveRequest",
            strict(
                "Targets and the evidence of a complete owner=none inventory that contains them",
                vec![
                    (
                        "ids",
                        array_of(string().pattern(Some(ACCOUNT_ID_PATTERN)).into())
                            .min_items(Some(1))
                            .max_items(Some(MAX_TARGETS))
                            .unique_items(true)
                            .into(),
                    ),
                    (
                        "evidence",
                        string()
                            .min_length(Some(1))
                            .description(Some(format!(
                                "the inventory's evidence token; it expires {} s after the inventory's last page \
                                 was answered (412 EVIDENCE_EXPIRED)",
                                settings.evidence_ttl().as_secs_f64()
                            )))
                            .into(),
                    ),
                ],
                &["ids", "evidence"],
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
        .schema("Problem", problem_schema())
        .security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("the credential's name: admin, north or south"))
                    .build(),
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
        .paths(with_request_id(paths.build()))
        .components(Some(components))
        .security(Some([SecurityRequirement::new(BEARER, Vec::<String>::new())]))
        .build()
}
