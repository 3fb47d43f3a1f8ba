//! The standard reasons' details: the wire members and recovery of each code of the
//! standard table (contract §3.2).

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{ReasonCode, ReasonDetails, ReasonKind, StandardReason, WithMessage, field, fill, str_field, u64_field};
use crate::contract::continuation::Continuation;
use crate::contract::scope::CursorContract;

/// Progress of a budgeted operation, e.g. `{completed: 1, planned: 3, unit: "sources"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Progress {
    /// Units finished.
    #[cfg_attr(feature = "openapi", schema(format = "uint64"))]
    pub completed: u64,
    /// Units planned; null (`None`) when the total is unknown, never left out.
    #[serde(deserialize_with = "crate::contract::scope::present")]
    #[cfg_attr(feature = "openapi", schema(required = true, format = "uint64"))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "crate::contract::scope::nullable::<u64>"))]
    pub planned: Option<u64>,
    /// What a unit is (`"sources"`, `"rows"`, `"pages"`).
    pub unit: String,
}

impl Progress {
    /// `completed` of `planned` units (`None`: the total is unknown) of `unit`.
    pub fn new(completed: u64, planned: Option<u64>, unit: impl Into<String>) -> Self {
        Progress { completed, planned, unit: unit.into() }
    }
}

/// Which client-side limit stopped a collector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum LimitKind {
    /// The page-count limit.
    Pages,
    /// The item-count limit.
    Items,
    /// The deadline.
    Deadline,
}

impl LimitKind {
    /// A limit of this kind in words: `1 page`, `250 items`, `a deadline of 500 ms`.
    pub fn describe(self, limit: u64) -> String {
        let plural = if limit == 1 { "" } else { "s" };
        match self {
            LimitKind::Pages => format!("{limit} page{plural}"),
            LimitKind::Items => format!("{limit} item{plural}"),
            LimitKind::Deadline => format!("a deadline of {limit} ms"),
        }
    }
}

macro_rules! serialize_details {
    ($ty:ty) => {
        impl WithMessage for $ty {
            fn custom_message(&self) -> Option<&str> {
                self.message.as_deref()
            }
            fn set_message(&mut self, message: Option<String>) {
                self.message = message;
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("code", <$ty as ReasonDetails>::CODE.as_str())?;
                map.serialize_entry("message", &ReasonDetails::message(self))?;
                self.write_details(&mut map)?;
                map.end()
            }
        }
    };
}

/// `MORE_PAGES_AVAILABLE`: the page is not the last; the cursor continues it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MorePagesAvailable {
    cursor: Option<String>,
    message: Option<String>,
    contract: Option<CursorContract>,
}

impl MorePagesAvailable {
    /// More pages follow; `cursor` fetches the next one. A server states what the cursor
    /// promises in `page.cursor` (R10): build the reason with [`MorePagesAvailable::issued`]
    /// (a `NextCursor` converts into it), or give the page facts the contract yourself.
    pub fn new(cursor: impl Into<String>) -> Self {
        MorePagesAvailable { cursor: Some(cursor.into()), message: None, contract: None }
    }
    /// More pages follow; `cursor` fetches the next one under `contract`, which a block with
    /// page facts states in `page.cursor` when they do not already (R10).
    pub fn issued(cursor: impl Into<String>, contract: CursorContract) -> Self {
        MorePagesAvailable { cursor: Some(cursor.into()), message: None, contract: Some(contract) }
    }
    /// The cursor, when this value was built on the server side.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
    /// The contract the cursor was issued under, when built with [`MorePagesAvailable::issued`].
    pub fn cursor_contract(&self) -> Option<&CursorContract> {
        self.contract.as_ref()
    }
}

impl ReasonDetails for MorePagesAvailable {
    const CODE: ReasonCode = ReasonCode::MorePagesAvailable;
    const KIND: ReasonKind = ReasonCode::MorePagesAvailable.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::MorePagesAvailable.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::MorePagesAvailable(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        "More results are available; continue with next_cursor.".into()
    }
    fn write_details<M: SerializeMap>(&self, _map: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &Map<String, Value>) -> Result<Self, String> {
        Ok(MorePagesAvailable { cursor: None, message: None, contract: None })
    }
    fn recovery(&self) -> Option<Continuation> {
        self.cursor.clone().map(|cursor| Continuation::NextCursor { cursor })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        fill(&mut self.cursor, recovery.cursor().map(str::to_owned))
    }
}
serialize_details!(MorePagesAvailable);

/// `RESULT_LIMIT_REACHED`: the server stopped at its result cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLimitReached {
    /// The cap that was hit.
    pub limit: u64,
    hint: Option<String>,
    message: Option<String>,
}

impl ResultLimitReached {
    /// The server stopped after `limit` results; `hint` says how to narrow the query.
    pub fn new(limit: u64, hint: impl Into<String>) -> Self {
        ResultLimitReached { limit, hint: Some(hint.into()), message: None }
    }
}

impl ReasonDetails for ResultLimitReached {
    const CODE: ReasonCode = ReasonCode::ResultLimitReached;
    const KIND: ReasonKind = ReasonCode::ResultLimitReached.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::ResultLimitReached.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::ResultLimitReached(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        format!("The answer stopped at the configured result limit of {}.", self.limit)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("limit", &self.limit)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(ResultLimitReached { limit: u64_field(object, "RESULT_LIMIT_REACHED", "limit")?, hint: None, message: None })
    }
    fn recovery(&self) -> Option<Continuation> {
        self.hint.clone().map(|hint| Continuation::NarrowQuery { hint })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        let hint = match recovery {
            Continuation::NarrowQuery { hint } => Some(hint.clone()),
            _ => None,
        };
        fill(&mut self.hint, hint)
    }
}
serialize_details!(ResultLimitReached);

/// `TIME_BUDGET_EXCEEDED`: the time budget ran out; `progress` says how far it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeBudgetExceeded {
    /// The budget that was applied, in milliseconds.
    pub budget_ms: u64,
    /// How far the work got.
    pub progress: Progress,
    minimum_seconds: Option<u64>,
    message: Option<String>,
}

impl TimeBudgetExceeded {
    /// The budget of `budget_ms` ran out at `progress`.
    pub fn new(budget_ms: u64, progress: Progress) -> Self {
        TimeBudgetExceeded { budget_ms, progress, minimum_seconds: None, message: None }
    }
    /// Offers a `retry_with_deadline` continuation of at least `seconds`.
    pub fn retry_with_deadline(mut self, seconds: u64) -> Self {
        self.minimum_seconds = Some(seconds);
        self
    }
}

impl ReasonDetails for TimeBudgetExceeded {
    const CODE: ReasonCode = ReasonCode::TimeBudgetExceeded;
    const KIND: ReasonKind = ReasonCode::TimeBudgetExceeded.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::TimeBudgetExceeded.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::TimeBudgetExceeded(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        let planned = self.progress.planned.map_or_else(|| "an unknown number of".to_owned(), |p| p.to_string());
        format!(
            "The time budget of {} ms ran out after {} of {} {}.",
            self.budget_ms, self.progress.completed, planned, self.progress.unit
        )
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("budget_ms", &self.budget_ms)?;
        map.serialize_entry("progress", &self.progress)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        let progress = serde_json::from_value(field(object, "TIME_BUDGET_EXCEEDED", "progress")?.clone())
            .map_err(|e| format!("reason TIME_BUDGET_EXCEEDED: bad `progress`: {e}"))?;
        Ok(TimeBudgetExceeded {
            budget_ms: u64_field(object, "TIME_BUDGET_EXCEEDED", "budget_ms")?,
            progress,
            minimum_seconds: None,
            message: None,
        })
    }
    fn recovery(&self) -> Option<Continuation> {
        self.minimum_seconds.map(|minimum_seconds| Continuation::RetryWithDeadline { minimum_seconds })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        let seconds = match recovery {
            Continuation::RetryWithDeadline { minimum_seconds } => Some(*minimum_seconds),
            _ => None,
        };
        fill(&mut self.minimum_seconds, seconds)
    }
}
serialize_details!(TimeBudgetExceeded);

/// `SOURCE_UNAVAILABLE`: the named source did not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceUnavailable {
    /// The stable id of the source.
    pub source: String,
    retry_after_seconds: Option<u64>,
    message: Option<String>,
}

impl SourceUnavailable {
    /// Source `source` did not answer.
    pub fn new(source: impl Into<String>) -> Self {
        SourceUnavailable { source: source.into(), retry_after_seconds: None, message: None }
    }
    /// Offers a `retry_after` continuation.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_seconds = Some(seconds);
        self
    }
}

impl ReasonDetails for SourceUnavailable {
    const CODE: ReasonCode = ReasonCode::SourceUnavailable;
    const KIND: ReasonKind = ReasonCode::SourceUnavailable.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::SourceUnavailable.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::SourceUnavailable(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        format!("Source '{}' did not respond.", self.source)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("source", &self.source)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(SourceUnavailable {
            source: str_field(object, "SOURCE_UNAVAILABLE", "source")?,
            retry_after_seconds: None,
            message: None,
        })
    }
    fn recovery(&self) -> Option<Continuation> {
        self.retry_after_seconds.map(|seconds| Continuation::RetryAfter { seconds })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        let seconds = match recovery {
            Continuation::RetryAfter { seconds } => Some(*seconds),
            _ => None,
        };
        fill(&mut self.retry_after_seconds, seconds)
    }
}
serialize_details!(SourceUnavailable);

/// `VISIBILITY_RESTRICTED`: the credential cannot read every record in scope.
///
/// It never names or counts the hidden records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VisibilityRestricted {
    message: Option<String>,
}

impl VisibilityRestricted {
    /// Records in scope were hidden from this credential.
    pub fn new() -> Self {
        VisibilityRestricted { message: None }
    }
}

impl ReasonDetails for VisibilityRestricted {
    const CODE: ReasonCode = ReasonCode::VisibilityRestricted;
    const KIND: ReasonKind = ReasonCode::VisibilityRestricted.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::VisibilityRestricted.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::VisibilityRestricted(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        "This credential cannot read every record in the requested scope; absence here proves nothing.".into()
    }
    fn write_details<M: SerializeMap>(&self, _map: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &Map<String, Value>) -> Result<Self, String> {
        Ok(VisibilityRestricted { message: None })
    }
    fn recovery(&self) -> Option<Continuation> {
        None
    }
}
serialize_details!(VisibilityRestricted);

/// `QUOTA_EXHAUSTED`: a quota ran out; retry after the given time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaExhausted {
    /// When the quota refills, in seconds.
    pub retry_after_seconds: u64,
    message: Option<String>,
}

impl QuotaExhausted {
    /// The quota refills in `retry_after_seconds`.
    pub fn new(retry_after_seconds: u64) -> Self {
        QuotaExhausted { retry_after_seconds, message: None }
    }
}

impl ReasonDetails for QuotaExhausted {
    const CODE: ReasonCode = ReasonCode::QuotaExhausted;
    const KIND: ReasonKind = ReasonCode::QuotaExhausted.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::QuotaExhausted.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::QuotaExhausted(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        format!("A quota ran out; it refills in {}.", seconds(self.retry_after_seconds))
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("retry_after_seconds", &self.retry_after_seconds)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(QuotaExhausted {
            retry_after_seconds: u64_field(object, "QUOTA_EXHAUSTED", "retry_after_seconds")?,
            message: None,
        })
    }
    fn recovery(&self) -> Option<Continuation> {
        Some(Continuation::RetryAfter { seconds: self.retry_after_seconds })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        matches!(recovery, Continuation::RetryAfter { seconds } if *seconds == self.retry_after_seconds)
    }
}
serialize_details!(QuotaExhausted);

/// `CLIENT_LIMIT_REACHED`: a client-side collector stopped at a limit of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientLimitReached {
    /// Which limit.
    pub limit_kind: LimitKind,
    /// Its value (pages, items, or milliseconds for the deadline).
    pub limit: u64,
    resume_cursor: Option<String>,
    message: Option<String>,
}

impl ClientLimitReached {
    /// The collector stopped at its `limit_kind` limit of `limit`.
    pub fn new(limit_kind: LimitKind, limit: u64) -> Self {
        ClientLimitReached { limit_kind, limit, resume_cursor: None, message: None }
    }
    /// The cursor that resumes the traversal where the collector stopped.
    pub fn resume_with(mut self, cursor: impl Into<String>) -> Self {
        self.resume_cursor = Some(cursor.into());
        self
    }
}

impl ReasonDetails for ClientLimitReached {
    const CODE: ReasonCode = ReasonCode::ClientLimitReached;
    const KIND: ReasonKind = ReasonCode::ClientLimitReached.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::ClientLimitReached.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::ClientLimitReached(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        format!("The client stopped collecting at its own limit of {}.", self.limit_kind.describe(self.limit))
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("limit_kind", &self.limit_kind)?;
        map.serialize_entry("limit", &self.limit)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        let limit_kind = serde_json::from_value(field(object, "CLIENT_LIMIT_REACHED", "limit_kind")?.clone())
            .map_err(|e| format!("reason CLIENT_LIMIT_REACHED: bad `limit_kind`: {e}"))?;
        Ok(ClientLimitReached {
            limit_kind,
            limit: u64_field(object, "CLIENT_LIMIT_REACHED", "limit")?,
            resume_cursor: None,
            message: None,
        })
    }
    fn recovery(&self) -> Option<Continuation> {
        self.resume_cursor.clone().map(|cursor| Continuation::NextCursor { cursor })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        fill(&mut self.resume_cursor, recovery.cursor().map(str::to_owned))
    }
}
serialize_details!(ClientLimitReached);

/// `SNAPSHOT_EXPIRED`: the traversal's snapshot is no longer retained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotExpired {
    /// The snapshot that expired.
    pub snapshot: String,
    message: Option<String>,
    /// Why a new traversal is needed, when it is not that the snapshot is gone.
    restart: Option<String>,
}

impl SnapshotExpired {
    /// Snapshot `snapshot` is gone.
    pub fn new(snapshot: impl Into<String>) -> Self {
        SnapshotExpired { snapshot: snapshot.into(), message: None, restart: None }
    }

    /// The traversal at `snapshot` cannot go on for another reason than the snapshot being gone
    /// (`why`: a collector that stopped a traversal which started over or looped): its restart
    /// says `why`, and claims no expiry.
    pub fn cannot_continue(snapshot: impl Into<String>, why: impl Into<String>) -> Self {
        SnapshotExpired { snapshot: snapshot.into(), message: None, restart: Some(why.into()) }
    }
}

impl ReasonDetails for SnapshotExpired {
    const CODE: ReasonCode = ReasonCode::SnapshotExpired;
    const KIND: ReasonKind = ReasonCode::SnapshotExpired.standard_kind();
    const MAY_OFFER_A_CURSOR: bool = ReasonCode::SnapshotExpired.may_offer_a_cursor();
    fn into_reason(self) -> StandardReason {
        StandardReason::SnapshotExpired(self)
    }
    fn message(&self) -> String {
        self.message.clone().unwrap_or_else(|| self.default_message())
    }
    fn default_message(&self) -> String {
        format!("Snapshot {} is no longer retained; the traversal cannot be completed.", self.snapshot)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("snapshot", &self.snapshot)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        let snapshot = str_field(object, "SNAPSHOT_EXPIRED", "snapshot")?;
        Ok(SnapshotExpired { snapshot, message: None, restart: None })
    }
    /// A new traversal, because the snapshot is gone, or for the reason given
    /// ([`SnapshotExpired::cannot_continue`], or the restart the wire carried).
    fn recovery(&self) -> Option<Continuation> {
        let reason =
            self.restart.clone().unwrap_or_else(|| format!("snapshot {} is no longer retained", self.snapshot));
        Some(Continuation::Restart { reason })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        match recovery {
            Continuation::Restart { reason } => {
                self.restart = Some(reason.clone());
                true
            }
            _ => false,
        }
    }
}
serialize_details!(SnapshotExpired);

/// `n` seconds in words: "1 second", "2 seconds".
pub(crate) fn seconds(n: u64) -> String {
    if n == 1 { "1 second".to_owned() } else { format!("{n} seconds") }
}
