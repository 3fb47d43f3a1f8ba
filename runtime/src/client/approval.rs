//! `ApprovalRequest`: what a person must see before an action that depends on an
//! incomplete result (contract §8 rule 3).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::client::decide::{Decision, RECOVERY_ORDER, recovery_rank, stale_warnings};
use crate::client::explain::{explain_reason, noun};
use crate::contract::continuation::Continuation;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{Reason, ReasonCode, ReasonKind, Recovery, StandardReason};

/// A request for a person to approve, change or abandon an action whose evidence is
/// incomplete. Rendered as text (`Display`) and as JSON (`Serialize`).
///
/// ```
/// use completeness_runtime::client::ApprovalRequest;
/// use completeness_runtime::reason::{Progress, TimeBudgetExceeded};
/// use completeness_runtime::{Envelope, Scope};
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'");
/// let progress = Progress::new(2, None, "rows");
/// let listing: Envelope<serde_json::Value> = Envelope::incomplete(
///     vec![serde_json::json!({"id": "sa-1"}), serde_json::json!({"id": "sa-2"})],
///     scope,
///     TimeBudgetExceeded::new(500, progress).retry_with_deadline(5),
/// );
/// let request = ApprovalRequest::new("archive unowned service accounts", "owner=none, all tenants", &listing);
/// let text = request.to_string();
/// assert!(text.contains("ran out of time after returning 2 of an unknown number of service accounts"));
/// assert!(text.contains("retry with a deadline of at least 5 s"));
/// assert!(text.contains("sa-1, sa-2"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    /// The proposed action, e.g. "archive unowned service accounts".
    pub action: String,
    /// What the action would apply to, e.g. "owner=none in every tenant".
    pub target_scope: String,
    /// Whether the evidence says it is complete.
    pub complete: bool,
    /// The evidence is the rest of a traversal, reached with a cursor (`page.resumed`): even
    /// complete, it covers the scope only with the pages before it, which it does not hold
    /// (contract §8).
    pub resumed: bool,
    /// How many items the evidence holds.
    pub returned: usize,
    /// What the credential could see.
    pub visibility: String,
    /// The snapshot the evidence was read at.
    pub snapshot: Option<String>,
    /// Why the evidence is incomplete, each reason in words.
    pub reasons: Vec<ExplainedReason>,
    /// Warnings on the evidence, as received.
    pub warnings: Vec<String>,
    /// The codes of the warnings that say the evidence was not read from current state
    /// (contract §3.5): while any is left, the evidence backs no change.
    pub stale_warnings: Vec<String>,
    /// What the person can choose, fitted to the reasons.
    pub options: Vec<RecoveryOption>,
}

/// One reason: its stable code and what it means here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExplainedReason {
    /// The stable code.
    pub code: String,
    /// What it means, in plain words.
    pub explanation: String,
}

/// A way forward a person can choose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RecoveryOption {
    /// Collect again with a larger time budget (a new attempt).
    RetryWithLargerDeadline {
        /// The smallest budget that could help, when the server said.
        minimum_seconds: Option<u64>,
    },
    /// Collect again later (a new attempt).
    RetryLater {
        /// How long to wait, when the server said.
        after_seconds: Option<u64>,
    },
    /// Continue the same traversal from where it stopped.
    ContinueCollecting {
        /// The cursor that continues it.
        cursor: String,
    },
    /// Start a new traversal: the old one's snapshot is gone.
    RestartCollection,
    /// Ask a narrower question that stays under the server's result limit.
    NarrowQuery {
        /// How, when the server said.
        hint: Option<String>,
    },
    /// Run with a credential that can read the whole scope.
    UseBroaderCredential,
    /// Read the scope again: this complete answer cannot back a change as it is.
    ReadAgain {
        /// Why not: no evidence token, or an index that lags its source.
        why: String,
    },
    /// Apply the action only to the items that were returned.
    LimitToReturnedIds {
        /// Their ids.
        ids: Vec<String>,
    },
    /// Do nothing.
    Abandon,
}

/// The most ids [`RecoveryOption::describe`] names in its sentence; the option holds them all.
const SHOWN_IDS: usize = 20;

impl RecoveryOption {
    /// The step of `decide` this option takes (contract §8), when it leads to a complete
    /// answer: limiting the action or abandoning it does not.
    fn step(&self) -> Option<Decision> {
        match self {
            RecoveryOption::UseBroaderCredential => Some(Decision::RefuseOrRequestReview),
            RecoveryOption::NarrowQuery { .. } => Some(Decision::NarrowQuery),
            RecoveryOption::RetryWithLargerDeadline { .. }
            | RecoveryOption::RetryLater { .. }
            | RecoveryOption::RestartCollection
            | RecoveryOption::ReadAgain { .. } => Some(Decision::RetryLater),
            RecoveryOption::ContinueCollecting { .. } => Some(Decision::ContinueSearch),
            RecoveryOption::LimitToReturnedIds { .. } | RecoveryOption::Abandon => None,
        }
    }

    /// Where the option stands in the list: its step's place in `decide`'s order of
    /// recoveries; the others after them, in the order they were added.
    fn rank(&self) -> usize {
        self.step().map_or(RECOVERY_ORDER.len(), recovery_rank)
    }

    /// The option in words.
    pub fn describe(&self) -> String {
        match self {
            RecoveryOption::RetryWithLargerDeadline { minimum_seconds: Some(s) } => {
                format!("retry with a deadline of at least {s} s (a new collection, not a continuation)")
            }
            RecoveryOption::RetryWithLargerDeadline { minimum_seconds: None } => {
                "retry with a larger deadline (a new collection, not a continuation)".to_owned()
            }
            RecoveryOption::RetryLater { after_seconds: Some(s) } => format!("retry in {s} s (a new collection)"),
            RecoveryOption::RetryLater { after_seconds: None } => "retry later (a new collection)".to_owned(),
            RecoveryOption::ContinueCollecting { cursor } => {
                format!(
                    "continue collecting from cursor {cursor} (same snapshot, nothing merged from elsewhere; after a \
                     collector's own limit, with `resume` on its result: a collection begun at that cursor is \
                     reported incomplete, since it holds only the rest)"
                )
            }
            RecoveryOption::RestartCollection => {
                "start a new collection; the items above cannot be combined with it".to_owned()
            }
            RecoveryOption::NarrowQuery { hint: Some(hint) } => format!("narrow the query: {hint}"),
            RecoveryOption::NarrowQuery { hint: None } => {
                "narrow the query so it stays under the server's result limit".to_owned()
            }
            RecoveryOption::UseBroaderCredential => {
                "run again with a credential that can read the whole scope".to_owned()
            }
            RecoveryOption::ReadAgain { why } => format!("read the scope again: {why}"),
            RecoveryOption::LimitToReturnedIds { ids } => {
                let shown: Vec<&str> = ids.iter().take(SHOWN_IDS).map(String::as_str).collect();
                let more = match ids.len().saturating_sub(SHOWN_IDS) {
                    0 => String::new(),
                    more => format!(" and {more} more"),
                };
                format!(
                    "limit the action to the {} returned ids ({}{more}); anything not returned stays untouched",
                    ids.len(),
                    shown.join(", ")
                )
            }
            RecoveryOption::Abandon => "abandon the action; nothing has been changed".to_owned(),
        }
    }
}

impl ApprovalRequest {
    /// The request for `action` on `target_scope`, with the evidence `envelope`.
    ///
    /// Item ids are read from each item's `id` member, when it has one.
    pub fn new<T: Serialize, R: Reason>(
        action: impl Into<String>,
        target_scope: impl Into<String>,
        envelope: &Envelope<T, R>,
    ) -> ApprovalRequest {
        let completeness = envelope.completeness.to_standard();
        let scope = completeness.scope();
        let noun = noun(&scope.resource);
        let returned = envelope.items.len();
        let reasons = completeness
            .reasons()
            .iter()
            .map(|r| ExplainedReason {
                code: r.code().as_str().to_owned(),
                explanation: explain_reason(r, returned, &noun),
            })
            .collect();
        let warnings = completeness.warnings().iter().map(|w| format!("{}: {}", w.code(), w.message())).collect();
        let stale: Vec<String> = stale_warnings(&completeness).into_iter().map(str::to_owned).collect();
        // Each id once: a traversal that went over the same ground returned some twice.
        let mut seen = std::collections::HashSet::new();
        let ids: Vec<String> = envelope.items.iter().filter_map(item_id).filter(|id| seen.insert(id.clone())).collect();
        let mut options = Vec::new();
        // The one service's own reason whose continuation is its next page pages, as `decide`
        // reads it (contract §8): its option is to go on collecting.
        let paging = completeness.own_paging_reason();
        for (at, reason) in completeness.reasons().iter().enumerate() {
            let option = match completeness.next_cursor() {
                Some(cursor) if paging == Some(at) => RecoveryOption::ContinueCollecting { cursor: cursor.to_owned() },
                _ => option_for(reason, completeness.continuation(), completeness.next_cursor()),
            };
            if !options.contains(&option) {
                options.push(option);
            }
        }
        let resumed = completeness.page().is_some_and(|page| page.resumed == Some(true));
        // A complete answer that still cannot back a change (contract §8 rule 5), or cannot
        // stand for the inventory (§8), says why.
        if completeness.is_complete() {
            if resumed {
                let why = "this answer is the rest of a traversal, reached with a cursor (`page.resumed`); read it \
                           from its first page"
                    .to_owned();
                options.push(RecoveryOption::ReadAgain { why });
            }
            if completeness.evidence().is_none() {
                let why = "this complete answer carries no evidence token, which a change needs".to_owned();
                options.push(RecoveryOption::ReadAgain { why });
            }
            if !stale.is_empty() {
                let why = format!("it was not read from current state ({}); read when it is current", stale.join(", "));
                options.push(RecoveryOption::ReadAgain { why });
            }
        }
        if !completeness.is_complete() && !ids.is_empty() {
            options.push(RecoveryOption::LimitToReturnedIds { ids });
        }
        options.push(RecoveryOption::Abandon);
        // For an incomplete answer the first option is the step `decide` takes (its order of
        // recoveries). A complete one's options (to read again) say why it cannot stand for the
        // inventory whatever `decide` allows: a page reached with a cursor may back a change
        // (`decide`'s rule 5) but not a person's belief that it is the whole scope.
        options.sort_by_key(RecoveryOption::rank);
        ApprovalRequest {
            action: action.into(),
            target_scope: target_scope.into(),
            complete: completeness.is_complete(),
            resumed,
            returned,
            visibility: scope.visibility.clone(),
            snapshot: scope.snapshot.clone(),
            reasons,
            warnings,
            stale_warnings: stale,
            options,
        }
    }

    /// For an action the service carries out only with evidence of a complete inventory (a
    /// route behind `RequireEvidence`, contract §6): the option to act on the returned ids
    /// alone is not offered, since the service would refuse it whoever approved it.
    pub fn evidence_required(mut self) -> ApprovalRequest {
        self.options.retain(|option| !matches!(option, RecoveryOption::LimitToReturnedIds { .. }));
        self
    }

    /// The request as JSON.
    pub fn to_json(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(options) = value.get_mut("options").and_then(Value::as_array_mut) {
            for (option, described) in options.iter_mut().zip(&self.options) {
                if let Some(object) = option.as_object_mut() {
                    object.insert("description".to_owned(), Value::String(described.describe()));
                }
            }
        }
        value
    }
}

/// The option that addresses `reason`, using the result's own continuation when it fits.
fn option_for(
    reason: &StandardReason,
    continuation: Option<&Continuation>,
    next_cursor: Option<&str>,
) -> RecoveryOption {
    let recovery = reason.recovery().or_else(|| continuation.cloned().filter(|c| fits(reason, c)));
    match reason.code() {
        ReasonCode::TimeBudgetExceeded => RecoveryOption::RetryWithLargerDeadline {
            minimum_seconds: match recovery {
                Some(Continuation::RetryWithDeadline { minimum_seconds }) => Some(minimum_seconds),
                _ => None,
            },
        },
        ReasonCode::SourceUnavailable | ReasonCode::QuotaExhausted => RecoveryOption::RetryLater {
            after_seconds: match recovery {
                Some(Continuation::RetryAfter { seconds }) => Some(seconds),
                _ => None,
            },
        },
        ReasonCode::ResultLimitReached => RecoveryOption::NarrowQuery {
            hint: match recovery {
                Some(Continuation::NarrowQuery { hint }) => Some(hint),
                _ => None,
            },
        },
        ReasonCode::MorePagesAvailable | ReasonCode::ClientLimitReached => match next_cursor {
            Some(cursor) => RecoveryOption::ContinueCollecting { cursor: cursor.to_owned() },
            None => RecoveryOption::RetryLater { after_seconds: None },
        },
        ReasonCode::SnapshotExpired => RecoveryOption::RestartCollection,
        ReasonCode::VisibilityRestricted => RecoveryOption::UseBroaderCredential,
        // A service's own reason, by its kind and the recovery it offered (known on the side
        // that built it; a reader cannot tell which reason the result's continuation is for).
        _ => match (reason.kind(), reason.recovery()) {
            (ReasonKind::Truncation, Some(Continuation::NarrowQuery { hint })) => {
                RecoveryOption::NarrowQuery { hint: Some(hint) }
            }
            (ReasonKind::Truncation, _) => RecoveryOption::NarrowQuery { hint: None },
            (ReasonKind::Budget, Some(Continuation::RetryWithDeadline { minimum_seconds })) => {
                RecoveryOption::RetryWithLargerDeadline { minimum_seconds: Some(minimum_seconds) }
            }
            (ReasonKind::Budget | ReasonKind::Source, Some(Continuation::RetryAfter { seconds })) => {
                RecoveryOption::RetryLater { after_seconds: Some(seconds) }
            }
            (ReasonKind::Budget | ReasonKind::Source, _) => RecoveryOption::RetryLater { after_seconds: None },
            (ReasonKind::Snapshot, _) => RecoveryOption::RestartCollection,
            // `visibility`, and a kind this client does not know, which is treated like it: the
            // most cautious (contract §3.4), as `decide` treats it.
            _ => RecoveryOption::UseBroaderCredential,
        },
    }
}

/// True when `continuation` is a recovery for `reason`'s kind of problem.
fn fits(reason: &StandardReason, continuation: &Continuation) -> bool {
    reason.code().recovery().and_then(Recovery::continuation) == Some(continuation.kind())
}

/// The `id` member of an item, as text.
fn item_id<T: Serialize>(item: &T) -> Option<String> {
    match serde_json::to_value(item).ok()?.get("id")? {
        Value::String(id) => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

impl fmt::Display for ApprovalRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "APPROVAL REQUIRED: {}", self.action)?;
        writeln!(f, "Target scope: {}", self.target_scope)?;
        let snapshot = self.snapshot.as_deref().map(|s| format!(" at snapshot {s}")).unwrap_or_default();
        writeln!(f, "Evidence: {} items read as {}{snapshot}.", self.returned, self.visibility)?;
        if self.complete {
            let whole = if self.resumed {
                "The evidence is the rest of a traversal, reached with a cursor: it covers the scope only with the \
                 pages before it, which it does not hold"
            } else {
                "The evidence covers the whole scope"
            };
            let stale = self.stale_warnings.join(", ");
            match (stale.is_empty(), self.resumed) {
                (true, _) => writeln!(f, "{whole}.")?,
                (false, false) => writeln!(f, "{whole} as it was read, not as it is now ({stale}).")?,
                (false, true) => writeln!(f, "{whole}; and it was not read from current state ({stale}).")?,
            }
        } else {
            writeln!(f, "The evidence is INCOMPLETE, because:")?;
            for reason in &self.reasons {
                writeln!(f, "  - [{}] {}", reason.code, reason.explanation)?;
            }
        }
        if !self.warnings.is_empty() {
            writeln!(f, "Warnings:")?;
            for warning in &self.warnings {
                writeln!(f, "  - {warning}")?;
            }
        }
        writeln!(f, "Options:")?;
        for (i, option) in self.options.iter().enumerate() {
            writeln!(f, "  {}. {}", i + 1, option.describe())?;
        }
        Ok(())
    }
}
