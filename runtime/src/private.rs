//! Support for generated code, and only that: every item here is named by the code the macros
//! write. Not public API: it may change in any release.
//!
//! The macros of `completeness-macros` expand to paths under `::completeness::__private`
//! only. Where the generated code differs per feature (axum), they call a declarative
//! macro below whose definition is chosen by this crate's features, so the user's crate
//! needs no feature of its own.

pub use serde;
pub use serde_json;

#[cfg(feature = "json-schema")]
pub use crate::contract::schema::derived_json;
#[cfg(any(feature = "json-schema", feature = "openapi"))]
pub use crate::contract::schema::{DataMember, DerivedBlock};
#[cfg(feature = "openapi")]
pub use crate::contract::schema::{derived_openapi, derived_openapi_name};
#[cfg(feature = "json-schema")]
pub use schemars;
#[cfg(feature = "openapi")]
pub use utoipa;

#[cfg(feature = "axum")]
pub use axum;

pub use crate::__envelope_impls as envelope_impls;
pub use crate::__envelope_report as envelope_report;
pub use crate::__reason_set as reason_set;
use crate::contract::completeness::{Completeness, Shape};
pub use crate::contract::continuation::Continuation;
pub use crate::contract::declared::{
    DeclaredReason, DeclaredSet, Declares, DeclaresNoReason, DeclaresWarning, ReasonSet,
};
use crate::contract::field::Field;
pub use crate::contract::reason::{CustomReason, ReasonDetails, ReasonKind, StandardReason};
pub use crate::contract::warning::WarningDetails;
pub use crate::server::report::SingleReport;

#[path = "private/error_side.rs"]
pub mod error_side;
#[path = "private/hidden_list.rs"]
pub mod hidden_list;
#[path = "private/list_field.rs"]
pub mod list_field;

/// The compile-time checks of a `#[completeness]` declaration that no two listed types share a
/// code (two types may declare one code):
/// - `standard_reason_code` and `standard_warning_code`: true when the code at a position of
///   `codes`, a service's own type's, is the code of a standard one, which only an implementation written by hand can give it
///   (`const CODE = ReasonCode::MorePagesAvailable`). Checked on each own type listed, alone
///   or beside the standard name: that code promises what the standard type holds by
///   construction (`MORE_PAGES_AVAILABLE` always comes with its cursor), which a type of the
///   service's own does not;
/// - `same_reason_code` and `same_warning_code`: the positions of the first two equal codes
///   that are not standard ones, for a declaration with several own types, whose message
///   names the two (a standard code shared is the check above's to report).
macro_rules! same_code {
    ($($standard:ident, $same:ident($code:ty), $is_standard:ident;)*) => {$(
        #[doc = concat!("True when `codes[at]` is a standard `", stringify!($code), "`.")]
        pub const fn $standard(codes: &[$code], at: usize) -> bool {
            completeness_codes::$is_standard(codes[at].const_str())
        }

        #[doc = concat!("The positions of the first two equal `", stringify!($code), "`s of `codes` that are not standard.")]
        pub const fn $same(codes: &[$code]) -> Option<(usize, usize)> {
            let mut i = 0;
            while i < codes.len() {
                let mut j = i + 1;
                while j < codes.len() {
                    let code = codes[i].const_str();
                    if completeness_codes::same_text(code, codes[j].const_str())
                        && !completeness_codes::$is_standard(code)
                    {
                        return Some((i, j));
                    }
                    j += 1;
                }
                i += 1;
            }
            None
        }
    )*};
}

same_code! {
    standard_reason_code, same_reason_code(ReasonCode), is_standard_reason_code;
    standard_warning_code, same_warning_code(WarningCode), is_standard_warning_code;
}

/// The positions of the first reason and warning of one endpoint that share a code: a reason
/// whose code is read as a warning's would leave the answer complete (contract §3.5), so
/// `#[completeness]` refuses a declaration that names a service's own reason and warning with
/// one code. (Standard codes are distinct, and each derive refuses the other table's.)
pub const fn reason_and_warning_code(reasons: &[ReasonCode], warnings: &[WarningCode]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < reasons.len() {
        let mut j = 0;
        while j < warnings.len() {
            if completeness_codes::same_text(reasons[i].const_str(), warnings[j].const_str()) {
                return Some((i, j));
            }
            j += 1;
        }
        i += 1;
    }
    None
}

pub use crate::contract::field::OmittedFields;
pub use crate::contract::reason::ReasonCode;
pub use crate::contract::warning::WarningCode;
pub use crate::server::report::{CarriesReason, CompletenessReport, ReportsCompleteness};

/// The check `#[completeness]` puts at the start of a handler's body, spanned on its return
/// type: the response reports completeness, over the handler's declared reason type `R`.
/// (A `Result`'s error side is checked by [`error_side`].)
#[inline(always)]
pub fn assert_declared<T: ReportsCompleteness + CarriesReason<R>, R>() {}

/// The recovery of a service's own reason `code` declared without `next_cursor`, as offered:
/// a next page it returns anyway is left out (the endpoint never pages, and its schema says the
/// reason offers none), and a `WARN` event says so, once per code, since the service meant to
/// page: the fix is `next_cursor` in `#[reason(...)]`.
pub fn without_a_cursor(code: &'static str, recovery: Option<Continuation>) -> Option<Continuation> {
    if !matches!(recovery, Some(Continuation::NextCursor { .. })) {
        return recovery;
    }
    #[cfg(feature = "axum")]
    {
        static WARNED: std::sync::Mutex<std::collections::BTreeSet<&str>> =
            std::sync::Mutex::new(std::collections::BTreeSet::new());
        if WARNED.lock().is_ok_and(|mut warned| warned.insert(code)) {
            tracing::warn!(
                target: "completeness",
                code,
                "the recovery of reason {code} offered a next cursor, which was left out: the reason is declared \
                 without `next_cursor`, so its endpoint never pages; add `next_cursor` to its `#[reason(...)]`"
            );
        }
    }
    #[cfg(not(feature = "axum"))]
    let _ = code;
    None
}

/// A field's type the envelope derive read as `Field<T>` by its name: the framework's `Field`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the framework's `Field`, which the envelope derive knows by its name",
    label = "a type named `Field` that is not `completeness::Field`",
    note = "write `completeness::Field<T>` for a value that may be left out; import a type of your own \
            of that name under another name where it is used: `use ... as OwnField;`"
)]
pub trait FrameworkField: Sized {
    /// The value it holds when filled.
    type Value;
    /// Records the field in `omitted` when it was left out.
    fn note_in(&self, omitted: &mut OmittedFields, name: &str);
    /// The field read back: its wire value, or left out when `omitted` lists it.
    fn restored(omitted: &OmittedFields, name: &str, value: Option<Self::Value>) -> Self;
}

impl<T> FrameworkField for Field<T> {
    type Value = T;
    fn note_in(&self, omitted: &mut OmittedFields, name: &str) {
        omitted.note(name, self);
    }
    fn restored(omitted: &OmittedFields, name: &str, value: Option<T>) -> Self {
        omitted.restore(name, value)
    }
}

/// What the derive writes for each `Field<T>`, spanned on its type: records it in `omitted` when
/// it was left out (contract §2.7).
#[inline]
pub fn note_field<F: FrameworkField>(omitted: &mut OmittedFields, name: &str, field: &F) {
    field.note_in(omitted, name);
}

/// How `#[envelope(deserialize)]` reads a `Field<T>` member's value: `null` as `None`, and a
/// member that is not there refused ("missing field"), where serde would read it as `None`, a
/// genuine null (contract §2.7: a declared field is always written).
pub fn present_field<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize<'de>>::deserialize(deserializer)
}

/// What `#[envelope(deserialize)]` reads for each `Field<T>`, spanned on its type: the field
/// restored from its wire value and `omitted` (contract §2.7).
#[inline]
pub fn restore_field<F: FrameworkField>(omitted: &OmittedFields, name: &str, value: Option<F::Value>) -> F {
    F::restored(omitted, name, value)
}

/// A type a service's own reason or warning can hold as a detail member: it is written on the
/// wire, and read back by clients that know the code.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a detail member: clients read details back, so it must be `Deserialize` (owned)",
    label = "a detail member's type",
    note = "derive both halves on it: `#[derive(serde::Serialize, serde::Deserialize)]`"
)]
pub trait DetailMember: serde::de::DeserializeOwned {}

impl<T: serde::de::DeserializeOwned> DetailMember for T {}

/// Reads detail member `name` of a service's own reason or warning with code `code`
/// (an absent member reads as `null`, so `Option` fields may be left out).
pub fn read_member<T: DetailMember>(
    object: &serde_json::Map<String, serde_json::Value>,
    code: &str,
    name: &str,
) -> Result<T, String> {
    let value = object.get(name).cloned().unwrap_or(serde_json::Value::Null);
    serde_json::from_value(value).map_err(|e| format!("{code}: bad `{name}`: {e}"))
}

/// A derived single resource's `Vec<Warning>` field: the derive reads it as the resource's
/// warnings (contract §3.5), not as a list of items, only when it is the runtime's `Warning`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of `completeness::Warning`, so it is a list of items",
    label = "read as the resource's warnings by its name, but another `Warning` type",
    note = "a single resource's warnings are `Vec<completeness::Warning>` (contract §3.5); a list of a type of \
            your own is data, and a list needs completeness metadata: give the struct an \
            `#[envelope(completeness)]` field"
)]
pub trait WarningList {}

impl WarningList for Vec<crate::contract::warning::Warning> {}

/// Compiles only for a [`WarningList`]; the derive calls it with a `Vec<Warning>` field's type.
pub fn assert_warning_list<T: WarningList>() {}

/// The codes of a single resource's `Vec<Warning>` field, for its `single_report`: the inherent
/// `codes` for the runtime's `Warning`, else [`NoWarningCodes::codes`] (none), so that a list of
/// another `Warning` type is reported once, by [`assert_warning_list`], not again here.
pub struct WarningCodes<'a, T>(pub &'a T);

impl WarningCodes<'_, Vec<crate::contract::warning::Warning>> {
    /// The codes, in order.
    pub fn codes(&self) -> Vec<crate::contract::warning::WarningCode> {
        self.0.iter().map(|warning| warning.code().clone()).collect()
    }
}

/// [`WarningCodes`] of a list of another type: none.
pub trait NoWarningCodes {
    /// None.
    fn codes(&self) -> Vec<crate::contract::warning::WarningCode> {
        Vec::new()
    }
}

impl<T> NoWarningCodes for WarningCodes<'_, T> {}

/// The `#[envelope(completeness)]` field of a derived envelope.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completeness block",
    label = "a `#[envelope(completeness)]` field must have type `Completeness<R>`",
    note = "declare it as `completeness: completeness::Completeness<YourReason>`"
)]
pub trait CompletenessField {
    /// The block's reason type.
    type Reason;
    /// Writes `status`, `complete`, `truncated`.
    fn head<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// Writes the collection members after the data, which held `returned` items when the
    /// derive can count them.
    fn tail<M: serde::ser::SerializeMap>(&self, map: &mut M, returned: Option<usize>) -> Result<(), M::Error>;
    /// The type-erased report.
    fn report(&self) -> &dyn CompletenessReport;
    /// The type-erased report, mutably.
    fn report_mut(&mut self) -> &mut dyn CompletenessReport;
}

impl<R: crate::contract::reason::Reason> CompletenessField for Completeness<R> {
    type Reason = R;
    fn head<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        self.serialize_head(map)
    }
    fn tail<M: serde::ser::SerializeMap>(&self, map: &mut M, returned: Option<usize>) -> Result<(), M::Error> {
        match returned {
            Some(returned) => self.serialize_collection_tail(map, returned),
            None => self.serialize_tail(map, Shape::Collection),
        }
    }
    fn report(&self) -> &dyn CompletenessReport {
        self
    }
    fn report_mut(&mut self) -> &mut dyn CompletenessReport {
        self
    }
}

/// The reason type of one `#[completeness]` handler and the set behind it, written once here.
///
/// Input, as `#[completeness]` writes it (the names as absolute paths, in declaration order):
/// `#[doc = "..."] vis type Name = Set; resource "..."; reasons [A, B] warnings [W]`.
/// Out come the alias `Name` of `DeclaredReason<Set>`, the uninhabited `Set` with the declared
/// resource, codes, kinds and staleness as one constant, and one `Declares` / `DeclaresWarning` impl per name,
/// which is what lets the handler report that name and no other.
#[doc(hidden)]
#[macro_export]
macro_rules! __reason_set {
    (
        $(#[$doc:meta])* $vis:vis type $name:ident = $set:ident;
        resource $resource:literal;
        reasons [$($reason:ty),*] warnings [$($warning:ty),*]
    ) => {
        $(#[$doc])*
        $vis type $name = $crate::__private::DeclaredReason<$set>;

        // Public whatever the handler's visibility: the reason type may appear in a public
        // response struct, and the set is part of it. Uninhabited, so no variant can be added:
        // clippy's `exhaustive_enums` does not apply.
        #[doc(hidden)]
        #[allow(clippy::exhaustive_enums)]
        pub enum $set {}

        impl $crate::__private::ReasonSet for $set {
            const DECLARED: $crate::__private::DeclaredSet = $crate::__private::DeclaredSet {
                resource: ::core::option::Option::Some($resource),
                reasons: &[$(<$reason as $crate::__private::ReasonDetails>::CODE),*],
                kinds: &[$(<$reason as $crate::__private::ReasonDetails>::KIND),*],
                cursors: &[$(<$reason as $crate::__private::ReasonDetails>::MAY_OFFER_A_CURSOR),*],
                details: &[$(<$reason as $crate::__private::ReasonDetails>::DETAIL_MEMBERS),*],
                warnings: &[$(<$warning as $crate::__private::WarningDetails>::CODE),*],
                stale: &[$(<$warning as $crate::__private::WarningDetails>::STALE),*],
                warning_details: &[$(<$warning as $crate::__private::WarningDetails>::DETAIL_MEMBERS),*],
            };
        }
        $(impl $crate::__private::Declares<$reason> for $set {})*
        $(impl $crate::__private::DeclaresWarning<$warning> for $set {})*
    };
}

/// `Serialize`, `ReportsCompleteness` and (with `axum`) `IntoResponse` of a derived envelope:
/// the impls' scaffolding, written once here, around what differs per struct.
///
/// Input, as `#[derive(ResultEnvelope)]` writes it:
/// `[impl generics] [type] [where clause] self map serialize [statements] report [expr] [expr]
/// items [expr]`. The derive writes the statements that fill the map and the two report
/// expressions itself, spanned on the fields' types so a type error points at the field; it
/// passes its own `self` and `map` tokens so they resolve to what this macro declares.
/// `report [] []` marks a single resource, which reports no completeness. `items` is the wire
/// name of the member holding the items, as an `Option<&'static str>`. `single` is the body of
/// a single resource's `single_report` (empty: the default, `None`). `schema` is what the JSON
/// Schema of the struct is made of (with `json-schema`), as `__impl_envelope_json_schema` reads
/// it; `openapi` what its OpenAPI schema is made of (with `openapi`), as
/// `__impl_envelope_openapi` reads it. Either is empty when the struct does not ask for it.
#[doc(hidden)]
#[macro_export]
macro_rules! __envelope_impls {
    (
        [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt $map:ident
        serialize [$($entries:tt)*] report [$($report:tt)*] [$($report_mut:tt)*] items [$($items:tt)*]
        single [$($single:tt)*] schema [$($schema:tt)*] openapi [$($openapi:tt)*]
    ) => {
        $crate::__impl_envelope_json_schema!([$($generics)*] [$($ty)*] $($schema)*);
        $crate::__impl_envelope_openapi!([$($generics)*] [$($ty)*] $($openapi)*);
        // The statements the derive writes end in `?` and are spanned on the user's fields:
        // clippy's `question_mark_used` would report them in the user's code.
        #[automatically_derived]
        #[allow(clippy::question_mark_used)]
        impl $($generics)* $crate::__private::serde::Serialize for $($ty)* $($where)* {
            fn serialize<__CompletenessSerializer: $crate::__private::serde::Serializer>(
                &$this,
                serializer: __CompletenessSerializer,
            ) -> ::core::result::Result<__CompletenessSerializer::Ok, __CompletenessSerializer::Error> {
                let mut $map = __CompletenessSerializer::serialize_map(serializer, ::core::option::Option::None)?;
                $($entries)*
                $crate::__private::serde::ser::SerializeMap::end($map)
            }
        }
        $crate::__envelope_impls!(
            @report [$($generics)*] [$($ty)*] [$($where)*] $this [$($report)*] [$($report_mut)*] [$($items)*]
            [$($single)*]
        );
    };
    (
        @report [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt [] [] [$($items:tt)*]
        [$($single:tt)*]
    ) => {
        $crate::__envelope_report!([$($generics)*] [$($ty)*] [$($where)*] $this [$($single)*]);
    };
    (
        @report [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt
        [$($report:tt)+] [$($report_mut:tt)+] [$($items:tt)*] []
    ) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::ReportsCompleteness for $($ty)* $($where)* {
            const ANSWERS_WITH_BLOCK: bool = true;
            fn completeness_report(&$this) -> ::core::option::Option<&dyn $crate::__private::CompletenessReport> {
                ::core::option::Option::Some($($report)+)
            }
            fn completeness_report_mut(
                &mut $this,
            ) -> ::core::option::Option<&mut dyn $crate::__private::CompletenessReport> {
                ::core::option::Option::Some($($report_mut)+)
            }
            fn items_member(&$this) -> ::core::option::Option<&'static str> {
                $($items)*
            }
        }
        $crate::__impl_envelope_into_response!([$($generics)*] [$($ty)*] [$($where)*]);
    };
}

/// `ReportsCompleteness` (reporting no completeness) and `IntoResponse` for a derived single
/// resource.
///
/// Input: `[impl generics] [type] [where clause] self [single]`, where `single` is the body of
/// `single_report` (empty: the trait's default).
#[doc(hidden)]
#[macro_export]
macro_rules! __envelope_report {
    ([$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt [$($single:tt)*]) => {
        #[automatically_derived]
        impl $($generics)* $crate::server::report::ReportsCompleteness for $($ty)* $($where)* {
            fn completeness_report(&$this) -> ::core::option::Option<&dyn $crate::server::report::CompletenessReport> {
                ::core::option::Option::None
            }
            fn completeness_report_mut(&mut $this) -> ::core::option::Option<&mut dyn $crate::server::report::CompletenessReport> {
                ::core::option::Option::None
            }
            $crate::__single_report!($this [$($single)*]);
        }
        $crate::__impl_envelope_into_response!([$($generics)*] [$($ty)*] [$($where)*]);
    };
}

/// A single resource's `single_report`, when the derive wrote a body for it.
#[doc(hidden)]
#[macro_export]
macro_rules! __single_report {
    ($this:tt []) => {};
    ($this:tt [$($single:tt)+]) => {
        fn single_report(&$this) -> ::core::option::Option<$crate::server::report::SingleReport> {
            $($single)+
        }
    };
}

/// Serializes a derived envelope as a JSON 200 response that carries what it says about its
/// completeness to the `observe` and demand layers.
#[cfg(feature = "axum")]
pub fn json_response<T: serde::Serialize + ReportsCompleteness + ?Sized>(value: &T) -> axum::response::Response {
    let mut response = crate::server::response::json_response(value);
    // A value that did not serialize went out as the 500 problem: it reports nothing.
    if !response.status().is_success() {
        return response;
    }
    match crate::server::report::Reported::of_response(value) {
        Some(reported) => reported.attach(&mut response),
        // A single resource: no block, by its type's word; what it says of its fields and
        // warnings, for the observe layer, and the fields it may leave out, for the fault layer.
        None => {
            response.extensions_mut().insert(crate::server::report::WithoutBlock::SingleResource);
            if let Some(single) = value.single_report().filter(|single| !single.is_empty() || !single.fields.is_empty())
            {
                response.extensions_mut().insert(single);
            }
        }
    }
    response
}

/// `IntoResponse` for a derived envelope (with `axum`; nothing without).
///
/// Input: `[impl generics] [type] [where clause]`, each as tokens in brackets.
#[cfg(feature = "axum")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_into_response {
    ([$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*]) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::axum::response::IntoResponse for $($ty)* $($where)* {
            fn into_response(self) -> $crate::__private::axum::response::Response {
                $crate::__private::json_response(&self)
            }
        }
    };
}

/// `JsonSchema` for a derived envelope (with `json-schema`; nothing without).
///
/// Input: `[impl generics] [type] [where clause with the schema bounds] "Name" generic <bool>
/// block [T] omitted <bool> members [("wire", Type, <required>, <a `Field`>) ...]`, where `T` is the
/// block's type, or `()` for a single resource, and `omitted` says whether `omitted_fields` is
/// written; or only
/// `[impl generics] [type]` when the struct asks for no schema.
#[cfg(feature = "json-schema")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_json_schema {
    ([$($generics:tt)*] [$($ty:tt)*]) => {};
    (
        [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $name:literal generic $generic:literal block [$block:ty] omitted $omitted:literal
        members [$(($member:literal, $field:ty, $required:literal, $declared:literal))*]
    ) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::schemars::JsonSchema for $($ty)* $($where)* {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed($name)
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::any::type_name::<Self>())
            }
            fn json_schema(
                generator: &mut $crate::__private::schemars::SchemaGenerator,
            ) -> $crate::__private::schemars::Schema {
                let data = ::std::vec![$($crate::__private::DataMember {
                    name: $member,
                    schema: generator.subschema_for::<$field>(),
                    required: $required,
                    declared: $declared,
                }),*];
                $crate::__private::derived_json::<$block>(generator, data, $omitted)
            }
        }
    };
}

/// `JsonSchema` for a derived envelope (with `json-schema`; without, asking for one is an
/// error that says how to get it).
#[cfg(not(feature = "json-schema"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_json_schema {
    ([$($generics:tt)*] [$($ty:tt)*]) => {};
    ($($tokens:tt)*) => {
        ::core::compile_error!(
            "`#[envelope(json_schema)]` needs the `json-schema` feature: `completeness = { features = [\"json-schema\"] }`"
        );
    };
}

/// `utoipa::ToSchema` for a derived envelope (with `openapi`; nothing without).
///
/// Input as `__impl_envelope_json_schema`'s, the where clause bounding by `ToSchema`: the
/// data members' schemas are their types' own, inline; the components they and the block refer
/// to are listed by `schemas`. Written as utoipa's derive writes a type's (its
/// `__dev::ComposeSchema`, which gives `PartialSchema`), so that a generic struct named in
/// `#[utoipa::path(.., body = Page<R>)]` is taken, as `Envelope` is; the type arguments'
/// schemas utoipa passes are not needed, since each member's type names its own.
#[cfg(feature = "openapi")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_openapi {
    ([$($generics:tt)*] [$($ty:tt)*]) => {};
    (
        [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $name:literal generic $generic:literal block [$block:ty] omitted $omitted:literal
        members [$(($member:literal, $field:ty, $required:literal, $declared:literal))*]
    ) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::utoipa::__dev::ComposeSchema for $($ty)* $($where)* {
            fn compose(
                _: ::std::vec::Vec<$crate::__private::utoipa::openapi::RefOr<$crate::__private::utoipa::openapi::schema::Schema>>,
            ) -> $crate::__private::utoipa::openapi::RefOr<$crate::__private::utoipa::openapi::schema::Schema> {
                let data = ::std::vec![$($crate::__private::DataMember {
                    name: $member,
                    schema: <$field as $crate::__private::utoipa::PartialSchema>::schema(),
                    required: $required,
                    declared: $declared,
                }),*];
                $crate::__private::derived_openapi::<$block>(data, $omitted)
            }
        }
        #[automatically_derived]
        impl $($generics)* $crate::__private::utoipa::ToSchema for $($ty)* $($where)* {
            fn name() -> ::std::borrow::Cow<'static, str> {
                $crate::__private::derived_openapi_name::<$block>($name, $generic)
            }
            fn schemas(
                schemas: &mut ::std::vec::Vec<(
                    ::std::string::String,
                    $crate::__private::utoipa::openapi::RefOr<$crate::__private::utoipa::openapi::schema::Schema>,
                )>,
            ) {
                $(<$field as $crate::__private::utoipa::ToSchema>::schemas(schemas);)*
                <$block as $crate::__private::DerivedBlock>::openapi_components(schemas);
            }
        }
    };
}

/// `utoipa::ToSchema` for a derived envelope (with `openapi`; without, asking for one is an
/// error that says how to get it).
#[cfg(not(feature = "openapi"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_openapi {
    ([$($generics:tt)*] [$($ty:tt)*]) => {};
    ($($tokens:tt)*) => {
        ::core::compile_error!(
            "`#[envelope(openapi)]` needs the `openapi` feature: `completeness = { features = [\"openapi\"] }`"
        );
    };
}

/// `IntoResponse` for a derived envelope (with `axum`; nothing without).
#[cfg(not(feature = "axum"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_into_response {
    ($($tokens:tt)*) => {};
}

#[cfg(all(test, feature = "axum"))]
mod tests {
    use super::{Continuation, without_a_cursor};
    use crate::test_events::Events;

    /// A next page offered by a reason declared without `next_cursor` is left out, and said once
    /// per code; any other recovery passes as it is.
    #[test]
    fn a_cursor_a_reason_may_not_offer_is_left_out_and_said_once() {
        let events = Events::default();
        let next = || Some(Continuation::NextCursor { cursor: "c2".to_owned() });
        let retry = Some(Continuation::RetryAfter { seconds: 5 });
        tracing::subscriber::with_default(events.clone(), || {
            assert_eq!(without_a_cursor("UPSTREAM_PAGED_TEST", next()), None);
            assert_eq!(without_a_cursor("UPSTREAM_PAGED_TEST", next()), None);
            assert_eq!(without_a_cursor("UPSTREAM_PAGED_TEST", retry.clone()), retry);
            assert_eq!(without_a_cursor("UPSTREAM_PAGED_TEST", None), None);
        });
        let warned = events.of("completeness");
        assert_eq!(warned.len(), 1, "once per code: {warned:?}");
        assert_eq!(warned[0].level, tracing::Level::WARN);
        assert!(warned[0].message.contains("UPSTREAM_PAGED_TEST"), "{:?}", warned[0]);
        assert!(warned[0].message.contains("add `next_cursor`"), "{:?}", warned[0]);
    }
}
