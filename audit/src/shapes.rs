//! The shape tables the audit classifies types with.
//!
//! The collection and wrapper names are the contract's own (`completeness-codes`), the tables
//! the macros classify with: the audit calls a type a list roughly when
//! `#[derive(ResultEnvelope)]` would ask for a completeness block or a `bounded` justification.
//! (The derive also asks it of tuples holding a list and of fields of a type parameter; the
//! audit, which sees the whole sources, also calls a struct a list when a member's type is a
//! struct that is one, and reads `serde_json::Value` as unknown.)

use completeness_codes::SCALARS;
/// The collection types whose size has no bound (contract §4). Slices and `Box<[T]>` count too.
pub use completeness_codes::{COLLECTIONS, WRAPPERS};

/// Response types of the framework that report completeness.
pub use completeness_codes::REPORTING_TYPES as REPORTING;

/// The framework's response type declared to need no completeness block.
pub use completeness_codes::EXEMPT_TYPE as EXEMPT;

/// The framework's crates, as a path names them: a response type or routing function is the
/// framework's when its path leads into one of them (or it is written in one), not merely by its name.
pub const FRAMEWORK_CRATES: [&str; 2] = ["completeness", "completeness_runtime"];

/// The type of a completeness block: a struct holding one reports completeness by hand.
pub use completeness_codes::COMPLETENESS_BLOCK;

/// The derive that makes a struct report completeness.
pub const ENVELOPE_DERIVE: &str = "ResultEnvelope";

/// utoipa's attribute that declares type aliases of a generic schema (`#[aliases(JobCollection =
/// NonPaginatedCollection<Job>)]` on `NonPaginatedCollection<T>`): its `ToSchema` derive generates
/// them, and the audit reads them as the aliases they are.
pub const SCHEMA_ALIASES: &str = "aliases";

/// The handler attribute that makes a handler report completeness.
pub const HANDLER_ATTRIBUTE: &str = "completeness";

/// Response wrappers whose body is their first type argument: `Json<T>`, `Result<T, E>`.
pub const BODY_WRAPPERS: [&str; 3] = ["Json", "Result", "Form"];

/// Methods of `Result` and `Option` (and anyhow's `Context`) whose value holds what the receiver
/// holds on success: `repo.list().await.map_err(AppError::from)?` is the list, as `value?` is.
pub const SUCCESS_KEEPING: [&str; 12] = [
    "unwrap",
    "expect",
    "map_err",
    "ok_or",
    "ok_or_else",
    "ok",
    "context",
    "with_context",
    "unwrap_or",
    "unwrap_or_else",
    "unwrap_or_default",
    "inspect_err",
];

/// Methods of `Result`, `Option` and futures whose value is what their closure returns for the
/// success value: `repo.page(..).await.map(|page| ok_page(page.records))?` is what `ok_page`
/// returns, and the closure's parameter is what `repo.page(..).await` holds on success.
pub const SUCCESS_MAPPING: [&str; 2] = ["map", "and_then"];

/// Member names that hold the items of a list response: a struct with a collection under one of
/// these names is a list, not a resource that happens to have a collection.
/// (`resources` is SCIM's `Resources`, RFC 7644, section 3.4.2.)
pub const LIST_MEMBERS: [&str; 15] = [
    "items",
    "data",
    "results",
    "entries",
    "records",
    "rows",
    "values",
    "hits",
    "elements",
    "list",
    "nodes",
    "edges",
    "objects",
    "page",
    "resources",
];

/// Member names a page has beside its collection, which a resource may have too (`total` of an
/// order, `limit` of a quota, `links` and `meta` of a document): a struct whose only other
/// members are these, or those of [`PAGE_ONLY_MEMBERS`], is a list page. (`page` is here as a
/// page number and in [`LIST_MEMBERS`] as a collection. `total_results` and `start_index` are
/// SCIM's `totalResults` and `startIndex`; `query` is the query a search page answers.)
pub const PAGINATION_MEMBERS: [&str; 19] = [
    "total",
    "total_hits",
    "total_results",
    "start_index",
    "query",
    "count",
    "total_count",
    "total_items",
    "next",
    "previous",
    "prev",
    "page",
    "offset",
    "limit",
    "more",
    "has_newer",
    "has_older",
    "links",
    "meta",
];

/// Member names only a page has: a collection beside any of them is the page's items, whatever
/// else the struct holds (`{users, has_more, query}`): a cursor, a token or link to the next page,
/// a has-more flag, a page's number or size, a pagination block.
pub const PAGE_ONLY_MEMBERS: [&str; 30] = [
    "next_cursor",
    "cursor",
    "prev_cursor",
    "end_cursor",
    "start_cursor",
    "next_page",
    "prev_page",
    "previous_page",
    "next_page_token",
    "page_token",
    "next_token",
    "continuation",
    "continuation_token",
    "next_link",
    "next_url",
    "has_more",
    "has_next",
    "has_next_page",
    "has_previous",
    "has_previous_page",
    "has_prev",
    "current_page",
    "page_number",
    "per_page",
    // SCIM's `itemsPerPage`.
    "items_per_page",
    "page_size",
    "total_pages",
    "page_count",
    "pagination",
    "page_info",
];

/// True for a type name that is never a list: a scalar (`SCALARS`) or one of `NOT_LISTS`.
pub fn never_a_list(name: &str) -> bool {
    SCALARS.contains(&name) || NOT_LISTS.contains(&name)
}

/// Types that are never lists besides the scalars (`SCALARS`): the usual non-JSON responses.
pub const NOT_LISTS: [&str; 13] = [
    "StatusCode",
    "HeaderMap",
    "Html",
    "Redirect",
    "Bytes",
    "Infallible",
    "NoContent",
    "Problem",
    "Uuid",
    "ProblemDetails",
    "Sse",
    "CookieJar",
    "Empty",
];

/// Types whose JSON shape the audit cannot see from the type: it looks at the handler's body instead.
pub const OPAQUE_RESPONSES: [&str; 3] = ["Response", "Value", "Body"];

/// Tower services that are never list endpoints, by the name of their type, with what they
/// serve: tower-http's file services. A route that mounts one (`nest_service`, `route_service`)
/// is exempt (rule 5 of `classify`).
pub const NON_LIST_SERVICES: [(&str, &str); 2] =
    [("ServeDir", "serves the files of a directory"), ("ServeFile", "serves a file")];

/// The routers of the OpenAPI documentation crates, by the name of their type, with their crate:
/// each serves a documentation page and the OpenAPI document, never a list. Merged into a router
/// (`.merge(SwaggerUi::new("/docs").url(..))`, whatever builder methods are chained on it), one
/// is exempt.
pub const DOCUMENTATION_ROUTERS: [(&str, &str); 4] = [
    ("SwaggerUi", "utoipa-swagger-ui"),
    ("Redoc", "utoipa-redoc"),
    ("RapiDoc", "utoipa-rapidoc"),
    ("Scalar", "utoipa-scalar"),
];

/// The entry of [`DOCUMENTATION_ROUTERS`] for the type named `name`: its name and its crate.
pub fn documentation_router(name: &str) -> Option<(&'static str, &'static str)> {
    DOCUMENTATION_ROUTERS.iter().find(|(router, _)| *router == name).copied()
}

/// The entry of [`NON_LIST_SERVICES`] for the type named `name`: its name and what it serves.
pub fn known_service(name: &str) -> Option<(&'static str, &'static str)> {
    NON_LIST_SERVICES.iter().find(|(service, _)| *service == name).copied()
}

/// The methods of [`NON_LIST_SERVICES`] that configure one and give it back: chained on one, it
/// still serves files. A method not listed here (`map_response(..)`) may change what it answers,
/// so the service is no longer taken for a file service.
pub const SERVICE_SETTINGS: [&str; 7] = [
    "append_index_html_on_directories",
    "with_buf_chunk_size",
    "precompressed_gzip",
    "precompressed_br",
    "precompressed_deflate",
    "precompressed_zstd",
    "call_fallback_on_method_not_allowed",
];

/// The methods of [`NON_LIST_SERVICES`] that hand one another service to answer with where it
/// finds no file: it is still a file service only when that service is one too.
pub const SERVICE_FALLBACKS: [&str; 2] = ["fallback", "not_found_service"];

/// The method-router constructors of `axum::routing` and `completeness::routing`, with the method each routes.
pub const METHODS: [(&str, &str); 9] = [
    ("get", "GET"),
    ("post", "POST"),
    ("put", "PUT"),
    ("patch", "PATCH"),
    ("delete", "DELETE"),
    ("head", "HEAD"),
    ("options", "OPTIONS"),
    ("trace", "TRACE"),
    ("any", "ANY"),
];

/// Router methods that hand back the same routes (layers, state, the service `axum::serve`
/// takes). (`fallback` and `fallback_service` add a route of their own: `Eval::eval_method`.)
pub const ROUTER_PASS_THROUGH: [&str; 12] = [
    "layer",
    "route_layer",
    "with_state",
    "method_not_allowed_fallback",
    "into_service",
    "reset_fallback",
    "into_make_service",
    "into_make_service_with_connect_info",
    "handle_error",
    SPLIT_FOR_PARTS,
    // aide's `ApiRouter` into axum's `Router`, with the document filled in.
    "finish_api",
    "finish_api_with",
];

/// axum's `Router`: the routes of a service.
pub const ROUTER: &str = "Router";
/// axum's `MethodRouter`: the handlers of one route, by method.
pub const METHOD_ROUTER: &str = "MethodRouter";
/// utoipa-axum's `OpenApiRouter`: axum's `Router` that also collects the OpenAPI document of
/// the handlers it registers with `routes!`.
pub const OPENAPI_ROUTER: &str = "OpenApiRouter";
/// aide's `ApiRouter`: axum's `Router` that also collects the OpenAPI document of the routes it
/// registers with `api_route`; `finish_api` hands back the axum router.
pub const API_ROUTER: &str = "ApiRouter";
/// aide's `ApiMethodRouter`: axum's `MethodRouter`, with each operation's documentation.
pub const API_METHOD_ROUTER: &str = "ApiMethodRouter";
/// The router types: a type that names one of them is a router.
pub const ROUTER_TYPES: [&str; 5] = [ROUTER, METHOD_ROUTER, OPENAPI_ROUTER, API_ROUTER, API_METHOD_ROUTER];
/// `OpenApiRouter::routes(routes!(list, create))`: each handler at the method and path of its
/// `#[utoipa::path(..)]` attribute.
pub const PATH_ROUTES: &str = "routes";
/// `OpenApiRouter::split_for_parts`: the axum `Router` (first) and the OpenAPI document.
pub const SPLIT_FOR_PARTS: &str = "split_for_parts";

/// `Router::route`.
pub const ROUTE: &str = "route";
/// aide's `ApiRouter::api_route`, as `Router::route`.
pub const API_ROUTE: &str = "api_route";
/// aide's `ApiRouter::api_route_with(path, methods, transform)`, as `Router::route`.
pub const API_ROUTE_WITH: &str = "api_route_with";
/// axum-extra's `RouterExt::route_with_tsr`: `Router::route`, and a redirect from the path with
/// (or without) a trailing slash.
pub const ROUTE_WITH_TSR: &str = "route_with_tsr";
/// `Router::nest`.
pub const NEST: &str = "nest";
/// aide's `ApiRouter::nest_api_service(prefix, api_router)`, as `Router::nest`.
pub const NEST_API_SERVICE: &str = "nest_api_service";
/// `Router::merge`, `MethodRouter::merge`.
pub const MERGE: &str = "merge";
/// `Router::route_service`.
pub const ROUTE_SERVICE: &str = "route_service";
/// `Router::nest_service`.
pub const NEST_SERVICE: &str = "nest_service";
/// The router methods that add routes: each is an arm of `Eval::eval_method` in `routes`, which
/// matches on these constants, and, called inside a macro's arguments (`.route(..)`), one shows
/// that the macro builds routes (the audit does not expand macros). A new routing method is
/// added here and given its arm there.
pub const ROUTING_METHODS: [&str; 10] = [
    ROUTE,
    ROUTE_WITH_TSR,
    API_ROUTE,
    API_ROUTE_WITH,
    NEST,
    NEST_API_SERVICE,
    MERGE,
    ROUTE_SERVICE,
    NEST_SERVICE,
    PATH_ROUTES,
];

/// The method of a method-router constructor or method name, if it is one.
pub fn method_of(name: &str) -> Option<&'static str> {
    METHODS.iter().find(|(function, _)| *function == name).map(|(_, method)| *method)
}

/// The method of a method-router constructor or method that also takes the operation's
/// documentation (aide's `get_with(handler, |op| ..)`, `.post_with(..)`), if it is one.
pub fn documented_method_of(name: &str) -> Option<&'static str> {
    name.strip_suffix("_with").and_then(method_of)
}

/// The method of a method-router constructor or method that takes a tower service instead of a
/// handler (`get_service`, `.post_service(..)`), if it is one.
pub fn service_method_of(name: &str) -> Option<&'static str> {
    name.strip_suffix("_service").and_then(method_of)
}
