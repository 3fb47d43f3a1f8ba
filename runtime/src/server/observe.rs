//! What operators see: a tracing event for every incomplete answer and every refused token,
//! and (with the `metrics` feature) counters through the [`metrics`](https://docs.rs/metrics)
//! facade, so that a service that answers partially once in ten thousand requests can be told
//! apart from one that answers partially on every request since a source broke.
//!
//! # Where it happens
//!
//! Responses carry what they said about their completeness to [`ObserveLayer`], which knows
//! the request's route template ([`MatchedPath`]), method and [`Credential`], and emits there:
//!
//! - the routing functions of [`crate::server::routing`] install the layer on every route
//!   they build, inside any `route_layer` added afterwards (so the credential an
//!   authentication `route_layer` puts on the request is known);
//! - a service that routes with `axum::routing` installs it itself, before its
//!   authentication layer: `.route_layer(completeness::observe::layer())`.
//!
//! A response observed once is not observed again by a second layer: the layer may also wrap
//! the whole router (`Router::layer`, which puts it on every route and the fallback), so that
//! the refusals made outside the handlers (an authentication `route_layer`'s 401, an unknown
//! route, a body limit) get their `problem` events too, under the route they matched
//! ([`UNMATCHED`] for none), when they are answered as [`Problem`]s (axum's own 404 and
//! plain-text rejections are not, until a fallback or a `map_response` makes them one). A layer outside the
//! route that may replace the answer (the fault layer of `completeness::testing::faults`) asks
//! the inner layer to leave the observing to it, so that what is emitted is
//! what the client received. The route is the
//! template (`/service-accounts/{id}`), never the path: label values stay bounded; a request
//! no route matched is labelled [`UNMATCHED`].
//!
//! An answer given outside a route (an MCP tool call, a job) is observed through an
//! [`EntryPoint`], which emits the same events and counts under the `route` and `method` it is
//! given: for an MCP tool, the tool's name and `MCP`. Agents mostly call tools, so their
//! partial answers must show as much as those of REST clients.
//!
//! # Tracing events
//!
//! Every event has the target `completeness` and a field `event` naming it, so a filter such
//! as `RUST_LOG=completeness=info`, or a query on the `event` member of JSON logs, selects them.
//! The spans they are written in (a service's request span, with its request id) show only
//! where the filter enables those spans' targets too: `RUST_LOG=info` keeps them,
//! `RUST_LOG=completeness=info` alone drops them.
//!
//! | `event` | level | when | fields |
//! | --- | --- | --- | --- |
//! | `response` | `INFO` | a routed handler answered with `complete: false` for a reason other than more pages | `route`, `method`, `complete`, `reasons`, `sources`, `warnings`, `items`, `credential` |
//! | `response` | `DEBUG` | a routed handler answered with `complete: true`, or with `MORE_PAGES_AVAILABLE` as its only reason | the same but `sources` |
//! | `single_resource` | `INFO` | a single resource left out a field for another reason than `NOT_REQUESTED` (contract §2.7) | `route`, `method`, `omitted` (`name:CODE`, comma-separated), `warnings`, `credential` |
//! | `single_resource` | `DEBUG` | a single resource left out only fields the client did not ask for, or carried warnings | the same |
//! | `strict_refusal` | `WARN` | `require_complete` / `Prefer: handling=strict` met an incomplete answer | `route`, `method`, `status`, `reasons`, `sources`, `items`, `credential` |
//! | `problem` | `INFO` | an answer with a problem other than a refused token or a strict refusal (a bad page size, an unknown id, a store that is down), from a route or an [`EntryPoint`] | `route`, `method`, `code`, `cause` (when named), `status`, `credential` |
//! | `cursor_refused` | `WARN` | a cursor was refused for a cause an operator acts on: `unknown_key`, `altered` or `unreadable` (below) | `route`, `method`, `code`, `cause` (when named), `status`, `credential` |
//! | `cursor_refused` | `INFO` | a cursor was refused for any other cause: expired, garbled, too long, of another query or credential (the client's course) | the same |
//! | `evidence_refused` | `WARN` | an evidence token (or its absence) refused a destructive action | `route`, `method`, `code`, `cause` (when named), `status`, `credential` |
//! | `evidence_accepted` | `INFO` | a destructive action was answered with success after [`RequireEvidence`](crate::RequireEvidence) verified its evidence token (or an entry point said so, [`EntryPoint::accepted`]); a refusal after the token verified (of its targets, its filters) is an `evidence_refused` alone | `route`, `method`, `resource`, `snapshot`, `credential` |
//! | `credential_missing` | `WARN` | a request without a [`Credential`] reached an extractor that needs one ([`PageRequest`](crate::server::page_request::PageRequest), [`RequireEvidence`](crate::RequireEvidence), [`Credential`] itself) while the settings have no anonymous credential, and was answered 401: said once per settings, as the cause is usually the service's (an authentication middleware that inserts no `Credential`, or a service without authentication that does not call `with_anonymous_credential()`) | `route`, `method` |
//! | `evidence_unpinned` | `WARN` | a page asked for evidence ([`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence)) with a next page, on a traversal not pinned to a snapshot ([`Page::pin_snapshot`](crate::server::page_request::Page::pin_snapshot)): no page after it gets evidence (contract §6). Said once per settings: the cause is the handler's, and tests whose traversals are one page do not show it | `resource` |
//! | `resource_replaced` | `WARN` | a scope (built, changed through `scope_mut`, or mapped with `map_reasons`) named another resource than the handler's `#[completeness]` declares (the declared one is used) | `declared`, `written` |
//! | `warning_left_out` | `WARN` | `map_reasons` into a handler's declared type met a warning the handler does not declare (left out) | `warning` |
//! | `stale_warning_kept` | `WARN` | the same, for a stale warning, which is kept: without it the answer would read as current | `warning` |
//! | `list_in_single_resource` | `WARN` | a field of a derived single resource went out holding a JSON array, at any depth (a list behind a struct of the service's own, generic or not, or in a `Value`), once per field and process; the answer is sent as it is | `single_resource` (the type), `field` |
//! | `problem_status_refused` | `WARN` | [`Problem::with_status`](crate::Problem::with_status) was given a status that is not an error status (the code's own is kept) | `code`, `status`, `kept` |
//! | `problem_member_refused` | `WARN` | [`Problem::with_extension`](crate::Problem::with_extension) was given a head member's name (`type`, `title`, `status`, `detail`, `code`), or [`Problem::with_title`](crate::Problem::with_title) a standard code's title (left as it was) | `code`, `member` |
//!
//! Fields: `route` is the route template (or an [`EntryPoint`]'s name); `method` the HTTP
//! method (or an [`EntryPoint`]'s label); `complete` the answer's
//! decision field; `reasons` and `warnings` the codes in wire order, comma-separated (empty
//! when none); `sources` the source each reason of kind `source` names (`SOURCE_UNAVAILABLE`'s
//! `source`, or a service's own reason's member `source`), comma-separated, so that an operator
//! reads which source failed without reading the body (empty when none; it is not a metric
//! label, as a service builds its sources' names at run time); `items` the number of items returned, when the response knows it (an
//! [`Envelope`](crate::Envelope)'s items, else `page.returned`); `status` the HTTP status
//! sent; `code` the problem's stable code (`INVALID_CURSOR`, `EVIDENCE_INVALID`, ...);
//! `cause` which of the ways its code covers the refusal is, when it was named
//! ([`Problem::with_cause`](crate::Problem::with_cause)): for a token, `oversized`,
//! `malformed`, `unknown_key` (a key retired too early, or another server's), `altered` (a
//! secret that differs under one key id, or a forgery) or `unreadable` (signed here, written by
//! another version of the service); `credential` the name of the credential the request carried (a layer around the
//! authentication finds it on the response, where the authentication may leave it for a refusal
//! made after it: `response.extensions_mut().insert(credential)`); `resource` the scope's
//! resource. A token's content is never logged.
//!
//! # Metrics
//!
//! Counters, all with bounded labels (route templates, methods, codes, statuses), each by `route`
//! and `method`, so that a route's reads and writes (`GET` and `DELETE` of one template, say)
//! count apart:
//!
//! | name | labels | counts |
//! | --- | --- | --- |
//! | `completeness_responses_total` | `route`, `method`, `complete` (`true`/`false`) | answers of routed handlers, including those a strict demand refused |
//! | `completeness_missing_data_total` | `route`, `method` | answers that miss data: those incomplete for a reason other than `MORE_PAGES_AVAILABLE` (the ones whose `response` event is `INFO`), told from pages of a traversal, and single resources with a field left out for another reason than `NOT_REQUESTED` |
//! | `completeness_omitted_fields_total` | `route`, `method`, `code` | fields single resources left out (contract §2.7), by omission code (`NO_ACCESS`, `SOURCE_FAILED`, `NOT_REQUESTED`, `OTHER`) |
//! | `completeness_reasons_total` | `route`, `method`, `code` | incomplete reasons, one per reason of each answer |
//! | `completeness_warnings_total` | `route`, `method`, `code` | warnings, one per warning of each answer, single resources' too |
//! | `completeness_page_size_reduced_total` | `route`, `method` | answers whose page size was clamped (`PAGE_SIZE_REDUCED`) |
//! | `completeness_strict_refusals_total` | `route`, `method`, `status` | incomplete answers refused under a strict demand |
//! | `completeness_cursor_refusals_total` | `route`, `method`, `code` | refused cursors |
//! | `completeness_evidence_refusals_total` | `route`, `method`, `code` | refused evidence |
//! | `completeness_evidence_accepted_total` | `route`, `method` | destructive actions carried out on verified evidence (the event `evidence_accepted`) |
//! | `completeness_problems_total` | `route`, `method`, `status`, `code` (one read or built at run time: `OTHER`) | every other problem answered (a database outage's 503, a bad request, an unknown route under `unmatched`): answers that carried no data |
//! | `completeness_audit_flags_total` | `route`, `method`, `problem` | with the `audit` feature too: JSON lists without completeness the `AuditLayer` (`completeness::audit_layer`) flagged (`bare-array`, `array-without-complete`), as in its snapshot |
//!
//! A reason or warning `code` label is the code when it is a standard one or one the route's
//! handler declares, and `OTHER` for any other (codes relayed from an upstream's answers are
//! not bounded); the event names the code itself.
//!
//! Install any recorder (for Prometheus: `metrics-exporter-prometheus`) and call
//! [`describe_metrics`] once to give them help texts.
//!
//! # Series from zero
//!
//! A counter's series exists from its first increment, so the first partial answer of a route
//! creates its series at 1, and an alert on its rate or increase sees no increase: a route that
//! misses data once a week, or once after each deploy, never alerts. At start-up, after
//! installing the recorder, start the series an alert reads at zero, for each route with the
//! reason type of its handler, and for each route answering single resources:
//!
//! ```
//! use completeness_runtime::observe::{zero_counters, zero_single_resource_counters};
//! use completeness_runtime::reason::StandardReason;
//!
//! // For a `#[completeness]` handler `list_accounts`, its `ListAccountsReason`.
//! zero_counters::<StandardReason>("/accounts", "GET");
//! zero_single_resource_counters("/accounts/{id}", "GET");
//! ```
//!
//! The framework cannot do it for you: axum does not tell the layers a route's template before
//! its first request. The refusals (`strict_refusals_total`, `cursor_refusals_total`,
//! `evidence_refusals_total`, `problems_total`) start at their first occurrence, as their labels
//! depend on the request; alert on the reasons and missing data, which every refused partial
//! answer counts too.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use crate::contract::field::OmittedFields;
use crate::contract::reason::{ReasonCode, ReasonKind};
use crate::server::credential::Credential;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::report::{IncompleteReport, Reported, ReportsCompleteness, SingleReport};
use crate::server::require::RequireComplete;

/// The tracing target of every event.
pub const TARGET: &str = "completeness";

/// The `route` of a request no route matched.
pub const UNMATCHED: &str = "unmatched";

/// `completeness_responses_total`.
pub const RESPONSES_TOTAL: &str = "completeness_responses_total";
/// `completeness_reasons_total`.
pub const REASONS_TOTAL: &str = "completeness_reasons_total";
/// `completeness_warnings_total`.
pub const WARNINGS_TOTAL: &str = "completeness_warnings_total";
/// `completeness_page_size_reduced_total`.
pub const PAGE_SIZE_REDUCED_TOTAL: &str = "completeness_page_size_reduced_total";
/// `completeness_missing_data_total`.
pub const MISSING_DATA_TOTAL: &str = "completeness_missing_data_total";
/// `completeness_omitted_fields_total`.
pub const OMITTED_FIELDS_TOTAL: &str = "completeness_omitted_fields_total";
/// `completeness_strict_refusals_total`.
pub const STRICT_REFUSALS_TOTAL: &str = "completeness_strict_refusals_total";
/// `completeness_cursor_refusals_total`.
pub const CURSOR_REFUSALS_TOTAL: &str = "completeness_cursor_refusals_total";
/// `completeness_evidence_refusals_total`.
pub const EVIDENCE_REFUSALS_TOTAL: &str = "completeness_evidence_refusals_total";
/// Counter: destructive actions carried out on verified evidence, by route and method.
pub const EVIDENCE_ACCEPTED_TOTAL: &str = "completeness_evidence_accepted_total";
/// `completeness_problems_total`.
pub const PROBLEMS_TOTAL: &str = "completeness_problems_total";
/// `completeness_audit_flags_total` (the `audit` feature's layer).
pub const AUDIT_FLAGS_TOTAL: &str = "completeness_audit_flags_total";

/// Gives every counter of this module its help text in the installed recorder (with the
/// `metrics` feature; without it there are no counters and this does nothing).
pub fn describe_metrics() {
    #[cfg(feature = "metrics")]
    {
        use metrics::describe_counter;
        describe_counter!(RESPONSES_TOTAL, "Answers of routed handlers, by route, method and completeness.");
        describe_counter!(REASONS_TOTAL, "Incomplete reasons of answers, by route, method and reason code.");
        describe_counter!(WARNINGS_TOTAL, "Warnings of answers, by route, method and warning code.");
        describe_counter!(
            MISSING_DATA_TOTAL,
            "Answers incomplete for a reason other than more pages, and single resources with a field left out \
             for another reason than not requested, by route and method."
        );
        describe_counter!(
            OMITTED_FIELDS_TOTAL,
            "Fields single resources left out, by route, method and omission code."
        );
        describe_counter!(
            PAGE_SIZE_REDUCED_TOTAL,
            "Answers whose requested page size was clamped, by route and method."
        );
        describe_counter!(
            STRICT_REFUSALS_TOTAL,
            "Incomplete answers refused under a strict demand, by route, method and status."
        );
        describe_counter!(CURSOR_REFUSALS_TOTAL, "Refused cursors, by route, method and problem code.");
        describe_counter!(
            EVIDENCE_REFUSALS_TOTAL,
            "Refused evidence for destructive actions, by route, method and problem code."
        );
        describe_counter!(EVIDENCE_ACCEPTED_TOTAL, "Evidence verified for destructive actions, by route and method.");
        describe_counter!(
            PROBLEMS_TOTAL,
            "Other problems answered (not a refused cursor, evidence or strict demand), by route, method, status and code."
        );
        describe_counter!(
            AUDIT_FLAGS_TOTAL,
            "JSON lists without completeness the audit layer flagged, by route, method and problem."
        );
    }
}

/// Starts at zero the counters a route (or an [`EntryPoint`]) whose answers report with reason
/// type `R` can raise when an answer misses data: its `responses_total` for `complete` `true`
/// and `false`, `missing_data_total`, `reasons_total` and `warnings_total` for every code it
/// declares (every standard code, for a reason type of no `#[completeness]` endpoint, such as
/// [`StandardReason`](crate::reason::StandardReason)), and `page_size_reduced_total` when it
/// declares `PAGE_SIZE_REDUCED`. See [Series from zero](self#series-from-zero).
///
/// `route` and `method` are the labels its answers count under: the route template as routed
/// (with a nesting router's prefix) and the method ([`method_label`]), or an entry point's name
/// and label. Call it once the recorder is installed; a counter that already counts keeps its
/// value. Without the `metrics` feature it does nothing.
///
/// ```
/// use completeness_runtime::observe::zero_counters;
/// use completeness_runtime::reason::StandardReason;
///
/// zero_counters::<StandardReason>("/accounts", "GET");
/// ```
pub fn zero_counters<R: crate::contract::reason::Reason>(route: &str, method: &'static str) {
    #[cfg(feature = "metrics")]
    {
        use crate::contract::warning::WarningCode;
        use metrics::counter;
        let (reasons, warnings) = match R::declared_set() {
            Some(declared) => (declared.reasons, declared.warnings),
            None => (ReasonCode::KNOWN, WarningCode::KNOWN),
        };
        let route = route.to_owned();
        for complete in ["true", "false"] {
            counter!(RESPONSES_TOTAL, "route" => route.clone(), "method" => method, "complete" => complete)
                .increment(0);
        }
        counter!(MISSING_DATA_TOTAL, "route" => route.clone(), "method" => method).increment(0);
        for code in reasons {
            counter!(REASONS_TOTAL, "route" => route.clone(), "method" => method, "code" => code.as_str().to_owned())
                .increment(0);
        }
        for code in warnings {
            counter!(WARNINGS_TOTAL, "route" => route.clone(), "method" => method, "code" => code.as_str().to_owned())
                .increment(0);
        }
        if warnings.contains(&WarningCode::PageSizeReduced) {
            counter!(PAGE_SIZE_REDUCED_TOTAL, "route" => route, "method" => method).increment(0);
        }
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (route, method);
}

/// Starts at zero the counters a route (or an [`EntryPoint`]) answering with a single resource
/// can raise when it leaves a field out (contract §2.7): its `missing_data_total`, and
/// `omitted_fields_total` for every omission code (`OTHER` too). The labels are as for
/// [`zero_counters`]; without the `metrics` feature it does nothing.
pub fn zero_single_resource_counters(route: &str, method: &'static str) {
    #[cfg(feature = "metrics")]
    {
        use crate::contract::field::Omission;
        use metrics::counter;
        let route = route.to_owned();
        counter!(MISSING_DATA_TOTAL, "route" => route.clone(), "method" => method).increment(0);
        for omission in Omission::KNOWN {
            let code = omission.as_str().to_owned();
            counter!(OMITTED_FIELDS_TOTAL, "route" => route.clone(), "method" => method, "code" => code).increment(0);
        }
        counter!(OMITTED_FIELDS_TOTAL, "route" => route, "method" => method, "code" => OTHER).increment(0);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (route, method);
}

/// Which tokens a problem code refuses: the one table the layer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refused {
    Cursor,
    Evidence,
}

fn refused(code: &ProblemCode) -> Option<Refused> {
    if code.refuses_cursor() {
        Some(Refused::Cursor)
    } else if code.refuses_evidence() {
        Some(Refused::Evidence)
    } else {
        None
    }
}

/// A request extension set by a layer outside the routes that may replace their answers: the
/// observe layer then leaves its caller on the response ([`Deferred`]) instead of emitting, and
/// the outer layer emits for the answer it sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ObservedOutside;

/// The caller an inner observe layer left on a response for the layer outside it. Only the
/// fault layer (feature `faults`) takes it back.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "faults"), allow(dead_code))]
pub(crate) struct Deferred(Caller);

#[cfg_attr(not(feature = "faults"), allow(dead_code))]
impl Deferred {
    /// Takes the caller an inner observe layer left on `response`.
    pub(crate) fn take(response: &mut Response) -> Option<Deferred> {
        response.extensions_mut().remove::<Deferred>()
    }

    /// Emits what `response`, the answer sent, carries.
    pub(crate) fn observe(self, response: &mut Response) {
        self.0.observe(response);
    }
}

/// The problem a response carries to the layer, and the token it refuses, if any.
#[derive(Debug, Clone)]
struct Refusal {
    refused: Option<Refused>,
    code: ProblemCode,
    /// Which of the ways its code covers it is ([`Problem::with_cause`](crate::Problem::with_cause)).
    cause: Option<&'static str>,
}

impl Refusal {
    fn of(code: &ProblemCode, cause: Option<&'static str>) -> Refusal {
        Refusal { refused: refused(code), code: code.clone(), cause }
    }
}

/// Marks a problem response with its code and cause, for the layer.
pub(crate) fn tag_problem(code: &ProblemCode, cause: Option<&'static str>, response: &mut Response) {
    response.extensions_mut().insert(Refusal::of(code, cause));
}

/// Codes in wire order, comma-separated, written only when an event is recorded.
struct Codes<'a, C>(&'a [C]);

impl<C: fmt::Display> fmt::Display for Codes<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, code) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            fmt::Display::fmt(code, f)?;
        }
        Ok(())
    }
}

/// The sources that failed: the `source` member of each reason of kind `source` that names one
/// (`SOURCE_UNAVAILABLE`'s, a service's own), comma-separated, written only when an event is
/// recorded. A name is the service's, not the client's, but it is written escaped all the same:
/// a log line holds one event.
struct Sources<'a>(&'a IncompleteReport);

impl fmt::Display for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let IncompleteReport { kinds, reasons, .. } = self.0;
        let named = kinds.iter().zip(reasons).filter(|(kind, _)| **kind == ReasonKind::Source);
        let names = named.filter_map(|(_, reason)| reason.get("source").and_then(serde_json::Value::as_str));
        for (i, name) in names.enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}", name.escape_debug())?;
        }
        Ok(())
    }
}

/// The label of a value that is not bounded: a code relayed from elsewhere, or read or built at
/// run time, or a method that is not a standard one.
const OTHER: &str = "OTHER";

/// The `code` label of a reason or warning: the code when it is `known` (standard, or declared
/// by the route), `OTHER` otherwise, so that codes relayed from elsewhere add no series.
#[cfg(feature = "metrics")]
fn code_label(code: &str, known: bool) -> String {
    if known { code } else { OTHER }.to_owned()
}

/// A bounded method label: the standard methods by name, any other as `OTHER` (a client can
/// send any token as a method). The label of every metric here, for a service's own metrics
/// to match.
pub fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => OTHER,
    }
}

/// Where [`RequireEvidence`](crate::RequireEvidence) leaves the evidence it verified, for the
/// layer that observes the request: the action is accepted when it is then answered with
/// success (a refusal after the token was verified, of its targets or filters, is no acceptance).
#[derive(Debug, Clone, Default)]
pub(crate) struct EvidenceSlot(Arc<OnceLock<(String, Option<String>)>>);

impl EvidenceSlot {
    /// Notes `evidence` as verified for this request.
    pub(crate) fn verified(&self, evidence: &crate::server::evidence::Evidence) {
        let _ = self.0.set((evidence.resource().to_owned(), evidence.snapshot().map(str::to_owned)));
    }
}

/// What the layer knows about a request.
#[derive(Debug, Clone)]
struct Caller {
    route: Option<MatchedPath>,
    method: &'static str,
    credential: Option<Credential>,
    evidence: EvidenceSlot,
}

impl Caller {
    fn of(request: &Request) -> Caller {
        Caller {
            evidence: EvidenceSlot::default(),
            route: request.extensions().get::<MatchedPath>().cloned(),
            method: method_label(request.method()),
            credential: request.extensions().get::<Credential>().cloned(),
        }
    }

    fn route(&self) -> &str {
        self.route.as_ref().map_or(UNMATCHED, MatchedPath::as_str)
    }

    /// Emits what `response` carries, once: a second layer finds it observed. A layer around
    /// the authentication learns the credential from the response, where the authentication
    /// may leave it (a refusal made after it, outside the route's own layer).
    fn observe(&self, response: &mut Response) {
        let left = self.credential.is_none().then(|| response.extensions().get::<Credential>().cloned()).flatten();
        let credential = self.credential.as_ref().or(left.as_ref()).map(Credential::name);
        if let Some(reported) = response.extensions_mut().get_mut::<Reported>() {
            if !reported.observed {
                reported.observed = true;
                answered(self.route(), self.method, reported, credential);
            }
        } else if let Some(single) = response.extensions_mut().remove::<SingleReport>() {
            // A resource that could have left fields out, and did not, tells nothing.
            if !single.is_empty() {
                single_answered(self.route(), self.method, &single, credential);
            }
        } else if let Some(refusal) = response.extensions_mut().remove::<Refusal>() {
            problem_answered(self.route(), self.method, &refusal, response.status().as_u16(), credential);
        }
        if let Some((resource, snapshot)) = self.evidence.0.get()
            && response.status().is_success()
        {
            evidence_accepted(self.route(), self.method, resource, snapshot.as_deref(), credential);
        }
    }
}

/// Emits the event and counts of one answer; `credential` names who was answered (and who
/// demanded a complete answer, on a refusal).
fn answered(route: &str, method: &'static str, reported: &Reported, credential: Option<&str>) {
    let Reported { warnings, items, refused_with, .. } = reported;
    let complete = reported.is_complete();
    let reasons = reported.reason_codes();
    let (reason_codes, warning_codes) = (Codes(reasons), Codes(warnings));
    let sources = Sources(&reported.incomplete);
    match refused_with {
        Some(status) => tracing::warn!(
            target: TARGET, event = "strict_refusal", route, method, status, reasons = %reason_codes,
            sources = %sources, items, credential,
            "a complete result was demanded; the answer was incomplete and refused"
        ),
        None if complete => tracing::debug!(
            target: TARGET, event = "response", route, method, complete, reasons = %reason_codes,
            warnings = %warning_codes, items, credential, "complete answer"
        ),
        None if only_paging(reasons) => tracing::debug!(
            target: TARGET, event = "response", route, method, complete, reasons = %reason_codes,
            warnings = %warning_codes, items, credential, "incomplete answer: a page, more pages follow"
        ),
        None => tracing::info!(
            target: TARGET, event = "response", route, method, complete, reasons = %reason_codes,
            sources = %sources, warnings = %warning_codes, items, credential, "incomplete answer"
        ),
    }
    #[cfg(feature = "metrics")]
    {
        use metrics::counter;
        let route = route.to_owned();
        let complete_label = if complete { "true" } else { "false" };
        counter!(RESPONSES_TOTAL, "route" => route.clone(), "method" => method, "complete" => complete_label)
            .increment(1);
        if !complete && !only_paging(reasons) {
            counter!(MISSING_DATA_TOTAL, "route" => route.clone(), "method" => method).increment(1);
        }
        let declared = reported.declared.as_ref();
        for code in reasons {
            let known = code.is_standard() || declared.is_some_and(|set| set.reasons.contains(code));
            counter!(REASONS_TOTAL, "route" => route.clone(), "method" => method, "code" => code_label(code.as_str(), known)).increment(1);
        }
        for code in warnings {
            let known = code.is_standard() || declared.is_some_and(|set| set.warnings.contains(code));
            counter!(WARNINGS_TOTAL, "route" => route.clone(), "method" => method, "code" => code_label(code.as_str(), known)).increment(1);
        }
        if warnings.contains(&crate::contract::warning::WarningCode::PageSizeReduced) {
            counter!(PAGE_SIZE_REDUCED_TOTAL, "route" => route.clone(), "method" => method).increment(1);
        }
        if let Some(status) = refused_with {
            counter!(STRICT_REFUSALS_TOTAL, "route" => route, "method" => method, "status" => status.to_string())
                .increment(1);
        }
    }
}

/// Emits the event and counts of a single resource that left fields out or carried warnings.
fn single_answered(route: &str, method: &'static str, single: &SingleReport, credential: Option<&str>) {
    let omitted = Omitted(&single.omitted);
    let warnings = Codes(&single.warnings);
    let misses_data = single.misses_data();
    if misses_data {
        tracing::info!(
            target: TARGET, event = "single_resource", route, method, omitted = %omitted, warnings = %warnings,
            credential, "a resource with fields left out"
        );
    } else {
        tracing::debug!(
            target: TARGET, event = "single_resource", route, method, omitted = %omitted, warnings = %warnings,
            credential, "a resource with fields left out as asked, or with warnings"
        );
    }
    #[cfg(feature = "metrics")]
    {
        use metrics::counter;
        let route = route.to_owned();
        if misses_data {
            counter!(MISSING_DATA_TOTAL, "route" => route.clone(), "method" => method).increment(1);
        }
        for why in single.omitted.0.values() {
            let code = match why {
                crate::contract::field::Omission::Unknown(_) => OTHER,
                known => known.as_str(),
            };
            counter!(OMITTED_FIELDS_TOTAL, "route" => route.clone(), "method" => method, "code" => code.to_owned())
                .increment(1);
        }
        for code in &single.warnings {
            // A single resource declares no warnings: a code of the service's own is `OTHER`.
            let label = code_label(code.as_str(), code.is_standard());
            counter!(WARNINGS_TOTAL, "route" => route.clone(), "method" => method, "code" => label).increment(1);
        }
    }
}

/// The omitted fields with why, `name:CODE`, comma-separated, written only when an event is
/// recorded.
struct Omitted<'a>(&'a OmittedFields);

impl fmt::Display for Omitted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, why)) in self.0.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{name}:{}", why.as_str())?;
        }
        Ok(())
    }
}

/// True when the answer's only reason is `MORE_PAGES_AVAILABLE`: a page of a traversal whose
/// caller is told how to go on. Such pages are the normal course of paging, so their event is
/// `DEBUG`: at `INFO`, every page of every traversal would bury the answers that miss data.
fn only_paging(reasons: &[ReasonCode]) -> bool {
    !reasons.is_empty() && reasons.iter().all(|code| *code == ReasonCode::MorePagesAvailable)
}

/// True for a token refused for a cause an operator acts on: signed with a key this server does
/// not hold (`unknown_key`: a key retired too early, or replicas with different rings), a
/// signature that does not match (`altered`: another secret under the same id, or a forgery), or
/// signed here by a version that wrote what this one cannot read (`unreadable`). Any other
/// refusal (expired, garbled, too long, of another query or credential) is the client's course.
fn the_services_keys_or_a_forgery(cause: Option<&str>) -> bool {
    use crate::server::cursor::TokenError;
    [TokenError::UnknownKey, TokenError::BadSignature, TokenError::Unreadable]
        .iter()
        .any(|why| cause == Some(why.cause()))
}

/// Emits the event and the count of one problem answered: a refused cursor or evidence token its
/// own, any other problem (an outage's 503, a bad request, a `COMPLETE_RESULT_UNAVAILABLE` a
/// handler answered itself, relaying an upstream's or from its own `RequireComplete::check`,
/// whose answer the framework never saw) counts in [`PROBLEMS_TOTAL`], so that
/// answers which carried no data show in the metrics as well as in the log. (A strict refusal
/// of an answer the framework saw has its own event and count, written where that answer is
/// known, and never comes here.) Its `code` label is a standard code as answered, or one
/// of the service's own written in its code ([`ProblemCode::custom`]), and `OTHER` for any other
/// (one read or built at run time, relayed from an upstream's problems say, which is not
/// bounded); the event names the code itself.
fn problem_answered(route: &str, method: &'static str, refusal: &Refusal, status: u16, credential: Option<&str>) {
    let (code, cause) = (refusal.code.as_str(), refusal.cause);
    let Some(refused) = refusal.refused else {
        tracing::info!(target: TARGET, event = "problem", route, method, code, cause, status, credential, "answered with a problem");
        #[cfg(feature = "metrics")]
        {
            metrics::counter!(PROBLEMS_TOTAL, "route" => route.to_owned(), "method" => method, "status" => status.to_string(), "code" => code_label(code, refusal.code.is_bounded()))
                .increment(1);
        }
        return;
    };
    match refused {
        Refused::Cursor if the_services_keys_or_a_forgery(cause) => tracing::warn!(
            target: TARGET, event = "cursor_refused", route, method, code, cause, status, credential,
            "a cursor was refused"
        ),
        Refused::Cursor => tracing::info!(
            target: TARGET, event = "cursor_refused", route, method, code, cause, status, credential,
            "a cursor was refused"
        ),
        Refused::Evidence => tracing::warn!(
            target: TARGET, event = "evidence_refused", route, method, code, cause, status, credential,
            "evidence for a destructive action was refused"
        ),
    }
    #[cfg(feature = "metrics")]
    {
        let name = match refused {
            Refused::Cursor => CURSOR_REFUSALS_TOTAL,
            Refused::Evidence => EVIDENCE_REFUSALS_TOTAL,
        };
        metrics::counter!(name, "route" => route.to_owned(), "method" => method, "code" => code.to_owned())
            .increment(1);
    }
}

/// An entry point other than a route, such as an MCP tool: it observes the answers and
/// refusals it gives as [`ObserveLayer`] does those of a routed handler.
///
/// ```
/// use completeness_runtime::observe::EntryPoint;
/// use completeness_runtime::reason::SourceUnavailable;
/// use completeness_runtime::{Envelope, Problem, RequireComplete, Scope};
///
/// fn list_tool(require_complete: bool) -> Result<Envelope<String>, Problem> {
///     let envelope = Envelope::incomplete(vec![], Scope::new("accounts", "all"), SourceUnavailable::new("legacy"));
///     // One `INFO` event and the counts, under route `list_accounts` and method `MCP`; or,
///     // when completeness was demanded, the `strict_refusal` and the problem.
///     EntryPoint::new("list_accounts", "MCP").answer(RequireComplete(require_complete), &envelope)?;
///     Ok(envelope)
/// }
/// assert!(list_tool(false).is_ok());
/// assert!(list_tool(true).is_err());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EntryPoint<'a> {
    route: &'a str,
    method: &'static str,
    credential: Option<&'a str>,
}

impl<'a> EntryPoint<'a> {
    /// An entry point named `route` (the `route` label and field), called by `method` (the
    /// `method` label and field, e.g. `MCP`). Both are label values: keep them bounded, a
    /// fixed name per tool, never one built from a request.
    pub fn new(route: &'a str, method: &'static str) -> Self {
        EntryPoint { route, method, credential: None }
    }

    /// The name of the credential the call carries, for the events of its answers and
    /// refusals (the `credential` field).
    pub fn with_credential(mut self, name: &'a str) -> Self {
        self.credential = Some(name);
        self
    }

    /// Checks `answer` against `require` as [`RequireComplete::check`] does, and observes it:
    /// its `response` event and counts, or its `strict_refusal` when the demand refuses it.
    pub fn answer<T: ReportsCompleteness + ?Sized>(&self, require: RequireComplete, answer: &T) -> Result<(), Problem> {
        let checked = require.check(answer).map_err(Problem::observed);
        if let Some(mut reported) = Reported::of_response(answer) {
            reported.refused_with = checked.as_ref().err().map(Problem::status);
            answered(self.route, self.method, &reported, self.credential);
        } else if let Some(single) = answer.single_report().filter(|single| !single.is_empty()) {
            single_answered(self.route, self.method, &single, self.credential);
        }
        checked
    }

    /// Observes a refusal: a refused cursor or evidence token emits its event and count
    /// (never the token); any other problem its `problem` event and count (a
    /// `COMPLETE_RESULT_UNAVAILABLE` relayed from an upstream too), but the strict refusal
    /// [`Self::answer`] returned, which it observed, so that a call may pass every problem it
    /// answers with here.
    pub fn refused(&self, problem: &Problem) {
        if !problem.is_observed() {
            problem_answered(
                self.route,
                self.method,
                &Refusal::of(problem.code(), problem.cause()),
                problem.status(),
                self.credential,
            );
        }
    }

    /// Observes a destructive action this call carried out on `evidence`: its
    /// `evidence_accepted` event and count (never the token), as the layer emits them for a
    /// route whose [`RequireEvidence`](crate::RequireEvidence) verified the token and which
    /// answered with success. Call it once the action is done, not when the token verifies.
    pub fn accepted(&self, evidence: &crate::server::evidence::Evidence) {
        evidence_accepted(self.route, self.method, evidence.resource(), evidence.snapshot(), self.credential);
    }
}

/// Emits the event and count of a destructive action on `route` carried out on evidence of an
/// inventory of `resource` at `snapshot`.
fn evidence_accepted(
    route: &str,
    method: &'static str,
    resource: &str,
    snapshot: Option<&str>,
    credential: Option<&str>,
) {
    tracing::info!(
        target: TARGET, event = "evidence_accepted", route, method, resource, snapshot, credential,
        "a destructive action was carried out on verified evidence"
    );
    #[cfg(feature = "metrics")]
    metrics::counter!(EVIDENCE_ACCEPTED_TOTAL, "route" => route.to_owned(), "method" => method).increment(1);
}

/// The layer that emits what responses say; see the [module documentation](self).
pub fn layer() -> ObserveLayer {
    ObserveLayer
}

/// Emits the events and counts of the responses of the services it wraps.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObserveLayer;

impl<S> tower::Layer<S> for ObserveLayer {
    type Service = ObserveService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ObserveService { inner }
    }
}

/// The service of [`ObserveLayer`].
#[derive(Debug, Clone)]
pub struct ObserveService<S> {
    inner: S,
}

impl<S> tower::Service<Request> for ObserveService<S>
where
    S: tower::Service<Request>,
    S::Response: IntoResponse,
{
    type Response = Response;
    type Error = S::Error;
    type Future = ObserveFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let caller = Caller::of(&request);
        request.extensions_mut().insert(caller.evidence.clone());
        let deferred = request.extensions().get::<ObservedOutside>().is_some();
        ObserveFuture { inner: Box::pin(self.inner.call(request)), caller, deferred }
    }
}

/// The future of [`ObserveService`].
pub struct ObserveFuture<F> {
    inner: Pin<Box<F>>,
    caller: Caller,
    /// A layer outside observes the answer it sends ([`ObservedOutside`]).
    deferred: bool,
}

impl<F> fmt::Debug for ObserveFuture<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObserveFuture").field("route", &self.caller.route()).finish_non_exhaustive()
    }
}

impl<F, R, E> Future for ObserveFuture<F>
where
    F: Future<Output = Result<R, E>>,
    R: IntoResponse,
{
    type Output = Result<Response, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match this.inner.as_mut().poll(cx) {
            Poll::Ready(Ok(response)) => {
                let mut response = response.into_response();
                if this.deferred {
                    // The innermost layer's caller: it knows the credential an authentication layer set.
                    if response.extensions().get::<Deferred>().is_none() {
                        response.extensions_mut().insert(Deferred(this.caller.clone()));
                    }
                } else {
                    this.caller.observe(&mut response);
                }
                Poll::Ready(Ok(response))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => Poll::Pending,
        }
    }
}
