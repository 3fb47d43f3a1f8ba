//! `decide`: what a result allows an agent to do (contract §8).

use serde::{Deserialize, Serialize};

use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{Reason, ReasonCode, ReasonKind};
use crate::contract::warning::Warning;

/// What the caller means to do with a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Intent {
    /// Describe what was found, as the answer to the question: an incomplete result gets the
    /// step that leads to a whole one (continue, retry, narrow, refuse), never
    /// [`Decision::Proceed`], since a report of part of the scope reads as a report of all of
    /// it. To look at the items a partial result holds, say so: [`Intent::Investigate`].
    Report,
    /// Conclude that nothing matching exists beyond the items returned (none, for an empty
    /// result).
    ClaimAbsence,
    /// Look into the returned items, read-only and bounded.
    Investigate,
    /// Change something based on the result (archive, delete, ...).
    Mutate,
}

/// What the caller should do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// The result supports the intent.
    Proceed,
    /// Follow `next_cursor`: the traversal is not finished.
    ContinueSearch,
    /// Make a new attempt (after the advised wait, or with a larger deadline);
    /// it starts over and is never merged with this one.
    RetryLater,
    /// Ask a narrower question: the server stopped at a result limit.
    NarrowQuery,
    /// The result cannot support the intent: refuse, or show it to a person.
    RefuseOrRequestReview,
}

/// Decides what `envelope` allows for `intent`, by the rules of contract §8.
///
/// `envelope` is an answer to a query: a first page (fetched without a cursor), or a
/// traversal read whole ([`crate::client::collect_all`]), whose scope is the one the query
/// asked for, which `decide` cannot know: check it with
/// [`Scope::differs_from`](crate::Scope::differs_from) first. A page reached with a cursor is not:
/// its `complete: true` ends its traversal, and its items cover the scope only with the pages
/// before it. Such a page says so (`page.resumed`), and rule 1 holds it; judge the traversal
/// instead. A server that does not send `page.resumed` cannot be told apart: there, the caller
/// who sent the cursor must not take the last page for the answer.
///
/// 1. An empty collection is evidence of absence only when `complete` is true, no warning
///    is stale (`STALE_INDEX`, or a warning that carries `"stale": true`), and the answer is
///    not a page reached with a cursor (`page.resumed`): [`Intent::ClaimAbsence`] then
///    refuses, since the page holds only the tail of its traversal.
/// 2. A partial response may drive a bounded, read-only investigation
///    ([`Intent::Investigate`] proceeds on the items it has).
/// 3. Reasons come before actions: an incomplete result never lets [`Intent::Mutate`]
///    proceed; the caller shows the reasons ([`crate::client::ApprovalRequest`]).
/// 4. A continuation is never invented: [`Decision::ContinueSearch`] only when the
///    result carries a `next_cursor`; every other recovery is a new attempt.
/// 5. Mutations need complete evidence: a complete result with an `evidence` token,
///    read from current state (no stale warning: `STALE_INDEX`, or a warning that carries
///    `"stale": true`). Otherwise [`Decision::RefuseOrRequestReview`]. A page reached with
///    a cursor may back one, unlike a claim of absence (rule 1): the evidence on the last
///    page of a traversal is issued for the whole of it (contract §6), and the server checks
///    the change's targets against that whole, not against the items of the page.
///
/// For an incomplete result the recovery follows the kinds of the reasons (contract §3.4), in
/// this order: a reason no retry can fix (kind `visibility`, or a kind this client does not
/// know) → refuse or review; a truncation that is not pagination (`RESULT_LIMIT_REACHED`, a
/// service's own truncation that offers no next page, or one a reader cannot tell the cursor
/// is of) → narrow the query; a budget, source or snapshot reason → retry later; only
/// pagination left (`MORE_PAGES_AVAILABLE`, a resumable `CLIENT_LIMIT_REACHED`, or the one
/// service's own truncation on the answer, whose continuation is its `next_cursor`: contract
/// §8) → continue the search. That recovery is also the answer for [`Intent::Report`] and
/// [`Intent::ClaimAbsence`] on an incomplete result, and for [`Intent::Investigate`] on an
/// incomplete empty one (it has nothing to look into). A complete result with a stale warning
/// proceeds for a report or an investigation, not for a claim of absence or a mutation,
/// which need current state.
///
/// ```
/// use completeness_runtime::client::{Decision, Intent, decide};
/// use completeness_runtime::reason::MorePagesAvailable;
/// use completeness_runtime::{Envelope, Scope};
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'");
/// let first_page: Envelope<String> = Envelope::incomplete(vec![], scope, MorePagesAvailable::new("c2"));
/// assert_eq!(decide(&first_page, Intent::ClaimAbsence), Decision::ContinueSearch);
/// assert_eq!(decide(&first_page, Intent::Mutate), Decision::RefuseOrRequestReview);
/// ```
pub fn decide<T, R: Reason>(envelope: &Envelope<T, R>, intent: Intent) -> Decision {
    decide_on(&envelope.completeness, envelope.items.is_empty(), intent)
}

/// [`decide`] for any response with a completeness block (e.g. a struct deriving
/// `ResultEnvelope`); `empty` says whether its collection is empty.
pub fn decide_on<R: Reason>(completeness: &Completeness<R>, empty: bool, intent: Intent) -> Decision {
    if completeness.is_complete() {
        let stale = read_from_stale_state(completeness);
        let tail = completeness.page().is_some_and(|page| page.resumed == Some(true));
        return match intent {
            Intent::Report | Intent::Investigate => Decision::Proceed,
            Intent::ClaimAbsence if stale || tail => Decision::RefuseOrRequestReview,
            Intent::ClaimAbsence => Decision::Proceed,
            Intent::Mutate if stale || completeness.evidence().is_none() => Decision::RefuseOrRequestReview,
            Intent::Mutate => Decision::Proceed,
        };
    }
    match intent {
        Intent::Mutate => Decision::RefuseOrRequestReview,
        Intent::Investigate if !empty => Decision::Proceed,
        Intent::Report | Intent::ClaimAbsence | Intent::Investigate => recovery(completeness),
    }
}

/// The codes of the warnings that say the answer was not read from current state
/// ([`Warning::is_stale`]): a complete answer with one backs neither an absence claim nor a
/// change (rule 5). Empty when the answer is current.
pub(crate) fn stale_warnings<R: Reason>(completeness: &Completeness<R>) -> Vec<&str> {
    completeness.warnings().iter().filter(|w| w.is_stale()).map(|w| w.code().as_str()).collect()
}

/// True when a warning says the answer was not read from current state.
fn read_from_stale_state<R: Reason>(completeness: &Completeness<R>) -> bool {
    completeness.warnings().iter().any(Warning::is_stale)
}

/// The next step that could lead to a complete answer, by the kinds of the reasons of an
/// incomplete one (a service's own reasons are classified by the kind they carry): each
/// reason's own step ([`step_for`]), and of those the first in [`RECOVERY_ORDER`].
fn recovery<R: Reason>(completeness: &Completeness<R>) -> Decision {
    let steps = reason_steps(completeness).map(|(_, step)| step);
    // An incomplete block has a reason (R2); without one, a new attempt is the safe step.
    steps.min_by_key(|step| recovery_rank(*step)).unwrap_or(Decision::RetryLater)
}

/// Each reason of `completeness` with the step it calls for: its kind's ([`step_for`]), and
/// for the one service's own reason that pages ([`Completeness::own_paging_reason`]), going on.
fn reason_steps<R: Reason>(completeness: &Completeness<R>) -> impl Iterator<Item = (&R, Decision)> {
    let resumable = completeness.next_cursor().is_some();
    let paging = completeness.own_paging_reason();
    completeness.reasons().iter().enumerate().map(move |(at, reason)| match paging {
        Some(paging) if paging == at => (reason, Decision::ContinueSearch),
        _ => (reason, step_for(reason.kind(), reason.code(), resumable)),
    })
}

/// The reasons of an incomplete result whose step is `step`, each code once, with their kinds.
fn reasons_calling_for<R: Reason>(completeness: &Completeness<R>, step: Decision) -> Vec<(ReasonCode, ReasonKind)> {
    let mut found: Vec<(ReasonCode, ReasonKind)> = Vec::new();
    for (reason, called) in reason_steps(completeness) {
        let code = reason.code();
        if called == step && !found.iter().any(|(seen, _)| *seen == code) {
            found.push((code, reason.kind()));
        }
    }
    found
}

/// The reasons of an incomplete result for which [`decide`] refuses or asks for review, whatever
/// the continuation offers, each code once, with their kinds: `visibility` (no retry shows what
/// is hidden), or a kind this client does not know (it cannot tell what would recover it).
/// Empty for a complete result.
pub(crate) fn beyond_recovery<R: Reason>(completeness: &Completeness<R>) -> Vec<(ReasonCode, ReasonKind)> {
    reasons_calling_for(completeness, Decision::RefuseOrRequestReview)
}

/// The reasons of an incomplete result that only a narrower question gets past (a truncation
/// that is not pagination), each code once: for them [`decide`] says [`Decision::NarrowQuery`]
/// whatever retry or page the continuation offers.
pub(crate) fn past_any_retry<R: Reason>(completeness: &Completeness<R>) -> Vec<ReasonCode> {
    reasons_calling_for(completeness, Decision::NarrowQuery).into_iter().map(|(code, _)| code).collect()
}

/// The reasons of an incomplete result a new attempt may recover (a budget, a source or a
/// snapshot reason; pagination that offers no cursor), each code once: what
/// [`Decision::RetryLater`] is for, whatever step the continuation offers first, with their kinds.
pub(crate) fn recovered_by_a_new_attempt<R: Reason>(completeness: &Completeness<R>) -> Vec<(ReasonCode, ReasonKind)> {
    reasons_calling_for(completeness, Decision::RetryLater)
}

/// The recoveries of an incomplete result, first to last: when its reasons call for several,
/// the first is taken. What no retry fixes comes first, then a narrower question, then a new
/// attempt; going on with the same traversal helps only when nothing else is wrong.
pub(crate) const RECOVERY_ORDER: [Decision; 4] =
    [Decision::RefuseOrRequestReview, Decision::NarrowQuery, Decision::RetryLater, Decision::ContinueSearch];

/// Where `step` stands in [`RECOVERY_ORDER`] (after it, a decision that is no recovery).
pub(crate) fn recovery_rank(step: Decision) -> usize {
    RECOVERY_ORDER.iter().position(|recovery| *recovery == step).unwrap_or(RECOVERY_ORDER.len())
}

/// The step one reason calls for; `resumable` when the result carries a `next_cursor`.
fn step_for(kind: ReasonKind, code: ReasonCode, resumable: bool) -> Decision {
    match kind {
        // No retry shows hidden records, and a reason of unknown kind could be anything.
        ReasonKind::Visibility | ReasonKind::Unknown => Decision::RefuseOrRequestReview,
        // Pagination: continue exactly where the result says, or start over.
        ReasonKind::Truncation if matches!(code, ReasonCode::MorePagesAvailable | ReasonCode::ClientLimitReached) => {
            if resumable {
                Decision::ContinueSearch
            } else {
                Decision::RetryLater
            }
        }
        // A cap that is not pagination: only a narrower question gets past it.
        ReasonKind::Truncation => Decision::NarrowQuery,
        ReasonKind::Budget | ReasonKind::Source | ReasonKind::Snapshot => Decision::RetryLater,
        // A kind added after this version: as cautious as an unknown one.
        _ => Decision::RefuseOrRequestReview,
    }
}
