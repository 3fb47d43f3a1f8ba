//! Fan-out: query several named sources concurrently within one time budget and merge
//! what they return, honestly.
//!
//! A source that fails yields `SOURCE_UNAVAILABLE {source}`; sources still running when
//! the budget is spent are cancelled and yield one `TIME_BUDGET_EXCEEDED` with progress
//! `{completed, planned, unit: "sources"}` (`completed` counts the sources that answered).
//! Items that did arrive are kept, in the order the sources were declared, each source's
//! after the one before: sources that overlap give an item once per source that has it, so
//! de-duplicate the items `report_into` hands out when they may. The merged result is
//! complete only when every source answered in time. [`FanOut::retry_failed_after`] gives
//! each `SOURCE_UNAVAILABLE` the `retry_after` continuation (contract §3.2) when the service
//! knows when a failed source is worth asking again.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use completeness_runtime::{Completeness, Scope, StandardReason};
//! use completeness_runtime::budget::TimeBudget;
//! use completeness_runtime::fanout::FanOut;
//!
//! let budget = TimeBudget::new(Duration::from_millis(50), Duration::from_secs(1));
//! let result = FanOut::new()
//!     .source("directory", async { Ok::<_, String>(vec!["svc-north-00042"]) })
//!     .source("legacy", async { Err("connection refused".to_owned()) })
//!     .run(&budget)
//!     .await;
//! let mut completeness: Completeness<StandardReason> = Completeness::complete(Scope::new("search", "all records"));
//! let items = result.report_into(&mut completeness);
//! assert_eq!(items, ["svc-north-00042"]);
//! assert!(!completeness.is_complete());
//! # });
//! ```
//!
//! Sources run concurrently on the calling task (no spawning, so they may borrow);
//! wrap blocking work (e.g. a SQLite query) in `tokio::task::spawn_blocking`.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{Progress, Reason, SourceUnavailable, TimeBudgetExceeded};
use crate::contract::scope::Scope;
use crate::server::budget::TimeBudget;

type SourceFuture<'a, T, E> = Pin<Box<dyn Future<Output = Result<Vec<T>, E>> + Send + 'a>>;

/// A set of named sources to query concurrently.
pub struct FanOut<'a, T, E> {
    sources: Vec<(String, SourceFuture<'a, T, E>)>,
    retry_after: Option<u64>,
}

impl<T, E> std::fmt::Debug for FanOut<'_, T, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FanOut").field("sources", &self.sources.iter().map(|(n, _)| n).collect::<Vec<_>>()).finish()
    }
}

impl<T, E> Default for FanOut<'_, T, E> {
    fn default() -> Self {
        FanOut { sources: Vec::new(), retry_after: None }
    }
}

/// What happened to one source.
#[derive(Debug)]
pub enum SourceOutcome<E> {
    /// It answered with this many items.
    Answered(usize),
    /// It failed with this error (reported as `SOURCE_UNAVAILABLE`; the error itself
    /// stays on the server).
    Failed(E),
    /// It was still running when the budget was spent, and was cancelled.
    OutOfBudget,
}

/// One source's name and outcome.
#[derive(Debug)]
pub struct SourceReport<E> {
    /// The stable source id.
    pub source: String,
    /// What happened.
    pub outcome: SourceOutcome<E>,
}

/// The merged items and each source's outcome. The items are handed out owned only with the
/// outcomes reported ([`FanOutResult::report_into`], [`FanOutResult::into_envelope`]): build
/// the answer from those. [`FanOutResult::items`] lends them to look at, and nothing stops a
/// copy of that slice from going out as complete with a failed source left unsaid; the type
/// makes the honest path the short one, it cannot forbid the other.
#[derive(Debug)]
#[must_use = "a failed or late source is a reason: report it with `report_into` or `into_envelope`"]
pub struct FanOutResult<T, E> {
    items: Vec<T>,
    sources: Vec<SourceReport<E>>,
    budget: TimeBudget,
    retry_after: Option<u64>,
}

impl<'a, T: Send + 'a, E: Send + 'a> FanOut<'a, T, E> {
    /// No sources yet.
    pub fn new() -> Self {
        FanOut::default()
    }

    /// Adds source `name` (a stable id, reported in `SOURCE_UNAVAILABLE`) queried by `query`.
    pub fn source<F>(mut self, name: impl Into<String>, query: F) -> Self
    where
        F: Future<Output = Result<Vec<T>, E>> + Send + 'a,
    {
        self.sources.push((name.into(), Box::pin(query)));
        self
    }

    /// Each `SOURCE_UNAVAILABLE` of a failed source offers `retry_after` `seconds` (contract
    /// §3.2): say it when the service knows a failed source is worth asking again then.
    pub fn retry_failed_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// Runs every source concurrently until all answered or `budget` is spent.
    pub async fn run(self, budget: &TimeBudget) -> FanOutResult<T, E> {
        let (names, futures): (Vec<String>, Vec<SourceFuture<'a, T, E>>) = self.sources.into_iter().unzip();
        let mut running: Vec<Option<SourceFuture<'a, T, E>>> = futures.into_iter().map(Some).collect();
        let mut results: Vec<Option<Result<Vec<T>, E>>> = running.iter().map(|_| None).collect();
        let mut deadline = std::pin::pin!(tokio::time::sleep_until(budget.deadline()));
        std::future::poll_fn(|cx| {
            let mut pending = 0;
            for (slot, result) in running.iter_mut().zip(results.iter_mut()) {
                if let Some(future) = slot {
                    match future.as_mut().poll(cx) {
                        Poll::Ready(answer) => {
                            *result = Some(answer);
                            *slot = None;
                        }
                        Poll::Pending => pending += 1,
                    }
                }
            }
            if pending == 0 || deadline.as_mut().poll(cx).is_ready() { Poll::Ready(()) } else { Poll::Pending }
        })
        .await;
        drop(running); // cancels the sources that ran out of budget
        let mut items = Vec::new();
        let mut sources = Vec::with_capacity(names.len());
        for (source, result) in names.into_iter().zip(results) {
            let outcome = match result {
                Some(Ok(found)) => {
                    let count = found.len();
                    items.extend(found);
                    SourceOutcome::Answered(count)
                }
                Some(Err(error)) => SourceOutcome::Failed(error),
                None => SourceOutcome::OutOfBudget,
            };
            sources.push(SourceReport { source, outcome });
        }
        FanOutResult { items, sources, budget: *budget, retry_after: self.retry_after }
    }
}

impl<T, E> FanOutResult<T, E> {
    /// The items that arrived, in source order, to look at before reporting (e.g. to tell whether
    /// a cap was reached); [`FanOutResult::report_into`] hands them out.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Each source's outcome, in declaration order.
    pub fn sources(&self) -> &[SourceReport<E>] {
        &self.sources
    }

    /// True only when every source answered within the budget.
    pub fn is_complete(&self) -> bool {
        self.sources.iter().all(|s| matches!(s.outcome, SourceOutcome::Answered(_)))
    }

    /// `{completed, planned, unit: "sources"}`: how many sources answered, of how many.
    pub fn progress(&self) -> Progress {
        let answered = self.sources.iter().filter(|s| matches!(s.outcome, SourceOutcome::Answered(_))).count();
        Progress { completed: answered as u64, planned: Some(self.sources.len() as u64), unit: "sources".to_owned() }
    }

    /// One `SOURCE_UNAVAILABLE` per failed source, in declaration order, with the
    /// [`FanOut::retry_failed_after`] continuation when one was given.
    pub fn unavailable(&self) -> Vec<SourceUnavailable> {
        self.sources
            .iter()
            .filter(|s| matches!(s.outcome, SourceOutcome::Failed(_)))
            .map(|s| {
                let reason = SourceUnavailable::new(s.source.clone());
                match self.retry_after {
                    Some(seconds) => reason.retry_after(seconds),
                    None => reason,
                }
            })
            .collect()
    }

    /// `TIME_BUDGET_EXCEEDED` with the progress, when a source ran out of budget.
    pub fn budget_exceeded(&self) -> Option<TimeBudgetExceeded> {
        self.sources
            .iter()
            .any(|s| matches!(s.outcome, SourceOutcome::OutOfBudget))
            .then(|| self.budget.exceeded(self.progress()))
    }

    /// Pushes the reasons on `completeness` (unavailable sources, then the budget) and hands out
    /// the items.
    pub fn report_into<R>(self, completeness: &mut Completeness<R>) -> Vec<T>
    where
        R: Reason + From<SourceUnavailable> + From<TimeBudgetExceeded>,
    {
        for reason in self.unavailable() {
            completeness.push_reason(reason);
        }
        if let Some(reason) = self.budget_exceeded() {
            completeness.push_reason(reason);
        }
        self.items
    }

    /// The envelope of the merged items over `scope`, with the reasons.
    pub fn into_envelope<R>(self, scope: Scope) -> Envelope<T, R>
    where
        R: Reason + From<SourceUnavailable> + From<TimeBudgetExceeded>,
    {
        let mut completeness = Completeness::complete(scope);
        let items = self.report_into(&mut completeness);
        Envelope::new(items, completeness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StandardReason;
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap()
    }

    #[test]
    fn sources_run_concurrently_and_items_keep_declaration_order() {
        runtime().block_on(async {
            let budget = TimeBudget::new(Duration::from_secs(5), Duration::from_secs(5));
            // `second` answers first; `first` waits for it: only concurrent polling finishes.
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let result = FanOut::<u8, &str>::new()
                .source("first", async move {
                    rx.await.map_err(|_| "dropped")?;
                    Ok(vec![1, 2])
                })
                .source("second", async move {
                    tx.send(()).map_err(|_| "closed")?;
                    Ok(vec![3])
                })
                .run(&budget)
                .await;
            assert!(result.is_complete());
            assert_eq!(result.items(), [1, 2, 3]);
            assert_eq!(result.progress().completed, 2);
        });
    }

    #[test]
    fn a_spent_budget_keeps_arrived_items_and_reports_progress() {
        runtime().block_on(async {
            let budget = TimeBudget::new(Duration::from_millis(5), Duration::from_secs(1));
            let result = FanOut::new()
                .source("fast", async { Ok::<_, ()>(vec!["a"]) })
                .source("stuck", std::future::pending())
                .source("down", async { Err(()) })
                .run(&budget)
                .await;
            assert!(!result.is_complete());
            assert_eq!(result.items(), ["a"]);
            assert!(matches!(result.sources()[1].outcome, SourceOutcome::OutOfBudget));
            let envelope: Envelope<&str, StandardReason> = result.into_envelope(Scope::new("search", "all"));
            let json = serde_json::to_value(&envelope).unwrap();
            assert_eq!(json["incomplete_reasons"][0]["source"], "down");
            assert_eq!(
                json["incomplete_reasons"][1]["progress"],
                serde_json::json!({"completed": 1, "planned": 3, "unit": "sources"})
            );
        });
    }

    #[test]
    fn no_sources_is_a_complete_empty_result() {
        runtime().block_on(async {
            let budget = TimeBudget::new(Duration::from_millis(5), Duration::from_secs(1));
            let result = FanOut::<u8, ()>::new().run(&budget).await;
            assert!(result.is_complete() && result.items().is_empty());
        });
    }

    /// Every source failed: incomplete and empty, one `SOURCE_UNAVAILABLE` per source, each
    /// offering the retry the service gave, which becomes the answer's continuation (R6).
    #[test]
    fn failed_sources_offer_the_retry_the_service_gave() {
        runtime().block_on(async {
            let budget = TimeBudget::new(Duration::from_secs(1), Duration::from_secs(1));
            let failing = || {
                FanOut::<u8, &str>::new().source("east", async { Err("down") }).source("west", async { Err("down") })
            };
            let envelope: Envelope<u8, StandardReason> =
                failing().retry_failed_after(30).run(&budget).await.into_envelope(Scope::new("search", "all"));
            assert!(!envelope.is_complete() && envelope.items.is_empty());
            assert_eq!(envelope.completeness.reasons().len(), 2);
            assert_eq!(envelope.completeness.continuation(), Some(&crate::Continuation::RetryAfter { seconds: 30 }));
            let silent: Envelope<u8, StandardReason> =
                failing().run(&budget).await.into_envelope(Scope::new("search", "all"));
            assert!(!silent.is_complete());
            assert_eq!(silent.completeness.continuation(), None, "no retry is offered unless the service knows one");
        });
    }
}
