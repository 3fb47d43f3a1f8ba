//! The wire contract's types: what a response says about its own completeness.
//!
//! Everything here is plain data with serde impls and no I/O; the server side
//! ([`crate::server`]) produces it and the client side ([`crate::client`]) reads it.
//! The rules these types keep are numbered in the contract document (`docs/contract.md`).

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
