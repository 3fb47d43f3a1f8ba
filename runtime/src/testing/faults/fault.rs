//! [`Fault`]: one way a response can be made incomplete, and which faults a route offers.

use std::fmt;

use super::inject::RequestFacts;
use crate::contract::declared::DeclaredSet;
use crate::contract::reason::{ReasonCode, ReasonKind};
use crate::contract::warning::WarningCode;

/// One fault the layer can apply to a response, named on the wire by its code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Fault {
    /// Report this declared reason, removing the items it stands for.
    Reason(ReasonCode),
    /// Refuse a request that carries a cursor with `410 CURSOR_EXPIRED`.
    CursorExpired,
    /// Answer a request that carries a cursor with the first page again, as a server that
    /// lost the traversal (or a cache that dropped the `cursor`) would: `resumed: false`
    /// (contract §2.5), whose items must not be merged with the pages read before.
    Restarted,
    /// Answer with an outage instead: the `503` problem `SERVICE_UNAVAILABLE` a service sends
    /// while it cannot serve (its database unreachable), with `Retry-After` (1 to 5 seconds)
    /// and the `retry_after` continuation of as many seconds. It says nothing of what exists:
    /// a client that reads it as an empty list, or as the end of its traversal, takes an outage
    /// for "nothing exists", the bug this framework exists for. Offered on a first page and,
    /// on a paginated route, on a later one: sending the same cursor again after the wait
    /// continues the traversal (the [`Kit`](super::Kit) takes it for a retry), as starting a
    /// new one does. Offered on a single resource with a `Field` member too, where it says
    /// nothing of whether the resource exists.
    Unavailable,
    /// Report one reason whose code no declaration of the route names (`FUTURE_REASON`), as a
    /// newer version of the service sends a code an older client cannot know (contract §7): it
    /// carries a kind of §3.4 or, drawn from the seed, none (a reader then takes the most
    /// cautious, §3.4), and takes items away as a reason of that kind does (a subset without a
    /// kind). A client that ignores a code it does not know and concludes complete fails the
    /// kit; one that refuses the whole answer passes. Never offered by
    /// [`FaultLayer::serving`](super::FaultLayer::serving): see [`Fault::is_outside_declarations`].
    FutureReason,
    /// Forward a request that starts a traversal without one of its filter parameters (drawn
    /// from the seed among those the route's answer echoes in `scope.filters`), as a proxy or an
    /// older server that drops a query parameter it does not know does, and answer with the
    /// route's own answer to that wider question, its later pages too: the layer forwards every
    /// request that continues the traversal without the parameter as well, so that its cursors
    /// keep working. The answer is honest about itself: its `scope` does not echo the dropped
    /// filter, and it may well say `complete: true` (contract §8: that is no complete answer to
    /// the question asked). A client that takes it without checking its scope against the
    /// question ([`Scope::differs_from`](crate::Scope::differs_from)) fails the kit; one that
    /// refuses it passes. Offered on a request without a cursor that sends a parameter the
    /// route's answer echoes as a filter. Never offered by
    /// [`FaultLayer::serving`](super::FaultLayer::serving): see [`Fault::is_kit_only`].
    FilterDropped,
    /// Hand out again, as a later page's `next_cursor`, a cursor the same traversal was handed
    /// out before (drawn from the seed among them, this page's own cursor included), as a server
    /// whose keyset loops does (contract §2.5 forbids it). The items and the other members stay
    /// as they are. A client that follows it reads pages it has read, maybe without end (the
    /// kit's `max_requests` stops it); one that notices stops, and must not conclude complete:
    /// the traversal cannot be finished by following it. Offered on a request with a cursor of
    /// a paginated route whose answer hands out a next cursor, when the layer knows the cursors
    /// handed out before in its traversal (a kit's layer remembers them). Never offered by
    /// [`FaultLayer::serving`](super::FaultLayer::serving): see [`Fault::is_kit_only`].
    CursorRepeated,
    /// Add this declared warning; the items and `complete` stay as they are.
    Warning(WarningCode),
    /// Leave a field of a single resource out (contract §2.7): a `Field` member it filled with a
    /// value, not a genuine `null` (drawn from the seed; every one in an emptied schedule), is written `null` and
    /// listed in `omitted_fields` with `NO_ACCESS` or `SOURCE_FAILED` (drawn), as a service
    /// whose credential check or source failed leaves it out, and named in its
    /// `PARTIAL_FIELD_SET` warning when it carries `warnings`. Its other members stay. A client
    /// that reads the `null` as a genuine one ("never used", "no owner") concludes what the
    /// resource never said, and fails the kit; one that reads `omitted_fields` passes. Offered
    /// on a `GET` of a single resource that has a `Field` member it filled with a value.
    FieldOmitted,
}

/// The name of [`Fault::CursorExpired`].
const CURSOR_EXPIRED: &str = "CURSOR_EXPIRED";

/// The name of [`Fault::Restarted`].
const TRAVERSAL_RESTARTED: &str = "TRAVERSAL_RESTARTED";

/// The name of [`Fault::Unavailable`], and the code of the problem it answers with.
pub(crate) const SERVICE_UNAVAILABLE: &str = "SERVICE_UNAVAILABLE";

/// The name of [`Fault::FutureReason`], and the code of the reason it reports: no standard
/// code, and one no service is likely to declare (a route that does keeps its own).
pub(crate) const FUTURE_REASON: &str = "FUTURE_REASON";

/// The name of [`Fault::FilterDropped`].
const FILTER_DROPPED: &str = "FILTER_DROPPED";

/// The name of [`Fault::CursorRepeated`].
const CURSOR_REPEATED: &str = "CURSOR_REPEATED";

/// The name of [`Fault::FieldOmitted`].
const FIELD_OMITTED: &str = "FIELD_OMITTED";

impl Fault {
    /// The code that names the fault (`SOURCE_UNAVAILABLE`, `CURSOR_EXPIRED`,
    /// `SERVICE_UNAVAILABLE`, `FUTURE_REASON`, `STALE_INDEX`, `FIELD_OMITTED`).
    pub fn name(&self) -> &str {
        match self {
            Fault::Reason(code) => code.as_str(),
            Fault::CursorExpired => CURSOR_EXPIRED,
            Fault::Restarted => TRAVERSAL_RESTARTED,
            Fault::Unavailable => SERVICE_UNAVAILABLE,
            Fault::FutureReason => FUTURE_REASON,
            Fault::FilterDropped => FILTER_DROPPED,
            Fault::CursorRepeated => CURSOR_REPEATED,
            Fault::Warning(code) => code.as_str(),
            Fault::FieldOmitted => FIELD_OMITTED,
        }
    }

    /// The faults a single resource (contract §2.7) can produce on a `GET`: `FIELD_OMITTED`
    /// ([`Fault::FieldOmitted`]) when it filled a field it may leave out with a value
    /// (`fills_a_field`), and
    /// `SERVICE_UNAVAILABLE` ([`Fault::Unavailable`]: an outage, which says nothing of whether
    /// the resource exists). A resource that may leave out no field (a `Field` member) offers
    /// none: it says nothing the layer could take away.
    pub fn offered_on_resource(fills_a_field: bool) -> Vec<Fault> {
        let mut faults = Vec::new();
        if fills_a_field {
            faults.push(Fault::FieldOmitted);
        }
        faults.push(Fault::Unavailable);
        faults
    }

    /// The faults a route that declares `declared` can produce on any request, with a cursor
    /// or without (`has_cursor`), whatever else it sends: [`Fault::offered_on`] for a request
    /// that sends no filter and continues no traversal the layer knows, so without
    /// `FILTER_DROPPED` and `CURSOR_REPEATED`, which the layer offers on the requests they fit.
    pub fn offered(declared: &DeclaredSet, has_cursor: bool) -> Vec<Fault> {
        Fault::offered_on(declared, &RequestFacts { has_cursor, ..RequestFacts::default() })
    }

    /// The faults a route that declares `declared` can produce on one request, whose facts
    /// (and the route's answer's) are `request`, in declaration order: every declared reason a
    /// server reports (not `MORE_PAGES_AVAILABLE`, which is pagination, nor
    /// `CLIENT_LIMIT_REACHED`, which collectors report); `SNAPSHOT_EXPIRED`, `CURSOR_EXPIRED`
    /// and `TRAVERSAL_RESTARTED` only on a request that continues a traversal (the last two on
    /// a paginated route); `CURSOR_REPEATED` ([`Fault::CursorRepeated`]) on a request that
    /// continues one on a paginated route, when [`RequestFacts::handed_out`] names cursors the
    /// answer can hand out again; every declared warning whose details the layer can state
    /// truthfully (`STALE_INDEX`, `DEFAULT_SCOPE_APPLIED`, `ORDERING_DEFAULTED`, a service's
    /// own warnings); `FILTER_DROPPED` ([`Fault::FilterDropped`]) on a request that starts a
    /// traversal with a filter parameter ([`RequestFacts::filters`]); then `FUTURE_REASON`
    /// ([`Fault::FutureReason`]: a code a newer server sends); and last `SERVICE_UNAVAILABLE`
    /// ([`Fault::Unavailable`]: an outage any route can meet), on a request that starts a
    /// traversal (no cursor) or continues one on a paginated route. Each of the last four is
    /// left out when the route declares a reason or warning of its own by its name, which then
    /// keeps it.
    ///
    /// Every request of a traversal can meet the outage, as a real one comes on page 3 of 5 as
    /// well as on the first: the kit takes the same cursor sent again after it for a retry that
    /// continues the traversal (property 1 of [`Kit`](super::Kit)).
    pub fn offered_on(declared: &DeclaredSet, request: &RequestFacts) -> Vec<Fault> {
        let considered = Fault::considered(declared, request).into_iter();
        considered.filter_map(|(fault, offered)| offered.is_ok().then_some(fault)).collect()
    }

    /// Every fault a route that declares `declared` may give, in [`Fault::offered_on`]'s order,
    /// each with whether `request` is offered it, or why not: the rules of `offered_on`, each
    /// with the words a refusal of its fault's name gives ([`Fault::why_not_offered`]).
    fn considered(declared: &DeclaredSet, request: &RequestFacts) -> Vec<(Fault, Result<(), &'static str>)> {
        let has_cursor = request.has_cursor;
        let paginated = declared.reasons.contains(&ReasonCode::MorePagesAvailable);
        let when = |holds: bool, otherwise: &'static str| if holds { Ok(()) } else { Err(otherwise) };
        // A route that declares a reason or warning by the name keeps it: the name stays one fault's.
        let not_own = |name: &str| {
            let own = declared.reasons.iter().any(|code| code.as_str() == name)
                || declared.warnings.iter().any(|code| code.as_str() == name);
            when(!own, "the route declares a code of that name itself, which keeps it")
        };
        let mut faults: Vec<_> = declared
            .reasons
            .iter()
            .map(|code| (Fault::Reason(code.clone()), reason_offered(code, has_cursor)))
            .collect();
        let continued = match paginated {
            false => Err("the route does not page"),
            true => when(has_cursor, ONLY_WITH_A_CURSOR),
        };
        faults.push((Fault::CursorExpired, continued));
        faults.push((Fault::Restarted, continued));
        let handed_out = when(
            !request.handed_out.is_empty(),
            "it is offered only on a later page whose answer hands out a next cursor",
        );
        faults.push((Fault::CursorRepeated, continued.and(handed_out).and(not_own(CURSOR_REPEATED))));
        faults.extend(declared.warnings.iter().map(|code| (Fault::Warning(code.clone()), warning_offered(code))));
        let starts = when(!has_cursor, "it is offered only on a request that starts a traversal");
        let filtered =
            when(!request.filters.is_empty(), "it is offered only on a request with a filter the answer echoes");
        faults.push((Fault::FilterDropped, not_own(FILTER_DROPPED).and(starts).and(filtered)));
        faults.push((Fault::FutureReason, not_own(FUTURE_REASON)));
        let reachable = when(!has_cursor || paginated, "the request sends a cursor to a route that does not page");
        faults.push((Fault::Unavailable, not_own(SERVICE_UNAVAILABLE).and(reachable)));
        faults
    }

    /// True for a fault a kit's layer offers and [`FaultLayer::serving`](super::FaultLayer::serving),
    /// which real clients are pointed at for as long as it runs, does not: one whose answer the
    /// service itself would never send, so that a serving layer keeps every answer within what
    /// the service publishes and the contract allows.
    ///
    /// - `FUTURE_REASON` names a code no declaration names ([`Fault::is_outside_declarations`]).
    /// - `FILTER_DROPPED` answers another question than the one asked: a broken proxy's or an
    ///   older server's doing, not the service's, whose answers a serving layer stands for (a
    ///   client pointed at it would act on the wider set, as on no fault the service can send).
    /// - `CURSOR_REPEATED` hands out a cursor twice in one traversal, which the contract forbids
    ///   a server (§2.5); it needs the traversal's cursors, too, which a serving layer does not
    ///   keep.
    pub fn is_kit_only(&self) -> bool {
        self.is_outside_declarations() || matches!(self, Fault::FilterDropped | Fault::CursorRepeated)
    }

    /// True for a fault whose answer names a reason code no declaration of the route names
    /// ([`Fault::FutureReason`]). A service's published documents (its OpenAPI document, JSON
    /// Schemas, MCP output schemas) list the codes it declares, closed on purpose so that a
    /// client generated from them knows every code it will meet: such an answer is outside
    /// them. The kit's layer offers it, to test how a client meets a newer server;
    /// [`FaultLayer::serving`](super::FaultLayer::serving), which real clients are pointed at
    /// and which must keep answering within the service's own schemas, does not (it leaves out
    /// every fault [`Fault::is_kit_only`] names).
    pub fn is_outside_declarations(&self) -> bool {
        matches!(self, Fault::FutureReason)
    }

    /// Why the fault named `name` is not among those offered on a request whose facts are
    /// `request`, to a route that declares `declared` (`None`: a single resource), by a layer
    /// that keeps to what the service declares (`within`: [`FaultLayer::serving`](super::FaultLayer::serving)),
    /// for the refusal of a [`FAULT_HEADER`](super::FAULT_HEADER) that names it: the rule of
    /// [`Fault::offered_on`] that leaves it out.
    pub(super) fn why_not_offered(
        name: &str,
        declared: Option<&DeclaredSet>,
        request: &RequestFacts,
        within: bool,
    ) -> &'static str {
        let Some(declared) = declared else {
            return match name {
                FIELD_OMITTED => "the resource filled no field it may leave out",
                _ => "a single resource offers only FIELD_OMITTED and SERVICE_UNAVAILABLE",
            };
        };
        let considered = Fault::considered(declared, request);
        match considered.into_iter().find(|(fault, _)| fault.name() == name) {
            Some((_, Err(why))) => why,
            Some((fault, Ok(()))) if within && fault.is_kit_only() => {
                "a layer serving real clients gives only answers the service itself could send, and this is none"
            }
            Some((_, Ok(()))) => "the route declares it, but this request does not offer it",
            None if name == FIELD_OMITTED => "it is offered only on a single resource",
            // A standard reason the layer never gives says why, declared or not.
            None => match ReasonCode::KNOWN.iter().find(|code| code.as_str() == name) {
                Some(code) => reason_offered(code, true).err().unwrap_or("the route does not declare it"),
                None if WarningCode::KNOWN.iter().any(|code| code.as_str() == name) => "the route does not declare it",
                None => "no fault has that name",
            },
        }
    }

    /// The fault named `name` among `offered`, when it is there.
    pub fn find<'a>(offered: &'a [Fault], name: &str) -> Option<&'a Fault> {
        offered.iter().find(|fault| fault.name() == name)
    }

    /// The declared kind of a reason fault.
    pub(crate) fn kind_in(&self, declared: &DeclaredSet) -> ReasonKind {
        match self {
            Fault::Reason(code) => declared
                .reasons
                .iter()
                .position(|declared| declared == code)
                .and_then(|i| declared.kinds.get(i).copied())
                .unwrap_or_else(|| code.standard_kind()),
            Fault::CursorExpired | Fault::Restarted | Fault::CursorRepeated => ReasonKind::Snapshot,
            Fault::FilterDropped => ReasonKind::Unknown,
            Fault::Unavailable => ReasonKind::Source,
            // Drawn for each answer (`inject`); without one, an old reader's.
            Fault::FutureReason => ReasonKind::Unknown,
            Fault::Warning(_) | Fault::FieldOmitted => ReasonKind::Unknown,
        }
    }

    /// True when this fault's warning is declared stale (a service's own `#[warning(stale)]`,
    /// or `STALE_INDEX`), so that the injected warning says what the service's would.
    pub(crate) fn is_stale_in(&self, declared: &DeclaredSet) -> bool {
        let Fault::Warning(code) = self else { return false };
        let position = declared.warnings.iter().position(|declared| declared == code);
        position.and_then(|i| declared.stale.get(i).copied()).unwrap_or(*code == WarningCode::StaleIndex)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a fault's name is refused on a request without a cursor that the rule asks for.
const ONLY_WITH_A_CURSOR: &str = "it is offered only on a request that sends a cursor";

/// Whether the layer gives the declared reason `code` on a request with a cursor or without
/// (`has_cursor`), or why not: never `MORE_PAGES_AVAILABLE`, which is pagination, nor
/// `CLIENT_LIMIT_REACHED`, which collectors report; `SNAPSHOT_EXPIRED` only to a request that
/// continues a traversal.
fn reason_offered(code: &ReasonCode, has_cursor: bool) -> Result<(), &'static str> {
    match code {
        ReasonCode::MorePagesAvailable => Err("it is pagination, which the route's own pages give"),
        ReasonCode::ClientLimitReached => Err(
            "a client reports it of its own limit (a collector's `max_pages`), so no server answer is faulted with \
             it: test it with the collector's limits",
        ),
        ReasonCode::SnapshotExpired if !has_cursor => Err(ONLY_WITH_A_CURSOR),
        _ => Ok(()),
    }
}

/// Whether the layer gives the declared warning `code`, or why not: never one whose details are
/// the request's own (`PAGE_SIZE_REDUCED`, `PARTIAL_FIELD_SET`, `DEPRECATED_FIELD`).
fn warning_offered(code: &WarningCode) -> Result<(), &'static str> {
    match code {
        WarningCode::PageSizeReduced | WarningCode::PartialFieldSet | WarningCode::DeprecatedField => {
            Err("its details are the request's own, which the layer cannot state truthfully")
        }
        _ => Ok(()),
    }
}
