//! The client side of the contract: collect every page honestly, decide what a
//! result allows, and ask a person when it does not allow enough (contract §8).
//!
//! [`collect_all`], [`decide()`] and [`ApprovalRequest`] need no feature; the
//! reqwest-based page fetcher lives in [`http`] behind the `client` feature.

pub mod approval;
pub mod collect;
pub mod decide;
pub mod explain;
#[cfg(feature = "client")]
pub mod http;

pub use approval::{ApprovalRequest, ExplainedReason, RecoveryOption};
pub use collect::{CollectLimits, Collected, FetchError, collect_all, resume};
pub use decide::{Decision, Intent, decide, decide_on};
