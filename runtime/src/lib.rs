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

// On docs.rs (`--cfg docsrs`, a nightly rustdoc), each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
// The docs link items of every feature; they resolve in a build with all of them (as docs.rs
// builds it), and a build with fewer leaves those links as text, without a warning for each.
#![cfg_attr(
    not(all(
        feature = "axum",
        feature = "openapi",
        feature = "json-schema",
        feature = "client",
        feature = "mcp",
        feature = "testing",
        feature = "faults",
        feature = "audit",
        feature = "metrics"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

pub mod client;
pub mod contract;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod server;
#[cfg(all(test, feature = "axum"))]
mod test_events;
#[cfg(feature = "testing")]
pub mod testing;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

// The modules keep their short paths (`completeness::reason::MorePagesAvailable`,
// `completeness::routing::get`): the folders above show the architecture, these the API.
#[cfg(any(feature = "openapi", feature = "json-schema"))]
pub use contract::schema;
pub use contract::{aggregate, continuation, declared, envelope, field, reason, rules, scope, warning};
#[cfg(feature = "axum")]
pub use server::{
    budget, config, credential, cursor, evidence, extract, fanout, observe, page_request, require, response, routing,
};
pub use server::{problem, report};

pub use aggregate::{Aggregate, Relation};
#[cfg(feature = "axum")]
pub use budget::TimeBudget;
pub use client::{ApprovalRequest, CollectLimits, Collected, Decision, FetchError, Intent, collect_all, decide};
#[cfg(feature = "axum")]
pub use config::CompletenessConfig;
pub use continuation::Continuation;
pub use contract::{Completeness, ScopeMut, Shape, Status};
#[cfg(feature = "axum")]
pub use credential::Credential;
#[cfg(feature = "axum")]
pub use cursor::{CursorKeys, QueryBinding};
pub use declared::{
    AcceptsWarning, DeclaredReason, Declares, DeclaresNoReason, DeclaresWarning, Everything, ReasonSet,
};
pub use envelope::Envelope;
#[cfg(feature = "axum")]
pub use evidence::{Evidence, EvidenceIssuer, RequireEvidence};
#[cfg(feature = "axum")]
pub use extract::{JsonBody, JsonObject, PathParams, QueryParams};
pub use field::{Field, Omission, OmittedFields};
#[cfg(feature = "axum")]
pub use page_request::{Page, PageRequest};
pub use problem::{Problem, ProblemCode};
pub use reason::{
    CustomCode, CustomReason, LimitKind, Progress, Reason, ReasonCode, ReasonDetails, ReasonKind, StandardReason,
    WithMessage,
};
pub use report::{
    CarriesReason, CompletenessReport, Exempt, IncompleteReport, Reported, ReportsCompleteness, SingleReport,
};
#[cfg(feature = "axum")]
pub use require::RequireComplete;
pub use scope::{CursorBinding, CursorContract, PageInfo, Scope};
#[cfg(feature = "audit")]
pub use server::audit_layer::{self, AuditLayer, AuditSnapshot};
pub use warning::{Warning, WarningCatalog, WarningCode, WarningDetails};
