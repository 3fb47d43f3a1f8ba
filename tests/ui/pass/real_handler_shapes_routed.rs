//! Real handler code: a service's own error type, `(StatusCode, String)` and JSON error
//! bodies (a list of field errors too: an error is never read as an answer), response parts
//! before the envelope, an always-complete endpoint (one of them a single resource, its body
//! led by inner attributes), associated functions
//! of an `impl` (the attribute also by its full path), and standard names by their full path.

use axum::{Json, Router};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, Scope, completeness};

enum AppError {
    NotFound,
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        match self {
            AppError::NotFound => StatusCode::NOT_FOUND.into_response(),
        }
    }
}

#[completeness(resource = "tickets", reasons(MorePagesAvailable))]
async fn list_tickets() -> Result<Envelope<String, ListTicketsReason>, AppError> {
    Err(AppError::NotFound)
}

#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_open() -> Result<Envelope<String, ListOpenReason>, (StatusCode, String)> {
    Ok(Envelope::complete(vec![], Scope::new("tickets", "all")))
}

/// The usual JSON error body of a service.
#[derive(serde::Serialize)]
struct ErrorBody {
    message: String,
}

#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_closed() -> Result<Envelope<String, ListClosedReason>, (StatusCode, Json<ErrorBody>)> {
    Err((StatusCode::BAD_REQUEST, Json(ErrorBody { message: "no such filter".into() })))
}

// axum's own alias, whose error side is a response only inside a `Result`.
#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_theirs() -> axum::response::Result<Envelope<String, ListTheirsReason>> {
    Err(StatusCode::FORBIDDEN.into())
}

#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_mine() -> Result<Envelope<String, ListMineReason>, Json<ErrorBody>> {
    Err(Json(ErrorBody { message: "who are you?".into() }))
}

/// One error of a request's validation.
#[derive(serde::Serialize)]
struct FieldError {
    field: String,
}

#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_checked() -> Result<Envelope<String, ListCheckedReason>, (StatusCode, Json<Vec<FieldError>>)> {
    Err((StatusCode::UNPROCESSABLE_ENTITY, Json(vec![FieldError { field: "owner".into() }])))
}

#[completeness::completeness(
    resource = "tickets",
    reasons(completeness::reason::MorePagesAvailable),
    warnings(completeness::warning::PageSizeReduced)
)]
async fn list_paged(_page: completeness::PageRequest) -> Envelope<String, ListPagedReason> {
    Envelope::complete(vec![], Scope::new("tickets", "all"))
}

#[completeness(resource = "tickets", reasons())]
async fn list_cached() -> ([(header::HeaderName, &'static str); 1], Envelope<String, ListCachedReason>) {
    ([(header::CACHE_CONTROL, "no-store")], Envelope::complete(vec![], Scope::new("tickets", "all")))
}

/// The request id, as a middleware puts it in the extensions.
#[derive(Clone)]
struct RequestId(u64);

// Response parts in any of the orders axum takes: an extension alone, a status code before
// two header parts, headers before appended headers.
#[completeness(resource = "tickets", reasons())]
async fn list_traced() -> (axum::Extension<RequestId>, Envelope<String, ListTracedReason>) {
    (axum::Extension(RequestId(7)), Envelope::complete(vec![], Scope::new("tickets", "all")))
}

#[completeness(resource = "tickets", reasons())]
async fn list_created() -> (
    StatusCode,
    [(header::HeaderName, &'static str); 1],
    axum::http::HeaderMap,
    Envelope<String, ListCreatedReason>,
) {
    let headers = axum::http::HeaderMap::new();
    (StatusCode::CREATED, [(header::CACHE_CONTROL, "no-store")], headers, Envelope::complete(vec![], Scope::new("tickets", "all")))
}

#[completeness(resource = "tickets", reasons())]
async fn list_appended() -> (
    axum::http::HeaderMap,
    axum::response::AppendHeaders<[(header::HeaderName, &'static str); 1]>,
    Envelope<String, ListAppendedReason>,
) {
    let appended = axum::response::AppendHeaders([(header::SET_COOKIE, "seen=1")]);
    (axum::http::HeaderMap::new(), appended, Envelope::complete(vec![], Scope::new("tickets", "all")))
}

/// A single resource (no completeness block) serves an endpoint that declares no reason.
#[derive(completeness::ResultEnvelope)]
struct TicketDetail {
    id: String,
    title: String,
}

#[completeness(resource = "tickets", reasons())]
async fn show_ticket() -> Result<TicketDetail, AppError> {
    // Inner attributes stay first in the body.
    #![allow(unused_variables)]
    #![allow(clippy::needless_return)]
    let unused = 1;
    Ok(TicketDetail { id: "t-1".into(), title: "printer".into() })
}

struct Api;

struct Groups;

#[completeness::completeness]
impl Groups {
    #[completeness::completeness(resource = "groups", reasons(MorePagesAvailable))]
    async fn list_groups() -> Envelope<String, GroupsListGroupsReason> {
        Envelope::complete(vec![], Scope::new("groups", "all"))
    }

    // The same name as `Api::list_tags` in this module: each reason type is named after its type.
    #[completeness(resource = "group_tags", reasons(VisibilityRestricted))]
    async fn list_tags() -> Envelope<String, GroupsListTagsReason> {
        Envelope::complete(vec![], Scope::new("group_tags", "all"))
    }
}

#[completeness]
impl Api {
    #[completeness(resource = "tags", reasons(MorePagesAvailable))]
    async fn list_tags() -> Envelope<String, ApiListTagsReason> {
        Envelope::complete(vec![], Scope::new("tags", "all"))
    }
}

fn main() {
    assert!(ListCachedReason::ALL.is_empty(), "reasons() declares an always-complete endpoint");
    let _app: Router = Router::new()
        .route("/tickets", get(list_tickets).into())
        .route("/open", get(list_open).into())
        .route("/closed", get(list_closed).into())
        .route("/mine", get(list_mine).into())
        .route("/theirs", get(list_theirs).into())
        .route("/cached", get(list_cached).into())
        .route("/traced", get(list_traced).into())
        .route("/created", get(list_created).into())
        .route("/appended", get(list_appended).into())
        .route("/tickets/{id}", get(show_ticket).into())
        .route("/tags", get(Api::list_tags).into())
        .route("/checked", get(list_checked).into())
        .route("/paged", get(list_paged).into())
        .route("/groups", get(Groups::list_groups).into())
        .route("/groups/tags", get(Groups::list_tags).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
