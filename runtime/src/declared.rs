//! The reason type `#[completeness]` generates for an endpoint: a standard reason restricted
//! to the codes the endpoint declares (DESIGN §2.2, §4).
//!
//! `#[completeness(reasons(MorePagesAvailable, VisibilityRestricted))] async fn list_accounts(..)`
//! generates `type ListAccountsReason = DeclaredReason<…>` whose marker declares exactly those
//! two codes: `From` exists only for their detail structs, so reporting an undeclared reason does
//! not compile, and reading one from the wire is an error. All behaviour lives here, once, so an
//! endpoint costs the compiler a few empty impls instead of an enum with a dozen methods.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::continuation::Continuation;
use crate::reason::{
    ClientLimitReached, MorePagesAvailable, QuotaExhausted, Reason, ReasonCode, ResultLimitReached, SnapshotExpired,
    SourceUnavailable, StandardReason, TimeBudgetExceeded, VisibilityRestricted,
};
use crate::warning::WarningCode;

/// What an endpoint declares: implemented by the marker `#[completeness]` generates.
pub trait ReasonSet: 'static {
    /// The name of the endpoint's reason type, e.g. `"ListAccountsReason"` (its schema name).
    const NAME: &'static str;
    /// The declared reason codes, in declaration order.
    const ALL: &'static [ReasonCode];
    /// The declared warning codes.
    const WARNINGS: &'static [WarningCode];
    /// The resource the endpoint lists.
    const RESOURCE: &'static str;
}

/// The endpoint declared the reason whose details are `D`.
#[diagnostic::on_unimplemented(
    message = "this endpoint does not declare the reason `{D}`",
    label = "`{D}` is not among the reasons this endpoint declares",
    note = "add it to `reasons(...)` in the handler's `#[completeness]` attribute, or report a declared reason"
)]
pub trait Declares<D>: ReasonSet {}

/// A reason of one endpoint: one of the codes its marker `M` declares.
///
/// Match on [`DeclaredReason::as_standard`] to branch on the details.
pub struct DeclaredReason<M> {
    reason: StandardReason,
    endpoint: PhantomData<fn() -> M>,
}

impl<M> DeclaredReason<M> {
    /// The reason with its typed details.
    pub fn as_standard(&self) -> &StandardReason {
        &self.reason
    }

    /// The reason with its typed details, by value.
    pub fn into_standard(self) -> StandardReason {
        self.reason
    }
}

impl<M: ReasonSet> DeclaredReason<M> {
    /// Every reason code the endpoint declares, for contract tests.
    pub const ALL: &'static [ReasonCode] = M::ALL;
    /// Every warning code the endpoint declares.
    pub const WARNINGS: &'static [WarningCode] = M::WARNINGS;
    /// The resource the endpoint lists (its `scope.resource`).
    pub const RESOURCE: &'static str = M::RESOURCE;
}

impl<M> fmt::Debug for DeclaredReason<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.reason, f)
    }
}

impl<M> Clone for DeclaredReason<M> {
    fn clone(&self) -> Self {
        DeclaredReason { reason: self.reason.clone(), endpoint: PhantomData }
    }
}

impl<M> PartialEq for DeclaredReason<M> {
    fn eq(&self, other: &Self) -> bool {
        self.reason == other.reason
    }
}

impl<M> Serialize for DeclaredReason<M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.reason.serialize(serializer)
    }
}

impl<'de, M: ReasonSet> Deserialize<'de> for DeclaredReason<M> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        Self::from_wire(object).map_err(serde::de::Error::custom)
    }
}

impl<M: ReasonSet> Reason for DeclaredReason<M> {
    fn code(&self) -> ReasonCode {
        self.reason.code()
    }
    fn recovery(&self) -> Option<Continuation> {
        self.reason.recovery()
    }
    fn message(&self) -> String {
        self.reason.message()
    }
    fn from_wire(object: Map<String, Value>) -> Result<Self, String> {
        let reason = StandardReason::from_wire(object)?;
        let code = reason.code();
        if M::ALL.contains(&code) {
            Ok(DeclaredReason { reason, endpoint: PhantomData })
        } else {
            Err(format!("reason code {code} is not one this endpoint declares"))
        }
    }
    fn restore_recovery(&mut self, recovery: &Continuation) -> bool {
        self.reason.restore_recovery(recovery)
    }
}

macro_rules! from_declared_details {
    ($($details:ident),*) => {$(
        impl<M: Declares<$details>> From<$details> for DeclaredReason<M> {
            fn from(details: $details) -> Self {
                DeclaredReason { reason: StandardReason::$details(details), endpoint: PhantomData }
            }
        }
    )*};
}

from_declared_details!(
    MorePagesAvailable,
    ResultLimitReached,
    TimeBudgetExceeded,
    SourceUnavailable,
    VisibilityRestricted,
    QuotaExhausted,
    ClientLimitReached,
    SnapshotExpired
);

#[cfg(feature = "openapi")]
impl<M: ReasonSet> utoipa::PartialSchema for DeclaredReason<M> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::__private::reason_schema_openapi(M::ALL)
    }
}

#[cfg(feature = "openapi")]
impl<M: ReasonSet> utoipa::ToSchema for DeclaredReason<M> {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(M::NAME)
    }
}

#[cfg(feature = "json-schema")]
impl<M: ReasonSet> schemars::JsonSchema for DeclaredReason<M> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(M::NAME)
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::__private::reason_schema_json(M::ALL)
    }
}
