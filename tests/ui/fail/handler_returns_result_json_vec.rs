use axum::Json;
use completeness::{Problem, completeness};

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Result<Json<Vec<String>>, Problem> {
    Ok(Json(vec![]))
}

fn main() {}
