//! The reason type `#[completeness]` generates for an endpoint: a standard reason restricted
//! to the codes the endpoint declares (DESIGN §2.2, §4).
//!
//! `#[completeness(reasons(MorePagesAvailable, VisibilityRestricted))] async fn list_accounts(..)`
//! generates
//!
//! ```text
//! type ListAccountsReason = DeclaredReason<
//!     Reasons<MorePagesAvailable, Undeclared, Undeclared, Undeclared, VisibilityRestricted, Undeclared, Undeclared, Undeclared>,
//!     Warnings<0>,
//! >;
//! ```
//!
//! The declared set is spelled in the type: one slot per standard reason, in code order,
//! holding the reason's detail struct when it is declared and [`Undeclared`] when not. `From`
//! exists only for the details of a filled slot, so reporting an undeclared reason does not
//! compile, and reading one from the wire is an error. All behaviour lives here, once: an
//! endpoint costs the compiler one type alias, and endpoints that declare the same reasons
//! share one type.

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::continuation::Continuation;
use crate::contract::reason::{
    ClientLimitReached, MorePagesAvailable, QuotaExhausted, Reason, ReasonCode, ResultLimitReached, SnapshotExpired,
    SourceUnavailable, StandardReason, TimeBudgetExceeded, VisibilityRestricted,
};
use crate::contract::warning::WarningCode;

/// A set of declared reason codes.
pub trait ReasonSet: 'static {
    /// The declared codes, in code order.
    const ALL: &'static [ReasonCode];
}

/// A set of declared warning codes.
pub trait WarningSet: 'static {
    /// The declared codes, in code order.
    const WARNINGS: &'static [WarningCode];
}

/// The set declares the reason whose details are `D`.
#[diagnostic::on_unimplemented(
    message = "this endpoint does not declare the reason `{D}`",
    label = "`{D}` is not among the reasons this endpoint declares",
    note = "add it to `reasons(...)` in the handler's `#[completeness]` attribute, or report a declared reason"
)]
pub trait Declares<D>: ReasonSet {}

/// A slot of [`Reasons`] whose reason is not declared.
#[derive(Debug)]
pub enum Undeclared {}

/// What fills a slot of [`Reasons`]: [`Undeclared`], or the details of the slot's reason.
pub trait ReasonSlot: 'static {
    /// The slot's bit in the set's mask (0 for [`Undeclared`]).
    const BIT: u8;
}

impl ReasonSlot for Undeclared {
    const BIT: u8 = 0;
}

/// The reasons an endpoint declares: one slot per standard reason, in code order
/// (`MORE_PAGES_AVAILABLE`, `RESULT_LIMIT_REACHED`, `TIME_BUDGET_EXCEEDED`,
/// `SOURCE_UNAVAILABLE`, `VISIBILITY_RESTRICTED`, `QUOTA_EXHAUSTED`, `CLIENT_LIMIT_REACHED`,
/// `SNAPSHOT_EXPIRED`), each the reason's detail struct or [`Undeclared`]. Only a type.
pub struct Reasons<A, B, C, D, E, F, G, H> {
    #[allow(clippy::type_complexity)] // one slot per standard reason, held without owning any
    slots: PhantomData<fn() -> (A, B, C, D, E, F, G, H)>,
}

impl<A, B, C, D, E, F, G, H> Reasons<A, B, C, D, E, F, G, H>
where
    A: ReasonSlot,
    B: ReasonSlot,
    C: ReasonSlot,
    D: ReasonSlot,
    E: ReasonSlot,
    F: ReasonSlot,
    G: ReasonSlot,
    H: ReasonSlot,
{
    const MASK: u8 = A::BIT | B::BIT | C::BIT | D::BIT | E::BIT | F::BIT | G::BIT | H::BIT;
    /// The declared codes first; the rest repeats the first code and is cut off.
    const PACKED: &'static [ReasonCode; 8] = &[
        reason_code(nth_bit(Self::MASK, 0)),
        reason_code(nth_bit(Self::MASK, 1)),
        reason_code(nth_bit(Self::MASK, 2)),
        reason_code(nth_bit(Self::MASK, 3)),
        reason_code(nth_bit(Self::MASK, 4)),
        reason_code(nth_bit(Self::MASK, 5)),
        reason_code(nth_bit(Self::MASK, 6)),
        reason_code(nth_bit(Self::MASK, 7)),
    ];
}

impl<A, B, C, D, E, F, G, H> ReasonSet for Reasons<A, B, C, D, E, F, G, H>
where
    A: ReasonSlot,
    B: ReasonSlot,
    C: ReasonSlot,
    D: ReasonSlot,
    E: ReasonSlot,
    F: ReasonSlot,
    G: ReasonSlot,
    H: ReasonSlot,
{
    const ALL: &'static [ReasonCode] = Self::PACKED.split_at(Self::MASK.count_ones() as usize).0;
}

/// The warnings an endpoint declares, as a mask over the warning codes in code order
/// (bit 0 `STALE_INDEX`, 1 `PARTIAL_FIELD_SET`, 2 `DEFAULT_SCOPE_APPLIED`,
/// 3 `PAGE_SIZE_REDUCED`, 4 `ORDERING_DEFAULTED`, 5 `DEPRECATED_FIELD`). Only a type.
pub struct Warnings<const MASK: u8>;

impl<const MASK: u8> Warnings<MASK> {
    const KNOWN: u8 = MASK & 0b11_1111;
    /// The declared codes first; the rest repeats the first code and is cut off.
    const PACKED: &'static [WarningCode; 6] = &[
        warning_code(nth_bit(Self::KNOWN, 0)),
        warning_code(nth_bit(Self::KNOWN, 1)),
        warning_code(nth_bit(Self::KNOWN, 2)),
        warning_code(nth_bit(Self::KNOWN, 3)),
        warning_code(nth_bit(Self::KNOWN, 4)),
        warning_code(nth_bit(Self::KNOWN, 5)),
    ];
}

impl<const MASK: u8> WarningSet for Warnings<MASK> {
    const WARNINGS: &'static [WarningCode] = Self::PACKED.split_at(Self::KNOWN.count_ones() as usize).0;
}

/// The reason code of bit `index`: `ReasonCode::KNOWN[index]`, written out because a
/// `const fn` cannot take a value that has a destructor out of that array.
const fn reason_code(index: u32) -> ReasonCode {
    match index {
        0 => ReasonCode::MorePagesAvailable,
        1 => ReasonCode::ResultLimitReached,
        2 => ReasonCode::TimeBudgetExceeded,
        3 => ReasonCode::SourceUnavailable,
        4 => ReasonCode::VisibilityRestricted,
        5 => ReasonCode::QuotaExhausted,
        6 => ReasonCode::ClientLimitReached,
        _ => ReasonCode::SnapshotExpired,
    }
}

/// The warning code of bit `index`: `WarningCode::KNOWN[index]`, written out for the same reason.
const fn warning_code(index: u32) -> WarningCode {
    match index {
        0 => WarningCode::StaleIndex,
        1 => WarningCode::PartialFieldSet,
        2 => WarningCode::DefaultScopeApplied,
        3 => WarningCode::PageSizeReduced,
        4 => WarningCode::OrderingDefaulted,
        _ => WarningCode::DeprecatedField,
    }
}

/// The index of the `n`-th set bit of `mask` (0 when there are not that many).
const fn nth_bit(mask: u8, n: u32) -> u32 {
    let (mut index, mut seen) = (0, 0);
    while index < 8 {
        if mask & (1 << index) != 0 {
            if seen == n {
                return index;
            }
            seen += 1;
        }
        index += 1;
    }
    0
}

/// A reason of one endpoint: one of the codes its set `R` declares; `W` is the set of
/// warnings it declares.
///
/// Match on [`DeclaredReason::as_standard`] to branch on the details.
pub struct DeclaredReason<R, W = Warnings<0>> {
    reason: StandardReason,
    declared: PhantomData<fn() -> (R, W)>,
}

impl<R, W> DeclaredReason<R, W> {
    /// The reason with its typed details.
    pub fn as_standard(&self) -> &StandardReason {
        &self.reason
    }

    /// The reason with its typed details, by value.
    pub fn into_standard(self) -> StandardReason {
        self.reason
    }
}

impl<R: ReasonSet, W: WarningSet> DeclaredReason<R, W> {
    /// Every reason code the endpoint declares, in code order, for contract tests.
    pub const ALL: &'static [ReasonCode] = R::ALL;
    /// Every warning code the endpoint declares, in code order.
    pub const WARNINGS: &'static [WarningCode] = W::WARNINGS;

    /// The schema name of the declared set, e.g. `"DeclaredReason_MorePagesAvailable_VisibilityRestricted"`:
    /// endpoints that declare the same reasons share one schema.
    pub fn schema_name() -> String {
        let mut name = String::from("DeclaredReason");
        for code in R::ALL {
            name.push('_');
            for word in code.as_str().split('_') {
                let mut letters = word.chars();
                name.extend(letters.next());
                name.extend(letters.flat_map(char::to_lowercase));
            }
        }
        name
    }
}

impl<R, W> fmt::Debug for DeclaredReason<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.reason, f)
    }
}

impl<R, W> Clone for DeclaredReason<R, W> {
    fn clone(&self) -> Self {
        DeclaredReason { reason: self.reason.clone(), declared: PhantomData }
    }
}

impl<R, W> PartialEq for DeclaredReason<R, W> {
    fn eq(&self, other: &Self) -> bool {
        self.reason == other.reason
    }
}

impl<R, W> Serialize for DeclaredReason<R, W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.reason.serialize(serializer)
    }
}

impl<'de, R: ReasonSet, W: WarningSet> Deserialize<'de> for DeclaredReason<R, W> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        Self::from_wire(object).map_err(serde::de::Error::custom)
    }
}

impl<R: ReasonSet, W: WarningSet> Reason for DeclaredReason<R, W> {
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
        if R::ALL.contains(&code) {
            Ok(DeclaredReason { reason, declared: PhantomData })
        } else {
            Err(format!("reason code {code} is not one this endpoint declares"))
        }
    }
    fn restore_recovery(&mut self, recovery: &Continuation) -> bool {
        self.reason.restore_recovery(recovery)
    }
}

/// For each reason, in code order: its bit, the slot it fills, and `From` for its details.
macro_rules! declared_details {
    ($($bit:literal $details:ident [$($before:ident)*] [$($after:ident)*]),* $(,)?) => {$(
        impl ReasonSlot for $details {
            const BIT: u8 = 1 << $bit;
        }

        // Not listed in errors: the note of `Declares` says what to do.
        #[diagnostic::do_not_recommend]
        impl<$($before: ReasonSlot,)* $($after: ReasonSlot),*> Declares<$details>
            for Reasons<$($before,)* $details, $($after),*>
        {
        }

        impl<R: Declares<$details>, W> From<$details> for DeclaredReason<R, W> {
            fn from(details: $details) -> Self {
                DeclaredReason { reason: StandardReason::$details(details), declared: PhantomData }
            }
        }
    )*};
}

declared_details!(
    0 MorePagesAvailable [] [B C D E F G H],
    1 ResultLimitReached [A] [C D E F G H],
    2 TimeBudgetExceeded [A B] [D E F G H],
    3 SourceUnavailable [A B C] [E F G H],
    4 VisibilityRestricted [A B C D] [F G H],
    5 QuotaExhausted [A B C D E] [G H],
    6 ClientLimitReached [A B C D E F] [H],
    7 SnapshotExpired [A B C D E F G] [],
);

#[cfg(feature = "openapi")]
impl<R: ReasonSet, W: WarningSet> utoipa::PartialSchema for DeclaredReason<R, W> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::contract::schema::reason_schema_openapi(R::ALL)
    }
}

#[cfg(feature = "openapi")]
impl<R: ReasonSet, W: WarningSet> utoipa::ToSchema for DeclaredReason<R, W> {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(Self::schema_name())
    }
}

#[cfg(feature = "json-schema")]
impl<R: ReasonSet, W: WarningSet> schemars::JsonSchema for DeclaredReason<R, W> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(Self::schema_name())
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        crate::contract::schema::reason_schema_json(R::ALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Paginated = Reasons<
        MorePagesAvailable,
        Undeclared,
        Undeclared,
        Undeclared,
        VisibilityRestricted,
        Undeclared,
        Undeclared,
        Undeclared,
    >;
    type Everything = Reasons<
        MorePagesAvailable,
        ResultLimitReached,
        TimeBudgetExceeded,
        SourceUnavailable,
        VisibilityRestricted,
        QuotaExhausted,
        ClientLimitReached,
        SnapshotExpired,
    >;
    type Nothing =
        Reasons<Undeclared, Undeclared, Undeclared, Undeclared, Undeclared, Undeclared, Undeclared, Undeclared>;

    #[test]
    fn the_slots_spell_the_declared_codes_in_code_order() {
        assert_eq!(Paginated::ALL, &[ReasonCode::MorePagesAvailable, ReasonCode::VisibilityRestricted]);
        assert_eq!(Everything::ALL.len(), 8);
        assert_eq!(Everything::ALL[7], ReasonCode::SnapshotExpired);
        assert!(Nothing::ALL.is_empty());
    }

    #[test]
    fn the_bits_follow_the_order_of_the_known_codes() {
        assert_eq!(Everything::ALL, &ReasonCode::KNOWN);
        assert_eq!(Warnings::<0b11_1111>::WARNINGS, &WarningCode::KNOWN);
    }

    #[test]
    fn the_warning_mask_spells_the_declared_codes_in_code_order() {
        assert_eq!(Warnings::<0b1001>::WARNINGS, &[WarningCode::StaleIndex, WarningCode::PageSizeReduced]);
        assert!(Warnings::<0>::WARNINGS.is_empty());
        assert_eq!(Warnings::<0b11_1111>::WARNINGS.len(), 6);
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
        assert_eq!(DeclaredReason::<Nothing>::schema_name(), "DeclaredReason");
    }
}
