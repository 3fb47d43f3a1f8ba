//! Incomplete reasons: stable codes, typed details, and the endpoint reason trait (DESIGN §2.2).

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::continuation::Continuation;

/// A stable reason code. Programs branch on this, never on the message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReasonCode {
    /// `MORE_PAGES_AVAILABLE`: this page is not the last one.
    MorePagesAvailable,
    /// `RESULT_LIMIT_REACHED`: the server stopped at a result cap.
    ResultLimitReached,
    /// `TIME_BUDGET_EXCEEDED`: the time budget ran out.
    TimeBudgetExceeded,
    /// `SOURCE_UNAVAILABLE`: a source did not answer.
    SourceUnavailable,
    /// `VISIBILITY_RESTRICTED`: the credential cannot read the whole scope.
    VisibilityRestricted,
    /// `QUOTA_EXHAUSTED`: a quota ran out.
    QuotaExhausted,
    /// `CLIENT_LIMIT_REACHED`: a client-side collector stopped at its own limit.
    ClientLimitReached,
    /// `SNAPSHOT_EXPIRED`: the traversal's snapshot is gone.
    SnapshotExpired,
    /// A code this version does not know (from a newer server). It still means incomplete.
    Unknown(String),
}

/// What family a reason belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReasonKind {
    /// The answer was cut short; `truncated` is true.
    Truncation,
    /// A time or quota budget ran out.
    Budget,
    /// A source failed.
    Source,
    /// Records were hidden from this credential.
    Visibility,
    /// The snapshot is gone.
    Snapshot,
    /// An unknown code.
    Unknown,
}

impl ReasonCode {
    /// Every code this version knows, in the order of DESIGN §2.2.
    pub const KNOWN: [ReasonCode; 8] = [
        ReasonCode::MorePagesAvailable,
        ReasonCode::ResultLimitReached,
        ReasonCode::TimeBudgetExceeded,
        ReasonCode::SourceUnavailable,
        ReasonCode::VisibilityRestricted,
        ReasonCode::QuotaExhausted,
        ReasonCode::ClientLimitReached,
        ReasonCode::SnapshotExpired,
    ];

    /// The SCREAMING_SNAKE_CASE wire form.
    pub fn as_str(&self) -> &str {
        match self {
            ReasonCode::MorePagesAvailable => "MORE_PAGES_AVAILABLE",
            ReasonCode::ResultLimitReached => "RESULT_LIMIT_REACHED",
            ReasonCode::TimeBudgetExceeded => "TIME_BUDGET_EXCEEDED",
            ReasonCode::SourceUnavailable => "SOURCE_UNAVAILABLE",
            ReasonCode::VisibilityRestricted => "VISIBILITY_RESTRICTED",
            ReasonCode::QuotaExhausted => "QUOTA_EXHAUSTED",
            ReasonCode::ClientLimitReached => "CLIENT_LIMIT_REACHED",
            ReasonCode::SnapshotExpired => "SNAPSHOT_EXPIRED",
            ReasonCode::Unknown(code) => code,
        }
    }

    /// Parses a wire code; unknown codes are kept as [`ReasonCode::Unknown`].
    pub fn parse(code: &str) -> ReasonCode {
        ReasonCode::KNOWN
            .into_iter()
            .find(|known| known.as_str() == code)
            .unwrap_or_else(|| ReasonCode::Unknown(code.to_owned()))
    }

    /// The family of this code.
    pub fn kind(&self) -> ReasonKind {
        match self {
            ReasonCode::MorePagesAvailable | ReasonCode::ResultLimitReached | ReasonCode::ClientLimitReached => {
                ReasonKind::Truncation
            }
            ReasonCode::TimeBudgetExceeded | ReasonCode::QuotaExhausted => ReasonKind::Budget,
            ReasonCode::SourceUnavailable => ReasonKind::Source,
            ReasonCode::VisibilityRestricted => ReasonKind::Visibility,
            ReasonCode::SnapshotExpired => ReasonKind::Snapshot,
            ReasonCode::Unknown(_) => ReasonKind::Unknown,
        }
    }

    /// True for the codes that make `truncated` true.
    pub fn is_truncation(&self) -> bool {
        self.kind() == ReasonKind::Truncation
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReasonCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReasonCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Ok(ReasonCode::parse(&code))
    }
}

/// One incomplete reason, as an endpoint reports it.
///
/// Implemented by [`StandardReason`] (every code, for clients) and by the
/// enums `#[completeness]` generates for each endpoint (exactly the declared
/// codes, so reporting an undeclared reason does not compile).
pub trait Reason: Serialize + fmt::Debug + Clone + Send + Sync + 'static {
    /// The stable code.
    fn code(&self) -> ReasonCode;

    /// How to recover from this reason, if there is a way.
    fn recovery(&self) -> Option<Continuation>;

    /// The human message (may change between versions; never branch on it).
    fn message(&self) -> String;

    /// Rebuilds a reason from its wire object, or says why it cannot.
    fn from_wire(object: Map<String, Value>) -> Result<Self, String>;

    /// Gives a reason rebuilt from the wire back its recovery (which travels in the
    /// envelope's `continuation` / `next_cursor`); false when this reason cannot carry it.
    fn restore_recovery(&mut self, recovery: &Continuation) -> bool;
}

/// Progress of a budgeted operation, e.g. `{completed: 1, planned: 3, unit: "sources"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Progress {
    /// Units finished.
    pub completed: u64,
    /// Units planned; `None` when the total is unknown.
    pub planned: Option<u64>,
    /// What a unit is (`"sources"`, `"rows"`, `"pages"`).
    pub unit: String,
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

/// The typed details of one reason code: its wire members and its recovery.
pub trait ReasonDetails: WithMessage + Sized {
    /// The code these details belong to.
    const CODE: ReasonCode;
    /// The default human message.
    fn default_message(&self) -> String;
    /// The message to send (a custom one if set).
    fn message(&self) -> String {
        self.custom_message().map_or_else(|| self.default_message(), str::to_owned)
    }
    /// Writes the detail members (not `code` or `message`).
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// Reads details back from a wire object (`code` and `message` already taken).
    fn read_details(object: &Map<String, Value>) -> Result<Self, String>;
    /// How to recover, if this value knows a way.
    fn recovery(&self) -> Option<Continuation>;
    /// Takes back a recovery that travelled separately on the wire; false when it does not fit.
    fn restore(&mut self, _recovery: &Continuation) -> bool {
        false
    }
}

/// Fills an empty recovery slot; false when the slot is taken or there is nothing to fill it with.
fn fill<T>(slot: &mut Option<T>, value: Option<T>) -> bool {
    match value {
        Some(value) if slot.is_none() => {
            *slot = Some(value);
            true
        }
        _ => false,
    }
}

/// The message to keep from the wire: `None` when it is the default one.
fn received_message<D: ReasonDetails>(details: &D, message: String) -> Option<String> {
    if message == details.default_message() { None } else { Some(message) }
}

/// Reads a reason's details and keeps its message when it differs from the default.
#[doc(hidden)]
pub fn read_reason<D: ReasonDetails + WithMessage>(object: &Map<String, Value>, message: String) -> Result<D, String> {
    let mut details = D::read_details(object)?;
    let kept = received_message(&details, message);
    details.set_message(kept);
    Ok(details)
}

/// Detail structs whose message can be replaced.
pub trait WithMessage {
    /// The custom message, when one replaces the default.
    fn custom_message(&self) -> Option<&str>;
    /// Replaces the message (`None`: the default one).
    fn set_message(&mut self, message: Option<String>);
    /// Replaces the message, by value.
    fn with_message(mut self, message: impl Into<String>) -> Self
    where
        Self: Sized,
    {
        self.set_message(Some(message.into()));
        self
    }
}

fn field<'a>(object: &'a Map<String, Value>, code: &str, name: &str) -> Result<&'a Value, String> {
    object.get(name).ok_or_else(|| format!("reason {code} lacks its `{name}` member"))
}

fn u64_field(object: &Map<String, Value>, code: &str, name: &str) -> Result<u64, String> {
    field(object, code, name)?.as_u64().ok_or_else(|| format!("reason {code}: `{name}` must be a non-negative integer"))
}

fn str_field(object: &Map<String, Value>, code: &str, name: &str) -> Result<String, String> {
    field(object, code, name)?
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("reason {code}: `{name}` must be a string"))
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
}

impl MorePagesAvailable {
    /// More pages follow; `cursor` fetches the next one.
    pub fn new(cursor: impl Into<String>) -> Self {
        MorePagesAvailable { cursor: Some(cursor.into()), message: None }
    }
    /// The cursor, when this value was built on the server side.
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
}

impl ReasonDetails for MorePagesAvailable {
    const CODE: ReasonCode = ReasonCode::MorePagesAvailable;
    fn default_message(&self) -> String {
        "More results are available; continue with next_cursor.".into()
    }
    fn write_details<M: SerializeMap>(&self, _map: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &Map<String, Value>) -> Result<Self, String> {
        Ok(MorePagesAvailable { cursor: None, message: None })
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
    fn default_message(&self) -> String {
        format!("The search stopped after the configured result limit of {}.", self.limit)
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
    fn default_message(&self) -> String {
        format!("A quota ran out; it refills in {} seconds.", self.retry_after_seconds)
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
    fn default_message(&self) -> String {
        let what = match self.limit_kind {
            LimitKind::Pages => format!("{} pages", self.limit),
            LimitKind::Items => format!("{} items", self.limit),
            LimitKind::Deadline => format!("a deadline of {} ms", self.limit),
        };
        format!("The client stopped collecting at its own limit of {what}.")
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
}

impl SnapshotExpired {
    /// Snapshot `snapshot` is gone.
    pub fn new(snapshot: impl Into<String>) -> Self {
        SnapshotExpired { snapshot: snapshot.into(), message: None }
    }
}

impl ReasonDetails for SnapshotExpired {
    const CODE: ReasonCode = ReasonCode::SnapshotExpired;
    fn default_message(&self) -> String {
        format!("Snapshot {} is no longer retained; the traversal cannot be completed.", self.snapshot)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("snapshot", &self.snapshot)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(SnapshotExpired { snapshot: str_field(object, "SNAPSHOT_EXPIRED", "snapshot")?, message: None })
    }
    fn recovery(&self) -> Option<Continuation> {
        Some(Continuation::Restart { reason: format!("snapshot {} is no longer retained", self.snapshot) })
    }
    fn restore(&mut self, recovery: &Continuation) -> bool {
        matches!(recovery, Continuation::Restart { .. })
    }
}
serialize_details!(SnapshotExpired);

/// A reason with a code this version does not know. Kept whole; counts as incomplete.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownReason {
    /// The code as received.
    pub code: String,
    /// The message as received.
    pub message: String,
    /// Every other member as received.
    pub details: Map<String, Value>,
}

impl Serialize for UnknownReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        for (key, value) in &self.details {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Splits a wire reason object into its code and message, checking both are present.
pub fn split_wire(object: &mut Map<String, Value>) -> Result<(ReasonCode, String), String> {
    let code = match object.remove("code") {
        Some(Value::String(code)) if !code.is_empty() => code,
        Some(_) => return Err("a reason's `code` must be a non-empty string".into()),
        None => return Err("a reason lacks its `code` member".into()),
    };
    let message = match object.remove("message") {
        Some(Value::String(message)) => message,
        Some(_) => return Err(format!("reason {code}: `message` must be a string")),
        None => return Err(format!("reason {code} lacks its `message` member")),
    };
    Ok((ReasonCode::parse(&code), message))
}

/// Every reason code with its typed details; the reason type clients use.
///
/// Unknown codes from newer servers are kept as [`StandardReason::Unknown`].
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum StandardReason {
    MorePagesAvailable(MorePagesAvailable),
    ResultLimitReached(ResultLimitReached),
    TimeBudgetExceeded(TimeBudgetExceeded),
    SourceUnavailable(SourceUnavailable),
    VisibilityRestricted(VisibilityRestricted),
    QuotaExhausted(QuotaExhausted),
    ClientLimitReached(ClientLimitReached),
    SnapshotExpired(SnapshotExpired),
    /// A code this version does not know.
    Unknown(UnknownReason),
}

/// Implements `From<Details>` and dispatch for [`StandardReason`], whose variants wrap
/// detail structs.
macro_rules! __reason_enum_impls {
    ($enum:ident { $($variant:ident),* $(,)? } unknown: $($unknown:ident)?) => {
        $(
            #[automatically_derived]
            impl ::core::convert::From<$crate::contract::reason::$variant> for $enum {
                fn from(details: $crate::contract::reason::$variant) -> Self {
                    $enum::$variant(details)
                }
            }
        )*

        #[automatically_derived]
        impl $crate::__private::serde::Serialize for $enum {
            fn serialize<S: $crate::__private::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    $( $enum::$variant(details) => $crate::__private::serde::Serialize::serialize(details, serializer), )*
                    $( $enum::$unknown(details) => $crate::__private::serde::Serialize::serialize(details, serializer), )?
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("an enum without variants has no values"),
                }
            }
        }

        #[automatically_derived]
        impl $crate::contract::reason::Reason for $enum {
            fn code(&self) -> $crate::contract::reason::ReasonCode {
                match self {
                    $( $enum::$variant(_) => <$crate::contract::reason::$variant as $crate::contract::reason::ReasonDetails>::CODE, )*
                    $( $enum::$unknown(details) => $crate::contract::reason::ReasonCode::Unknown(details.code.clone()), )?
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("an enum without variants has no values"),
                }
            }
            fn recovery(&self) -> ::core::option::Option<$crate::contract::continuation::Continuation> {
                match self {
                    $( $enum::$variant(details) => $crate::contract::reason::ReasonDetails::recovery(details), )*
                    $( $enum::$unknown(_) => ::core::option::Option::None, )?
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("an enum without variants has no values"),
                }
            }
            fn message(&self) -> ::std::string::String {
                match self {
                    $( $enum::$variant(details) => $crate::contract::reason::ReasonDetails::message(details), )*
                    $( $enum::$unknown(details) => details.message.clone(), )?
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("an enum without variants has no values"),
                }
            }
            fn restore_recovery(&mut self, recovery: &$crate::contract::continuation::Continuation) -> bool {
                match self {
                    $( $enum::$variant(details) => $crate::contract::reason::ReasonDetails::restore(details, recovery), )*
                    $( $enum::$unknown(_) => false, )?
                    #[allow(unreachable_patterns)]
                    _ => ::core::unreachable!("an enum without variants has no values"),
                }
            }
            fn from_wire(
                mut object: $crate::__private::serde_json::Map<::std::string::String, $crate::__private::serde_json::Value>,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                let (code, message) = $crate::contract::reason::split_wire(&mut object)?;
                $(
                    if code == <$crate::contract::reason::$variant as $crate::contract::reason::ReasonDetails>::CODE {
                        return $crate::contract::reason::read_reason::<$crate::contract::reason::$variant>(&object, message)
                            .map($enum::$variant);
                    }
                )*
                $(
                    return ::core::result::Result::Ok($enum::$unknown($crate::contract::reason::UnknownReason {
                        code: ::std::string::String::from(code.as_str()),
                        message,
                        details: object,
                    }));
                )?
                #[allow(unreachable_code)]
                ::core::result::Result::Err(::std::format!(
                    "reason code {} is not one this endpoint declares",
                    code
                ))
            }
        }

        #[automatically_derived]
        impl<'de> $crate::__private::serde::Deserialize<'de> for $enum {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                let object = <$crate::__private::serde_json::Map<::std::string::String, $crate::__private::serde_json::Value>
                    as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                <$enum as $crate::contract::reason::Reason>::from_wire(object)
                    .map_err(<D::Error as $crate::__private::serde::de::Error>::custom)
            }
        }
    };
}

__reason_enum_impls!(StandardReason {
    MorePagesAvailable,
    ResultLimitReached,
    TimeBudgetExceeded,
    SourceUnavailable,
    VisibilityRestricted,
    QuotaExhausted,
    ClientLimitReached,
    SnapshotExpired,
} unknown: Unknown);

impl From<UnknownReason> for StandardReason {
    fn from(reason: UnknownReason) -> Self {
        StandardReason::Unknown(reason)
    }
}

impl StandardReason {
    /// Converts any endpoint's reason into the standard form via its wire object.
    pub fn from_reason<R: Reason>(reason: &R) -> StandardReason {
        match serde_json::to_value(reason) {
            Ok(Value::Object(object)) => match StandardReason::from_wire(object) {
                Ok(mut standard) => {
                    if let Some(recovery) = reason.recovery() {
                        standard.restore_recovery(&recovery);
                    }
                    standard
                }
                Err(message) => StandardReason::Unknown(UnknownReason {
                    code: reason.code().as_str().to_owned(),
                    message,
                    details: Map::new(),
                }),
            },
            _ => StandardReason::Unknown(UnknownReason {
                code: reason.code().as_str().to_owned(),
                message: reason.message(),
                details: Map::new(),
            }),
        }
    }
}

/// Deserializes a list of reasons with a serde error naming the bad one.
pub(crate) fn reasons_from_wire<R: Reason, E: serde::de::Error>(values: Vec<Value>) -> Result<Vec<R>, E> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| match value {
            Value::Object(object) => {
                R::from_wire(object).map_err(|e| E::custom(format!("incomplete_reasons[{i}]: {e}")))
            }
            _ => Err(E::custom(format!("incomplete_reasons[{i}] must be an object"))),
        })
        .collect()
}
