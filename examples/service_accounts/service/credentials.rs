//! `POST /credentials/{name}/revoke-tenant/{tenant}`: changes a credential's permissions.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::{Extension, Json};
use completeness::{Exempt, Problem, ProblemCode};
use serde::Serialize;

use super::auth::Caller;
use super::seed::TENANTS;
use super::state::AppState;

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

/// Removes `tenant` from credential `name` (admin only) and bumps its permission epoch.
pub async fn revoke_tenant(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    Path((name, tenant)): Path<(String, String)>,
) -> Result<Exempt<Json<Grant>>, Problem> {
    if !caller.is_admin() {
        return Err(Problem::new(ProblemCode::Forbidden, "only the admin credential may change permissions"));
    }
    if !TENANTS.contains(&tenant.as_str()) {
        return Err(Problem::new(
            ProblemCode::InvalidRequest,
            format!("unknown tenant '{tenant}'; tenants are {}", TENANTS.join(", ")),
        ));
    }
    let changed = state
        .credentials
        .revoke_tenant(&name, &tenant)
        .ok_or_else(|| Problem::new(ProblemCode::NotFound, format!("no credential '{name}'")))?;
    let grant = Grant {
        credential: changed.name,
        tenants: changed.tenants.into_iter().collect(),
        permission_epoch: changed.epoch,
    };
    Ok(Exempt::new(Json(grant), "one credential's grant: at most the three tenants there are"))
}
