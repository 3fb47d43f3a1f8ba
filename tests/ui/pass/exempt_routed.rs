//! `Exempt<T>` is the justified escape hatch for a response that is not a list.

use axum::{Json, Router};
use completeness::Exempt;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};

async fn health() -> Exempt<Json<Vec<&'static str>>> {
    Exempt::new(Json(vec!["ok"]), "a health probe returns one fixed value")
}

fn main() {
    let _app: Router =
        Router::new().route("/health", get(health).into()).with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
