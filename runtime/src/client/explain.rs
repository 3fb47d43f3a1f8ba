//! Reasons and verdicts in words a person understands.

use serde_json::Value;

use crate::contract::completeness::Completeness;
use crate::contract::continuation::Continuation;
use crate::contract::reason::{Reason, ReasonCode, ReasonDetails, ReasonKind, StandardReason};
use crate::contract::scope::Scope;

/// What the items of a scope are called in prose: `"service_accounts"` → `"service accounts"`.
pub fn noun(resource: &str) -> String {
    let words = resource.replace(['_', '-'], " ");
    if words.trim().is_empty() { "items".to_owned() } else { words }
}

/// `count` items of `noun` (a plural, as resources are named): `"2 service accounts"`, and for
/// one the singular where dropping the final `s` surely gives it, `"1 service account"`. A
/// plural that does not end so simply (`"entries"`, `"boxes"`, `"caches"`, `"statuses"`,
/// `"people"`) stays as it is: a plural after 1 reads better than a wrong singular.
///
/// ```
/// use completeness_runtime::client::explain::counted;
///
/// assert_eq!(counted(0, "service accounts"), "0 service accounts");
/// assert_eq!(counted(1, "service accounts"), "1 service account");
/// assert_eq!(counted(1, "search results"), "1 search result");
/// assert_eq!(counted(1, "entries"), "1 entries");
/// assert_eq!(counted(1, "statuses"), "1 statuses");
/// ```
pub fn counted(count: usize, noun: &str) -> String {
    let irregular = ["ies", "ses", "xes", "zes", "ches", "shes", "ss"].iter().any(|ending| noun.ends_with(ending));
    match noun.strip_suffix('s') {
        Some(one) if count == 1 && !irregular => format!("1 {one}"),
        _ => format!("{count} {noun}"),
    }
}

/// The filters of `scope` as a verdict names them, ` matching owner=none, tenant=north` (with
/// its leading blank), or nothing when there are none: "none exist" is said of the question
/// asked, not of every record of the resource. For a service's own verdict lines, such as a
/// count's.
pub fn matching(scope: &Scope) -> String {
    if scope.filters.is_empty() {
        return String::new();
    }
    let filters: Vec<String> =
        scope.filters.iter().map(|(name, value)| format!("{}={}", on_one_line(name), shown(value))).collect();
    format!(" matching {}", filters.join(", "))
}

/// The longest filter value a verdict shows, in characters.
const SHOWN_VALUE: usize = 64;

/// A filter's value on one line ([`on_one_line`]): a string as it is, anything else as JSON. A
/// string that would read as JSON of its own (`"null"`, `"5"`, `"[]"`) or as nothing (`""`) is
/// shown as the JSON string it is, so that `owner="null"` and `owner=null` stay two questions.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) if !text.is_empty() && serde_json::from_str::<Value>(text).is_err() => on_one_line(text),
        other => on_one_line(&other.to_string()),
    }
}

/// `text` as a verdict shows a name or value the server echoed: control characters as blanks,
/// so that the line stays one, cut to [`SHOWN_VALUE`] characters (`…` says where).
fn on_one_line(text: &str) -> String {
    let mut line: String = text.chars().take(SHOWN_VALUE).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.chars().count() > SHOWN_VALUE {
        line.push('…');
    }
    line
}

/// One reason in plain words, for a result that returned `returned` items of `noun`.
///
/// ```
/// use completeness_runtime::client::explain::explain_reason;
/// use completeness_runtime::reason::{Progress, TimeBudgetExceeded};
///
/// let reason = TimeBudgetExceeded::new(2000, Progress::new(842, None, "rows"));
/// let words = explain_reason(&reason.into(), 842, "service accounts");
/// assert!(words.starts_with("the inventory ran out of time after returning 842 of an unknown number of service accounts"));
/// ```
pub fn explain_reason(reason: &StandardReason, returned: usize, noun: &str) -> String {
    match reason {
        StandardReason::MorePagesAvailable(_) => format!(
            "only part of the inventory was read: {returned} {noun} were returned and further pages were never fetched"
        ),
        StandardReason::ResultLimitReached(r) => format!(
            "the server stopped at its limit of {} results after returning {returned} {noun}; more may match",
            r.limit
        ),
        StandardReason::TimeBudgetExceeded(r) => {
            let total = match r.progress.planned {
                Some(planned) if r.progress.unit == "rows" || r.progress.unit == "items" => planned.to_string(),
                _ => "an unknown number of".to_owned(),
            };
            let mut text = format!(
                "the inventory ran out of time after returning {returned} of {total} {noun} (budget {} ms)",
                r.budget_ms
            );
            if let Some(planned) = r.progress.planned
                && r.progress.unit != "rows"
                && r.progress.unit != "items"
            {
                text.push_str(&format!("; {} of {planned} {} finished", r.progress.completed, r.progress.unit));
            }
            text
        }
        StandardReason::SourceUnavailable(r) => format!(
            "the source '{}' did not answer, so {noun} held only there are missing from the {returned} returned",
            r.source
        ),
        StandardReason::VisibilityRestricted(_) => format!(
            "the credential cannot read every record in scope: {noun} it cannot see may exist but are neither listed \
             nor counted, so the {returned} returned prove nothing about the rest"
        ),
        StandardReason::QuotaExhausted(r) => format!(
            "a quota ran out after {returned} {noun} were returned; it refills in {} seconds",
            r.retry_after_seconds
        ),
        // In its own words too, when the client gave them (what to change, say).
        StandardReason::ClientLimitReached(r) if r.message() != r.default_message() => format!(
            "the collecting client stopped at its own limit of {} after {returned} {noun}: {}",
            r.limit_kind.describe(r.limit),
            r.message().trim_end().trim_end_matches('.')
        ),
        StandardReason::ClientLimitReached(r) => format!(
            "the collecting client stopped at its own limit of {} after {returned} {noun}",
            r.limit_kind.describe(r.limit)
        ),
        // Said in its own words when it has them: the server's, on a refused cursor, or the
        // collector's, on a traversal it stopped (a loop, a page of another query), which is no
        // expiry.
        StandardReason::SnapshotExpired(r) if r.message() != r.default_message() => format!(
            "the traversal stopped before its last page: {}; the {returned} {noun} returned cannot be combined with \
             a new listing",
            r.message().trim_end().trim_end_matches('.')
        ),
        StandardReason::SnapshotExpired(r) => format!(
            "the snapshot {} the listing was read at is gone before the last page; the {returned} {noun} returned \
             cannot be combined with a new listing",
            r.snapshot
        ),
        // The service's message is a sentence of its own; its full stop would end this one.
        StandardReason::Custom(r) => format!(
            "the server reported '{}' (kind: {}): {}; {returned} {noun} returned",
            r.code(),
            r.kind().as_str(),
            r.message().trim_end().trim_end_matches('.')
        ),
    }
}

/// The one-line verdict on one page of a traversal (a response with `page`). A complete first
/// page is the whole result, and has [`verdict`]'s; a complete page reached with a cursor
/// (`page.resumed`), or one whose page facts are missing or do not say (an older server), is
/// the last of its traversal: it speaks of what this page holds and of what the traversal
/// covers with the pages before it, which this page alone cannot vouch for (its evidence can).
pub fn page_verdict<R: Reason>(completeness: &Completeness<R>, returned: usize) -> String {
    one_line(completeness, returned, true)
}

/// The one-line verdict on a result: `COMPLETE: ...`, `COMPLETE BUT STALE (CODES): ...` or
/// `INCOMPLETE (CODES): ...`, naming the filters the scope echoes. A result that says it is the
/// rest of a traversal (`page.resumed`: collected from a cursor, not from the first page) is
/// not said to cover the scope by itself.
pub fn verdict<R: Reason>(completeness: &Completeness<R>, returned: usize) -> String {
    one_line(completeness, returned, false)
}

/// What a service knows of the traversal a page belongs to that the page does not say, for
/// [`traversal_page_verdict`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traversal {
    /// The call that got the page sent a cursor: it continued a traversal.
    pub cursor_sent: bool,
    /// The service gives evidence with the last page of every traversal read whole and current
    /// (`Page::attach_evidence` on every page), so a complete last page without it ended a
    /// traversal an earlier page of which was partial or stale (contract §6).
    pub evidence_when_whole: bool,
}

/// The one-line verdict on one page, told what the service knows of its traversal: as
/// [`page_verdict`], but a page answered to a cursor that says it is a first page
/// (`page.resumed: false`: the traversal started over, contract §2.5) starts `STARTED OVER` and
/// says to drop the pages read before it, where the line alone reads as one more page; and, on
/// a service that gives evidence with every whole traversal, a complete last page without
/// evidence starts `COMPLETE PAGE, INCOMPLETE TRAVERSAL` and says to start over, where the line
/// alone says the traversal covers the scope only if every page before it lacked nothing (§8
/// rule 6).
pub fn traversal_page_verdict<R: Reason>(
    completeness: &Completeness<R>,
    returned: usize,
    traversal: Traversal,
) -> String {
    let line = page_verdict(completeness, returned);
    let resumed = completeness.page().and_then(|page| page.resumed);
    if traversal.cursor_sent && resumed == Some(false) {
        return format!(
            "STARTED OVER: the cursor was answered with the first page again (`page.resumed: false`), so drop every \
             page read before this one: this is the first page of a new traversal. {line}"
        );
    }
    let whole_would_have_evidence = traversal.evidence_when_whole && resumed == Some(true);
    let stale = !crate::client::decide::stale_warnings(completeness).is_empty();
    if whole_would_have_evidence && completeness.is_complete() && completeness.evidence().is_none() && !stale {
        let scope = completeness.scope();
        return format!(
            "COMPLETE PAGE, INCOMPLETE TRAVERSAL: {}{} on this last page, but no `evidence`, which this service \
             gives with the last page of every traversal read whole and current: a page before it was partial or \
             stale, so the pages read do not cover the whole scope ({}). To continue: start a new traversal \
             (no `cursor`).",
            counted(returned, &noun(&scope.resource)),
            matching(scope),
            scope.visibility
        );
    }
    line
}

/// The verdict; `one_page` when the answer is one page of a traversal, not a whole result.
fn one_line<R: Reason>(completeness: &Completeness<R>, returned: usize, one_page: bool) -> String {
    // A page without page facts cannot say it is a first page; a whole result without them
    // is read from its first page.
    let tail = completeness.page().map_or(one_page, |page| page.resumed.unwrap_or(one_page));
    let scope = completeness.scope();
    let noun = noun(&scope.resource);
    let matching = matching(scope);
    let items = format!("{}{matching}", counted(returned, &noun));
    let snapshot = scope.snapshot.as_deref().map(|s| format!(" at snapshot {s}")).unwrap_or_default();
    let whole = format!("the whole scope ({}){snapshot}", scope.visibility);
    let held = if one_page {
        "on this page, the last of the traversal"
    } else {
        "from a page reached with a cursor to the last page of the traversal"
    };
    let head = verdict_head(completeness);
    if !completeness.is_complete() {
        let absence = if returned == 0 { "; an empty result here is not evidence of absence" } else { "" };
        // What was returned may be behind too: said, since the head names only the reasons.
        let stale = crate::client::decide::stale_warnings(completeness);
        let stale = match stale.is_empty() {
            true => String::new(),
            false => format!(", and what was returned was read from a copy that is not current ({})", stale.join(", ")),
        };
        return format!("{head}: {items} returned, not {whole}{absence}{stale}.{}", what_next(completeness));
    }
    // `decide` refuses to claim absence from a stale copy: the verdict says so in its head.
    if !crate::client::decide::stale_warnings(completeness).is_empty() {
        let held = if tail { format!(" {held},") } else { format!(" in {whole},") };
        let absence = if returned == 0 { "not evidence of absence" } else { "not evidence that no others exist" };
        return format!(
            "{head}: {items}{held} read from a copy that is not current: {absence}. Ask again later for a current \
             answer."
        );
    }
    if tail {
        // Whether the pages before it were whole this page does not say; its evidence does, where
        // the server gives it: only a traversal none of whose pages was partial gets it (§6).
        let covered = match completeness.evidence() {
            Some(_) => format!(
                "with the pages before it, the traversal covers {whole}, as its evidence attests; this page alone \
                 proves no absence"
            ),
            None => format!(
                "with the pages before it, the traversal covers {whole} only if each of them lacked nothing but \
                 the next page and was current; this page alone proves no absence"
            ),
        };
        return format!("{head}: {items} {held}: {covered}.");
    }
    match returned {
        0 => format!("{head}: no {noun}{matching} exist in {whole}."),
        _ => format!("{head}: {items}, all there are in {whole}."),
    }
}

/// The head of a verdict line: `COMPLETE`, `COMPLETE BUT STALE (CODES)` (the codes of its stale
/// warnings, contract §3.5) or `INCOMPLETE (CODES)` (its reasons'). For a service's own verdict
/// lines, such as a count's.
pub fn verdict_head<R: Reason>(completeness: &Completeness<R>) -> String {
    if !completeness.is_complete() {
        let codes: Vec<String> = completeness.reason_codes().iter().map(|c| c.as_str().to_owned()).collect();
        return format!("INCOMPLETE ({})", codes.join(", "));
    }
    let stale = crate::client::decide::stale_warnings(completeness);
    match stale.is_empty() {
        true => "COMPLETE".to_owned(),
        false => format!("COMPLETE BUT STALE ({})", stale.join(", ")),
    }
}

/// What an incomplete answer's verdict says after its first sentence, each part starting with
/// a space: the sources not read, which a list of codes alone does not tell apart, how to
/// continue (or that nothing is offered), what a retry or next page does not get past (a cap
/// that is not pagination, for which `decide` says to narrow the query), and what continuing
/// does not recover (the reasons for which `decide` refuses); empty for a complete answer. For
/// a service's own verdict lines, such as a count's.
pub fn what_next<R: Reason>(completeness: &Completeness<R>) -> String {
    if completeness.is_complete() {
        return String::new();
    }
    let sources: Vec<String> = completeness
        .reasons()
        .iter()
        // Only these are read into their details (`from_reason` goes through their JSON).
        .filter(|reason| reason.code() == ReasonCode::SourceUnavailable)
        .filter_map(|reason| match StandardReason::from_reason(reason) {
            StandardReason::SourceUnavailable(unavailable) => Some(unavailable.source),
            _ => None,
        })
        .collect();
    let sources =
        if sources.is_empty() { String::new() } else { format!(" Sources not read: {}.", sources.join(", ")) };
    // Nor does a retry, a next page or a new traversal get past a cap that is not pagination:
    // where the continuation offers one of those, or none, `decide` says to narrow the query, and so does
    // the verdict.
    let capped = crate::client::decide::past_any_retry(completeness);
    let attempts = crate::client::decide::recovered_by_a_new_attempt(completeness);
    // Whatever step the line offers (the next page, a retry, a narrower question, a new attempt)
    // may get more of the answer, but not what these leave out: `decide` refuses a claim of
    // absence or a change on it, and the verdict says why. Only a line that offers no step at all
    // says so already.
    let offers_a_step = completeness.continuation().is_some() || !capped.is_empty() || !attempts.is_empty();
    let beyond = match offers_a_step {
        true => beyond_the_continuation(&crate::client::decide::beyond_recovery(completeness)),
        false => String::new(),
    };
    let step = match completeness.continuation() {
        None if !capped.is_empty() => format!(" To continue: narrow the query.{}", only_a_narrower_question(&capped)),
        // No way on is offered, but a new attempt is one: said as the step, not as "none".
        None if !attempts.is_empty() => " To continue: make a new attempt; the answer names no wait.".to_owned(),
        Some(
            continuation @ (Continuation::NextCursor { .. }
            | Continuation::RetryAfter { .. }
            | Continuation::RetryWithDeadline { .. }
            | Continuation::Restart { .. }),
        ) => format!("{}{}", next_step(Some(continuation)), only_a_narrower_question(&capped)),
        continuation => next_step(continuation),
    };
    // A reason a new attempt recovers, where the continuation offers another step (a narrower
    // question, the next page, or none): named too, with how, so that a reader of the verdict
    // alone does not take that step for the whole recovery.
    let retry = match completeness.continuation() {
        Some(
            Continuation::RetryAfter { .. } | Continuation::RetryWithDeadline { .. } | Continuation::Restart { .. },
        ) => String::new(),
        _ => also_a_new_attempt(&attempts),
    };
    format!("{sources}{step}{retry}{beyond}")
}

/// That a new attempt may recover what `attempts` left out, each code with how (a wait, a larger
/// time budget, the first page again), in words; empty when none does.
fn also_a_new_attempt(attempts: &[(ReasonCode, ReasonKind)]) -> String {
    if attempts.is_empty() {
        return String::new();
    }
    let each: Vec<String> = attempts
        .iter()
        .map(|(code, kind)| {
            let how = match (code, kind) {
                (ReasonCode::TimeBudgetExceeded, _) => "with a larger time budget",
                // A snapshot gone, or pages that gave no cursor to go on with (a collector's own
                // limit among them, which a new attempt meets again unless it is raised).
                (_, ReasonKind::Snapshot | ReasonKind::Truncation) => "from the first page",
                _ => "after a wait",
            };
            format!("{} ({how})", code.as_str())
        })
        .collect();
    format!(" A new attempt may recover what {} left out.", each.join(", "))
}

/// What only a narrower question gets past, in words; empty when nothing is.
fn only_a_narrower_question(codes: &[ReasonCode]) -> String {
    if codes.is_empty() {
        return String::new();
    }
    let codes: Vec<&str> = codes.iter().map(ReasonCode::as_str).collect();
    format!(" No retry or next page gets past {}: only a narrower question does.", codes.join(", "))
}

/// What no continuation recovers, in words: what visibility reasons hide, and what reasons of a
/// kind this client does not know leave out, of which it cannot tell what would recover it.
fn beyond_the_continuation(beyond: &[(ReasonCode, ReasonKind)]) -> String {
    let codes = |visible: bool| -> Vec<&str> {
        beyond
            .iter()
            .filter(|(_, kind)| (*kind == ReasonKind::Visibility) == visible)
            .map(|(code, _)| code.as_str())
            .collect()
    };
    let (hidden, unknown) = (codes(true), codes(false));
    let mut text = String::new();
    if !hidden.is_empty() {
        text.push_str(&format!(
            " It stays incomplete however it is continued: no retry shows what {} hide{}.",
            hidden.join(", "),
            if hidden.len() == 1 { "s" } else { "" }
        ));
    }
    if !unknown.is_empty() {
        text.push_str(&format!(
            " This client cannot tell what would recover what {} leave{} out (a kind it does not know).",
            unknown.join(", "),
            if unknown.len() == 1 { "s" } else { "" }
        ));
    }
    text
}

/// What a reader of the verdict alone does next: the answer's continuation in words (contract
/// §2.4, [`Continuation::in_words`]), or that none is offered, so that asking again the same way
/// gives no more.
fn next_step(continuation: Option<&Continuation>) -> String {
    match continuation {
        Some(continuation) => format!(" To continue: {}.", continuation.in_words()),
        None => " No way to complete it is offered.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::verdict;
    use crate::contract::completeness::Completeness;
    use crate::contract::reason::{
        MorePagesAvailable, Progress, ResultLimitReached, SnapshotExpired, SourceUnavailable, StandardReason,
        TimeBudgetExceeded, VisibilityRestricted,
    };
    use crate::contract::scope::Scope;

    fn block(reasons: Vec<StandardReason>) -> Completeness {
        let scope = Scope::new("service_accounts", "every tenant");
        let mut reasons = reasons.into_iter();
        let mut block = Completeness::incomplete(scope, reasons.next().expect("a reason"));
        reasons.for_each(|reason| block.push_reason(reason));
        block
    }

    /// The verdict line alone says how to go on: a reader that sees only it can continue.
    #[test]
    fn an_incomplete_verdict_says_how_to_continue() {
        let page = verdict(&block(vec![MorePagesAvailable::new("c1.k.p.s").into()]), 3);
        assert!(page.starts_with("INCOMPLETE (MORE_PAGES_AVAILABLE): 3 service accounts returned"), "{page}");
        assert!(page.ends_with(" To continue: send `next_cursor` back as the cursor of the same query."), "{page}");

        let progress = Progress { completed: 10, planned: None, unit: "rows".into() };
        let slow = verdict(&block(vec![TimeBudgetExceeded::new(2000, progress).retry_with_deadline(10).into()]), 10);
        assert!(
            slow.ends_with(
                " To continue: ask again with a time budget of at least 10 s (`time_budget_ms=10000` or more)."
            ),
            "{slow}"
        );

        let busy = verdict(&block(vec![SourceUnavailable::new("audit").retry_after(30).into()]), 1);
        assert!(busy.ends_with(" To continue: ask again after 30 s."), "{busy}");

        let limited = verdict(&block(vec![ResultLimitReached::new(50, "add a tenant filter.").into()]), 50);
        assert!(limited.ends_with(" To continue: narrow the query (add a tenant filter)."), "{limited}");

        let expired = verdict(&block(vec![SnapshotExpired::new("s-9").into()]), 0);
        assert!(expired.contains("To continue: start a new traversal from the first page ("), "{expired}");
    }

    /// The filters are named as the scope echoes them: a string that reads as JSON of its own, or
    /// as nothing, is quoted, so that a string and the JSON value it spells are told apart.
    #[test]
    fn the_filters_named_tell_a_string_from_the_json_value_it_spells() {
        let scope = Scope::new("service_accounts", "every tenant")
            .with_filter("owner", serde_json::Value::Null)
            .with_filter("team", "null")
            .with_filter("tenant", "north")
            .with_filter("limit", "5")
            .with_filter("label", "");
        assert_eq!(super::matching(&scope), r#" matching owner=null, team="null", tenant=north, limit="5", label="""#);
    }

    /// A page of service accounts reached with a cursor (`resumed`), complete or with a next page.
    fn page(resumed: bool, next: bool) -> Completeness {
        let scope = Scope::new("service_accounts", "every tenant").with_filter("owner", "none");
        let page = crate::contract::scope::PageInfo {
            returned: 2,
            requested_size: None,
            applied_size: 2,
            ordering: "id ascending".to_owned(),
            snapshot: None,
            cursor: None,
            resumed: Some(resumed),
        };
        match next {
            true => Completeness::incomplete(scope, MorePagesAvailable::new("c2")).with_page(page),
            false => Completeness::complete(scope).with_page(page),
        }
    }

    /// A cursor answered with a first page says the traversal started over; a complete last
    /// page without evidence, from a service that gives it with every whole traversal, says the
    /// traversal is not whole. Anything else reads as the page's own verdict.
    #[test]
    fn a_page_verdict_says_what_the_service_knows_of_its_traversal() {
        use super::{Traversal, page_verdict, traversal_page_verdict};
        let told = Traversal { cursor_sent: true, evidence_when_whole: true };

        let again = page(false, true);
        let line = traversal_page_verdict(&again, 2, told);
        assert!(line.starts_with("STARTED OVER: the cursor was answered with the first page again"), "{line}");
        assert!(line.ends_with(&page_verdict(&again, 2)), "{line}");
        let first = Traversal { cursor_sent: false, ..told };
        assert_eq!(traversal_page_verdict(&again, 2, first), page_verdict(&again, 2), "a first page asked for");

        let last = page(true, false);
        let line = traversal_page_verdict(&last, 2, told);
        assert!(
            line.starts_with(
                "COMPLETE PAGE, INCOMPLETE TRAVERSAL: 2 service accounts matching owner=none on this last page, but \
                 no `evidence`"
            ),
            "{line}"
        );
        assert!(line.ends_with("To continue: start a new traversal (no `cursor`)."), "{line}");
        let silent = Traversal { evidence_when_whole: false, ..told };
        assert_eq!(traversal_page_verdict(&last, 2, silent), page_verdict(&last, 2), "no evidence is expected");
        let mut attested = last.clone();
        assert!(attested.attach_evidence("ev1.k.x".to_owned()));
        assert_eq!(traversal_page_verdict(&attested, 2, told), page_verdict(&attested, 2), "a whole traversal");
    }

    /// An incomplete answer that is stale too says both: its head names only the reasons.
    #[test]
    fn an_incomplete_verdict_names_a_stale_warning_too() {
        let mut partial = block(vec![VisibilityRestricted::new().into()]);
        partial.push_warning(crate::contract::warning::StaleIndex::new("audit"));
        let line = verdict(&partial, 0);
        assert!(
            line.contains(
                "not evidence of absence, and what was returned was read from a copy that is not current (STALE_INDEX)."
            ),
            "{line}"
        );
        assert!(!verdict(&block(vec![VisibilityRestricted::new().into()]), 0).contains("not current"));
    }

    /// An answer nothing can complete says so, rather than leaving the reader to ask again.
    #[test]
    fn an_incomplete_verdict_without_a_continuation_says_none_is_offered() {
        let hidden = verdict(&block(vec![VisibilityRestricted::new().into()]), 0);
        assert!(hidden.contains("; an empty result here is not evidence of absence."), "{hidden}");
        assert!(hidden.ends_with(" No way to complete it is offered."), "{hidden}");
    }

    /// A next page of a view the credential cannot see whole: the line says how to go on and
    /// that going on does not complete it, as `decide` reads it.
    #[test]
    fn an_incomplete_verdict_says_when_continuing_cannot_complete_it() {
        let restricted = block(vec![MorePagesAvailable::new("c1.k.p.s").into(), VisibilityRestricted::new().into()]);
        let line = verdict(&restricted, 2);
        assert!(line.contains(" To continue: send `next_cursor` back as the cursor of the same query."), "{line}");
        assert!(
            line.ends_with(
                " It stays incomplete however it is continued: no retry shows what VISIBILITY_RESTRICTED hides."
            ),
            "{line}"
        );
        let pages = verdict(&block(vec![MorePagesAvailable::new("c1.k.p.s").into()]), 2);
        assert!(!pages.contains("stays incomplete"), "{pages}");
        // A reason of a kind this client does not know: it cannot say no retry recovers it.
        let draining = crate::contract::reason::CustomReason::from_wire(
            "REGION_DRAINING".to_owned(),
            "a region is draining".to_owned(),
            serde_json::Map::new(),
        );
        let unknown = verdict(&block(vec![MorePagesAvailable::new("c1.k.p.s").into(), draining.clone().into()]), 2);
        assert!(!unknown.contains("stays incomplete"), "{unknown}");
        assert!(
            unknown.ends_with(
                " This client cannot tell what would recover what REGION_DRAINING leaves out (a kind it does not know)."
            ),
            "{unknown}"
        );
    }

    /// A cap that is not pagination beside a reason whose continuation is a retry or a next
    /// page: the line says how to continue, and that only a narrower question gets past the
    /// cap, as `decide` reads it (a verdict that said only "ask again" sent agents round).
    #[test]
    fn an_incomplete_verdict_says_what_only_a_narrower_question_gets_past() {
        use crate::client::{Decision, Intent, decide_on};
        let limit = || ResultLimitReached::new(50, "add a tenant filter.").into();
        let retried = block(vec![SourceUnavailable::new("crm").retry_after(45).into(), limit()]);
        let paged = block(vec![MorePagesAvailable::new("c1.k.p.s").into(), limit()]);
        for (answer, step) in [(&retried, "ask again after 45 s"), (&paged, "send `next_cursor` back")] {
            let line = verdict(answer, 2);
            assert!(line.contains(&format!(" To continue: {step}")), "{line}");
            assert!(
                line.ends_with(" No retry or next page gets past RESULT_LIMIT_REACHED: only a narrower question does."),
                "{line}"
            );
            assert_eq!(decide_on(answer, false, Intent::Report), Decision::NarrowQuery);
        }
        // A new traversal hits the same cap.
        let restarted = block(vec![SnapshotExpired::new("s-9").into(), limit()]);
        let line = verdict(&restarted, 2);
        assert!(line.contains(" To continue: start a new traversal from the first page ("), "{line}");
        assert!(line.ends_with("only a narrower question does."), "{line}");
        assert_eq!(decide_on(&restarted, false, Intent::Report), Decision::NarrowQuery);
        let narrowed = verdict(&block(vec![limit(), SourceUnavailable::new("crm").retry_after(45).into()]), 2);
        assert!(!narrowed.contains("only a narrower question"), "its continuation says to narrow: {narrowed}");
        // The source's part is not recovered by narrowing: the line says what is.
        assert!(
            narrowed.ends_with(
                " To continue: narrow the query (add a tenant filter). A new attempt may recover what \
                 SOURCE_UNAVAILABLE (after a wait) left out."
            ),
            "{narrowed}"
        );
        let slow = TimeBudgetExceeded::new(2000, Progress { completed: 10, planned: None, unit: "rows".into() });
        let paged_slow = verdict(&block(vec![MorePagesAvailable::new("c1.k.p.s").into(), slow.into()]), 2);
        assert!(
            paged_slow.contains("may recover what TIME_BUDGET_EXCEEDED (with a larger time budget) left out."),
            "{paged_slow}"
        );
        let retried_line = verdict(&retried, 2);
        assert!(!retried_line.contains("A new attempt"), "its continuation is the retry: {retried_line}");
        // A cap that offers no way on: the line says to narrow, not that nothing is offered.
        let mut kind = serde_json::Map::new();
        kind.insert("kind".into(), "truncation".into());
        let cut = crate::contract::reason::CustomReason::from_wire(
            "UPSTREAM_TRUNCATED".to_owned(),
            "the upstream may have cut its answer".to_owned(),
            kind,
        );
        let bare = block(vec![cut.into()]);
        assert_eq!(bare.continuation(), None);
        let line = verdict(&bare, 50);
        assert!(
            line.ends_with(
                " To continue: narrow the query. No retry or next page gets past UPSTREAM_TRUNCATED: only a narrower \
                 question does."
            ),
            "{line}"
        );
        assert_eq!(decide_on(&bare, false, Intent::Report), Decision::NarrowQuery);
    }

    /// Codes repeat for several failed sources; the line names the sources, and that a new
    /// attempt is the way on though the answer names no wait.
    #[test]
    fn an_incomplete_verdict_names_the_sources_not_read() {
        let sources = ["directory", "audit"].map(|source| SourceUnavailable::new(source).into());
        let line = verdict(&block(sources.into()), 0);
        assert!(line.starts_with("INCOMPLETE (SOURCE_UNAVAILABLE, SOURCE_UNAVAILABLE): 0 service accounts"), "{line}");
        assert!(
            line.ends_with(
                " Sources not read: directory, audit. To continue: make a new attempt; the answer names no wait. A \
                 new attempt may recover what SOURCE_UNAVAILABLE (after a wait) left out."
            ),
            "{line}"
        );
    }

    /// A new attempt offered beside what no attempt shows: the line says both, as `decide`
    /// refuses (a line that said only "make a new attempt" sent agents round).
    #[test]
    fn a_new_attempt_beside_hidden_records_says_they_stay_hidden() {
        use crate::client::{Decision, Intent, decide_on};
        let answer = block(vec![VisibilityRestricted::new().into(), SourceUnavailable::new("audit").into()]);
        let line = verdict(&answer, 0);
        assert!(line.contains(" To continue: make a new attempt; the answer names no wait."), "{line}");
        assert!(
            line.ends_with(
                " It stays incomplete however it is continued: no retry shows what VISIBILITY_RESTRICTED hides."
            ),
            "{line}"
        );
        assert_eq!(decide_on(&answer, false, Intent::Report), Decision::RefuseOrRequestReview);
    }
}
