//! The server side: what an axum service uses to produce honest answers.
//!
//! Responses that report completeness ([`report`]), problem responses ([`problem`]) and, with
//! the `axum` feature, routing, extractors (page requests, cursors, time budgets, demands,
//! evidence), fan-out over sources and the service's configuration; with `audit`, the layer
//! that finds responses without completeness in a service mid-migration.

#[cfg(feature = "audit")]
pub mod audit_layer;
#[cfg(feature = "axum")]
pub mod budget;
#[cfg(feature = "axum")]
pub mod config;
#[cfg(feature = "axum")]
pub mod credential;
#[cfg(feature = "axum")]
pub mod cursor;
#[cfg(feature = "axum")]
pub mod evidence;
#[cfg(feature = "axum")]
pub mod extract;
#[cfg(feature = "axum")]
pub mod fanout;
#[cfg(feature = "axum")]
pub mod observe;
#[cfg(feature = "axum")]
pub mod page_request;
pub mod problem;
#[cfg(feature = "axum")]
pub(crate) mod query;
pub mod report;
#[cfg(feature = "axum")]
pub mod require;
#[cfg(feature = "axum")]
pub mod response;
#[cfg(feature = "axum")]
pub mod routing;
