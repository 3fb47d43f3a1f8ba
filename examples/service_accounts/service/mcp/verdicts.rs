//! The text of a tool's answer for an agent: the verdict lines of a count, an account and an
//! archive, what to do about a refusal, and the approval request of an archive refused for its
//! evidence.

use completeness::client::explain::{self, what_next};
use completeness::{Aggregate, Problem, ProblemCode, Relation};

use super::super::account::AccountView;
use super::super::archive;
use super::super::auth::Caller;
use super::super::inventory::CountServiceAccountsReason;
use super::tool_list::{ARCHIVE, GET, LIST};
use super::tools::internal;

/// What to do about a refusal that only time mends (a database outage: the REST route's
/// `Retry-After`, which a tool result has no header for); empty for any other.
pub(super) fn retry_guidance(problem: &Problem) -> String {
    problem.retry_after().map_or_else(String::new, |seconds| format!("Call again in {seconds} seconds."))
}

/// The verdict line of a single account: which fields were not filled, and why.
pub(super) fn field_verdict(view: &AccountView) -> Result<String, Problem> {
    let json = serde_json::to_value(view).map_err(internal)?;
    let omitted = json["omitted_fields"].as_object().cloned().unwrap_or_default();
    Ok(if omitted.is_empty() {
        format!("ACCOUNT {}: every field filled.", view.id)
    } else {
        let why: Vec<String> =
            omitted.iter().map(|(field, code)| format!("{field}: {}", code.as_str().unwrap_or("?"))).collect();
        format!(
            "ACCOUNT {} (PARTIAL_FIELD_SET): not filled, so null does not mean no value: {}.",
            view.id,
            why.join(", ")
        )
    })
}

/// The verdict line of a count: complete or why not, whether the number is exact, and the
/// filters it counted under; an incomplete one says that what it could not count is not in it.
pub(super) fn count_verdict(aggregate: &Aggregate<u64, CountServiceAccountsReason>) -> String {
    let completeness = aggregate.completeness();
    let head = explain::verdict_head(completeness);
    let relation = match aggregate.relation() {
        Relation::Exact => "exactly",
        Relation::LowerBound => "at least",
        Relation::Estimate => "about",
    };
    let counted = explain::counted(usize::try_from(*aggregate.value()).unwrap_or(usize::MAX), NOUN);
    let absence = if completeness.is_complete() { "" } else { ": the rest was not counted, so it proves no absence" };
    format!(
        "{head}: {relation} {counted}{} in scope{absence}.{}",
        explain::matching(completeness.scope()),
        what_next(completeness)
    )
}

/// What the tools' verdicts call their items.
const NOUN: &str = "service accounts";

pub(super) fn archived_verdict(done: &archive::Archived) -> String {
    format!("ARCHIVED: {}, in snapshot {}.", explain::counted(done.archived.len(), NOUN), done.snapshot)
}

/// The most targets an approval request names; the problem's `targets` holds them all.
const NAMED_TARGETS: usize = 20;

/// What a person must see before the archive can go ahead: the evidence that is missing and
/// the options, which depend on what was missing (targets outside the inventory are taken out,
/// targets that changed are read again: a new inventory alone mends neither). `None` for a
/// refusal that is not about the evidence (an empty or repeated `ids`, an outage), which no new
/// inventory or wider credential mends. It is headed NOT ARCHIVED, not as a request for
/// permission: no person's yes lets the same call through.
pub(super) fn approval_request(caller: &Caller, problem: &Problem) -> Option<String> {
    if !problem.code().refuses_evidence() {
        return None;
    }
    let targets = {
        let ids = problem.targets();
        let mut named = ids.iter().take(NAMED_TARGETS).copied().collect::<Vec<_>>().join(", ");
        if ids.len() > NAMED_TARGETS {
            named.push_str(&format!(" and {} more (`targets` lists them all)", ids.len() - NAMED_TARGETS));
        }
        named
    };
    let inventory = format!(
        "take the inventory again: call {LIST} with owner \"none\" and follow `next_cursor` until `complete` is true, \
         then call {ARCHIVE} with ids from it and its `evidence`"
    );
    let (missing, first) = match problem.code() {
        ProblemCode::EvidenceRequired => (
            "no evidence was given: an incomplete inventory (complete: false, e.g. VISIBILITY_RESTRICTED or a \
             traversal stopped before its last page) never carries any"
                .to_owned(),
            inventory.clone(),
        ),
        ProblemCode::EvidenceExpired => {
            ("the evidence expired, or its snapshot is no longer retained".to_owned(), inventory.clone())
        }
        ProblemCode::EvidenceCredentialMismatch => (
            "the evidence was issued to another credential, or this credential's permissions changed since".to_owned(),
            inventory.clone(),
        ),
        ProblemCode::TargetNotInEvidence => (
            format!(
                "these targets are not in the inventory the evidence covers (owned, archived or outside its filters): {targets}"
            ),
            format!("call {ARCHIVE} again without them, with the same evidence; or {inventory}"),
        ),
        ProblemCode::TargetChanged => (
            format!(
                "these targets changed since the inventory (now owned, archived, perhaps by an earlier call of \
                 yours, or gone): {targets}"
            ),
            format!(
                "read them with {GET}: one with `archived: true` is archived already, and no call is needed for it; \
                 for the others, {inventory}"
            ),
        ),
        _ => (
            "the evidence does not prove a complete inventory of unowned accounts that holds every target".to_owned(),
            inventory.clone(),
        ),
    };
    Some(format!(
        "NOT ARCHIVED: nothing has been changed; archiving as credential '{}' needs evidence of a complete inventory \
         of unowned accounts holding every target.\n\
         Missing: {missing}.\n\
         Options:\n\
         1. {first};\n\
         2. if the inventory says VISIBILITY_RESTRICTED, name a `tenant` this credential reads (the inventory and \
         its evidence then cover that tenant), or ask a person holding a credential that reads every tenant;\n\
         3. abandon the action.",
        caller.name
    ))
}
