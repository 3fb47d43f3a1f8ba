//! [`Fault`]: one way a response can be made incomplete, and which faults a route offers.

use std::fmt;

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
    /// for "nothing exists", the bug this framework exists for.
    Unavailable,
    /// Add this declared warning; the items and `complete` stay as they are.
    Warning(WarningCode),
}

/// The name of [`Fault::CursorExpired`].
const CURSOR_EXPIRED: &str = "CURSOR_EXPIRED";

/// The name of [`Fault::Restarted`].
const TRAVERSAL_RESTARTED: &str = "TRAVERSAL_RESTARTED";

/// The name of [`Fault::Unavailable`], and the code of the problem it answers with.
pub(crate) const SERVICE_UNAVAILABLE: &str = "SERVICE_UNAVAILABLE";

impl Fault {
    /// The code that names the fault (`SOURCE_UNAVAILABLE`, `CURSOR_EXPIRED`,
    /// `SERVICE_UNAVAILABLE`, `STALE_INDEX`).
    pub fn name(&self) -> &str {
        match self {
            Fault::Reason(code) => code.as_str(),
            Fault::CursorExpired => CURSOR_EXPIRED,
            Fault::Restarted => TRAVERSAL_RESTARTED,
            Fault::Unavailable => SERVICE_UNAVAILABLE,
            Fault::Warning(code) => code.as_str(),
        }
    }

    /// The faults a route that declares `declared` can produce on one request, in declaration
    /// order: every declared reason a server reports (not `MORE_PAGES_AVAILABLE`, which is
    /// pagination, nor `CLIENT_LIMIT_REACHED`, which collectors report); `SNAPSHOT_EXPIRED`,
    /// `CURSOR_EXPIRED` and `TRAVERSAL_RESTARTED` only on a request that continues a traversal
    /// (the last two on a paginated route); every declared warning whose details the layer can state
    /// truthfully (`STALE_INDEX`, `DEFAULT_SCOPE_APPLIED`, `ORDERING_DEFAULTED`, a service's
    /// own warnings); and last, on a request that starts a traversal (no cursor),
    /// `SERVICE_UNAVAILABLE` ([`Fault::Unavailable`]: an outage any route can meet), unless the
    /// route declares a reason or warning of its own by that name, which then keeps it. (Not on a
    /// continued one: a client that sends the same cursor again after the outage would be
    /// judged to continue a traversal a problem answered, which the kit cannot tell from
    /// merging across it.)
    pub fn offered(declared: &DeclaredSet, has_cursor: bool) -> Vec<Fault> {
        let mut faults = Vec::new();
        for code in declared.reasons {
            match code {
                ReasonCode::MorePagesAvailable | ReasonCode::ClientLimitReached => {}
                ReasonCode::SnapshotExpired if !has_cursor => {}
                code => faults.push(Fault::Reason(code.clone())),
            }
        }
        if has_cursor && declared.reasons.contains(&ReasonCode::MorePagesAvailable) {
            faults.push(Fault::CursorExpired);
            faults.push(Fault::Restarted);
        }
        for code in declared.warnings {
            match code {
                WarningCode::PageSizeReduced | WarningCode::PartialFieldSet | WarningCode::DeprecatedField => {}
                code => faults.push(Fault::Warning(code.clone())),
            }
        }
        if !has_cursor && !faults.iter().any(|fault| fault.name() == SERVICE_UNAVAILABLE) {
            faults.push(Fault::Unavailable);
        }
        faults
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
            Fault::CursorExpired | Fault::Restarted => ReasonKind::Snapshot,
            Fault::Unavailable => ReasonKind::Source,
            Fault::Warning(_) => ReasonKind::Unknown,
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
