//! Support for generated code. Not public API: it may change in any release.
//!
//! The macros of `completeness-macros` expand to paths under `::completeness::__private`
//! only. Where the generated code differs per feature (axum), they call a declarative
//! macro below whose definition is chosen by this crate's features, so the user's crate
//! needs no feature of its own; the schema impls of endpoint reasons are generic
//! (`DeclaredReason<R, W>`) and selected here the same way.

pub use serde;
pub use serde_json;

#[cfg(feature = "axum")]
pub use axum;

#[cfg(feature = "openapi")]
pub use utoipa;

#[cfg(feature = "json-schema")]
pub use schemars;

pub use crate::__declare_reasons as declare_reasons;
pub use crate::__envelope_impls as envelope_impls;
pub use crate::__envelope_report as envelope_report;
pub use crate::__impl_envelope_into_response as impl_envelope_into_response;
pub use crate::contract::completeness::{Completeness, Shape};
pub use crate::contract::declared::{DeclaredReason, Declares, ReasonSet};
pub use crate::server::checked::{CheckedFuture, CheckedResponse};

/// What fills the slots of `Reasons` in generated reason types.
pub mod slot {
    pub use crate::contract::declared::Undeclared;
    pub use crate::contract::reason::{
        ClientLimitReached, MorePagesAvailable, QuotaExhausted, ResultLimitReached, SnapshotExpired, SourceUnavailable,
        TimeBudgetExceeded, VisibilityRestricted,
    };
}
pub use crate::contract::field::{Field, OmittedFields};
pub use crate::contract::reason;
pub use crate::contract::reason::ReasonCode;
pub use crate::contract::warning::WarningCode;
pub use crate::server::report::{CompletenessReport, ReportsCompleteness};

/// Checks that a `#[completeness]` handler's response reports completeness (the call is
/// spanned on the declared return type, so a type alias to `Json<Vec<T>>` fails there),
/// fills `scope.resource` and keeps the caller's demand for when it is sent.
pub fn checked_future<T: ReportsCompleteness, F: core::future::Future<Output = T>>(
    future: F,
    resource: &'static str,
    demand: Demand,
) -> CheckedFuture<F> {
    CheckedFuture::new(future, resource, demand)
}

/// The caller's demand for a complete result, as a `#[completeness]` handler receives it.
#[cfg(feature = "axum")]
pub type Demand = crate::server::require::RequireComplete;

/// Without axum there is no request to read a demand from.
#[cfg(not(feature = "axum"))]
#[derive(Debug, Clone, Copy, Default)]
pub struct Demand;

/// The `#[envelope(completeness)]` field of a derived envelope.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completeness block",
    label = "a `#[envelope(completeness)]` field must have type `Completeness<R>`",
    note = "declare it as `completeness: completeness::Completeness<YourReason>`"
)]
pub trait CompletenessField {
    /// Writes `status`, `complete`, `truncated`.
    fn head<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// Writes the collection members after the data.
    fn tail<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// The type-erased report.
    fn report(&self) -> &dyn CompletenessReport;
    /// The type-erased report, mutably.
    fn report_mut(&mut self) -> &mut dyn CompletenessReport;
}

impl<R: crate::contract::reason::Reason> CompletenessField for Completeness<R> {
    fn head<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        self.serialize_head(map)
    }
    fn tail<M: serde::ser::SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        self.serialize_tail(map, Shape::Collection)
    }
    fn report(&self) -> &dyn CompletenessReport {
        self
    }
    fn report_mut(&mut self) -> &mut dyn CompletenessReport {
        self
    }
}

/// The reason type of one endpoint: `$name` = `DeclaredReason<Reasons<..>, Warnings<..>>`,
/// the slots listing, in code order, each declared reason's details or `Undeclared`, and
/// `$warnings` the mask of the declared warnings. One alias: no item of its own.
#[doc(hidden)]
#[macro_export]
macro_rules! __declare_reasons {
    ($doc:literal $vis:vis $name:ident [$($slot:ident)*] $warnings:literal) => {
        #[doc = $doc]
        $vis type $name = $crate::contract::declared::DeclaredReason<
            $crate::contract::declared::Reasons<$($crate::__private::slot::$slot),*>,
            $crate::contract::declared::Warnings<$warnings>,
        >;
    };
}

/// `Serialize`, `ReportsCompleteness` and (with `axum`) `IntoResponse` of a derived envelope:
/// the impls' scaffolding, written once here, around what differs per struct.
///
/// Input, as `#[derive(ResultEnvelope)]` writes it:
/// `[impl generics] [type] [where clause] self map serialize [statements] report [expr] [expr]`.
/// The derive writes the statements that fill the map and the two report expressions itself,
/// spanned on the fields' types so a type error points at the field; it passes its own `self`
/// and `map` tokens so they resolve to what this macro declares. `report [] []` marks a single
/// resource, which reports no completeness.
#[doc(hidden)]
#[macro_export]
macro_rules! __envelope_impls {
    (
        [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt $map:ident
        serialize [$($entries:tt)*] report [$($report:tt)*] [$($report_mut:tt)*]
    ) => {
        #[automatically_derived]
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
        $crate::__envelope_impls!(@report [$($generics)*] [$($ty)*] [$($where)*] $this [$($report)*] [$($report_mut)*]);
    };
    (@report [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt [] []) => {
        $crate::__envelope_report!([$($generics)*] [$($ty)*] [$($where)*] []);
    };
    (@report [$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] $this:tt [$($report:tt)+] [$($report_mut:tt)+]) => {
        #[automatically_derived]
        impl $($generics)* $crate::__private::ReportsCompleteness for $($ty)* $($where)* {
            fn completeness_report(&$this) -> ::core::option::Option<&dyn $crate::__private::CompletenessReport> {
                ::core::option::Option::Some($($report)+)
            }
            fn completeness_report_mut(
                &mut $this,
            ) -> ::core::option::Option<&mut dyn $crate::__private::CompletenessReport> {
                ::core::option::Option::Some($($report_mut)+)
            }
        }
        $crate::__impl_envelope_into_response!([$($generics)*] [$($ty)*] [$($where)*]);
    };
}

/// `ReportsCompleteness` (reporting none) and `IntoResponse` for a derived single resource.
///
/// Input: `[impl generics] [type] [where clause] []`.
#[doc(hidden)]
#[macro_export]
macro_rules! __envelope_report {
    ([$($generics:tt)*] [$($ty:tt)*] [$($where:tt)*] []) => {
        #[automatically_derived]
        impl $($generics)* $crate::server::report::ReportsCompleteness for $($ty)* $($where)* {
            fn completeness_report(&self) -> ::core::option::Option<&dyn $crate::server::report::CompletenessReport> {
                ::core::option::Option::None
            }
            fn completeness_report_mut(&mut self) -> ::core::option::Option<&mut dyn $crate::server::report::CompletenessReport> {
                ::core::option::Option::None
            }
        }
        $crate::__impl_envelope_into_response!([$($generics)*] [$($ty)*] [$($where)*]);
    };
}

/// Serializes a derived envelope as a JSON 200 response that carries what it says about its
/// completeness to the `observe` layer.
#[cfg(feature = "axum")]
pub fn json_response<T: serde::Serialize + ReportsCompleteness + ?Sized>(value: &T) -> axum::response::Response {
    let observation = crate::server::observe::Observation::of_response(value);
    crate::server::observe::tag(observation, crate::server::response::json_response(value))
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

/// `IntoResponse` for a derived envelope (with `axum`; nothing without).
#[cfg(not(feature = "axum"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_envelope_into_response {
    ($($tokens:tt)*) => {};
}
