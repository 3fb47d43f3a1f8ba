//! Incomplete reasons (contract §3): stable codes, typed details, and the reason types that
//! endpoints report and clients read.
//!
//! - [`ReasonCode`] and [`ReasonKind`] (`code.rs`): what a reason is called and what family it
//!   belongs to; the standard table lives in `completeness-codes`.
//! - The standard reasons' details (`details.rs`): [`MorePagesAvailable`], [`ResultLimitReached`], ….
//! - A service's own reasons (`custom.rs`): a type with `#[derive(Reason)]` is converted into a
//!   [`CustomReason`] when it is reported, and read back from one.
//! - [`StandardReason`] (`standard.rs`): any reason, as a client holds it.

mod code;
mod custom;
pub(crate) mod details;
mod standard;

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

pub use code::{CustomCode, ReasonCode, ReasonKind, Recovery};
pub use custom::CustomReason;
pub use details::{
    ClientLimitReached, LimitKind, MorePagesAvailable, Progress, QuotaExhausted, ResultLimitReached, SnapshotExpired,
    SourceUnavailable, TimeBudgetExceeded, VisibilityRestricted,
};
pub use standard::StandardReason;

use crate::contract::continuation::Continuation;

/// One incomplete reason, as a completeness block holds it.
///
/// Implemented by [`StandardReason`] (every code, for clients) and by
/// [`DeclaredReason`](crate::contract::declared::DeclaredReason) (exactly the codes one
/// endpoint declares, so reporting an undeclared reason does not compile).
pub trait Reason: Serialize + fmt::Debug + Clone + Send + Sync + 'static {
    /// The stable code.
    fn code(&self) -> ReasonCode;

    /// The family of the reason: it decides `truncated` (contract §2.2 R4).
    fn kind(&self) -> ReasonKind;

    /// How to recover from this reason, if there is a way.
    fn recovery(&self) -> Option<Continuation>;

    /// The human message (may change between versions; never branch on it).
    fn message(&self) -> String;

    /// Rebuilds a reason from its wire object, or says why it cannot.
    fn from_wire(object: Map<String, Value>) -> Result<Self, String>;

    /// The contract of the cursor this reason continues with, when it was issued with one: a
    /// block with page facts states it in `page.cursor` (contract §2.2 R10).
    fn cursor_contract(&self) -> Option<&crate::contract::scope::CursorContract> {
        None
    }

    /// Gives a reason rebuilt from the wire back its recovery (which travels in the
    /// envelope's `continuation` / `next_cursor`); false when this reason cannot carry it.
    fn restore_recovery(&mut self, recovery: &Continuation) -> bool;

    /// Gives a reason outside the standard table, rebuilt from the wire without a recovery, the
    /// envelope's `continuation` that no standard reason claimed, when it is the only such reason
    /// of its block ([`Completeness`](crate::Completeness) decides that); false when this reason
    /// cannot take it. The wire does not say whose a continuation is: R6 makes it the first
    /// reason's that offers one, and a standard reason is known by its code.
    fn adopt_recovery(&mut self, recovery: &Continuation) -> bool {
        let _ = recovery;
        false
    }

    /// What an endpoint declares (`#[completeness(resource = "..", reasons(..), warnings(..))]`):
    /// a block over this reason type carries the resource in `scope.resource`, and a response
    /// carries the set to outer layers. `None` for reason types of no endpoint.
    fn declared_set() -> Option<crate::contract::declared::DeclaredSet>
    where
        Self: Sized,
    {
        None
    }
}

/// The typed details of one reason code: its wire members and its recovery.
///
/// The standard reasons implement it in this crate; a service's own reasons implement it with
/// `#[derive(Reason)]`, which checks the code and the kind at compile time. One written by hand
/// needs a code of its own too: an endpoint that lists a type of the service's own whose `CODE`
/// is a standard code (`ReasonCode::MorePagesAvailable`) does not compile, since that code
/// promises what only the standard type keeps (its cursor, contract §2.2 R6 and R7).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reason",
    label = "not a reason type",
    note = "derive it: `#[derive(Debug, Clone, completeness::Reason)]` with `#[reason(code = \"...\", kind = ..., message = \"...\")]`",
    note = "if it is a warning, list it in `warnings(...)` and push it with `push_warning`"
)]
pub trait ReasonDetails: Clone + fmt::Debug + Send + Sync + Sized + 'static {
    /// The code these details belong to.
    const CODE: ReasonCode;
    /// The family of the code.
    const KIND: ReasonKind;
    /// False when no value of these details ever offers a `next_cursor`: an endpoint whose
    /// declared reasons all say so never pages, and a cursor sent to it is refused (contract
    /// §2.5). Unless said otherwise, true for a reason of kind `truncation` only, the one kind
    /// whose cursor clients follow (contract §3.3); the standard details say what the table
    /// says of their code ([`ReasonCode::may_offer_a_cursor`]), and `#[derive(Reason)]` says
    /// true only for a reason declared with `next_cursor`.
    const MAY_OFFER_A_CURSOR: bool = matches!(Self::KIND, ReasonKind::Truncation);
    /// The detail members a service's own reason writes, by name, for the schemas of its
    /// endpoints (`#[derive(Reason)]` lists its fields); none said for a standard one, whose
    /// members the schemas' own table gives.
    const DETAIL_MEMBERS: &'static [&'static str] = &[];
    /// The default human message.
    fn default_message(&self) -> String;
    /// The message to send.
    fn message(&self) -> String {
        self.default_message()
    }
    /// Writes the detail members (not `code`, `message` or `kind`).
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// Reads details back from a wire object (`code`, `message` and `kind` already taken).
    fn read_details(object: &Map<String, Value>) -> Result<Self, String>;
    /// How to recover, if this value knows a way. A service's own reason offers none when it is
    /// of kind `visibility`, and a `NextCursor` only when it is of kind `truncation` and
    /// [`Self::MAY_OFFER_A_CURSOR`] (contract §3.3): `#[derive(Reason)]` refuses the others at
    /// compile time, and one written by hand has them left out when it is reported.
    fn recovery(&self) -> Option<Continuation>;
    /// Takes back a recovery that travelled separately on the wire; false when it does not fit.
    fn restore(&mut self, _recovery: &Continuation) -> bool {
        false
    }
    /// The reason as every client holds it.
    fn into_reason(self) -> StandardReason;
}

/// Standard detail structs whose message can be replaced.
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

/// True for a reason that only says where the traversal goes on (`MORE_PAGES_AVAILABLE`, or a
/// limit that hands out a cursor to resume from): the pages after it make the inventory whole.
pub(crate) fn continues<R: Reason>(reason: &R) -> bool {
    reason.code() == ReasonCode::MorePagesAvailable
        || matches!(reason.recovery(), Some(Continuation::NextCursor { .. }))
}

/// Reads a standard reason's details and keeps its message ([`keep_message`]).
fn read_reason<D: ReasonDetails + WithMessage>(object: &Map<String, Value>, message: String) -> Result<D, String> {
    let mut details = D::read_details(object)?;
    keep_message(&mut details, message);
    Ok(details)
}

/// Gives `details` the message `message` when it differs from their default one (the default
/// is not stored as a custom message).
pub(crate) fn keep_message<D: ReasonDetails + WithMessage>(details: &mut D, message: String) {
    let kept = if message == details.default_message() { None } else { Some(message) };
    details.set_message(kept);
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
