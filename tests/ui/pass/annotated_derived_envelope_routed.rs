//! An annotated handler returning a derived envelope over its generated reason type.

use axum::Router;
use axum::extract::Query;
use completeness::reason::{SourceUnavailable, TimeBudgetExceeded};
use completeness::routing::get;
use completeness::{Completeness, Progress, ResultEnvelope, Scope, completeness};
use completeness::{CompletenessConfig, CursorKeys};

#[derive(ResultEnvelope)]
struct SearchResults {
    hits: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness<SearchReason>,
}

#[completeness(resource = "search", reasons(SourceUnavailable, TimeBudgetExceeded), warnings(StaleIndex))]
async fn search(Query(_q): Query<Vec<(String, String)>>) -> SearchResults {
    let mut completeness = Completeness::incomplete(Scope::new("", "all records"), SourceUnavailable::new("legacy"));
    completeness
        .push_reason(TimeBudgetExceeded::new(50, Progress::new(1, Some(3), "sources")));
    SearchResults { hits: vec![], completeness }
}

fn main() {
    let _app: Router =
        Router::new().route("/search", get(search).into()).with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
