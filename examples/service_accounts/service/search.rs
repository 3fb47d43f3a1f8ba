//! `GET /search?q=&tenant=&time_budget_ms=`: one query fanned out to `directory`, `audit` and `legacy`
//! within one time budget, merged by id, capped at the result limit.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::http::Uri;
use completeness::reason::{ResultLimitReached, SourceUnavailable, TimeBudgetExceeded, VisibilityRestricted};
use completeness::{
    Completeness, Envelope, Problem, ProblemCode, Progress, RequireComplete, Scope, StandardReason, Warning,
};
use tokio::task::JoinSet;

use super::auth::Caller;
use super::http::{param, query, tenant_param};
use super::sources::{Hit, SEARCH_SOURCES, SourceFailure};
use super::state::AppState;

/// What one source did within the budget.
enum Outcome {
    Answered(Vec<Hit>),
    Failed(SourceFailure),
    OutOfTime,
}

/// Reads `time_budget_ms`: absent → the default; 0, negative or not a number → 400 `INVALID_TIME_BUDGET`;
/// above the maximum → the maximum.
pub fn time_budget(state: &AppState, value: Option<&str>) -> Result<Duration, Problem> {
    let Some(text) = value else { return Ok(state.config.default_time_budget) };
    match text.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms).min(state.config.max_time_budget)),
        _ => Err(Problem::new(
            ProblemCode::InvalidTimeBudget,
            format!("time_budget_ms must be a positive number of milliseconds, got '{text}'"),
        )
        .with_extension("parameter", "time_budget_ms")),
    }
}

/// `GET /search`.
pub async fn search(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    require: RequireComplete,
    uri: Uri,
) -> Result<axum::response::Response, Problem> {
    let pairs = query(&uri, &["q", "tenant", "time_budget_ms", "require_complete"])?;
    let q = param(&pairs, "q").unwrap_or("");
    if q.is_empty() || q.len() > 100 {
        return Err(Problem::new(ProblemCode::InvalidRequest, "`q` must be 1-100 characters of the name to look for")
            .with_extension("parameter", "q"));
    }
    let requested_tenant = tenant_param(param(&pairs, "tenant"))?;
    let budget = time_budget(&state, param(&pairs, "time_budget_ms"))?;
    let (tenants, restricted) = caller.readable(requested_tenant.as_deref());
    let limit = state.config.result_limit;

    let deadline = tokio::time::Instant::now() + budget;
    let mut tasks = JoinSet::new();
    for index in 0..state.sources.len() {
        let (state, q, tenants) = (state.clone(), q.to_owned(), tenants.clone());
        tasks.spawn(async move {
            let source = &state.sources[index];
            let outcome = match tokio::time::timeout_at(deadline, source.search(&q, &tenants, limit + 1)).await {
                Ok(Ok(hits)) => Outcome::Answered(hits),
                Ok(Err(failure)) => Outcome::Failed(failure),
                Err(_) => Outcome::OutOfTime,
            };
            (index, outcome)
        });
    }
    let mut outcomes: Vec<Option<Outcome>> = (0..state.sources.len()).map(|_| None).collect();
    while let Some(joined) = tasks.join_next().await {
        if let Ok((index, outcome)) = joined {
            outcomes[index] = Some(outcome);
        }
    }

    let mut merged: BTreeMap<String, Hit> = BTreeMap::new();
    let mut overflow = false;
    let mut failed = Vec::new();
    let mut out_of_time = Vec::new();
    let mut audit_answered = false;
    for (index, outcome) in outcomes.into_iter().enumerate() {
        let name = state.sources[index].name();
        match outcome {
            Some(Outcome::Answered(hits)) => {
                audit_answered |= name == "audit";
                overflow |= hits.len() > limit;
                for hit in hits {
                    merged.entry(hit.id.clone()).or_insert(hit);
                }
            }
            Some(Outcome::Failed(failure)) => failed.push(failure.source),
            Some(Outcome::OutOfTime) => out_of_time.push(name),
            None => failed.push(name),
        }
    }
    overflow |= merged.len() > limit;
    let items: Vec<Hit> = merged.into_values().take(limit).collect();

    let mut scope = Scope::new("search", caller.visibility("records")).with_filter("q", q);
    if let Some(tenant) = &requested_tenant {
        scope = scope.with_filter("tenant", tenant.as_str());
    }
    let mut completeness: Completeness<StandardReason> = Completeness::complete(scope);
    if overflow {
        completeness.push_reason(ResultLimitReached::new(
            limit as u64,
            "use a longer part of the name in q, or add tenant=<north|south|east>",
        ));
    }
    for source in failed {
        completeness.push_reason(SourceUnavailable::new(source));
    }
    if !out_of_time.is_empty() {
        let slowest = out_of_time.iter().map(|name| state.config.delay_of(name)).max().unwrap_or_default();
        let progress = Progress {
            completed: (SEARCH_SOURCES.len() - out_of_time.len()) as u64,
            planned: Some(SEARCH_SOURCES.len() as u64),
            unit: "sources".to_owned(),
        };
        completeness.push_reason(
            TimeBudgetExceeded::new(budget.as_millis() as u64, progress)
                .retry_with_deadline(slowest.as_millis().div_ceil(1000).max(1) as u64),
        );
    }
    if restricted {
        completeness.push_reason(VisibilityRestricted::new());
    }
    if audit_answered {
        let index = state.audit().index_state();
        let current = state.store.current_snapshot().unwrap_or(index.observed);
        if index.observed < current {
            completeness.push_warning(Warning::stale_index(
                "audit",
                Some(&format!("r-{}", index.observed)),
                Some(&index.refreshed_at),
            ));
        }
    }
    Ok(require.apply(Envelope::new(items, completeness)))
}
