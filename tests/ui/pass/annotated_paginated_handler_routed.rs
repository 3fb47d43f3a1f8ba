//! A paginated handler that declares `MorePagesAvailable` and `PageSizeReduced` takes `PageRequest` and routes.

use axum::Router;
use completeness::cursor::QueryBinding;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, PageRequest, Problem, Scope, completeness};

#[completeness(resource = "numbers", reasons(MorePagesAvailable, VisibilityRestricted), warnings(PageSizeReduced))]
async fn list_numbers(request: PageRequest) -> Result<Envelope<u32, ListNumbersReason>, Problem> {
    let scope = Scope::new("numbers", "every number");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    let rows: Vec<u32> = (1..100).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, |n| n.to_string()))
}

fn main() {
    let _app: Router = Router::new()
        .route("/numbers", get(list_numbers).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
