//! The trait every routed response implements: it reports completeness, or is explicitly not a list.

use serde_json::Value;

use crate::contract::aggregate::Aggregate;
use crate::contract::completeness::Completeness;
use crate::contract::continuation::Continuation;
use crate::contract::declared::DeclaredSet;
use crate::contract::envelope::Envelope;
use crate::contract::field::{Omission, OmittedFields};
use crate::contract::reason::{Reason, ReasonCode, ReasonKind};
use crate::contract::scope::PageInfo;
use crate::contract::warning::WarningCode;
use crate::server::problem::{Problem, ProblemCode};

/// A type-erased view of a completeness block, for generic handling
/// (`require_complete`, the events) without knowing the endpoint's reason type.
pub trait CompletenessReport {
    /// True only when the response covers the whole requested scope.
    fn is_complete(&self) -> bool;
    /// The reason codes.
    fn reason_codes(&self) -> Vec<ReasonCode>;
    /// The kind of each reason.
    fn reason_kinds(&self) -> Vec<ReasonKind>;
    /// The reasons as wire objects.
    fn reasons_json(&self) -> Vec<Value>;
    /// The largest `retry_after` among the recoveries, when any is known.
    fn retry_after_seconds(&self) -> Option<u64>;
    /// The recovery of each reason, in order (`None` for one that offers none): a problem that
    /// refuses the answer carries the one a new attempt takes.
    fn recoveries(&self) -> Vec<Option<Continuation>> {
        Vec::new()
    }
    /// The warning codes.
    fn warning_codes(&self) -> Vec<WarningCode> {
        Vec::new()
    }
    /// The page facts, when the response is a page.
    fn page(&self) -> Option<&PageInfo> {
        None
    }
    /// What the endpoint declared with `#[completeness]`, when it did (the fault layer reads it).
    fn declared_set(&self) -> Option<DeclaredSet> {
        None
    }
    /// True when the reasons only say where the traversal goes on: `MORE_PAGES_AVAILABLE`, or
    /// alone a service's own truncation whose continuation is the next cursor, pagination by its
    /// own name (contract §5.3, §8). The codes alone say the first.
    fn only_the_next_page(&self) -> bool {
        self.reason_codes().iter().all(|code| *code == ReasonCode::MorePagesAvailable)
    }
    /// The position of a service's own truncation whose recovery is the next page (pagination by
    /// its own name, contract §8), as the wire members say it: a block read from the wire says
    /// it as the block it was written from does.
    fn own_paging(&self) -> Option<usize> {
        None
    }
}

impl<R: Reason> CompletenessReport for Completeness<R> {
    fn is_complete(&self) -> bool {
        Completeness::is_complete(self)
    }
    fn reason_codes(&self) -> Vec<ReasonCode> {
        Completeness::reason_codes(self)
    }
    fn reason_kinds(&self) -> Vec<ReasonKind> {
        self.reasons().iter().map(Reason::kind).collect()
    }
    fn declared_set(&self) -> Option<DeclaredSet> {
        R::declared_set()
    }
    fn only_the_next_page(&self) -> bool {
        let reasons = self.reasons();
        reasons.iter().all(|reason| reason.code() == ReasonCode::MorePagesAvailable)
            || (reasons.len() == 1 && self.own_paging_reason() == Some(0))
    }
    fn own_paging(&self) -> Option<usize> {
        self.own_paging_reason()
    }
    fn reasons_json(&self) -> Vec<Value> {
        self.reasons().iter().map(|r| serde_json::to_value(r).unwrap_or(Value::Null)).collect()
    }
    fn retry_after_seconds(&self) -> Option<u64> {
        self.reasons()
            .iter()
            .filter_map(|r| match r.recovery() {
                Some(crate::Continuation::RetryAfter { seconds }) => Some(seconds),
                _ => None,
            })
            .max()
    }
    fn recoveries(&self) -> Vec<Option<Continuation>> {
        self.reasons().iter().map(Reason::recovery).collect()
    }
    fn warning_codes(&self) -> Vec<WarningCode> {
        self.warnings().iter().map(|w| w.code().clone()).collect()
    }
    fn page(&self) -> Option<&PageInfo> {
        Completeness::page(self)
    }
}

/// The reasons of an incomplete response, as the demand check (`require::DemandLayer`) reads
/// them: codes and kinds, the reasons as wire objects, and the longest `retry_after`. Built by
/// [`IncompleteReport::of`] (it may gain fields).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct IncompleteReport {
    /// The reason codes, in order.
    pub codes: Vec<ReasonCode>,
    /// The kind of each reason.
    pub kinds: Vec<ReasonKind>,
    /// The reasons as wire objects.
    pub reasons: Vec<serde_json::Value>,
    /// The largest `retry_after` among the recoveries, when any is known.
    pub retry_after_seconds: Option<u64>,
    /// The recovery of each reason ([`CompletenessReport::recoveries`]).
    pub recoveries: Vec<Option<Continuation>>,
    /// True for a page of a collection (it has items or page facts): `MORE_PAGES_AVAILABLE`
    /// alone is then the normal course of paging, not a failure (contract §5.3). An aggregate
    /// has no pages to follow.
    pub paged: bool,
    /// True when its reasons only say where the traversal goes on
    /// ([`CompletenessReport::only_the_next_page`]): on a page, the normal course of paging.
    pub only_the_next_page: bool,
    /// The position of a service's own truncation that is pagination by its own name
    /// ([`CompletenessReport::own_paging`]).
    pub own_paging: Option<usize>,
}

impl IncompleteReport {
    /// What `report` says (empty lists when it is complete); paged when it has page facts.
    pub fn of(report: &dyn CompletenessReport) -> IncompleteReport {
        let paged = report.page().is_some();
        if report.is_complete() {
            return IncompleteReport { paged, ..IncompleteReport::default() };
        }
        IncompleteReport {
            codes: report.reason_codes(),
            kinds: report.reason_kinds(),
            reasons: report.reasons_json(),
            retry_after_seconds: report.retry_after_seconds(),
            recoveries: report.recoveries(),
            paged,
            only_the_next_page: report.only_the_next_page(),
            own_paging: report.own_paging(),
        }
    }

    /// What `response` says: [`IncompleteReport::of`] its block, paged when it also carries
    /// items.
    pub fn of_response<T: ReportsCompleteness + ?Sized>(response: &T) -> Option<IncompleteReport> {
        let mut incomplete = IncompleteReport::of(response.completeness_report()?);
        incomplete.paged |= carries_items(response);
        Some(incomplete)
    }
}

/// True for a response with items (a collection's page), whether or not it has page facts.
fn carries_items<T: ReportsCompleteness + ?Sized>(response: &T) -> bool {
    response.items_member().is_some() || response.items_returned().is_some()
}

/// What a response said about its completeness: the one extension a response that reports
/// completeness carries, from where it is turned into a response to the layers that act on
/// it. The demand check reads `incomplete`, the observe layer emits it once, and the fault
/// layer reads `declared`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reported {
    /// Its reasons (empty exactly when it is complete, rule R2).
    pub incomplete: IncompleteReport,
    /// Its warning codes.
    pub warnings: Vec<WarningCode>,
    /// How many items it carried, when known.
    pub items: Option<u64>,
    /// What the endpoint declared with `#[completeness]`, when it did.
    pub declared: Option<DeclaredSet>,
    /// The data member holding the items ([`ReportsCompleteness::items_member`]), when known.
    pub items_member: Option<&'static str>,
    /// The status of the problem a strict demand answered instead.
    pub(crate) refused_with: Option<u16>,
    /// Set once the observe layer emitted it, so that a second layer does not.
    pub(crate) observed: bool,
}

impl Reported {
    /// What `report` says; `items` when the caller knows the count (else the page's).
    pub fn of(report: &dyn CompletenessReport, items: Option<usize>) -> Reported {
        Reported {
            incomplete: IncompleteReport::of(report),
            warnings: report.warning_codes(),
            items: items.map(|n| n as u64).or_else(|| report.page().map(|page| page.returned)),
            declared: report.declared_set(),
            items_member: None,
            refused_with: None,
            observed: false,
        }
    }

    /// What `response` says, when it is a collection or an aggregate.
    pub fn of_response<T: ReportsCompleteness + ?Sized>(response: &T) -> Option<Reported> {
        let mut reported = Reported::of(response.completeness_report()?, response.items_returned());
        reported.items_member = response.items_member();
        reported.incomplete.paged |= carries_items(response);
        Some(reported)
    }

    /// True only when the response covers the whole requested scope: it gave no reason.
    pub fn is_complete(&self) -> bool {
        self.incomplete.codes.is_empty()
    }

    /// The reason codes (empty when complete).
    pub fn reason_codes(&self) -> &[ReasonCode] {
        &self.incomplete.codes
    }

    /// Leaves this in `response`'s extensions, unless a report is there already (set closer
    /// to the data) or `response` is no success: a value that did not serialize went out as
    /// the 500 problem, which is not the answer this reports.
    #[cfg(feature = "axum")]
    pub fn attach(self, response: &mut axum::response::Response) {
        if response.status().is_success() && response.extensions().get::<Reported>().is_none() {
            response.extensions_mut().insert(self);
        }
    }

    /// `problem`, which a strict demand sent instead of the answer this reports, carrying this
    /// report and the status it was refused with: the observe layer emits the refusal from it.
    #[cfg(feature = "axum")]
    pub(crate) fn refused_by(mut self, mut problem: axum::response::Response) -> axum::response::Response {
        self.refused_with = Some(problem.status().as_u16());
        problem.extensions_mut().insert(self);
        problem
    }
}

/// The problem a demand for completeness meets (it lives here, beside the report it reads,
/// so that problems do not depend on reports).
impl Problem {
    /// The `COMPLETE_RESULT_UNAVAILABLE` problem of contract §5.3 for an incomplete result:
    /// 403 when a reason of kind visibility is among the reasons (or one of no known kind,
    /// relayed from upstream: the most cautious, §3.4), else 422 when the answer was cut by a
    /// limit (`RESULT_LIMIT_REACHED`, or a service's own truncation other than its paging), else 503 with `Retry-After` when known. It carries the
    /// reasons and, as its `continuation`, the recovery its status speaks of (none for a 403,
    /// the narrower question for a 422, the wait `Retry-After` gives or another new attempt for a
    /// 503; contract §5.3): a strict caller reads no block, and would not learn it otherwise.
    pub fn complete_result_unavailable(report: &IncompleteReport) -> Problem {
        let no_retry_fixes = |kind: &ReasonKind| matches!(kind, ReasonKind::Visibility | ReasonKind::Unknown);
        let status = if report.kinds.iter().any(no_retry_fixes) {
            403
        } else if (0..report.codes.len()).any(|at| cut_by_a_limit(report, at)) {
            422
        } else {
            503
        };
        // On a page, the next page is the normal course of paging, not why it was refused: the
        // detail names the causes (`incomplete_reasons` keeps every reason), or every code when
        // it is the only one (a demand that refused the next page alone, which §5.3 does not).
        let named = |skip_paging: bool| {
            let codes = report.codes.iter();
            let codes = codes.filter(|code| !(skip_paging && **code == ReasonCode::MorePagesAvailable));
            codes.map(ReasonCode::as_str).collect::<Vec<_>>().join(", ")
        };
        let causes = match named(report.paged) {
            causes if causes.is_empty() => named(false),
            causes => causes,
        };
        let recovery = new_attempt(report, status);
        let way_on = match (status, &recovery) {
            (403, _) => "No retry shows what is hidden: ask a narrower question this credential reads whole, or \
                         have a person with a credential that reads the whole scope ask."
                .to_owned(),
            (_, Some(narrower @ Continuation::NarrowQuery { .. })) => {
                format!("Asking again cuts it the same way: {}.", narrower.in_words())
            }
            (422, _) => "Asking again cuts it the same way: narrow the query.".to_owned(),
            (_, Some(recovery)) => {
                let words = recovery.in_words();
                let mut first = words.chars();
                first.next().map(|c| format!("{}{}.", c.to_uppercase(), first.as_str())).unwrap_or_default()
            }
            (_, None) => "A new attempt may get a complete answer later; none is promised.".to_owned(),
        };
        let mut problem = Problem::new(
            ProblemCode::CompleteResultUnavailable,
            format!("The request demanded a complete result; this one is incomplete ({causes}). {way_on}"),
        )
        .with_status(status)
        .with_incomplete_reasons(&report.reasons);
        if status == 503
            && let Some(seconds) = report.retry_after_seconds
        {
            problem = problem.with_retry_after(seconds);
        }
        if let Some(recovery) = recovery {
            problem = problem.with_continuation(&recovery);
        }
        problem
    }
}

/// True when the reason at `at` says the answer was cut by a limit, which asking again cuts the
/// same way: `RESULT_LIMIT_REACHED`, or a service's own reason of kind truncation other than
/// its paging (whose recovery is the next page, contract §8, as its recovery or the wire members
/// say it: a relayed block is judged as the block it was written from). A 422 then, not a 503
/// that invites the same request again.
fn cut_by_a_limit(report: &IncompleteReport, at: usize) -> bool {
    let code = &report.codes[at];
    let paging = report.own_paging == Some(at)
        || matches!(report.recoveries.get(at), Some(Some(Continuation::NextCursor { .. })));
    *code == ReasonCode::ResultLimitReached
        || (!code.is_standard() && report.kinds.get(at) == Some(&ReasonKind::Truncation) && !paging)
}

/// The recovery a new attempt takes after a strict refusal of `status`, the one the status
/// speaks of: none for a 403, since no retry shows what is hidden; the narrower question of a
/// reason that cut the answer for a 422; for a 503, the wait `Retry-After` gives, or else the
/// first other new attempt offered (a larger budget, a new traversal). Never a next page: the
/// demand refused the traversal that cursor goes on with.
fn new_attempt(report: &IncompleteReport, status: u16) -> Option<Continuation> {
    let mut offered = report.recoveries.iter().enumerate().filter_map(|(at, recovery)| Some((at, recovery.clone()?)));
    match status {
        403 => None,
        422 => offered
            .find(|(at, recovery)| cut_by_a_limit(report, *at) && matches!(recovery, Continuation::NarrowQuery { .. }))
            .map(|(_, recovery)| recovery),
        _ => match report.retry_after_seconds {
            Some(seconds) => Some(Continuation::RetryAfter { seconds }),
            None => offered.map(|(_, recovery)| recovery).find(|recovery| {
                matches!(recovery, Continuation::RetryWithDeadline { .. } | Continuation::Restart { .. })
            }),
        },
    }
}

/// A response that states whether it covers the whole requested scope.
///
/// Every handler routed through `completeness::routing` and every handler under
/// `#[completeness]` must return a type implementing it. Collections implement it by
/// carrying a [`Completeness`] block; responses that are not lists (problems, status
/// codes, [`Exempt`]) implement it by saying so. A service's own type implemented by hand to
/// report nothing does not escape the check that way: a route of
/// [`completeness::routing`](crate::routing) answers its JSON with the 500 `INTERNAL` problem;
/// wrap a response that is not a list in [`Exempt`] instead.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not report completeness",
    label = "this response does not say whether it is complete",
    note = "return `completeness::Envelope<T, R>`, or a struct with `#[derive(ResultEnvelope)]` and a `#[envelope(completeness)]` field",
    note = "for a response that is not a list, wrap it in `completeness::Exempt::new(value, \"why it cannot be truncated\")`, or route its handler (a create, a delete) unchecked on its own: `.route(path, axum::routing::post(create))`, which axum merges with the path's checked methods",
    note = "an envelope is a JSON response itself: return it as it is, not wrapped in `Json(...)`"
)]
pub trait ReportsCompleteness {
    /// The completeness block, or `None` for a response that is not a collection.
    fn completeness_report(&self) -> Option<&dyn CompletenessReport>;
    /// The completeness block, mutably.
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport>;
    /// How many items the response carries, when it knows (for operators' events).
    fn items_returned(&self) -> Option<usize> {
        None
    }
    /// The wire name of the data member holding the items (`items` for an [`Envelope`]; a
    /// derived envelope's first collection that is not bounded), when the response is a
    /// collection: what `page.returned` counts, and what the fault layer cuts.
    fn items_member(&self) -> Option<&'static str> {
        None
    }
    /// True when every success value of the type carries a completeness block (a collection or
    /// an aggregate; in a `Result`, its `Ok` side). On such a route of
    /// [`completeness::routing`](crate::routing), a success status without a block came from
    /// the error side (`Err(Json(vec![..]))` goes out as a 200) and is answered with the 500
    /// `INTERNAL` problem instead: a list never goes out without its block.
    const ANSWERS_WITH_BLOCK: bool = false;
    /// What a single resource says of itself (contract §2.7): the fields it could not fill and
    /// its warnings, for operators' events, and the fields it may leave out, for the fault layer.
    /// `None` for a collection, and for a response that has neither `Field` nor warnings to tell of.
    fn single_report(&self) -> Option<SingleReport> {
        None
    }
}

/// What a single resource said of itself: the fields it left out, with why, the codes of its
/// warnings, and the fields it may leave out. A response extension, from where the resource is
/// turned into a response to the observe layer, which emits it once (when it tells something,
/// [`SingleReport::is_empty`]), and to the fault layer (feature `faults`), which leaves a field
/// out of it on purpose.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SingleReport {
    /// The fields left out, by wire name, with why (as `omitted_fields` says).
    pub omitted: OmittedFields,
    /// Its warning codes.
    pub warnings: Vec<WarningCode>,
    /// The wire names of its `Field` members, left out or not: the fields it may leave out
    /// (contract §2.7), in wire order.
    pub fields: &'static [&'static str],
}

impl SingleReport {
    /// True when it tells nothing: every field filled, no warning (whatever fields it may leave out).
    pub fn is_empty(&self) -> bool {
        self.omitted.is_empty() && self.warnings.is_empty()
    }

    /// True when the resource misses data the client asked for: a field left out for another
    /// reason than `NOT_REQUESTED` (the client's own choice of fields).
    pub fn misses_data(&self) -> bool {
        self.omitted.0.values().any(|why| *why != Omission::NotRequested)
    }
}

impl<T, R: Reason> ReportsCompleteness for Envelope<T, R> {
    const ANSWERS_WITH_BLOCK: bool = true;

    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(&self.completeness)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(&mut self.completeness)
    }
    fn items_returned(&self) -> Option<usize> {
        Some(self.items.len())
    }
    fn items_member(&self) -> Option<&'static str> {
        Some(crate::contract::envelope::ITEMS)
    }
}

impl<T, R: Reason> ReportsCompleteness for Aggregate<T, R> {
    const ANSWERS_WITH_BLOCK: bool = true;
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(self.completeness())
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(self.completeness_mut())
    }
}

/// A response whose completeness block is over the reason type `R`: what a `#[completeness]`
/// handler must return, so that it reports exactly the reasons it declares.
///
/// Responses without a block (problems, status codes, [`Exempt`]) carry every reason type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not report over this endpoint's reason type `{R}`",
    label = "the response's reasons are not the ones the handler declares",
    note = "return `completeness::Envelope<T, {R}>`, `completeness::Aggregate<T, {R}>`, or a derived envelope whose \
            `#[envelope(completeness)]` field is `Completeness<{R}>`",
    note = "in code, that reason type is the alias `#[completeness]` generates from the handler's name in \
            UpperCamelCase followed by `Reason`: `DeclaredReason<__ListUsersReasonSet>` is `ListUsersReason`, \
            the alias for a handler `list_users`"
)]
pub trait CarriesReason<R> {}

impl<T, R> CarriesReason<R> for Envelope<T, R> {}
impl<T, R> CarriesReason<R> for Aggregate<T, R> {}
impl<T, R> CarriesReason<R> for Exempt<T> {}
impl<T: CarriesReason<R>, E, R> CarriesReason<R> for Result<T, E> {}

/// Implements [`ReportsCompleteness`] for responses that are not collections.
macro_rules! not_a_collection {
    ($($ty:ty),*) => {$(
        impl ReportsCompleteness for $ty {
            fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
                None
            }
            fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
                None
            }
        }

        impl<R> CarriesReason<R> for $ty {}
    )*};
}

not_a_collection!(Problem, ());

#[cfg(feature = "axum")]
not_a_collection!(axum::http::StatusCode);

/// An error is not a list: `Result<R, E>` reports what `R` reports and nothing for `E`, for
/// any error type (`Problem`, a service's own error enum, `(StatusCode, String)`, ...). An
/// error response is never read as an answer, so it cannot be taken for a complete one (a
/// list of field errors on the error side is fine, under `#[completeness]` too). An error type
/// that answers with a success status would be read as one: `#[completeness]` refuses a list
/// there (written, or `Json` of a standard collection behind an alias) and an envelope over
/// another reason type, and a route of [`completeness::routing`](crate::routing) does not send such an
/// answer when `R` always carries a block ([`ReportsCompleteness::ANSWERS_WITH_BLOCK`]).
impl<T: ReportsCompleteness, E> ReportsCompleteness for Result<T, E> {
    const ANSWERS_WITH_BLOCK: bool = T::ANSWERS_WITH_BLOCK;

    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        self.as_ref().ok().and_then(ReportsCompleteness::completeness_report)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        self.as_mut().ok().and_then(ReportsCompleteness::completeness_report_mut)
    }
    fn items_returned(&self) -> Option<usize> {
        self.as_ref().ok().and_then(ReportsCompleteness::items_returned)
    }
    fn items_member(&self) -> Option<&'static str> {
        self.as_ref().ok().and_then(ReportsCompleteness::items_member)
    }
}

#[cfg(feature = "axum")]
pub use parts::ResponsePart;

/// Response parts before a response, as axum accepts them: up to three [`ResponsePart`]s
/// (`HeaderMap`, `[(K, V); N]`, `AppendHeaders`, `Extensions`, `Extension<T>`), after a
/// `StatusCode` or `Parts` or not: `(StatusCode, R)`, `(HeaderMap, R)`,
/// `(StatusCode, [(K, V); 1], HeaderMap, R)`, `(Extension<T>, R)`, ... They report what `R`
/// reports.
#[cfg(feature = "axum")]
mod parts {
    use axum::http::{Extensions, HeaderMap, StatusCode};
    use axum::response::AppendHeaders;

    use super::{CarriesReason, CompletenessReport, ReportsCompleteness};

    /// A response part axum sets on a response before its body (`IntoResponseParts`), which may
    /// come anywhere among the parts (a status code or `Parts` only comes first): a response
    /// after up to three of them reports what it reports. A service's own part type implements
    /// it to be returned before a reporting response too.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a response part that may come before a completeness response",
        label = "not known as a response part",
        note = "a response part of your own (an `IntoResponseParts` type) is accepted once it says so: \
                `impl completeness::report::ResponsePart for {Self} {{}}`",
        note = "the parts accepted as they are: `StatusCode` or `Parts` first, then `HeaderMap`, `[(K, V); N]`, \
                `AppendHeaders`, `Extensions`, `Extension<T>`"
    )]
    pub trait ResponsePart {}

    impl ResponsePart for HeaderMap {}
    impl ResponsePart for Extensions {}
    impl<K, V, const N: usize> ResponsePart for [(K, V); N] {}
    impl<I> ResponsePart for AppendHeaders<I> {}
    impl<T> ResponsePart for axum::Extension<T> {}

    macro_rules! response_parts {
        ($([$($generics:ident),*] ($($part:ty),+) $last:tt;)*) => {$(
            impl<$($generics: ResponsePart,)* R: ReportsCompleteness> ReportsCompleteness for ($($part,)+ R) {
                const ANSWERS_WITH_BLOCK: bool = R::ANSWERS_WITH_BLOCK;
                fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
                    self.$last.completeness_report()
                }
                fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
                    self.$last.completeness_report_mut()
                }
                fn items_returned(&self) -> Option<usize> {
                    self.$last.items_returned()
                }
                fn items_member(&self) -> Option<&'static str> {
                    self.$last.items_member()
                }
            }

            impl<$($generics: ResponsePart,)* R: CarriesReason<X>, X> CarriesReason<X> for ($($part,)+ R) {}
        )*};
    }

    response_parts! {
        [P1] (P1) 1;
        [P1, P2] (P1, P2) 2;
        [P1, P2, P3] (P1, P2, P3) 3;
        [] (StatusCode) 1;
        [P1] (StatusCode, P1) 2;
        [P1, P2] (StatusCode, P1, P2) 3;
        [P1, P2, P3] (StatusCode, P1, P2, P3) 4;
        [] (axum::http::response::Parts) 1;
        [P1] (axum::http::response::Parts, P1) 2;
        [P1, P2] (axum::http::response::Parts, P1, P2) 3;
    }
}

/// The explicit, justified escape hatch: a response that is not a list, or a
/// collection that cannot be truncated, with the reason written down. An envelope inside it
/// still reports (its response carries the report), but not one wrapped in `Json`, which
/// `#[completeness]` refuses here.
///
/// ```
/// use completeness_runtime::Exempt;
/// let health = Exempt::new("ok", "a health probe returns one fixed value");
/// assert_eq!(health.why(), "a health probe returns one fixed value");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Exempt<T> {
    value: T,
    why: &'static str,
}

impl<T> Exempt<T> {
    /// Exempts `value`; `why` says why it needs no completeness metadata.
    pub fn new(value: T, why: &'static str) -> Self {
        Exempt { value, why }
    }

    /// The justification.
    pub fn why(&self) -> &'static str {
        self.why
    }

    /// The value.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T> ReportsCompleteness for Exempt<T> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        None
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        None
    }
}

#[cfg(feature = "axum")]
impl<T: axum::response::IntoResponse> axum::response::IntoResponse for Exempt<T> {
    fn into_response(self) -> axum::response::Response {
        let mut response = self.value.into_response();
        if response.extensions().get::<Reported>().is_none() {
            response.extensions_mut().insert(WithoutBlock::Exempt);
        }
        response
    }
}

/// The mark on a response that carries no completeness block by its type's own word: an
/// [`Exempt`] value, or a derived single resource. A route of
/// [`completeness::routing`](crate::routing) sends a success with a body only when it carries a
/// block or this mark: anything else came from a path the types let through (an error side
/// that answers `200` with a list, a type that implements [`ReportsCompleteness`] by hand) and
/// is answered with the 500 `INTERNAL` problem instead.
#[cfg(feature = "axum")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WithoutBlock {
    /// An [`Exempt`] value: what it reads is its own business.
    Exempt,
    /// A derived single resource: a resource, which never pages (contract §2.5, §2.7).
    SingleResource,
}
