// The macro reads the error side as written; behind an alias, the type-level check of the
// error side catches a list (a 200 without completeness metadata) and an envelope over another
// reason type than the declared one (its block reports undeclared reasons).
use axum::Json;
use completeness::{Envelope, Problem, completeness};

type Accounts = Json<Vec<String>>;
type Fallback = Envelope<String>;
type ApiResult<T> = Result<T, Accounts>;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_a_list_error() -> Result<Envelope<String, ListWithAListErrorReason>, Accounts> {
    Err(Json(vec![]))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_an_aliased_result() -> ApiResult<Envelope<String, ListWithAnAliasedResultReason>> {
    Err(Json(vec![]))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_another_envelope() -> Result<Envelope<String, ListWithAnotherEnvelopeReason>, Fallback> {
    Err(Envelope::complete(vec![], completeness::Scope::new("service_accounts", "all")))
}

// Each of these passes: an error type, a problem, an envelope over the declared reasons.
#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_a_problem() -> Result<Envelope<String, ListWithAProblemReason>, Problem> {
    Err(Problem::new(completeness::ProblemCode::Internal, "the store is down"))
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_with_a_declared_envelope(
) -> Result<Envelope<String, ListWithADeclaredEnvelopeReason>, Envelope<String, ListWithADeclaredEnvelopeReason>> {
    Err(Envelope::complete(vec![], completeness::Scope::new("service_accounts", "all")))
}

fn main() {}
