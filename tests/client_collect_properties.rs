//! Property: whatever the page sizes, limits and mutations between pages, a collected
//! result marked complete holds every item of its declared snapshot exactly once, and
//! any other result is marked incomplete with a reason.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use completeness::client::collect_all;
use completeness::testing::{SourcePlan, arb_envelope, arb_source_plan, check_envelope_invariants};
use completeness::{Envelope, ReasonCode, StandardReason, WarningCode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

static COMPLETE: AtomicU64 = AtomicU64::new(0);
static INCOMPLETE: AtomicU64 = AtomicU64::new(0);

fn check_plan(runtime: &tokio::runtime::Runtime, plan: &SourcePlan) -> Result<(), TestCaseError> {
    let source = RefCell::new(plan.source());
    let fetch = |cursor: Option<String>| {
        let mut source = source.borrow_mut();
        if let Some(mutation) = plan.mutation_before(source.fetches() + 1) {
            source.apply(mutation);
        }
        let page = source.fetch(cursor.as_deref());
        async move { page }
    };
    let collected =
        runtime.block_on(collect_all(fetch, plan.limits)).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let source = source.into_inner();
    let json = serde_json::to_value(&collected).unwrap();
    if let Err(violations) = check_envelope_invariants(&json) {
        return Err(TestCaseError::fail(format!("contract broken: {violations:?}")));
    }
    prop_assert!(source.fetches() <= plan.limits.max_pages, "fetched past max_pages");

    if collected.is_complete() {
        COMPLETE.fetch_add(1, Ordering::Relaxed);
        let snapshot = collected.completeness.scope().snapshot.clone().expect("a declared snapshot");
        let number: u64 = snapshot.trim_start_matches("s-").parse().unwrap();
        prop_assert_eq!(&collected.items, &source.ids_at(number), "complete must mean exactly the snapshot's items");
        prop_assert!(!plan.restricted);
    } else {
        INCOMPLETE.fetch_add(1, Ordering::Relaxed);
        prop_assert!(!collected.completeness.reasons().is_empty());
        prop_assert!(collected.completeness.evidence().is_none());
        let mut seen = collected.items.clone();
        seen.dedup();
        prop_assert_eq!(seen.len(), collected.items.len(), "an item was collected twice");
        if plan.restricted {
            prop_assert!(collected.completeness.has_reason(&ReasonCode::VisibilityRestricted));
        }
    }
    Ok(())
}

#[test]
fn a_complete_collection_is_exactly_its_snapshot_and_anything_else_says_why() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let config = Config { cases: 10_000, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    runner.run(&arb_source_plan(), |plan| check_plan(&runtime, &plan)).unwrap();
    let (complete, incomplete) = (COMPLETE.load(Ordering::Relaxed), INCOMPLETE.load(Ordering::Relaxed));
    assert!(complete >= 1_000 && incomplete >= 1_000, "both outcomes must be exercised: {complete} / {incomplete}");
}

proptest! {
    #![proptest_config(Config { cases: 2_000, failure_persistence: None, ..Config::default() })]

    #[test]
    fn every_generated_envelope_keeps_the_contract_and_round_trips(envelope in arb_envelope()) {
        let json = serde_json::to_value(&envelope).unwrap();
        if let Err(violations) = check_envelope_invariants(&json) {
            return Err(TestCaseError::fail(format!("{violations:?} in {json}")));
        }
        let back: Envelope<u32, StandardReason> = serde_json::from_value(json.clone()).unwrap();
        prop_assert_eq!(&serde_json::to_value(&back).unwrap(), &json);
        prop_assert_eq!(back, envelope, "read(write(e)) == e");
    }
}

/// The generated envelopes cover what a client must handle: the four states, a page reached
/// with a cursor (where a complete and empty page is still no evidence of absence), a first
/// page, and every standard warning.
#[test]
fn generated_envelopes_cover_every_state_a_client_meets() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = TestRunner::new(Config { failure_persistence: None, ..Config::default() });
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..3_000 {
        let envelope = arb_envelope().new_tree(&mut runner).unwrap().current();
        let json = serde_json::to_value(&envelope).unwrap();
        let state = match (envelope.completeness.is_complete(), envelope.items.is_empty()) {
            (true, false) => "complete with items",
            (true, true) => "complete and empty",
            (false, false) => "incomplete with items",
            (false, true) => "incomplete and empty",
        };
        seen.insert(state.to_owned());
        seen.insert(format!("resumed {}", json["page"].get("resumed").map_or("absent".to_owned(), |r| r.to_string())));
        for warning in json["warnings"].as_array().unwrap() {
            seen.insert(warning["code"].as_str().unwrap().to_owned());
        }
    }
    let mut expected: Vec<String> =
        ["complete with items", "complete and empty", "incomplete with items", "incomplete and empty"]
            .into_iter()
            .chain(["resumed true", "resumed false"])
            .map(str::to_owned)
            .collect();
    expected.extend(WarningCode::KNOWN.iter().map(|code| code.as_str().to_owned()));
    let missing: Vec<&String> = expected.iter().filter(|name| !seen.contains(*name)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}
