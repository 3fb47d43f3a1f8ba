//! `Result<Envelope, Problem>` from an annotated handler routes with `post` and `get`.

use axum::Router;
use completeness::routing::{get, post};
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, Problem, ProblemCode, Scope, completeness};

#[completeness(resource = "service_accounts", reasons(ResultLimitReached, TimeBudgetExceeded))]
async fn search_accounts() -> Result<Envelope<String, SearchAccountsReason>, Problem> {
    if false {
        return Err(Problem::new(ProblemCode::InvalidRequest, "q is required"));
    }
    Ok(Envelope::complete(vec![], Scope::new("service_accounts", "every account")))
}

fn main() {
    let _app: Router = Router::new()
        .route("/search", get(search_accounts).into())
        .route("/search", post(search_accounts).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
    assert_eq!(SearchAccountsReason::ALL.len(), 2);
}
