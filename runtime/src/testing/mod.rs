//! Contract test kit (`testing` feature): an invariant check any service's tests can
//! run on its JSON, an in-memory paged source with real snapshots, and proptest
//! strategies for envelopes and paged sources.

#[cfg(feature = "faults")]
pub mod faults;
mod invariants;
mod source;
mod strategies;

pub use invariants::{
    assert_aggregate_invariants, assert_envelope_invariants, check_aggregate_invariants, check_envelope_invariants,
};
pub use source::{MemorySource, Mutation};
pub use strategies::{SourcePlan, arb_envelope, arb_reason, arb_source_plan, arb_warning};
