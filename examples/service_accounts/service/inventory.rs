//! The inventory: `GET /service-accounts` (paginated at a snapshot) and `GET /service-accounts/count`.

use axum::Extension;
use axum::extract::State;
use axum::http::Uri;
use completeness::reason::VisibilityRestricted;
use completeness::{Aggregate, Completeness, Problem, ProblemCode, Relation, RequireComplete, Scope, StandardReason};
use serde_json::Value;

use super::auth::Caller;
use super::db::{Filter, OwnerFilter, Snapshot, snapshot_label};
use super::http::{param, query, store_problem, tenant_param};
use super::state::AppState;

/// The resource name in every inventory scope.
pub const RESOURCE: &str = "service_accounts";

/// The total ordering of the inventory.
pub const ORDERING: &str = "id ascending";

/// The filters of an inventory request, as asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryQuery {
    /// `owner=none` or `owner=NAME`.
    pub owner: OwnerFilter,
    /// `tenant=`.
    pub tenant: Option<String>,
}

impl InventoryQuery {
    /// Reads `owner` and `tenant`.
    pub fn parse(pairs: &[(String, String)]) -> Result<InventoryQuery, Problem> {
        let owner = match param(pairs, "owner") {
            None => OwnerFilter::Any,
            Some("none") => OwnerFilter::Unowned,
            Some("") => {
                return Err(Problem::new(ProblemCode::InvalidRequest, "`owner` must be `none` or an owner's name")
                    .with_extension("parameter", "owner"));
            }
            Some(owner) => OwnerFilter::Is(owner.to_owned()),
        };
        Ok(InventoryQuery { owner, tenant: tenant_param(param(pairs, "tenant"))? })
    }

    /// The filters as `scope.filters` echoes them (and as cursors and evidence bind them).
    pub fn echo(&self) -> Vec<(&'static str, Value)> {
        let mut filters = Vec::new();
        match &self.owner {
            OwnerFilter::Any => {}
            OwnerFilter::Unowned => filters.push(("owner", Value::from("none"))),
            OwnerFilter::Is(owner) => filters.push(("owner", Value::from(owner.as_str()))),
        }
        if let Some(tenant) = &self.tenant {
            filters.push(("tenant", Value::from(tenant.as_str())));
        }
        filters
    }

    /// Rebuilds the query from echoed filters (an evidence token's).
    pub fn from_echo(filters: &serde_json::Map<String, Value>) -> Option<InventoryQuery> {
        if filters.keys().any(|k| k != "owner" && k != "tenant") {
            return None;
        }
        let owner = match filters.get("owner") {
            None => OwnerFilter::Any,
            Some(Value::String(o)) if o == "none" => OwnerFilter::Unowned,
            Some(Value::String(o)) => OwnerFilter::Is(o.clone()),
            Some(_) => return None,
        };
        let tenant = match filters.get("tenant") {
            None => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(_) => return None,
        };
        Some(InventoryQuery { owner, tenant })
    }

    /// The rows `caller` may read under these filters, and whether part of the requested scope is hidden.
    pub fn filter_for(&self, caller: &Caller) -> (Filter, bool) {
        let (tenants, restricted) = caller.readable(self.tenant.as_deref());
        (Filter { owner: self.owner.clone(), tenants }, restricted)
    }

    /// The scope of a response read by `caller` at `snapshot`.
    pub fn scope(&self, caller: &Caller, snapshot: Snapshot) -> Scope {
        let mut scope =
            Scope::new(RESOURCE, caller.visibility("service accounts")).with_snapshot(snapshot_label(snapshot));
        for (name, value) in self.echo() {
            scope = scope.with_filter(name, value);
        }
        scope
    }
}

/// `GET /service-accounts/count?owner=&tenant=`: exact when the credential reads the whole scope,
/// a lower bound otherwise.
pub async fn count(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    require: RequireComplete,
    uri: Uri,
) -> Result<axum::response::Response, Problem> {
    let pairs = query(&uri, &["owner", "tenant", "require_complete"])?;
    let request = InventoryQuery::parse(&pairs)?;
    let (filter, restricted) = request.filter_for(&caller);
    let snapshot = state.store.current_snapshot().map_err(store_problem)?;
    let count = state.store.count(snapshot, &filter).map_err(store_problem)?;
    let mut completeness: Completeness<StandardReason> = Completeness::complete(request.scope(&caller, snapshot));
    if restricted {
        completeness.push_reason(VisibilityRestricted::new());
    }
    Ok(require.apply(Aggregate::count(count, Relation::Exact, completeness)))
}

/// `GET /service-accounts?owner=&tenant=&page_size=&cursor=&require_complete=`: keyset pages at a snapshot.
///
/// The first page pins the current snapshot; every later page reads at the cursor's snapshot,
/// so inserts, deletes and owner changes in between neither add, drop nor repeat an item.
pub async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    require: RequireComplete,
    uri: Uri,
) -> Result<axum::response::Response, Problem> {
    let pairs = query(&uri, &["owner", "tenant", "page_size", "cursor", "require_complete"])?;
    let request = InventoryQuery::parse(&pairs)?;
    let binding = serde_json::to_string(&request.echo()).unwrap_or_default();
    let paging = state.cursors.read(
        param(&pairs, "page_size"),
        param(&pairs, "cursor"),
        &binding,
        &caller,
        state.config.default_page_size,
        state.config.max_page_size,
    )?;
    let (filter, restricted) = request.filter_for(&caller);
    let (snapshot, after) = match &paging.resume {
        Some((snapshot, after)) => (*snapshot, Some(after.as_str())),
        None => (state.store.current_snapshot().map_err(store_problem)?, None),
    };
    let mut items = state.store.page(snapshot, after, &filter, paging.applied + 1).map_err(store_problem)?;
    let more = items.len() > paging.applied as usize;
    items.truncate(paging.applied as usize);

    let mut completeness: Completeness<StandardReason> = Completeness::complete(request.scope(&caller, snapshot));
    let mut contract = None;
    if more && let Some(last) = items.last() {
        let (cursor, terms) = state.cursors.issue(&binding, &caller, snapshot, &last.id);
        completeness.push_reason(completeness::reason::MorePagesAvailable::new(cursor));
        contract = Some(terms);
    }
    if restricted {
        completeness.push_reason(VisibilityRestricted::new());
    }
    if let Some(warning) = paging.warning {
        completeness.push_warning(warning);
    }
    completeness.set_page(Some(completeness::PageInfo {
        returned: items.len() as u64,
        requested_size: paging.requested,
        applied_size: u64::from(paging.applied),
        ordering: ORDERING.to_owned(),
        snapshot: Some(snapshot_label(snapshot)),
        cursor: contract,
    }));
    Ok(require.apply(completeness::Envelope::new(items, completeness)))
}
