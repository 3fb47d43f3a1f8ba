//! The rules of the wire contract that a received completeness block must keep, in one list
//! (contract §2.2). The strict deserializer rejects a block on the first broken rule; the test
//! kit ([`crate::testing::check_envelope_invariants`] with the `testing` feature) lists them all.
//!
//! The checks come in the order a block is read: R1 on the members present; R12 and R13 on
//! each raw reason and warning object; R3, R5 and R9 on the members as received; the rest
//! (R2, R4, R6–R8, R10, and R9's empty token) on the block once it is read; R11 where the data
//! member is read.

use std::fmt;

use serde_json::{Map, Value};

use crate::contract::completeness::Completeness;
use crate::contract::continuation::Continuation;
use crate::contract::reason::{Reason, ReasonCode, ReasonKind};

/// A rule of contract §2.2, by its stable number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Rule {
    /// R1: every member of the shape is present, once; none is omitted.
    MembersPresent,
    /// R2: `complete` is true exactly when `incomplete_reasons` is empty.
    CompleteIffNoReasons,
    /// R3: `status` is `"complete"` or `"partial"`, derived from `complete`.
    StatusDerived,
    /// R4: `truncated` is true exactly when a reason of kind truncation is present.
    TruncatedDerived,
    /// R5: `continuation` is null when `complete` is true.
    NoContinuationWhenComplete,
    /// R6: `continuation` is the recovery of the first reason that has one, and is present
    /// whenever a reason that always has one is, or `next_cursor` offers a next page.
    ContinuationOfFirstReason,
    /// R7: `next_cursor` is set exactly when `MORE_PAGES_AVAILABLE` is present, or another
    /// reason (a resumable `CLIENT_LIMIT_REACHED`, a service's own reason) offers a
    /// `next_cursor` continuation; a cursor is never the empty string.
    NextCursorIffMorePages,
    /// R8: a `next_cursor` continuation carries the same cursor as `next_cursor`.
    ContinuationCursorMatches,
    /// R9: `evidence` is null unless `complete` is true, and never the empty string.
    EvidenceOnlyWhenComplete,
    /// R10: `page.cursor` describes `next_cursor` when `MORE_PAGES_AVAILABLE` is present and
    /// there are page facts.
    PageCursorDescribesNext,
    /// R11: `page.returned` is the number of items in the data member.
    PageReturnedCountsItems,
    /// R12: a reason object has a wire `code`, a string `message`, its code's detail members,
    /// and a declarable `kind` when it carries one (a standard reason, its own);
    /// `VISIBILITY_RESTRICTED` carries no details.
    ReasonObject,
    /// R13: a warning object has a wire `code`, a string `message`, and a boolean `stale` when
    /// it has one.
    WarningObject,
}

impl Rule {
    /// Every rule, in contract order.
    pub const ALL: [Rule; 13] = [
        Rule::MembersPresent,
        Rule::CompleteIffNoReasons,
        Rule::StatusDerived,
        Rule::TruncatedDerived,
        Rule::NoContinuationWhenComplete,
        Rule::ContinuationOfFirstReason,
        Rule::NextCursorIffMorePages,
        Rule::ContinuationCursorMatches,
        Rule::EvidenceOnlyWhenComplete,
        Rule::PageCursorDescribesNext,
        Rule::PageReturnedCountsItems,
        Rule::ReasonObject,
        Rule::WarningObject,
    ];

    /// The stable number, `"R1"` to `"R13"`.
    pub fn number(self) -> String {
        let index = Rule::ALL.iter().position(|rule| *rule == self).unwrap_or(0);
        format!("R{}", index + 1)
    }
}

/// A broken rule, with what broke it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: Rule,
    /// What is wrong, in words.
    pub message: String,
}

impl Violation {
    pub(crate) fn new(rule: Rule, message: impl Into<String>) -> Violation {
        Violation { rule, message: message.into() }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (contract §2.2 {})", self.message, self.rule.number())
    }
}

impl std::error::Error for Violation {}

/// The members that `complete` constrains, as received: `status` and `truncated` as they are,
/// and whether `continuation` and `evidence` are set (`evidence` is not, for a shape without it).
pub(crate) struct Received<'a> {
    pub(crate) complete: bool,
    pub(crate) status: &'a Value,
    pub(crate) truncated: &'a Value,
    pub(crate) has_continuation: bool,
    pub(crate) has_evidence: bool,
}

/// R3, R5 and R9: the rules that compare one member with `complete`, checked even when other
/// members cannot be read, so that a broken response shows every rule it breaks.
pub(crate) fn check_received(received: &Received<'_>) -> Vec<Violation> {
    let mut v = Vec::new();
    let complete = received.complete;
    // R3
    let status = if complete { "complete" } else { "partial" };
    if received.status.as_str() != Some(status) {
        v.push(Violation::new(
            Rule::StatusDerived,
            format!("`status` must be \"{status}\" when `complete` is {complete}, got {}", received.status),
        ));
    }
    // R5
    if complete && received.has_continuation {
        v.push(Violation::new(Rule::NoContinuationWhenComplete, "`continuation` must be null when `complete` is true"));
    }
    // R9
    if !complete && received.has_evidence {
        v.push(Violation::new(
            Rule::EvidenceOnlyWhenComplete,
            "`evidence` must be null when `complete` is false: evidence is never made from a partial read",
        ));
    }
    v
}

/// R2, R4, R6–R10 on a block read from the wire: every one it breaks.
pub(crate) fn check_block<R: Reason>(block: &Completeness<R>, received: &Received<'_>) -> Vec<Violation> {
    let mut v = Vec::new();
    let complete = received.complete;
    let codes = block.reason_codes();
    let has = |code: &ReasonCode| codes.contains(code);
    // R2
    if complete != block.is_complete() {
        v.push(Violation::new(
            Rule::CompleteIffNoReasons,
            if complete {
                let listed = codes.iter().map(ReasonCode::as_str).collect::<Vec<_>>().join(", ");
                format!("`complete` is true but `incomplete_reasons` lists {listed}")
            } else {
                "`complete` is false but `incomplete_reasons` is empty".to_owned()
            },
        ));
    }
    // R4: a reason whose kind this reader does not know may be a truncation, so `truncated`
    // may then be true without a known truncation reason.
    let truncated = block.is_truncated();
    let unknown_kind = block.reasons().iter().any(|r| r.kind() == ReasonKind::Unknown);
    match received.truncated.as_bool() {
        Some(got) if got == truncated || (got && unknown_kind) => {}
        _ => v.push(Violation::new(
            Rule::TruncatedDerived,
            format!("`truncated` must be {truncated} for these reasons, got {}", received.truncated),
        )),
    }
    // R6
    check_continuation(block, &codes, &mut v);
    // R7: besides MORE_PAGES_AVAILABLE, only a collector's CLIENT_LIMIT_REACHED or a reason
    // outside the table (a service's own, or one newer than this reader) may bring a cursor.
    let more_pages = has(&ReasonCode::MorePagesAvailable);
    let may_resume = codes.iter().any(may_offer_another_cursor);
    match (block.next_cursor(), more_pages) {
        (None, true) => v.push(Violation::new(
            Rule::NextCursorIffMorePages,
            "MORE_PAGES_AVAILABLE is present but `next_cursor` is null",
        )),
        (Some(_), false) if !may_resume => v.push(Violation::new(
            Rule::NextCursorIffMorePages,
            "`next_cursor` is set but no reason offers a next page (MORE_PAGES_AVAILABLE, a resumable \
             CLIENT_LIMIT_REACHED or a service's own reason)",
        )),
        _ => {}
    }
    // R7: an empty cursor, sent back, reads as no cursor to many servers: the first page again.
    if block.next_cursor() == Some("") {
        v.push(Violation::new(
            Rule::NextCursorIffMorePages,
            "`next_cursor` is the empty string: a cursor is a non-empty token, and an empty one sent back \
             asks many servers for the first page again",
        ));
    }
    // R8
    if let Some(Continuation::NextCursor { cursor }) = block.continuation()
        && block.next_cursor() != Some(cursor.as_str())
    {
        v.push(Violation::new(Rule::ContinuationCursorMatches, "`continuation.cursor` must equal `next_cursor`"));
    }
    // R9: an empty token proves nothing; it is the shape of a server that forgot to sign.
    if block.evidence() == Some("") {
        v.push(Violation::new(
            Rule::EvidenceOnlyWhenComplete,
            "`evidence` is the empty string: evidence is a signed token",
        ));
    }
    // R10
    if let Some(page) = block.page()
        && more_pages
        && page.cursor.is_none()
    {
        v.push(Violation::new(
            Rule::PageCursorDescribesNext,
            "`page.cursor` must describe `next_cursor` when there is one",
        ));
    }
    v
}

/// R6: the continuation recovers from the first reason that has a recovery. A block read from
/// the wire carries most recoveries only there, in `continuation` and `next_cursor`: a reason
/// whose recovery is in its own details (`QUOTA_EXHAUSTED`'s `retry_after_seconds`) is held to
/// it, the others to their code's kind of recovery.
fn check_continuation<R: Reason>(block: &Completeness<R>, codes: &[ReasonCode], v: &mut Vec<Violation>) {
    let Some(continuation) = block.continuation() else {
        if let Some(code) = codes.iter().find(|c| always_recovers(c)) {
            v.push(Violation::new(
                Rule::ContinuationOfFirstReason,
                format!("`continuation` is null although {code} always has a recovery path"),
            ));
        } else if block.next_cursor().is_some() && codes.iter().any(may_offer_another_cursor) {
            // The reason that offers the next page has that recovery (with none that may, R7
            // says what is wrong).
            v.push(Violation::new(
                Rule::ContinuationOfFirstReason,
                "`continuation` is null although `next_cursor` offers a next page",
            ));
        }
        return;
    };
    if codes.is_empty() {
        return; // R5 covers it
    }
    let kind = continuation.kind();
    // A custom code's recovery is not in the table: any continuation may be its own.
    let recovers = |code: &ReasonCode| code.recovery().is_none_or(|r| r.continuation() == Some(kind));
    match codes.iter().position(recovers) {
        None => v.push(Violation::new(
            Rule::ContinuationOfFirstReason,
            format!("`continuation` of kind {kind} recovers from none of the reasons"),
        )),
        Some(at) => {
            if let Some(earlier) = codes[..at].iter().find(|c| always_recovers(c)) {
                v.push(Violation::new(
                    Rule::ContinuationOfFirstReason,
                    format!(
                        "`continuation` must be the recovery of the first reason that has one ({earlier}), not {kind}"
                    ),
                ));
            } else if let Some(own) = block.reasons()[at].recovery()
                && own.kind() == kind
                && !matches!(own, Continuation::Restart { .. })
                && own != *continuation
            {
                // (A restart's words are the writer's own; its kind is what a reader acts on.)
                let code = &codes[at];
                v.push(Violation::new(
                    Rule::ContinuationOfFirstReason,
                    format!("`continuation` must be {code}'s own recovery, {own:?}, not {continuation:?}"),
                ));
            }
        }
    }
}

/// True for a reason besides `MORE_PAGES_AVAILABLE` that may offer a `next_cursor`: a
/// collector's `CLIENT_LIMIT_REACHED`, or a reason outside the table.
fn may_offer_another_cursor(code: &ReasonCode) -> bool {
    *code != ReasonCode::MorePagesAvailable && code.may_offer_a_cursor()
}

/// True when `code` always comes with its continuation (the table in `completeness-codes`).
fn always_recovers(code: &ReasonCode) -> bool {
    code.recovery().is_some_and(|recovery| recovery.is_always())
}

/// R11: `page.returned` against the items of the data member `name`.
pub(crate) fn check_page_returned(returned: u64, name: &str, items: usize) -> Option<Violation> {
    (returned != items as u64).then(|| {
        Violation::new(
            Rule::PageReturnedCountsItems,
            format!("`page.returned` is {returned} but `{name}` holds {items}"),
        )
    })
}

/// R12 on one raw reason object, before it is read: what the reader cannot see afterwards.
pub(crate) fn check_reason_object(index: usize, object: &Map<String, Value>) -> Option<Violation> {
    let code = object.get("code").and_then(Value::as_str).unwrap_or("");
    if !completeness_codes::is_wire_code(code) {
        return Some(Violation::new(
            Rule::ReasonObject,
            format!("incomplete_reasons[{index}] needs a SCREAMING_SNAKE_CASE string `code`"),
        ));
    }
    if let Some(kind) = object.get("kind") {
        let read = kind.as_str().and_then(ReasonKind::parse);
        // A standard reason needs no `kind` (its code says it); one it carries is its own, or
        // the member says something else, which no reader acts on.
        let wrong = match completeness_codes::standard_reason(code) {
            Some(standard) if read != Some(standard.kind) => Some(format!("its kind is {}", standard.kind.as_str())),
            None if read.is_none() => Some("which is not a reason kind".to_owned()),
            _ => None,
        };
        if let Some(wrong) = wrong {
            return Some(Violation::new(
                Rule::ReasonObject,
                format!("incomplete_reasons[{index}] ({code}) has `kind` {kind}, {wrong}"),
            ));
        }
    }
    let details: Vec<&str> = object
        .keys()
        .map(String::as_str)
        .filter(|member| !completeness_codes::REASON_HEAD_MEMBERS.contains(member))
        .collect();
    if code == "VISIBILITY_RESTRICTED" && !details.is_empty() {
        return Some(Violation::new(
            Rule::ReasonObject,
            format!(
                "incomplete_reasons[{index}] (VISIBILITY_RESTRICTED) must not name or count hidden records; it has {}",
                details.join(", ")
            ),
        ));
    }
    None
}

/// R13 on one raw warning object.
pub(crate) fn check_warning_object(index: usize, object: &Value) -> Option<Violation> {
    let ok = object.as_object().is_some_and(|w| {
        w.get("code").and_then(Value::as_str).is_some_and(completeness_codes::is_wire_code)
            && w.get("message").is_some_and(Value::is_string)
    });
    if !ok {
        return Some(Violation::new(
            Rule::WarningObject,
            format!("warnings[{index}] needs a SCREAMING_SNAKE_CASE `code` and a string `message`"),
        ));
    }
    // A `stale` a reader cannot read as true or false would leave it guessing whether the
    // answer is current.
    let stale = object.get("stale").filter(|stale| !stale.is_boolean())?;
    Some(Violation::new(Rule::WarningObject, format!("warnings[{index}] has `stale` {stale}, which is not a boolean")))
}
