//! Runtime of the `completeness` framework: the wire contract's types, axum
//! integration and the client side. Most users depend on the `completeness`
//! facade crate, which re-exports everything here together with the macros.
//!
//! The invariants of the wire contract hold by construction:
//!
//! ```
//! use completeness_runtime::{Envelope, Scope};
//! use completeness_runtime::reason::MorePagesAvailable;
//!
//! let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'");
//! let mut page: Envelope<u32> = Envelope::complete(vec![], scope);
//! assert!(page.is_complete()); // complete and empty: evidence of absence
//! page.completeness.push_reason(MorePagesAvailable::new("c1.k1.next"));
//! let json = serde_json::to_value(&page).unwrap();
//! assert_eq!(json["status"], "partial"); // empty, but not the end
//! assert_eq!(json["truncated"], true);
//! assert_eq!(json["continuation"]["cursor"], json["next_cursor"]);
//! ```

pub mod aggregate;
#[cfg(feature = "audit")]
pub mod audit_layer;
#[cfg(feature = "axum")]
pub mod budget;
pub mod checked;
pub mod client;
mod completeness; // private: its name would shadow the `completeness` attribute macro in `use completeness::completeness;`
#[cfg(feature = "axum")]
pub mod config;
pub mod continuation;
#[cfg(feature = "axum")]
pub mod credential;
#[cfg(feature = "axum")]
pub mod cursor;
pub mod declared;
pub mod envelope;
#[cfg(feature = "axum")]
pub mod evidence;
#[cfg(feature = "axum")]
pub mod extract;
#[cfg(feature = "axum")]
pub mod fanout;
pub mod field;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "axum")]
pub mod page_request;
pub mod problem;
#[cfg(feature = "axum")]
mod query;
pub mod reason;
pub mod report;
#[cfg(feature = "axum")]
pub mod require;
#[cfg(feature = "axum")]
pub mod response;
#[cfg(feature = "axum")]
pub mod routing;
pub mod scope;
#[cfg(feature = "testing")]
pub mod testing;
pub mod warning;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use aggregate::{Aggregate, Relation};
#[cfg(feature = "audit")]
pub use audit_layer::{AuditLayer, AuditSnapshot};
#[cfg(feature = "axum")]
pub use budget::TimeBudget;
pub use checked::{CheckedFuture, CheckedResponse};
pub use client::{ApprovalRequest, CollectLimits, Collected, Decision, Intent, collect_all, decide};
pub use completeness::{Completeness, Shape, Status};
#[cfg(feature = "axum")]
pub use config::CompletenessConfig;
pub use continuation::Continuation;
#[cfg(feature = "axum")]
pub use credential::Credential;
#[cfg(feature = "axum")]
pub use cursor::{CursorKeys, QueryBinding};
pub use declared::{DeclaredReason, Declares, ReasonSet, ReasonSlot, Reasons, Undeclared, WarningSet, Warnings};
pub use envelope::Envelope;
#[cfg(feature = "axum")]
pub use evidence::{Evidence, EvidenceIssuer, RequireEvidence};
#[cfg(feature = "axum")]
pub use extract::{JsonBody, QueryParams};
pub use field::{Field, Omission, OmittedFields};
#[cfg(feature = "axum")]
pub use page_request::{Page, PageRequest};
pub use problem::{Problem, ProblemCode};
pub use reason::{LimitKind, Progress, Reason, ReasonCode, ReasonDetails, ReasonKind, StandardReason, WithMessage};
pub use report::{CompletenessReport, Exempt, ReportsCompleteness};
#[cfg(feature = "axum")]
pub use require::RequireComplete;
pub use scope::{CursorBinding, CursorContract, PageInfo, Scope};
pub use warning::{Warning, WarningCatalog, WarningCode};
