//! `GET /search?q=&tenant=&time_budget_ms=`: one query fanned out to `directory`, `audit` and `legacy`
//! within one time budget, merged by id, capped at the result limit.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::Uri;
use completeness::fanout::{FanOut, SourceOutcome};
use completeness::reason::{ResultLimitReached, VisibilityRestricted};
use completeness::warning::StaleIndex;
use completeness::{Completeness, Envelope, Problem, ProblemCode, Scope, TimeBudget, completeness};

use super::account::fits_names;
use super::auth::Caller;
use super::http::{param, read_query, tenant_param};
use super::sources::{Hit, IndexState};
use super::state::{AppState, Service};

/// `GET /search`.
#[completeness(
    resource = "search_results",
    reasons(ResultLimitReached, SourceUnavailable, TimeBudgetExceeded, VisibilityRestricted),
    warnings(StaleIndex)
)]
pub async fn search(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    budget: TimeBudget,
    uri: Uri,
) -> Result<Envelope<Hit, SearchReason>, Problem> {
    let pairs = read_query(&uri, &["q", "tenant", "time_budget_ms", "require_complete"])?;
    search_records(&state, &caller, param(&pairs, "q").unwrap_or(""), param(&pairs, "tenant"), &budget).await
}

/// The merged hits for `q` (in `tenant`, when named) read by `caller` within `budget`: what
/// `GET /search` and the MCP tool `search_service_accounts` answer.
pub async fn search_records(
    state: &Service,
    caller: &Caller,
    q: &str,
    tenant: Option<&str>,
    budget: &TimeBudget,
) -> Result<Envelope<Hit, SearchReason>, Problem> {
    // A `q` no name can contain would be answered "0 results, complete": true of the question
    // as asked, and read as "no such account" by a client that sent `SVC-North` or a name with
    // a blank around it. Refused, saying how names are written.
    if !fits_names(q) {
        let mut detail = "`q` is part of an account name: 1-64 lower-case letters, digits and '-' \
                          (the match is case-sensitive, and names hold no other character)."
            .to_owned();
        let written = q.trim().to_ascii_lowercase();
        if written != q && fits_names(&written) {
            detail.push_str(&format!(" Search for `{written}`."));
        }
        return Err(Problem::new(ProblemCode::InvalidRequest, detail).with_parameter("q"));
    }
    let requested_tenant = tenant_param(tenant)?;
    let (tenants, restricted) = caller.readable(requested_tenant.as_deref());
    let limit = state.config.result_limit;
    // How fresh each copy is, read before it is asked and again after: a copy replaced in
    // between (by the refresh task, as of a snapshot read before a write went through to it)
    // must not lend either freshness to hits read from the other state.
    let freshness: Vec<IndexState> = state.sources.iter().map(|source| source.index_state()).collect();
    // The store's current snapshot, read while the sources are asked, so that the answer can
    // say whether each copy was current (below). Read apart, in a task of its own: when the
    // budget is spent before it arrives, the search goes on without it, and the read finishes
    // within the store's own bound, its connection handled as the store handles it.
    let current = tokio::spawn({
        let store = Arc::clone(&state.store);
        async move { store.current_snapshot().await }
    });
    // Each source is asked for one more hit than the cap: that extra hit proves the cap was reached.
    let fan_out = state.sources.iter().fold(FanOut::new(), |fan_out, source| {
        fan_out.source(source.name(), Arc::clone(source).search(q.to_owned(), tenants.clone(), limit.saturating_add(1)))
    });
    let result = fan_out.run(budget).await;
    // Why a source failed stays on the server (the answer says `SOURCE_UNAVAILABLE`, and the
    // request's event its reasons): said here, in the request's span, for the operator.
    for report in result.sources() {
        if let SourceOutcome::Failed(failure) = &report.outcome {
            tracing::info!(source = failure.source, cause = %failure.detail, "a search source failed");
        }
    }
    // Hits of several sources may name the same account: the cap counts accounts.
    let distinct: BTreeSet<&str> = result.items().iter().map(|hit| hit.id.as_str()).collect();
    let overflow = distinct.len() > limit
        || result.sources().iter().any(|r| matches!(r.outcome, SourceOutcome::Answered(n) if n > limit));
    let answered: Vec<String> = result
        .sources()
        .iter()
        .filter(|report| matches!(report.outcome, SourceOutcome::Answered(_)))
        .map(|report| report.source.clone())
        .collect();

    let mut scope = Scope::new("search_results", caller.visibility("records")).with_filter("q", q);
    if let Some(tenant) = &requested_tenant {
        scope = scope.with_filter("tenant", tenant.as_str());
    }
    let mut completeness: Completeness<SearchReason> = Completeness::complete(scope);
    if overflow {
        completeness.push_reason(ResultLimitReached::new(
            limit as u64,
            "use a longer part of the name in q, or add tenant=<north|south|east>",
        ));
    }
    let mut merged: BTreeMap<String, Hit> = BTreeMap::new();
    for hit in result.report_into(&mut completeness) {
        merged.entry(hit.id.clone()).or_insert(hit);
    }
    let items: Vec<Hit> = merged.into_values().take(limit).collect();
    if restricted {
        completeness.push_reason(VisibilityRestricted::new());
    }
    // A copy that was not current when asked may miss a write (the lagging `audit` index; a
    // write-through copy that missed a write made through another replica; one of a database
    // that took another's place since): it says so. The current snapshot is waited for within
    // what is left of the budget, since the search stops work when its budget is spent
    // (contract §5.2); a store that has not answered by then leaves it unknown: possibly stale.
    if !answered.is_empty() {
        let current =
            tokio::time::timeout(budget.remaining(), current).await.ok().and_then(Result::ok).and_then(Result::ok);
        for (source, before) in state.sources.iter().zip(&freshness) {
            if !answered.iter().any(|name| name == source.name()) {
                continue;
            }
            let after = source.index_state();
            let index = if after.observed < before.observed { &after } else { before };
            if current.is_none_or(|current| before.observed != current || after.observed != current) {
                completeness.push_warning(
                    StaleIndex::new(source.name())
                        .observed_revision(format!("r-{}", index.observed))
                        .refreshed_at(index.refreshed_at.clone()),
                );
            }
        }
    }
    Ok(Envelope::new(items, completeness))
}
