//! Real handler code: a service's own error type, `(StatusCode, String)` and JSON error
//! bodies, response parts before the envelope, an always-complete endpoint, and associated
//! functions of an `impl`.

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

#[completeness(resource = "tickets", reasons(VisibilityRestricted))]
async fn list_mine() -> Result<Envelope<String, ListMineReason>, Json<ErrorBody>> {
    Err(Json(ErrorBody { message: "who are you?".into() }))
}

#[completeness(resource = "tickets", reasons())]
async fn list_cached() -> ([(header::HeaderName, &'static str); 1], Envelope<String, ListCachedReason>) {
    ([(header::CACHE_CONTROL, "no-store")], Envelope::complete(vec![], Scope::new("tickets", "all")))
}

struct Api;

#[completeness]
impl Api {
    #[completeness(resource = "tags", reasons(MorePagesAvailable))]
    async fn list_tags() -> Envelope<String, ListTagsReason> {
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
        .route("/cached", get(list_cached).into())
        .route("/tags", get(Api::list_tags).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
