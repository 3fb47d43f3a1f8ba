//! End to end over HTTP: every row of the contract §6 evidence table for
//! `POST /service-accounts/archive`, each refusal atomic (the database is unchanged).

use crate::e2e_support;

use std::time::Duration;

use e2e_support::{Answer, Harness, config};
use serde_json::{Value, json};

/// A complete inventory of unowned accounts (`filter` added) as `token`: its ids and evidence.
async fn inventory(h: &Harness, filter: &str, token: &str) -> (Vec<String>, String) {
    let pages = h.traverse(&format!("/service-accounts?owner=none{filter}&page_size=500"), token).await;
    let last = pages.last().unwrap();
    assert_eq!(last.body["complete"], true, "{:?}", last.reasons());
    let evidence = last.body["evidence"].as_str().expect("a complete inventory carries evidence").to_owned();
    (pages.iter().flat_map(Answer::ids).collect(), evidence)
}

async fn archive(h: &Harness, token: &str, ids: &[String], evidence: Value) -> Answer {
    h.post("/service-accounts/archive", token, &json!({"ids": ids, "evidence": evidence})).await
}

/// Asserts the refusal's status and code.
fn refused(answer: Answer, status: u16, code: &str) -> Answer {
    answer.assert_problem(status, code);
    answer
}

e2e_support::both_backends! {
#[tokio::test]
async fn every_row_of_the_evidence_table_refuses_atomically() {
    let mut cfg = config(300);
    cfg.evidence_ttl = Duration::from_secs(60);
    let h = Harness::start(cfg).await;
    let (unowned, evidence) = inventory(&h, "", "admin").await;
    assert!(unowned.len() >= 4, "enough unowned accounts: {}", unowned.len());
    let targets = unowned[..3].to_vec();
    let before = h.store().fingerprint().await.unwrap();

    // no evidence
    let none = h.post("/service-accounts/archive", "admin", &json!({"ids": targets})).await;
    refused(none, 428, "EVIDENCE_REQUIRED");
    refused(archive(&h, "admin", &targets, json!(null)).await, 428, "EVIDENCE_REQUIRED");

    // forged
    let mut forged = evidence.clone().into_bytes();
    let at = forged.len() / 2;
    forged[at] = if forged[at] == b'x' { b'y' } else { b'x' };
    let forged = String::from_utf8(forged).unwrap();
    refused(archive(&h, "admin", &targets, json!(forged)).await, 412, "EVIDENCE_INVALID");
    // a cursor is signed by the same keys but is not evidence
    let page = h.get("/service-accounts?owner=none&page_size=1", "admin").await;
    let cursor = page.body["next_cursor"].clone();
    refused(archive(&h, "admin", &targets, cursor).await, 412, "EVIDENCE_INVALID");

    // wrong filters: an inventory of a tenant says nothing about owners
    let tenant_pages = h.traverse("/service-accounts?tenant=east&page_size=500", "admin").await;
    let tenant_evidence = tenant_pages.last().unwrap().body["evidence"].clone();
    assert!(tenant_evidence.is_string());
    let east: Vec<String> = tenant_pages.iter().flat_map(Answer::ids).take(2).collect();
    refused(archive(&h, "admin", &east, tenant_evidence).await, 412, "EVIDENCE_INVALID");

    // other credential: north cannot use admin's evidence, even for north's own accounts
    let north_unowned: Vec<String> = inventory(&h, "&tenant=north", "north").await.0;
    refused(archive(&h, "north", &north_unowned, json!(evidence)).await, 412, "EVIDENCE_CREDENTIAL_MISMATCH");

    // an id not in the inventory: an owned account, and an unknown one
    let owned = h.get("/service-accounts?owner=dana&page_size=1", "admin").await.ids();
    let mut mixed = targets.clone();
    mixed.push(owned[0].clone());
    mixed.push("sa-999999".to_owned());
    let missing = refused(archive(&h, "admin", &mixed, json!(evidence)).await, 412, "TARGET_NOT_IN_EVIDENCE");
    assert_eq!(missing.body["targets"], json!([owned[0], "sa-999999"]));

    assert_eq!(h.store().fingerprint().await.unwrap(), before, "no refusal changed anything");

    // a PATCH that changes nothing writes nothing: no new snapshot, so the evidence still holds
    // for its target (archived below)
    let same = h.patch(&format!("/service-accounts/{}", targets[0]), "admin", &json!({"owner": null})).await;
    assert_eq!(same.status, 200, "{:?}", same.body);
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "a PATCH that changes nothing writes nothing");

    // a target changed after the inventory: someone took ownership
    let adopted = &targets[1];
    assert_eq!(h.patch(&format!("/service-accounts/{adopted}"), "admin", &json!({"owner": "li"})).await.status, 200);
    let after_patch = h.store().fingerprint().await.unwrap();
    let changed = refused(archive(&h, "admin", &targets, json!(evidence)).await, 409, "TARGET_CHANGED");
    assert_eq!(changed.body["targets"], json!([adopted]));
    assert_eq!(h.store().fingerprint().await.unwrap(), after_patch, "the other targets were not archived either");
    for id in [&targets[0], &targets[2]] {
        assert_eq!(h.get(&format!("/service-accounts/{id}"), "admin").await.body["archived"], false);
    }

    // what still matches is archived, all at once, and leaves the listing
    let still = vec![targets[0].clone(), targets[2].clone()];
    let done = archive(&h, "admin", &still, json!(evidence)).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.body["archived"], json!(still));
    for id in &still {
        assert_eq!(h.get(&format!("/service-accounts/{id}"), "admin").await.body["archived"], true);
    }
    let (remaining, _) = inventory(&h, "", "admin").await;
    assert!(still.iter().all(|id| !remaining.contains(id)));
    // The listing says that it leaves archived accounts out: its absence is of unarchived ones.
    let listing = h.get("/service-accounts?owner=none&page_size=1", "admin").await;
    let visibility = listing.body["scope"]["visibility"].as_str().unwrap_or_default().to_owned();
    assert!(visibility.starts_with("unarchived service accounts"), "{visibility}");
    // archiving again: they no longer match the inventory now
    refused(archive(&h, "admin", &still, json!(evidence)).await, 409, "TARGET_CHANGED");

    // An archived account is kept as it was archived: a claim on it would be answered for an
    // account no list shows again, and a delete would undo what the evidence decided.
    let archived_state = h.store().fingerprint().await.unwrap();
    let one = format!("/service-accounts/{}", still[0]);
    for owner in [json!("mallory"), json!(null)] {
        refused(h.patch(&one, "admin", &json!({"owner": owner})).await, 409, "ACCOUNT_ARCHIVED");
    }
    refused(h.send(reqwest::Method::DELETE, &one, Some("admin"), None).await, 409, "ACCOUNT_ARCHIVED");
    assert_eq!(h.store().fingerprint().await.unwrap(), archived_state, "nothing changed");
    let kept = h.get(&one, "admin").await.body;
    assert_eq!((kept["archived"].clone(), kept["owner"].clone()), (json!(true), json!(null)), "{kept}");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn evidence_expires_with_its_lifetime_with_its_snapshot_and_with_the_credentials_permissions() {
    let mut cfg = config(200);
    cfg.evidence_ttl = Duration::from_millis(300);
    cfg.snapshot_retention = Duration::from_secs(3600);
    let h = Harness::start(cfg).await;
    let (ids, evidence) = inventory(&h, "", "admin").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = h.store().fingerprint().await.unwrap();
    refused(archive(&h, "admin", &ids[..1], json!(evidence)).await, 412, "EVIDENCE_EXPIRED");
    assert_eq!(h.store().fingerprint().await.unwrap(), before);

    let mut cfg = config(200);
    cfg.snapshot_retention = Duration::from_millis(150);
    let h = Harness::start(cfg).await;
    let (ids, evidence) = inventory(&h, "", "admin").await;
    assert_eq!(h.post("/service-accounts", "admin", &json!({"name": "svc-x", "tenant": "east"})).await.status, 201);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = h.store().fingerprint().await.unwrap();
    let gone = refused(archive(&h, "admin", &ids[..1], json!(evidence)).await, 412, "EVIDENCE_EXPIRED");
    assert!(gone.body["detail"].as_str().unwrap().contains("no longer retained"));
    assert_eq!(h.store().fingerprint().await.unwrap(), before);

    let h = Harness::start(config(200)).await;
    let (ids, evidence) = inventory(&h, "&tenant=south", "south").await;
    assert_eq!(h.post("/credentials/south/revoke-tenant/south", "admin", &json!({})).await.status, 200);
    refused(archive(&h, "south", &ids[..1], json!(evidence)).await, 412, "EVIDENCE_CREDENTIAL_MISMATCH");
}
}

e2e_support::both_backends! {
/// The store refuses an archive, and every other write, on the strength of a permission epoch a
/// revocation has ended, whatever passed before it (a request authenticated, and its tenant
/// checked, just before the revocation committed): nothing is written.
#[tokio::test]
async fn the_store_refuses_every_write_at_a_revoked_permission_epoch() {
    use e2e_support::service::db::{ArchiveOutcome, Filter, Grantee, OwnerFilter};
    let h = Harness::start(config(200)).await;
    let (ids, _) = inventory(&h, "&tenant=south", "south").await;
    let epoch = h.store().grant("south").await.unwrap().expect("south has a grant").epoch;
    let snapshot = h.store().current_snapshot().await.unwrap();
    let south = Filter { owner: OwnerFilter::Unowned, tenants: vec!["south".to_owned()] };
    assert_eq!(h.post("/credentials/south/revoke-tenant/south", "admin", &json!({})).await.status, 200);
    let before = h.store().fingerprint().await.unwrap();
    let stale = Grantee { name: "south", epoch };
    let (outcome, archived) = h.store().archive(&stale, snapshot, &south, &south, &ids[..1]).await.unwrap();
    assert!(matches!(outcome, ArchiveOutcome::PermissionsChanged), "{outcome:?}");
    assert!(archived.is_empty());
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");

    // So does every other write: checked against the tenant before, made after the revocation.
    use e2e_support::service::db::{NewAccount, StoreError};
    let id = &ids[0];
    let new = NewAccount { name: "late".to_owned(), tenant: "south".to_owned(), owner: None };
    let refusals = [
        h.store().create(Some(&stale), new).await.map(drop),
        h.store().set_owner(Some(&stale), id, Some("li".to_owned())).await.map(drop),
        h.store().delete(Some(&stale), id).await.map(drop),
    ];
    for refused in refusals {
        assert!(matches!(refused, Err(StoreError::PermissionsChanged)), "{refused:?}");
    }
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was written");
}

#[tokio::test]
async fn incomplete_inventories_never_carry_evidence() {
    let h = Harness::start(config(200)).await;
    let restricted = h.traverse("/service-accounts?owner=none&page_size=500", "north").await;
    assert!(restricted.iter().all(|p| p.body["evidence"].is_null() && p.body["complete"] == false));
    let paged = h.traverse("/service-accounts?owner=none&page_size=2", "admin").await;
    let (last, rest) = paged.split_last().unwrap();
    assert!(rest.iter().all(|p| p.body["evidence"].is_null()), "no page before the last is complete");
    assert!(last.body["evidence"].is_string(), "the last page of a whole traversal is");
    let search = h.get("/search?q=svc", "admin").await;
    assert!(search.body["evidence"].is_null(), "a search is not an inventory");
}
}
