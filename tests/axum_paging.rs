//! contract §2.5 through a real Router: page sizes, honest cursors and every cursor error row.

use crate::axum_common;

use std::time::Duration;

use axum_common::*;
use completeness::Envelope;

#[tokio::test]
async fn a_traversal_collects_every_visible_item_and_only_the_last_page_is_complete() {
    let (app, _) = app(config(K1));
    let pages = traverse(&app, "admin", "/accounts").await;
    assert_eq!(pages.len(), 8, "30 items at the default page size 4");
    let ids: Vec<String> = pages.iter().flat_map(Reply::ids).collect();
    let expected: Vec<String> = (1..=30).map(|i| format!("sa-{i:03}")).collect();
    assert_eq!(ids, expected);
    for page in &pages[..7] {
        assert_eq!(page.status, 200);
        assert_eq!(page.body["complete"], false);
        assert_eq!(page.body["incomplete_reasons"][0]["code"], "MORE_PAGES_AVAILABLE");
        assert_eq!(page.body["continuation"]["cursor"], page.body["next_cursor"]);
        assert_eq!(page.body["page"]["cursor"]["freezes_snapshot"], true);
        assert_eq!(
            page.body["page"]["cursor"]["invalidated_by"],
            serde_json::json!(["filters", "ordering", "credential"])
        );
        assert!(page.body["page"]["cursor"]["expires_at"].as_str().unwrap().ends_with('Z'));
        assert_eq!(page.body["evidence"], serde_json::Value::Null, "a partial page never carries evidence");
    }
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true);
    assert_eq!(last.body["page"]["returned"], 2);
    assert_eq!(last.body["page"]["cursor"], serde_json::Value::Null);
    assert!(last.body["evidence"].as_str().unwrap().starts_with("ev1.k1."));
    // Every page reads the snapshot of the first.
    let snapshots: Vec<&serde_json::Value> = pages.iter().map(|p| &p.body["page"]["snapshot"]).collect();
    assert!(snapshots.iter().all(|s| *s == snapshots[0] && s.is_string()));
    // The strict client deserializer accepts every page.
    for page in &pages {
        let _: Envelope<Account> = serde_json::from_value(page.body.clone()).unwrap();
    }
}

#[tokio::test]
async fn a_traversal_is_stable_under_inserts_deletes_and_updates_between_pages() {
    let (app, state) = app(config(K1));
    let first = get_as(&app, "admin", "/accounts?owner=none").await;
    assert_eq!(first.ids(), ["sa-003", "sa-006", "sa-009", "sa-012"]);
    {
        let mut store = state.store.lock().unwrap();
        store.insert("sa-013a", "north", None); // would land on page 2
        store.remove("sa-015");
        store.set_owner("sa-018", Some("erin"));
    }
    let second =
        get_as(&app, "admin", &format!("/accounts?owner=none&cursor={}", enc(&first.next_cursor().unwrap()))).await;
    assert_eq!(second.ids(), ["sa-015", "sa-018", "sa-021", "sa-024"], "page 2 is read at the first page's snapshot");
    assert_eq!(second.body["page"]["snapshot"], first.body["page"]["snapshot"]);
}

#[tokio::test]
async fn page_size_absent_uses_the_default_and_above_the_maximum_is_clamped_with_a_warning() {
    let (app, _) = app(config(K1));
    let default = get_as(&app, "admin", "/accounts").await;
    assert_eq!(default.body["page"]["requested_size"], serde_json::Value::Null);
    assert_eq!(default.body["page"]["applied_size"], 4);
    assert_eq!(default.body["warnings"], serde_json::json!([]));

    let clamped = get_as(&app, "admin", "/accounts?page_size=500").await;
    assert_eq!(clamped.status, 200);
    assert_eq!(clamped.body["page"]["requested_size"], 500);
    assert_eq!(clamped.body["page"]["applied_size"], 10);
    assert_eq!(clamped.body["page"]["returned"], 10);
    assert_eq!(clamped.body["warnings"][0]["code"], "PAGE_SIZE_REDUCED");
    assert_eq!(clamped.body["warnings"][0]["requested"], 500);
    assert_eq!(clamped.body["warnings"][0]["applied"], 10);

    // However many digits: a size beyond u64 is clamped like any other (reported saturated).
    let beyond = get_as(&app, "admin", "/accounts?page_size=99999999999999999999999").await;
    assert_eq!(beyond.status, 200);
    assert_eq!(beyond.body["warnings"][0]["code"], "PAGE_SIZE_REDUCED");
    assert_eq!(beyond.body["warnings"][0]["requested"], u64::MAX);
    assert_eq!(beyond.body["warnings"][0]["applied"], 10);

    let exact = get_as(&app, "admin", "/accounts?page_size=7").await;
    assert_eq!((exact.body["page"]["requested_size"].clone(), exact.ids().len()), (serde_json::json!(7), 7));
}

#[tokio::test]
async fn zero_negative_non_numeric_and_repeated_page_sizes_are_400_invalid_page_size() {
    let (app, _) = app(config(K1));
    for bad in ["0", "-1", "-0", "abc", "", "1.5", "1e3", "+5", "%205", "5&page_size=6"] {
        let reply = get_as(&app, "admin", &format!("/accounts?page_size={bad}")).await;
        reply.assert_problem(400, "INVALID_PAGE_SIZE");
        assert_eq!(reply.body["parameter"], "page_size", "for '{bad}'");
    }
}

#[tokio::test]
async fn page_size_may_change_between_pages_without_breaking_the_traversal() {
    let (app, _) = app(config(K1));
    let first = get_as(&app, "admin", "/accounts?page_size=3").await;
    let cursor = enc(&first.next_cursor().unwrap());
    let second = get_as(&app, "admin", &format!("/accounts?page_size=8&cursor={cursor}")).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.ids().first().map(String::as_str), Some("sa-004"));
    assert_eq!(second.ids().len(), 8);
}

#[tokio::test]
async fn malformed_tampered_truncated_and_oversized_cursors_are_400_invalid_cursor() {
    let (app, _) = app(config(K1));
    let good = get_as(&app, "admin", "/accounts").await.next_cursor().unwrap();
    let mut flipped = good.clone().into_bytes();
    let mid = flipped.len() / 2;
    flipped[mid] = if flipped[mid] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    let cases = [
        "".to_owned(),
        "garbage".to_owned(),
        "c1.k1.x.y".to_owned(),
        "c2".to_owned() + &good[2..],
        good[..good.len() - 1].to_owned(),
        good.clone() + "A",
        good.clone() + ".",
        flipped,
        good.replace("c1.k1.", "c1.k9."),
        "ev1".to_owned() + &good[2..],
        "\u{1F600}".repeat(10),
        "c1.k1.".to_owned() + &"A".repeat(60_000),
    ];
    for cursor in cases {
        let reply = get_as(&app, "admin", &format!("/accounts?cursor={}", enc(&cursor))).await;
        reply.assert_problem(400, "INVALID_CURSOR");
        assert_eq!(reply.body["parameter"], "cursor");
    }
    let twice = format!("/accounts?cursor={0}&cursor={0}", enc(&good));
    get_as(&app, "admin", &twice).await.assert_problem(400, "INVALID_CURSOR");
}

#[tokio::test]
async fn a_cursor_under_other_filters_is_400_cursor_query_mismatch() {
    let (app, _) = app(config(K1));
    let cursor = enc(&get_as(&app, "admin", "/accounts?owner=none").await.next_cursor().unwrap());
    for uri in [
        format!("/accounts?cursor={cursor}"),
        format!("/accounts?owner=dana&cursor={cursor}"),
        format!("/accounts?owner=none&tenant=north&cursor={cursor}"),
    ] {
        get_as(&app, "admin", &uri).await.assert_problem(400, "CURSOR_QUERY_MISMATCH");
    }
    let same = get_as(&app, "admin", &format!("/accounts?owner=none&cursor={cursor}")).await;
    assert_eq!(same.status, 200);
}

#[tokio::test]
async fn a_cursor_under_another_ordering_is_400_cursor_query_mismatch() {
    let (app, _) = app(config(K1));
    let descending = get_as(&app, "admin", "/accounts?order=desc").await;
    assert_eq!(descending.body["page"]["ordering"], "id descending");
    assert_eq!(descending.ids()[0], "sa-030");
    let cursor = enc(&descending.next_cursor().unwrap());
    get_as(&app, "admin", &format!("/accounts?cursor={cursor}")).await.assert_problem(400, "CURSOR_QUERY_MISMATCH");
    let next = get_as(&app, "admin", &format!("/accounts?order=desc&cursor={cursor}")).await;
    assert_eq!(next.ids(), ["sa-026", "sa-025", "sa-024", "sa-023"]);
}

#[tokio::test]
async fn a_cursor_of_another_credential_or_after_a_permission_change_is_403() {
    let (app, state) = app(config(K1));
    let cursor = enc(&get_as(&app, "north", "/accounts?tenant=north").await.next_cursor().unwrap());
    get_as(&app, "south", &format!("/accounts?tenant=north&cursor={cursor}"))
        .await
        .assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
    get_as(&app, "admin", &format!("/accounts?tenant=north&cursor={cursor}"))
        .await
        .assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
    assert_eq!(get_as(&app, "north", &format!("/accounts?tenant=north&cursor={cursor}")).await.status, 200);
    state.bump_epoch("north");
    get_as(&app, "north", &format!("/accounts?tenant=north&cursor={cursor}"))
        .await
        .assert_problem(403, "CURSOR_CREDENTIAL_MISMATCH");
}

#[tokio::test]
async fn an_expired_cursor_is_410_with_a_restart_and_never_restarts_the_traversal() {
    let (app, _) = app(config(K1).with_cursor_ttl(Duration::ZERO));
    let first = get_as(&app, "admin", "/accounts").await;
    let cursor = enc(&first.next_cursor().unwrap());
    let reply = get_as(&app, "admin", &format!("/accounts?cursor={cursor}")).await;
    reply.assert_problem(410, "CURSOR_EXPIRED");
    assert_eq!(reply.body["continuation"]["kind"], "restart");
    assert!(reply.body.get("items").is_none(), "no page is served for an expired cursor");
    // Even demanding completeness, the answer is the 410 problem, not a first page.
    let strict = get_as(&app, "admin", &format!("/accounts?require_complete=true&cursor={cursor}")).await;
    strict.assert_problem(410, "CURSOR_EXPIRED");
}

#[tokio::test]
async fn a_cursor_whose_snapshot_is_no_longer_retained_is_410_cursor_expired() {
    let (app, state) = app(config(K1));
    let first = get_as(&app, "admin", "/accounts").await;
    let snapshot = first.body["page"]["snapshot"].as_str().unwrap().to_owned();
    {
        let mut store = state.store.lock().unwrap();
        store.insert("sa-100", "east", None);
        store.oldest_retained = store.version;
    }
    let reply = get_as(&app, "admin", &format!("/accounts?cursor={}", enc(&first.next_cursor().unwrap()))).await;
    reply.assert_problem(410, "CURSOR_EXPIRED");
    assert_eq!(reply.body["continuation"]["kind"], "restart");
    assert!(reply.body["continuation"]["reason"].as_str().unwrap().contains(&snapshot));
}

#[tokio::test]
async fn a_cursor_survives_key_rotation_until_its_key_leaves_the_ring() {
    let (old, state) = app(config(K1));
    let cursor = enc(&get_as(&old, "admin", "/accounts").await.next_cursor().unwrap());
    // Another replica with the new key first and the old one still in the ring.
    let rotated = router(config(&format!("{K2},{K1}")), state.clone());
    let reply = get_as(&rotated, "admin", &format!("/accounts?cursor={cursor}")).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.ids()[0], "sa-005");
    assert!(reply.next_cursor().unwrap().starts_with("c1.k2."), "new cursors are signed by the active key");
    // The old key retired: its cursors are refused.
    let retired = router(config(K2), state);
    get_as(&retired, "admin", &format!("/accounts?cursor={cursor}")).await.assert_problem(400, "INVALID_CURSOR");
}

#[tokio::test]
async fn the_four_states_are_served_distinctly() {
    let (app, _) = app(config(K1));
    // complete with items
    let items = get_as(&app, "north", "/accounts?tenant=north&owner=none&page_size=10").await;
    assert_eq!((items.body["complete"].clone(), items.ids().len()), (serde_json::json!(true), 10));
    assert!(items.body["evidence"].is_string());
    // complete and empty: evidence of absence
    let empty = get_as(&app, "admin", "/accounts?owner=nobody").await;
    assert_eq!(empty.body["complete"], true);
    assert_eq!(empty.body["items"], serde_json::json!([]));
    assert!(empty.body["evidence"].is_string());
    // incomplete with items
    let partial = get_as(&app, "north", "/accounts?page_size=10").await;
    assert_eq!(partial.body["complete"], false);
    assert_eq!(partial.ids().len(), 10);
    assert_eq!(partial.body["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    assert_eq!(partial.body["evidence"], serde_json::Value::Null);
    // incomplete and empty: the dangerous one
    let hidden = get_as(&app, "north", "/accounts?tenant=south").await;
    assert_eq!(hidden.status, 200);
    assert_eq!(hidden.body["complete"], false);
    assert_eq!(hidden.body["items"], serde_json::json!([]));
    assert_eq!(hidden.body["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    assert_eq!(hidden.body["evidence"], serde_json::Value::Null);
    assert_eq!(hidden.body["continuation"], serde_json::Value::Null);
}

#[tokio::test]
async fn a_request_without_a_credential_is_401_problem() {
    let (app, _) = app(config(K1));
    let request = axum::http::Request::get("/accounts").body(axum::body::Body::empty()).unwrap();
    send(&app, request).await.assert_problem(401, "UNAUTHENTICATED");
}

/// A handler that filters a page's items after building it (a permission post-filter) still
/// sends a `page.returned` that counts what it sends (contract §2.2 R11): the strict reader
/// takes the answer.
#[tokio::test]
async fn page_returned_counts_the_items_that_go_out_after_a_filter() {
    use axum::response::IntoResponse;
    use completeness::reason::VisibilityRestricted;
    use completeness::scope::PageInfo;
    use completeness::{Completeness, Scope, StandardReason};

    let page = PageInfo::new(4, Some(4), 4, "id ascending").with_snapshot("s-1").with_resumed(false);
    let block = Completeness::complete(Scope::new("tickets", "all").with_snapshot("s-1")).with_page(page);
    let mut envelope: Envelope<u32, StandardReason> = Envelope::new(vec![1, 2, 3, 4], block);
    envelope.items.retain(|id| id % 2 == 0);
    envelope.completeness.push_reason(VisibilityRestricted::new());
    let body = axum::body::to_bytes(envelope.into_response().into_body(), usize::MAX).await.unwrap();
    let sent: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(sent["page"]["returned"], 2, "{sent}");
    let read: Envelope<u32, StandardReason> = serde_json::from_value(sent).expect("the strict reader takes it");
    assert_eq!(read.items, vec![2, 4]);
}
