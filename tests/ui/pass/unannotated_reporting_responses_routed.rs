//! Handlers without the attribute route as long as their response reports completeness:
//! envelopes, aggregates, problems, status codes, `()` and `(StatusCode, T)`.

use axum::Router;
use axum::extract::Path;
use axum::http::StatusCode;
use completeness::routing::{get, patch};
use completeness::{Aggregate, Completeness, Envelope, Problem, Relation, Scope};
use completeness::{CompletenessConfig, CursorKeys};

async fn list() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("names", "every name"))
}

async fn count() -> Aggregate<u64> {
    Aggregate::count(0, Relation::Exact, Completeness::complete(Scope::new("names", "every name")))
}

async fn create() -> (StatusCode, Envelope<String>) {
    (StatusCode::CREATED, Envelope::complete(vec![], Scope::new("names", "every name")))
}

async fn rename(Path(_id): Path<String>) -> Result<StatusCode, Problem> {
    Ok(StatusCode::NO_CONTENT)
}

async fn remove(Path(_id): Path<String>) {}

fn main() {
    let _app: Router = Router::new()
        .route("/names", get(list).post(create).into())
        .route("/names/count", get(count).into())
        .route("/names/{id}", patch(rename).put(rename).delete(remove).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
