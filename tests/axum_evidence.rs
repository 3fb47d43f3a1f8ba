//! contract §6 through a real Router: every evidence row, atomically (nothing changes on refusal).

use crate::axum_common;

use std::time::Duration;

use axum_common::*;
use serde_json::{Value, json};

/// The complete inventory of unowned accounts as `who` (one page of up to 10) and its evidence.
async fn inventory(app: &axum::Router, who: &str, query: &str) -> (Vec<String>, String) {
    let pages = traverse(app, who, &format!("/accounts?owner=none{query}&page_size=10")).await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:#}", last.body);
    let ids = pages.iter().flat_map(Reply::ids).collect();
    (ids, last.body["evidence"].as_str().unwrap().to_owned())
}

async fn archive(app: &axum::Router, who: &str, body: Value) -> Reply {
    post_json_as(app, who, "/accounts/archive", &body).await
}

fn unchanged(state: &App, before: &[String]) {
    let store = state.store.lock().unwrap();
    assert_eq!(store.current_ids(), before, "a refused action changes nothing");
    assert!(store.archived.is_empty());
}

#[tokio::test]
async fn archiving_with_the_evidence_of_a_complete_inventory_succeeds() {
    let (app, state) = app(config(K1));
    let (ids, evidence) = inventory(&app, "admin", "").await;
    assert_eq!(ids.len(), 10);
    let reply = archive(&app, "admin", json!({"ids": ["sa-003", "sa-030"], "evidence": evidence})).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(state.store.lock().unwrap().archived, ["sa-003", "sa-030"]);
}

#[tokio::test]
async fn no_evidence_is_428_evidence_required() {
    let (app, state) = app(config(K1));
    let before = state.store.lock().unwrap().current_ids();
    for body in [
        json!({"ids": ["sa-003"]}),
        json!({"ids": ["sa-003"], "evidence": null}),
        json!({"ids": ["sa-003"], "evidence": ""}),
    ] {
        archive(&app, "admin", body).await.assert_problem(428, "EVIDENCE_REQUIRED");
    }
    unchanged(&state, &before);
}

#[tokio::test]
async fn forged_altered_oversized_or_cursor_tokens_are_412_evidence_invalid() {
    let (app, state) = app(config(K1));
    let (_, evidence) = inventory(&app, "admin", "").await;
    let cursor = get_as(&app, "admin", "/accounts").await.next_cursor().unwrap();
    let before = state.store.lock().unwrap().current_ids();
    let mut altered = evidence.clone().into_bytes();
    let at = altered.len() / 3;
    altered[at] = if altered[at] == b'Q' { b'R' } else { b'Q' };
    let other_key = {
        let (other, _) = axum_common::app(config(K2));
        inventory(&other, "admin", "").await.1
    };
    let tokens = [
        json!("ev1.k1.AAAA.BBBB"),
        json!(String::from_utf8(altered).unwrap()),
        json!(evidence[..evidence.len() - 2]),
        json!(cursor),
        json!(other_key),
        json!("ev1.k1.".to_owned() + &"A".repeat(1 << 20)),
    ];
    for token in tokens {
        let reply = archive(&app, "admin", json!({"ids": ["sa-003"], "evidence": token.clone()})).await;
        reply.assert_problem(412, "EVIDENCE_INVALID");
        // A cursor is named as one, so that the client sends the evidence instead.
        let detail = reply.body["detail"].as_str().unwrap();
        assert_eq!(detail.contains("it is a cursor"), token == json!(cursor), "{token}: {detail}");
    }
    // Not a string at all: a wrongly typed member, like any other (400 INVALID_BODY).
    for not_a_token in [json!(42), json!(["ev1"]), json!({})] {
        archive(&app, "admin", json!({"ids": ["sa-003"], "evidence": not_a_token}))
            .await
            .assert_problem(400, "INVALID_BODY");
    }
    unchanged(&state, &before);
}

#[tokio::test]
async fn evidence_of_another_resource_or_other_filters_is_412_evidence_invalid() {
    let (app, state) = app(config(K1));
    let before = state.store.lock().unwrap().current_ids();
    let teams = get_as(&app, "admin", "/teams").await;
    let teams_evidence = teams.body["evidence"].as_str().unwrap().to_owned();
    let reply = archive(&app, "admin", json!({"ids": ["sa-003"], "evidence": teams_evidence})).await;
    reply.assert_problem(412, "EVIDENCE_INVALID");
    assert!(reply.body["detail"].as_str().unwrap().contains("teams"));
    // A complete inventory of owned accounts is no evidence for archiving unowned ones.
    let owned = traverse(&app, "admin", "/accounts?owner=dana&page_size=10").await;
    let owned_evidence = owned.last().unwrap().body["evidence"].as_str().unwrap().to_owned();
    archive(&app, "admin", json!({"ids": ["sa-001"], "evidence": owned_evidence}))
        .await
        .assert_problem(412, "EVIDENCE_INVALID");
    unchanged(&state, &before);
}

#[tokio::test]
async fn expired_evidence_or_a_gone_snapshot_is_412_evidence_expired() {
    let (app, state) = app(config(K1).with_evidence_ttl(Duration::ZERO));
    let before = state.store.lock().unwrap().current_ids();
    let (_, evidence) = inventory(&app, "admin", "").await;
    archive(&app, "admin", json!({"ids": ["sa-003"], "evidence": evidence}))
        .await
        .assert_problem(412, "EVIDENCE_EXPIRED");
    unchanged(&state, &before);

    let (app, state) = axum_common::app(config(K1));
    let (_, evidence) = inventory(&app, "admin", "").await;
    {
        let mut store = state.store.lock().unwrap();
        store.insert("sa-200", "east", Some("dana"));
        store.oldest_retained = store.version;
    }
    let before = state.store.lock().unwrap().current_ids();
    archive(&app, "admin", json!({"ids": ["sa-003"], "evidence": evidence}))
        .await
        .assert_problem(412, "EVIDENCE_EXPIRED");
    unchanged(&state, &before);
}

#[tokio::test]
async fn evidence_of_another_credential_or_changed_permissions_is_412_credential_mismatch() {
    let (app, state) = app(config(K1));
    let before = state.store.lock().unwrap().current_ids();
    let (ids, evidence) = inventory(&app, "north", "&tenant=north").await;
    assert!(!ids.is_empty());
    let reply = archive(&app, "south", json!({"ids": [ids[0]], "evidence": evidence})).await;
    reply.assert_problem(412, "EVIDENCE_CREDENTIAL_MISMATCH");
    state.bump_epoch("north");
    let reply = archive(&app, "north", json!({"ids": [ids[0]], "evidence": evidence})).await;
    reply.assert_problem(412, "EVIDENCE_CREDENTIAL_MISMATCH");
    unchanged(&state, &before);
}

#[tokio::test]
async fn a_target_outside_the_inventory_is_412_target_not_in_evidence_listing_it() {
    let (app, state) = app(config(K1));
    let before = state.store.lock().unwrap().current_ids();
    let (ids, evidence) = inventory(&app, "admin", "").await;
    assert!(!ids.contains(&"sa-001".to_owned()), "sa-001 has an owner");
    let reply = archive(&app, "admin", json!({"ids": ["sa-003", "sa-001", "sa-999"], "evidence": evidence})).await;
    reply.assert_problem(412, "TARGET_NOT_IN_EVIDENCE");
    assert_eq!(reply.body["targets"], json!(["sa-001", "sa-999"]));
    unchanged(&state, &before);
}

#[tokio::test]
async fn a_target_that_changed_since_the_inventory_is_409_target_changed_listing_it() {
    let (app, state) = app(config(K1));
    let (_, evidence) = inventory(&app, "admin", "").await;
    state.store.lock().unwrap().set_owner("sa-006", Some("erin"));
    let before = state.store.lock().unwrap().current_ids();
    let reply = archive(&app, "admin", json!({"ids": ["sa-003", "sa-006"], "evidence": evidence})).await;
    reply.assert_problem(409, "TARGET_CHANGED");
    assert_eq!(reply.body["targets"], json!(["sa-006"]));
    unchanged(&state, &before);
}

#[tokio::test]
async fn no_incomplete_response_carries_evidence() {
    let (app, _) = app(config(K1));
    // more pages follow
    let first = get_as(&app, "admin", "/accounts?owner=none&page_size=3").await;
    assert_eq!((first.body["complete"].clone(), first.body["evidence"].clone()), (json!(false), Value::Null));
    // visibility restricted, with items and empty
    for uri in ["/accounts?page_size=10", "/accounts?tenant=south"] {
        let reply = get_as(&app, "north", uri).await;
        assert_eq!(reply.body["complete"], false);
        assert_eq!(reply.body["evidence"], Value::Null);
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_or_does_not_fit_is_400_invalid_body() {
    let (app, state) = app(config(K1));
    let (_, evidence) = inventory(&app, "admin", "").await;
    let before = state.store.lock().unwrap().current_ids();
    for body in [b"{not json".to_vec(), b"[1,2]".to_vec(), vec![0xff, 0xfe]] {
        post_raw_as(&app, "admin", "/accounts/archive", body).await.assert_problem(400, "INVALID_BODY");
    }
    // No body at all is no evidence: 428, which says what to send.
    post_raw_as(&app, "admin", "/accounts/archive", Vec::new()).await.assert_problem(428, "EVIDENCE_REQUIRED");
    for (body, detail) in [
        (json!({"ids": "sa-003", "evidence": evidence}), "invalid type: string \"sa-003\", expected a sequence"),
        (json!({"ids": ["sa-003"], "extra": 1, "evidence": evidence}), "unknown field `extra`, expected `ids`"),
    ] {
        let reply = archive(&app, "admin", body).await;
        reply.assert_problem(400, "INVALID_BODY");
        // serde lists only the body type's members: the detail says `evidence` is taken apart.
        assert_eq!(reply.body["detail"], format!("The request body besides `evidence` does not fit: {detail}"));
    }
    // `ids` twice: archiving either list would be a guess at which one the client meant.
    let twice = format!(r#"{{"ids": ["sa-003"], "evidence": "{evidence}", "ids": ["sa-004"]}}"#);
    let reply = post_raw_as(&app, "admin", "/accounts/archive", twice.into_bytes()).await;
    reply.assert_problem(400, "INVALID_BODY");
    assert!(reply.body["detail"].as_str().unwrap().contains("member `ids` is given twice"), "{:?}", reply.body);
    unchanged(&state, &before);
}
