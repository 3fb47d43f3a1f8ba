//! proptest strategies for envelopes and paged sources.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use crate::client::collect::CollectLimits;
use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{
    ClientLimitReached, LimitKind, MorePagesAvailable, Progress, QuotaExhausted, Reason, ReasonKind,
    ResultLimitReached, SnapshotExpired, SourceUnavailable, StandardReason, TimeBudgetExceeded, VisibilityRestricted,
};
use crate::contract::scope::{CursorBinding, CursorContract, PageInfo, Scope};
use crate::contract::warning::{
    DefaultScopeApplied, DeprecatedField, OrderingDefaulted, PageSizeReduced, PartialFieldSet, StaleIndex, Warning,
};
use crate::testing::source::{MemorySource, Mutation};

/// Any reason: every known code with random details, and unknown codes.
pub fn arb_reason() -> impl Strategy<Value = StandardReason> {
    let cursor = "[a-z0-9]{1,8}";
    prop_oneof![
        cursor.prop_map(|c| MorePagesAvailable::new(format!("c1.{c}")).into()),
        (1..1000_u64, "[a-z ]{1,12}").prop_map(|(limit, hint)| ResultLimitReached::new(limit, hint).into()),
        (1..5000_u64, 0..10_u64, option::of(10..20_u64), option::of(1..60_u64)).prop_map(
            |(budget, completed, planned, deadline)| {
                let reason = TimeBudgetExceeded::new(budget, Progress { completed, planned, unit: "sources".into() });
                match deadline {
                    Some(s) => reason.retry_with_deadline(s).into(),
                    None => reason.into(),
                }
            }
        ),
        ("[a-z]{1,8}", option::of(1..60_u64)).prop_map(|(source, retry)| match retry {
            Some(s) => SourceUnavailable::new(source).retry_after(s).into(),
            None => SourceUnavailable::new(source).into(),
        }),
        Just(VisibilityRestricted::new().into()),
        (1..600_u64).prop_map(|s| QuotaExhausted::new(s).into()),
        (prop_oneof![Just(LimitKind::Pages), Just(LimitKind::Items), Just(LimitKind::Deadline)], 1..100_u64)
            .prop_map(|(kind, limit)| ClientLimitReached::new(kind, limit).into()),
        "[0-9]{1,4}".prop_map(|s| SnapshotExpired::new(format!("s-{s}")).into()),
        ("[A-Z]{3,10}", option::of(0..5_usize)).prop_map(|(code, kind)| {
            // A service's own reason, or one from a newer server: with a declared kind, or without.
            let mut object = serde_json::Map::new();
            object.insert("code".into(), format!("FUTURE_{code}").into());
            object.insert("message".into(), "a code this client does not know".into());
            if let Some(kind) = kind {
                object.insert("kind".into(), ReasonKind::DECLARABLE[kind].as_str().into());
            }
            StandardReason::from_wire(object).expect("a custom reason object reads")
        }),
    ]
}

/// Any warning.
pub fn arb_warning() -> impl Strategy<Value = Warning> {
    prop_oneof![
        "[a-z]{1,8}".prop_map(|s| StaleIndex::new(s).observed_revision("r-1").into()),
        Just(PartialFieldSet::new(&["owner_email"], &[]).into()),
        (1..500_u64).prop_map(|r| PageSizeReduced::new(r + 100, 100).into()),
        Just(OrderingDefaulted::new("id ascending").into()),
        Just(DefaultScopeApplied::new("the caller's own tenant").into()),
        Just(DeprecatedField::new("owner_email").into()),
        ("[A-Z]{3,8}", any::<bool>()).prop_map(|(c, stale)| {
            let wire = serde_json::json!({"code": format!("NEW_{c}"), "message": "a newer warning", "stale": stale});
            serde_json::from_value(wire).expect("a warning object reads")
        }),
    ]
}

/// Any valid envelope of numbers, in all four states (complete or not, with items or
/// empty), with or without page facts (of a first page or of one reached with a cursor),
/// warnings and evidence.
///
/// Each value is the envelope as a client reads it off the wire: built, serialized and read
/// back by the strict reader, so `read(write(e)) == e` holds for it. (The wire has one
/// `continuation`, the first reason's recovery (contract R6): a value built with several
/// recoveries would not come back as built.)
pub fn arb_envelope() -> impl Strategy<Value = Envelope<u32, StandardReason>> {
    (
        vec(any::<u32>(), 0..6),
        vec(arb_reason(), 0..4),
        vec(arb_warning(), 0..3),
        option::of("[0-9]{1,4}"),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(items, reasons, warnings, snapshot, paged, resumed, evidence)| {
            let mut scope = Scope::new("numbers", "numbers readable by the test credential");
            scope.snapshot = snapshot.map(|s| format!("s-{s}"));
            let mut completeness = Completeness::complete(scope.clone());
            for reason in reasons {
                completeness.push_reason(reason);
            }
            for warning in warnings {
                completeness.push_warning(warning);
            }
            if paged {
                completeness.set_page(Some(PageInfo {
                    returned: items.len() as u64,
                    requested_size: Some(50),
                    applied_size: 50,
                    ordering: "id ascending".into(),
                    snapshot: scope.snapshot.clone(),
                    cursor: completeness.next_cursor().map(|_| CursorContract {
                        freezes_snapshot: true,
                        expires_at: "2100-01-01T00:00:00Z".into(),
                        invalidated_by: vec![CursorBinding::Filters, CursorBinding::Credential],
                    }),
                    resumed: Some(resumed),
                }));
            }
            if evidence {
                completeness.attach_evidence("ev1.test.token".into());
            }
            let built: Envelope<u32, StandardReason> = Envelope::new(items, completeness);
            let wire = serde_json::to_value(&built).expect("an envelope serializes");
            serde_json::from_value(wire).expect("a built envelope reads back")
        })
}

/// A paged source and a collection plan: collections often larger than every limit,
/// random page sizes (0 included), random mutations between pages.
#[derive(Debug, Clone)]
pub struct SourcePlan {
    /// Rows at the start (ids `1..=initial`).
    pub initial: u64,
    /// Page sizes, one per fetch in turn.
    pub page_sizes: Vec<usize>,
    /// Whether cursors freeze the first page's snapshot.
    pub freezes_snapshot: bool,
    /// Whether some rows are hidden from the caller.
    pub restricted: bool,
    /// A `STALE_INDEX` warning every this many pages.
    pub warn_every: Option<u64>,
    /// The mutation applied before fetch `i + 2` (none before the first).
    pub mutations: Vec<Option<Mutation>>,
    /// The collector's limits.
    pub limits: CollectLimits,
}

impl SourcePlan {
    /// The source this plan starts with.
    pub fn source(&self) -> MemorySource {
        MemorySource::new(self.initial, 1)
            .with_page_sizes(self.page_sizes.clone())
            .freezing_snapshots(self.freezes_snapshot)
            .restricted(self.restricted)
            .warning_every(self.warn_every)
    }

    /// The mutation to apply before fetch number `fetch` (1-based).
    pub fn mutation_before(&self, fetch: u64) -> Option<Mutation> {
        let index = usize::try_from(fetch.checked_sub(2)?).ok()?;
        self.mutations.get(index).copied().flatten()
    }
}

fn arb_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (0..120_u64).prop_map(Mutation::Insert),
        4 => any::<usize>().prop_map(Mutation::Delete),
        1 => Just(Mutation::ExpireOldSnapshots),
    ]
}

/// Plans over up to 60 rows with limits that are sometimes smaller than the collection.
pub fn arb_source_plan() -> impl Strategy<Value = SourcePlan> {
    let small_limits = (1..12_u64, 1..50_u64);
    let large_limits = (1000..1001_u64, 10_000..10_001_u64);
    (
        0..60_u64,
        vec(prop_oneof![1 => Just(0_usize), 8 => 1..9_usize], 1..5),
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.15),
        option::of(2..5_u64),
        vec(prop::option::weighted(0.3, arb_mutation()), 0..12),
        prop_oneof![small_limits, large_limits],
    )
        .prop_map(|(initial, page_sizes, freezes_snapshot, restricted, warn_every, mutations, (pages, items))| {
            SourcePlan {
                initial,
                page_sizes,
                freezes_snapshot,
                restricted,
                warn_every,
                mutations,
                limits: CollectLimits {
                    max_pages: pages,
                    max_items: items,
                    deadline: std::time::Duration::from_secs(3600),
                },
            }
        })
}
