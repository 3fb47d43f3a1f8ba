//! Reasons outside the standard table (contract §3.3): a service's own, and codes this
//! version does not know.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::{ReasonCode, ReasonDetails, ReasonKind};
use crate::contract::continuation::Continuation;
use crate::contract::members::detail_members;

/// A reason outside the standard table, kept whole: its code, its kind, its message, its
/// detail members and, on the server side, its recovery.
///
/// A service's own reason (a type with `#[derive(Reason)]`) becomes one when it is reported;
/// [`CustomReason::to_details`] reads the typed value back. A client that does not know the
/// code keeps it as it is, and the response is incomplete all the same.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomReason {
    code: String,
    kind: ReasonKind,
    message: String,
    details: Map<String, Value>,
    recovery: Option<Continuation>,
}

impl CustomReason {
    /// The wire form of a service's own reason.
    pub fn from_details<D: ReasonDetails>(details: &D) -> CustomReason {
        let details_map = detail_members(|map| details.write_details(map), completeness_codes::REASON_HEAD_MEMBERS);
        CustomReason {
            code: D::CODE.as_str().to_owned(),
            kind: D::KIND,
            message: details.message(),
            details: details_map,
            recovery: details.recovery().filter(|recovery| may_offer::<D>(recovery)),
        }
    }

    /// A reason read from the wire whose code is not in the standard table: `kind` is taken
    /// from its `kind` member ([`ReasonKind::Unknown`] when absent or not a kind).
    pub(crate) fn from_wire(code: String, message: String, mut details: Map<String, Value>) -> CustomReason {
        let kind = match details.get("kind").and_then(Value::as_str).and_then(ReasonKind::parse) {
            Some(kind) => {
                details.remove("kind");
                kind
            }
            None => ReasonKind::Unknown,
        };
        CustomReason { code, kind, message, details, recovery: None }
    }

    /// The code.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The kind, as declared by the service or received on the wire.
    pub fn kind(&self) -> ReasonKind {
        self.kind
    }

    /// The human message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The detail members (everything but `code`, `message` and `kind`).
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    /// The recovery, when this value was built on the server side or was given one back.
    pub fn recovery(&self) -> Option<&Continuation> {
        self.recovery.as_ref()
    }

    /// Keeps `recovery` as this reason's own: for a conversion of a reason that offered it
    /// (never for a continuation read from the wire, which could be another reason's).
    pub(crate) fn keep_recovery(&mut self, recovery: Continuation) {
        self.recovery = Some(recovery);
    }

    /// Forgets the recovery (an example of the fault layer's, whose cursor is no real one).
    #[cfg(feature = "faults")]
    pub(crate) fn drop_recovery(&mut self) {
        self.recovery = None;
    }

    /// The typed reason `D`, when this is one: `None` for another code, an error when the
    /// details do not read as `D`.
    pub fn to_details<D: ReasonDetails>(&self) -> Option<Result<D, String>> {
        if self.code != D::CODE.as_str() {
            return None;
        }
        Some(D::read_details(&self.details).map(|mut details| {
            if let Some(recovery) = &self.recovery {
                details.restore(recovery);
            }
            details
        }))
    }
}

impl Serialize for CustomReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if self.kind != ReasonKind::Unknown {
            map.serialize_entry("kind", self.kind.as_str())?;
        }
        for (key, value) in &self.details {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl From<CustomReason> for super::StandardReason {
    fn from(reason: CustomReason) -> Self {
        super::StandardReason::Custom(reason)
    }
}

impl CustomReason {
    /// The code as a [`ReasonCode`].
    pub fn reason_code(&self) -> ReasonCode {
        ReasonCode::parse(&self.code)
    }
}

/// True when a service's own reason of details `D` may offer `recovery` (contract §3.3): none on
/// a reason of kind `visibility`, which no way on recovers; a next page only from one of kind
/// `truncation` that says it may offer one.
fn may_offer<D: ReasonDetails>(recovery: &Continuation) -> bool {
    match (D::KIND, recovery) {
        (ReasonKind::Visibility, _) => false,
        (kind, Continuation::NextCursor { .. }) => kind == ReasonKind::Truncation && D::MAY_OFFER_A_CURSOR,
        _ => true,
    }
}
