//! The inventory: `GET /service-accounts` (paginated at a snapshot) and `GET /service-accounts/count`.

use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::Uri;
use completeness::reason::VisibilityRestricted;
use completeness::{
    Aggregate, Completeness, Envelope, PageRequest, Problem, ProblemCode, QueryBinding, Relation, Scope, completeness,
};
use serde_json::Value;

use super::auth::Caller;
use super::db::{Filter, ListItem, OwnerFilter, Snapshot, parse_snapshot, snapshot_label};
use super::http::{param, read_query, snapshot_retained, store_problem, tenant_param};
use super::state::{AppState, Service};

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
            Some(owner) if super::account::is_owner_name(owner) => OwnerFilter::Is(owner.to_owned()),
            Some(_) => {
                return Err(Problem::new(
                    ProblemCode::InvalidRequest,
                    "`owner` must be `none` or an owner's name (1-64 characters of a-z, 0-9 and '-', starting with a letter)",
                )
                .with_parameter("owner"));
            }
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

    /// The scope of a response read by `caller`, at `snapshot` when known. Its visibility says
    /// that archived accounts are left out, as every list and count leaves them out (while
    /// `GET /service-accounts/{id}` and the search still show one): an empty answer is absence
    /// of unarchived accounts only.
    pub fn scope(&self, caller: &Caller, snapshot: Option<Snapshot>) -> Scope {
        let mut scope = Scope::new(RESOURCE, caller.visibility("unarchived service accounts"));
        scope.snapshot = snapshot.map(snapshot_label);
        for (name, value) in self.echo() {
            scope = scope.with_filter(name, value);
        }
        scope
    }
}

/// `GET /service-accounts/count?owner=&tenant=`: exact when the credential reads the whole scope,
/// a lower bound otherwise.
#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
pub async fn count_service_accounts(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    uri: Uri,
) -> Result<Aggregate<u64, CountServiceAccountsReason>, Problem> {
    let pairs = read_query(&uri, &["owner", "tenant", "require_complete"])?;
    count(&state, &caller, &InventoryQuery::parse(&pairs)?).await
}

/// The count of `request` read by `caller`: what `GET /service-accounts/count` and the MCP tool
/// `count_service_accounts` answer.
pub async fn count(
    state: &Service,
    caller: &Caller,
    request: &InventoryQuery,
) -> Result<Aggregate<u64, CountServiceAccountsReason>, Problem> {
    let (filter, restricted) = request.filter_for(caller);
    let snapshot = state.store.current_snapshot().await.map_err(store_problem)?;
    let count = state.store.count(snapshot, &filter).await.map_err(store_problem)?;
    let mut completeness = Completeness::complete(request.scope(caller, Some(snapshot)));
    if restricted {
        completeness.push_reason(VisibilityRestricted::new());
    }
    Ok(Aggregate::count(count, Relation::Exact, completeness))
}

/// `GET /service-accounts?owner=&tenant=&page_size=&cursor=&require_complete=`: keyset pages at a snapshot.
///
/// The first page pins the current snapshot; every later page reads at the cursor's snapshot,
/// so inserts, deletes and owner changes in between neither add, drop nor repeat an item. The
/// last page of a traversal that covered the whole requested scope carries evidence.
#[completeness(
    resource = "service_accounts",
    reasons(MorePagesAvailable, VisibilityRestricted),
    warnings(PageSizeReduced)
)]
pub async fn list_service_accounts(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    request: PageRequest,
    uri: Uri,
) -> Result<Envelope<ListItem, ListServiceAccountsReason>, Problem> {
    let pairs = read_query(&uri, &["owner", "tenant", "page_size", "cursor", "require_complete"])?;
    list_page(&state, &caller, &request, &InventoryQuery::parse(&pairs)?).await
}

/// The page of `inventory` that `request` asks for, read by `caller`: what `GET /service-accounts`
/// and the MCP tool `list_service_accounts` answer.
pub async fn list_page(
    state: &Service,
    caller: &Caller,
    request: &PageRequest,
    inventory: &InventoryQuery,
) -> Result<Envelope<ListItem, ListServiceAccountsReason>, Problem> {
    let (filter, restricted) = inventory.filter_for(caller);
    let scope = inventory.scope(caller, None);
    let mut page = request.bind(QueryBinding::for_scope(&scope, ORDERING))?;
    let current = state.store.current_snapshot().await.map_err(store_problem)?;
    let snapshot =
        parse_snapshot(page.pin_snapshot(snapshot_label(current))).ok_or_else(|| page.unreadable_position())?;
    // A resumed page reads at its cursor's snapshot, which may have been pruned since; a first
    // page reads at the current one, which is always retained.
    if !page.is_first_page() {
        let retained = snapshot_retained(&state.store, snapshot).await?;
        page.ensure_retained(|_| retained)?;
    }
    let rows = state.store.page(snapshot, page.position(), &filter, page.fetch_size()).await.map_err(store_problem)?;
    // Said before the cursor is signed, so that it carries the mark: no page of a traversal the
    // filter made partial gets evidence, this one or a later one.
    if restricted {
        page.mark_partial();
    }
    let mut envelope: Envelope<ListItem, ListServiceAccountsReason> = page.envelope(scope, rows, |row| row.id.clone());
    if restricted {
        envelope.completeness.push_reason(VisibilityRestricted::new());
    }
    page.attach_evidence(&mut envelope.completeness);
    Ok(envelope)
}
