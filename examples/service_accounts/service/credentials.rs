//! `POST /credentials/{name}/revoke-tenant/{tenant}`: changes a credential's permissions.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::{Extension, Json};
use completeness::{Exempt, Problem, ProblemCode};
use serde::Serialize;

use super::auth::Caller;
use super::http::{no_body, store_problem};
use super::seed::TENANTS;
use super::state::AppState;
use super::store::storable;

/// A credential's permissions after the change.
#[derive(Debug, Clone, Serialize)]
pub struct Grant {
    /// The credential.
    pub credential: String,
    /// The tenants it can still read and write (at most the three tenants there are).
    pub tenants: Vec<String>,
    /// The new permission epoch: cursors and evidence issued under an older one are refused.
    pub permission_epoch: u64,
}

/// Why a grant carries no completeness block (also stated in the OpenAPI document).
pub const GRANT_EXEMPT: &str = "one credential's grant: at most the three tenants there are";

/// Removes `tenant` from credential `name` (admin only) and bumps its permission epoch.
pub async fn revoke_tenant(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    Path((name, tenant)): Path<(String, String)>,
    bytes: Bytes,
) -> Result<Exempt<Json<Grant>>, Problem> {
    no_body(&bytes)?;
    if !caller.is_admin() {
        return Err(Problem::new(ProblemCode::Forbidden, "only the admin credential may change permissions"));
    }
    if !TENANTS.contains(&tenant.as_str()) {
        return Err(Problem::new(
            ProblemCode::InvalidRequest,
            format!("unknown tenant '{tenant}'; tenants are {}", TENANTS.join(", ")),
        ));
    }
    let no_credential = || Problem::new(ProblemCode::NotFound, format!("no credential '{name}'"));
    // Answered here, not by the store, which would answer it without its database and have
    // that taken as a write the database accepted (ending a read-only outage in the log and the
    // gauge).
    if !storable(&name) {
        return Err(no_credential());
    }
    let changed = state.store.revoke_tenant(&name, &tenant).await.map_err(store_problem)?.ok_or_else(no_credential)?;
    let grant =
        Grant { credential: name, tenants: changed.tenants.into_iter().collect(), permission_epoch: changed.epoch };
    Ok(Exempt::new(Json(grant), GRANT_EXEMPT))
}
