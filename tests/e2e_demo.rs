//! End to end: the `--demo` cleanup-agent tour runs against a real service and succeeds.

use crate::e2e_support;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_tour_archives_with_admin_evidence_and_changes_nothing_for_north() {
    // The tour itself checks each step: north refused without a change, admin archived
    // every unowned account with its evidence (the archive answered with the ids sent, and
    // admin's inventory is complete and empty afterwards), north refused again on an empty
    // answer. This seed has unowned accounts, so the archive ran.
    let archived = e2e_support::demo::run(e2e_support::config(600)).await.unwrap();
    assert!(archived > 0, "the seed of 600 has unowned accounts to archive");
}

/// A seed with no unowned account leaves the tour nothing to archive: it says so and succeeds,
/// where it sent an empty archive and failed on its refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_tour_on_a_seed_without_unowned_accounts_has_nothing_to_archive() {
    let seed = e2e_support::Harness::start(e2e_support::config(10)).await;
    let unowned = seed.get("/service-accounts/count?owner=none", "admin").await;
    assert_eq!(
        (unowned.body["count"].clone(), unowned.body["complete"].clone()),
        (0.into(), true.into()),
        "the premise: this seed has no unowned account: {unowned:?}"
    );
    seed.running.stop().await.unwrap();
    let result = e2e_support::demo::run(e2e_support::config(10)).await;
    assert_eq!(result, Ok(0), "nothing archived, and the tour succeeds");
}
