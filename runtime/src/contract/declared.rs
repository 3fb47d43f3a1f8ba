//! The reasons and warnings one endpoint declares, as types (contract §4).
//!
//! `#[completeness(reasons(MorePagesAvailable, LegalHold), warnings(StaleIndex))] async fn list_accounts(..)`
//! generates an uninhabited marker type that implements [`ReasonSet`] (what it declares, as
//! one constant) and one [`Declares`] or [`DeclaresWarning`] impl per declared name, and the alias
//!
//! ```text
//! type ListAccountsReason = DeclaredReason<__ListAccountsReasonSet>;
//! ```
//!
//! `From` exists only for the details of a declared reason, and a completeness block over
//! `ListAccountsReason` accepts only declared warnings, so reporting anything undeclared does
//! not compile; reading an undeclared code from the wire is an error. There is no limit on how
//! many reasons an endpoint declares, and a service's own reasons are declared like standard
//! ones. All behaviour lives here, once.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::continuation::Continuation;
use crate::contract::reason::{Reason, ReasonCode, ReasonDetails, ReasonKind, StandardReason};
use crate::contract::warning::{WarningCode, WarningDetails};

/// The reasons and warnings one endpoint declares. Implemented by the marker type
/// `#[completeness]` generates; [`Everything`] declares every standard code.
pub trait ReasonSet: 'static {
    /// What the endpoint declares: its resource, its reason codes with their kinds, and its
    /// warning codes, in declaration order.
    const DECLARED: DeclaredSet;
}

/// The set declares the reason whose details are `D`.
#[diagnostic::on_unimplemented(
    message = "this endpoint does not declare the reason `{D}`",
    label = "`{D}` is not among the reasons this endpoint declares",
    note = "add it to `reasons(...)` in the handler's `#[completeness]` attribute, or report a declared reason",
    note = "a bare standard name in `reasons(...)` (`QuotaExhausted`) is the standard reason, whatever is imported: \
            list a service's own type of that name by its path (`crate::reasons::QuotaExhausted`)"
)]
pub trait Declares<D>: ReasonSet {}

/// The set declares the warning whose details are `W`.
#[diagnostic::on_unimplemented(
    message = "this endpoint does not declare the warning `{W}`",
    label = "`{W}` is not among the warnings this endpoint declares",
    note = "add it to `warnings(...)` in the handler's `#[completeness]` attribute, or push a declared warning",
    note = "a bare standard name in `warnings(...)` (`StaleIndex`) is the standard warning, whatever is imported: \
            list a service's own type of that name by its path (`crate::warnings::StaleIndex`)"
)]
pub trait DeclaresWarning<W>: ReasonSet {}

/// The set declares no reason (`reasons()`): its endpoint is always complete, so a response
/// without a completeness block, a single resource, may serve it. A set that declares a reason
/// does not implement it: that reason could never be reported.
#[diagnostic::on_unimplemented(
    message = "this response reports no completeness, but the endpoint declares reasons it could never report",
    label = "a single resource: no completeness block",
    note = "a derived struct without an `#[envelope(completeness)]` field is a single resource; a list behind a type \
            alias or a newtype is not seen as one: write its field as `Vec<T>`, or give the struct a completeness field",
    note = "for an endpoint that is always complete, declare `reasons()`"
)]
pub trait DeclaresNoReason: ReasonSet {}

/// A reason type whose completeness blocks accept the warning `W`: [`StandardReason`] accepts
/// every warning (it is what clients read), a [`DeclaredReason`] only the declared ones.
#[diagnostic::on_unimplemented(
    message = "a completeness block over `{Self}` does not accept every warning",
    label = "the warnings a block accepts depend on its reason type `{Self}`",
    note = "in a handler, add the warning to `warnings(...)` of its `#[completeness]` attribute",
    note = "in a function generic over the reason type `R`, require it: `R: completeness::AcceptsWarning<TheWarning>`"
)]
pub trait AcceptsWarning<W> {}

impl<W> AcceptsWarning<W> for StandardReason {}

impl<S: DeclaresWarning<W>, W: WarningDetails> AcceptsWarning<W> for DeclaredReason<S> {}

/// A reason of one endpoint: one of the codes its set `S` declares.
///
/// Match on [`DeclaredReason::as_standard`] to branch on the details.
pub struct DeclaredReason<S> {
    reason: StandardReason,
    declared: PhantomData<fn() -> S>,
}

impl<S> DeclaredReason<S> {
    /// The reason with its typed details.
    pub fn as_standard(&self) -> &StandardReason {
        &self.reason
    }

    /// The reason with its typed details, by value.
    pub fn into_standard(self) -> StandardReason {
        self.reason
    }
}

impl<S: ReasonSet> DeclaredReason<S> {
    /// Every reason code the endpoint declares, in declaration order, for contract tests.
    pub const ALL: &'static [ReasonCode] = S::DECLARED.reasons;
    /// Every warning code the endpoint declares, in declaration order.
    pub const WARNINGS: &'static [WarningCode] = S::DECLARED.warnings;

    /// The schema name of the declared set, e.g. `"DeclaredReason_MorePagesAvailable_VisibilityRestricted"`:
    /// endpoints that declare the same reasons share one schema.
    pub fn schema_name() -> String {
        let mut name = String::from("DeclaredReason");
        for code in S::DECLARED.reasons {
            push_camel(&mut name, code.as_str());
        }
        name
    }

    /// The schema name of a response's block over the declared set: [`schema_name`](Self::schema_name)
    /// and the declared warnings, e.g. `"DeclaredReason_MorePagesAvailable_Warnings_PageSizeReduced"`.
    /// Two endpoints that declare the same reasons and other warnings send other blocks, so
    /// their responses are two OpenAPI components.
    pub fn block_schema_name() -> String {
        let mut name = Self::schema_name();
        if !S::DECLARED.warnings.is_empty() {
            name.push_str("_Warnings");
            for code in S::DECLARED.warnings {
                push_camel(&mut name, code.as_str());
            }
        }
        name
    }

    /// The declared kind of `code`, when it is declared.
    fn declared_kind(code: &ReasonCode) -> Option<ReasonKind> {
        S::DECLARED.kind_of(code.as_str())
    }
}

/// `_` and `code` in CamelCase (`MORE_PAGES_AVAILABLE` → `_MorePagesAvailable`).
fn push_camel(name: &mut String, code: &str) {
    name.push('_');
    for word in code.split('_') {
        let mut letters = word.chars();
        name.extend(letters.next());
        name.extend(letters.flat_map(char::to_lowercase));
    }
}

impl<S> fmt::Debug for DeclaredReason<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.reason, f)
    }
}

impl<S> Clone for DeclaredReason<S> {
    fn clone(&self) -> Self {
        DeclaredReason { reason: self.reason.clone(), declared: PhantomData }
    }
}

impl<S> PartialEq for DeclaredReason<S> {
    fn eq(&self, other: &Self) -> bool {
        self.reason == other.reason
    }
}

impl<S> Serialize for DeclaredReason<S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        self.reason.serialize(serializer)
    }
}

impl<'de, S: ReasonSet> Deserialize<'de> for DeclaredReason<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        Self::from_wire(object).map_err(serde::de::Error::custom)
    }
}

impl<S: ReasonSet> Reason for DeclaredReason<S> {
    fn code(&self) -> ReasonCode {
        self.reason.code()
    }
    fn kind(&self) -> ReasonKind {
        self.reason.kind()
    }
    fn recovery(&self) -> Option<Continuation> {
        self.reason.recovery()
    }
    fn cursor_contract(&self) -> Option<&crate::contract::scope::CursorContract> {
        self.reason.cursor_contract()
    }
    fn message(&self) -> String {
        self.reason.message()
    }
    fn from_wire(object: Map<String, Value>) -> Result<Self, String> {
        let reason = StandardReason::from_wire(object)?;
        let code = reason.code();
        match Self::declared_kind(&code) {
            None => Err(format!("reason code {code} is not one this endpoint declares")),
            Some(declared) if declared != reason.kind() => Err(format!(
                "reason {code} is declared of kind `{}`, but the response says `{}`",
                declared.as_str(),
                reason.kind().as_str()
            )),
            Some(_) => Ok(DeclaredReason { reason, declared: PhantomData }),
        }
    }
    fn restore_recovery(&mut self, recovery: &Continuation) -> bool {
        self.reason.restore_recovery(recovery)
    }
    fn adopt_recovery(&mut self, recovery: &Continuation) -> bool {
        self.reason.adopt_recovery(recovery)
    }
    fn declared_set() -> Option<DeclaredSet> {
        Some(S::DECLARED)
    }
}

/// What one endpoint declares, as values: a response over a [`DeclaredReason`] carries it in
/// its extensions, so a layer outside the router (the `faults` layer) knows the route's
/// reasons and warnings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeclaredSet {
    /// The resource the endpoint lists (`resource = "..."`), which its scope carries; `None`
    /// for [`Everything`].
    pub resource: Option<&'static str>,
    /// The declared reason codes, in declaration order.
    pub reasons: &'static [ReasonCode],
    /// The kind of each declared reason, in the same order.
    pub kinds: &'static [ReasonKind],
    /// Whether each declared reason may offer a next cursor
    /// ([`ReasonDetails::MAY_OFFER_A_CURSOR`]), in the same order.
    pub cursors: &'static [bool],
    /// The detail members of each declared reason ([`ReasonDetails::DETAIL_MEMBERS`]), in the
    /// same order.
    pub details: &'static [&'static [&'static str]],
    /// The declared warning codes, in declaration order.
    pub warnings: &'static [WarningCode],
    /// Whether each declared warning is stale ([`crate::WarningDetails::STALE`]), in the same
    /// order.
    pub stale: &'static [bool],
    /// The detail members of each declared warning ([`crate::WarningDetails::DETAIL_MEMBERS`]),
    /// in the same order.
    pub warning_details: &'static [&'static [&'static str]],
}

impl DeclaredSet {
    /// The declared kind of the reason code written `code`, when it is declared.
    pub(crate) fn kind_of(&self, code: &str) -> Option<ReasonKind> {
        let at = self.reasons.iter().position(|declared| declared.as_str() == code)?;
        self.kinds.get(at).copied()
    }
}

impl<S: Declares<D>, D: ReasonDetails> From<D> for DeclaredReason<S> {
    fn from(details: D) -> Self {
        DeclaredReason { reason: details.into_reason(), declared: PhantomData }
    }
}

/// The set of every standard reason and warning: what a handler that reports anything
/// standard may use, and what a contract test compares generated sets with.
#[derive(Debug)]
pub enum Everything {}

macro_rules! everything_reasons {
    ($($name:ident $code:literal $kind:ident $recovery:ident $(($continuation:literal))?,)*) => {
        $(impl Declares<crate::contract::reason::$name> for Everything {})*
        const EVERY_REASON: &[ReasonCode] = &[$(ReasonCode::$name),*];
        const EVERY_KIND: &[ReasonKind] = &[$(ReasonKind::$kind),*];
        const EVERY_CURSOR: &[bool] =
            &[$(<crate::contract::reason::$name as ReasonDetails>::MAY_OFFER_A_CURSOR),*];
        const EVERY_DETAILS: &[&[&str]] = &[$(<crate::contract::reason::$name as ReasonDetails>::DETAIL_MEMBERS),*];
    };
}
completeness_codes::for_each_reason!(everything_reasons);

macro_rules! everything_warnings {
    ($($name:ident $code:literal,)*) => {
        $(impl DeclaresWarning<crate::contract::warning::$name> for Everything {})*
        const EVERY_WARNING: &[WarningCode] = &[$(WarningCode::$name),*];
        const EVERY_STALE: &[bool] = &[$(<crate::contract::warning::$name as WarningDetails>::STALE),*];
        const EVERY_WARNING_DETAILS: &[&[&str]] =
            &[$(<crate::contract::warning::$name as WarningDetails>::DETAIL_MEMBERS),*];
    };
}
completeness_codes::for_each_warning!(everything_warnings);

impl ReasonSet for Everything {
    const DECLARED: DeclaredSet = DeclaredSet {
        resource: None,
        reasons: EVERY_REASON,
        kinds: EVERY_KIND,
        cursors: EVERY_CURSOR,
        details: EVERY_DETAILS,
        warnings: EVERY_WARNING,
        stale: EVERY_STALE,
        warning_details: EVERY_WARNING_DETAILS,
    };
}

/// The schemas of the endpoint's warning objects: the warnings array of its block holds these.
#[cfg(any(feature = "openapi", feature = "json-schema"))]
impl<S: ReasonSet> DeclaredReason<S> {
    /// The OpenAPI schema of a warning this endpoint may send: one branch per declared warning
    /// code, with its detail members (contract §3.5).
    #[cfg(feature = "openapi")]
    pub fn warning_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::contract::schema::warnings_openapi(S::DECLARED.warnings, S::DECLARED.stale, S::DECLARED.warning_details)
    }

    /// The JSON Schema of a warning this endpoint may send, as [`DeclaredReason::warning_schema`]
    /// for OpenAPI; `generator` holds the definitions it refers to.
    #[cfg(feature = "json-schema")]
    pub fn warning_json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::contract::schema::warnings_json(
            S::DECLARED.warnings,
            S::DECLARED.stale,
            S::DECLARED.warning_details,
            generator,
        )
    }
}

#[cfg(feature = "openapi")]
impl<S: ReasonSet> utoipa::PartialSchema for DeclaredReason<S> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::contract::schema::reasons_openapi(S::DECLARED.reasons, S::DECLARED.kinds, S::DECLARED.details)
    }
}

#[cfg(feature = "openapi")]
impl<S: ReasonSet> utoipa::ToSchema for DeclaredReason<S> {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(Self::schema_name())
    }
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        crate::contract::schema::reason_components(schemas);
    }
}

#[cfg(feature = "json-schema")]
impl<S: ReasonSet> schemars::JsonSchema for DeclaredReason<S> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(Self::schema_name())
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::contract::schema::reasons_json(S::DECLARED.reasons, S::DECLARED.kinds, S::DECLARED.details, generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::reason::{MorePagesAvailable, ResultLimitReached, VisibilityRestricted};

    enum Paginated {}
    impl ReasonSet for Paginated {
        const DECLARED: DeclaredSet = DeclaredSet {
            resource: Some("service_accounts"),
            reasons: &[ReasonCode::MorePagesAvailable, ReasonCode::VisibilityRestricted],
            kinds: &[ReasonKind::Truncation, ReasonKind::Visibility],
            cursors: &[true, false],
            details: &[&[], &[]],
            warnings: &[],
            stale: &[],
            warning_details: &[],
        };
    }
    impl Declares<MorePagesAvailable> for Paginated {}
    impl Declares<VisibilityRestricted> for Paginated {}

    #[test]
    fn everything_spells_the_standard_table() {
        assert_eq!(DeclaredReason::<Everything>::ALL, ReasonCode::KNOWN);
        assert_eq!(DeclaredReason::<Everything>::WARNINGS, WarningCode::KNOWN);
        for (code, kind) in Everything::DECLARED.reasons.iter().zip(Everything::DECLARED.kinds) {
            assert_eq!(code.standard_kind(), *kind, "{code}");
        }
    }

    #[test]
    fn only_declared_codes_are_read_from_the_wire() {
        type ListReason = DeclaredReason<Paginated>;
        let wire = |reason: StandardReason| serde_json::to_value(reason).unwrap();
        let declared = wire(VisibilityRestricted::new().into());
        let undeclared = wire(ResultLimitReached::new(100, "filter by tenant").into());
        assert_eq!(serde_json::from_value::<ListReason>(declared).unwrap().code(), ReasonCode::VisibilityRestricted);
        let error = serde_json::from_value::<ListReason>(undeclared).unwrap_err().to_string();
        assert!(error.contains("not one this endpoint declares"), "{error}");
    }

    #[test]
    fn the_schema_name_spells_the_set() {
        assert_eq!(
            DeclaredReason::<Paginated>::schema_name(),
            "DeclaredReason_MorePagesAvailable_VisibilityRestricted"
        );
    }
}
