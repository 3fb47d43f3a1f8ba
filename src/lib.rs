//! `completeness` makes silent truncation of API results impossible.
//!
//! A list endpoint that returns `[]` after hitting a limit, a timeout, a dead
//! source or a permission filter looks exactly like one that found nothing. This
//! crate makes "did this cover everything I asked about?" a typed, machine-readable
//! and compile-time-enforced part of every list, search and aggregate response.
//!
//! ```
//! use completeness::{Envelope, Scope};
//! use completeness::reason::VisibilityRestricted;
//!
//! let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'")
//!     .with_filter("tenant", "south");
//! let answer: Envelope<String> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
//!
//! // Empty, and says so honestly: absence here proves nothing.
//! let json = serde_json::to_value(&answer).unwrap();
//! assert_eq!(json["items"], serde_json::json!([]));
//! assert_eq!(json["complete"], false);
//! assert_eq!(json["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
//!
//! // A client that reads it back gets the same contract, strictly checked.
//! let back: Envelope<String> = serde_json::from_value(json).unwrap();
//! assert!(!back.is_complete());
//! ```

pub use completeness_macros::{Reason, ResultEnvelope, Warning, completeness};
pub use completeness_runtime::*;

#[doc(hidden)]
pub use completeness_runtime::__private;

/// The wire contract, normative: every member, rule (R1–R13), code and compatibility promise.
/// The code cites its sections as `contract §N`.
#[doc = include_str!("../docs/contract.md")]
pub mod wire_contract {}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
