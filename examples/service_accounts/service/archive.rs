//! `POST /service-accounts/archive` `{"ids": [...], "evidence": "..."}`: the guarded destructive action.
//!
//! Only unowned accounts are archived, so the evidence must come from an `owner=none` inventory.
//! Every row of contract §6, decided before anything changes and applied in one transaction:
//! the evidence must be a verified token of a complete inventory of this resource, for this
//! credential, at a snapshot still retained; every id must have been in that inventory; and
//! every id must still match the inventory's filters at execution time.

use std::sync::Arc;

use axum::extract::State;
use axum::{Extension, Json};
use completeness::{Evidence, Exempt, Problem, ProblemCode, RequireEvidence};
use serde::{Deserialize, Serialize};

use super::auth::Caller;
use super::db::{ArchiveOutcome, Change, StoreError, parse_snapshot, snapshot_label};
use super::inventory::{InventoryQuery, RESOURCE};
use super::seed::{is_account_id, not_an_account_id};
use super::state::{AppState, Service};

/// The most ids one request may archive.
pub const MAX_TARGETS: usize = 1000;

/// Why an archive's answer carries no completeness block (also stated in the OpenAPI document).
pub const ARCHIVE_EXEMPT: &str = "exactly the ids the request named, every one of them archived";

/// The body besides `evidence`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveRequest {
    /// The accounts to archive.
    pub ids: Vec<String>,
}

/// What an archive did.
#[derive(Debug, Clone, Serialize)]
pub struct Archived {
    /// The ids archived: exactly the ids the request named.
    pub archived: Vec<String>,
    /// The snapshot that holds the change.
    pub snapshot: String,
}

fn evidence_invalid(detail: &str) -> Problem {
    Problem::new(ProblemCode::EvidenceInvalid, format!("The evidence was refused: {detail}."))
}

/// Archives the named accounts, or refuses atomically.
pub async fn archive(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    RequireEvidence { evidence, body }: RequireEvidence<ArchiveRequest>,
) -> Result<Exempt<Json<Archived>>, Problem> {
    let done = archive_with(&state, &caller, &evidence, body.ids).await?;
    Ok(Exempt::new(Json(done), ARCHIVE_EXEMPT))
}

/// Archives `ids` on the strength of `evidence`, or refuses atomically: what
/// `POST /service-accounts/archive` and the MCP tool `archive_service_accounts` do.
pub async fn archive_with(
    state: &Service,
    caller: &Caller,
    evidence: &Evidence,
    ids: Vec<String>,
) -> Result<Archived, Problem> {
    let body = ArchiveRequest { ids };
    if body.ids.is_empty() || body.ids.len() > MAX_TARGETS {
        return Err(Problem::new(ProblemCode::InvalidBody, format!("`ids` must name 1 to {MAX_TARGETS} accounts")));
    }
    if let Some((at, id)) = body.ids.iter().enumerate().find(|(_, id)| !is_account_id(id)) {
        return Err(Problem::new(ProblemCode::InvalidBody, format!("`ids[{at}]`: {}", not_an_account_id(id))));
    }
    if let Some(twice) = body.ids.iter().enumerate().find(|(i, id)| body.ids[..*i].contains(id)).map(|(_, id)| id) {
        return Err(Problem::new(ProblemCode::InvalidBody, format!("`ids` names '{twice}' twice")));
    }
    evidence.require_resource(RESOURCE)?;
    // Archiving is the cleanup of unowned accounts: only an inventory of unowned accounts proves a target may go.
    evidence.require_filter("owner", "none")?;
    let inventory = InventoryQuery::from_echo(evidence.filters())
        .ok_or_else(|| evidence_invalid("its filters are not this inventory's"))?;
    let snapshot = evidence
        .snapshot()
        .and_then(parse_snapshot)
        .ok_or_else(|| evidence_invalid("it names no snapshot of this inventory"))?;
    let (filter, restricted) = inventory.filter_for(caller);
    if restricted {
        // Evidence is only issued on complete responses, so this credential read the whole scope then.
        return Err(evidence_invalid("this credential cannot read the whole scope it covers"));
    }
    let retained = super::http::snapshot_retained(&state.store, snapshot).await?;
    evidence.ensure_retained(|_| retained)?;
    let by = caller.grantee();
    let (outcome, archived) = match state.store.archive(&by, snapshot, &filter, &filter, &body.ids).await {
        Ok(done) => done,
        Err(StoreError::SnapshotGone(_)) => {
            return Err(Problem::new(
                ProblemCode::EvidenceExpired,
                format!("The snapshot {} of this evidence is no longer retained.", snapshot_label(snapshot)),
            ));
        }
        Err(other) => return Err(super::http::store_problem(other)),
    };
    match outcome {
        ArchiveOutcome::NotInEvidence(missing) => {
            // `missing` is never empty here, so the check always refuses, listing them.
            let refused = evidence.check_targets(missing.iter().map(String::as_str), |_| false).err();
            Err(refused.unwrap_or_else(|| Problem::new(ProblemCode::TargetNotInEvidence, "targets not in evidence")))
        }
        ArchiveOutcome::Changed(changed) => Err(Evidence::targets_changed(changed.iter().map(String::as_str))),
        ArchiveOutcome::PermissionsChanged => Err(Problem::new(
            ProblemCode::EvidenceCredentialMismatch,
            "This credential's permissions changed while the archive was waiting; nothing has been archived. \
             Take the inventory again with the permissions it has now.",
        )),
        ArchiveOutcome::Archived(at) => {
            for account in archived {
                state.propagate(&Change::Updated(account), at);
            }
            Ok(Archived { archived: body.ids, snapshot: snapshot_label(at) })
        }
    }
}
