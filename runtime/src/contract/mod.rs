//! The wire contract's types: what a response says about its own completeness.
//!
//! Everything here is plain data with serde impls and no I/O; the server side
//! ([`crate::server`]) produces it and the client side ([`crate::client`]) reads it.
//! The rules these types keep are numbered in the contract document (`docs/contract.md`).

/// `PartialEq`, `Eq` and `Hash` for a code type by its wire text (`as_str`): two codes written
/// alike are one code, however each was built (a variant, or the text of one kept as unknown).
macro_rules! one_code_per_text {
    ($ty:ty) => {
        impl PartialEq for $ty {
            fn eq(&self, other: &$ty) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl Eq for $ty {}

        impl std::hash::Hash for $ty {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.as_str().hash(state);
            }
        }
    };
}
pub(crate) use one_code_per_text;

/// `duration` in whole milliseconds, saturating at `u64::MAX` (`Duration::as_millis` is a
/// `u128`): how every budget, lifetime and deadline is said on the wire.
pub(crate) fn whole_millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

pub mod aggregate;
pub(crate) mod completeness;
pub mod continuation;
mod date;
pub mod declared;
pub mod envelope;
pub mod field;
#[cfg(any(feature = "axum", feature = "client"))]
pub(crate) mod media;
pub(crate) mod members;
#[cfg(any(feature = "axum", feature = "client", feature = "openapi"))]
pub(crate) mod params;
pub mod reason;
pub mod rules;
#[cfg(any(feature = "openapi", feature = "json-schema"))]
pub mod schema;
pub mod scope;
pub mod warning;

pub use completeness::{Completeness, ScopeMut, Shape, Status};
