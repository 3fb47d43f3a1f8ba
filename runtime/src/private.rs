//! Support for generated code. Not public API: it may change in any release.

pub use serde;
pub use serde_json;

#[cfg(feature = "axum")]
pub use axum;

#[cfg(feature = "openapi")]
pub use utoipa;

#[cfg(feature = "json-schema")]
pub use schemars;

pub use crate::__reason_enum_impls as reason_enum_impls;
