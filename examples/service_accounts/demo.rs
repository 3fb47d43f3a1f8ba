//! `--demo`: the cleanup-agent tour, run against this service on a free loopback port.
//!
//! 1. `north` collects every unowned account with `collect_all` and asks `decide(.., Mutate)`;
//!    its inventory is incomplete (it cannot read every tenant), so `decide` refuses, the
//!    `ApprovalRequest` is printed, and nothing changes.
//! 2. `admin` does the same; its inventory is complete, so it archives them with its evidence.
//! 3. `north` again: it now sees no unowned account at all, and that empty, incomplete
//!    answer still authorizes nothing.
//!
//! Each step checks what it claims, and the tour fails otherwise: the archive answered with
//! exactly the ids sent, admin's inventory afterwards is complete and empty, north's empty.

use completeness::client::explain::verdict;
use completeness::client::http::ServiceClient;
use completeness::client::{ApprovalRequest, CollectLimits, Collected, Decision, Intent, collect_all, decide};
use serde_json::{Value, json};

use super::service::db::ListItem;
use super::service::{self, Config};

const ACTION: &str = "archive every unowned service account";

/// Runs the tour and stops the service; returns how many accounts admin archived, and an error
/// saying which step went differently.
pub async fn run(mut config: Config) -> Result<usize, String> {
    // The tour archives: on a store of its own in memory, never on a database named to it.
    config.db = None;
    config.addr = "127.0.0.1:0".parse().map_err(|e| format!("{e}"))?;
    let running = service::start(config).await.map_err(|e| e.to_string())?;
    let url = running.url();
    println!("== cleanup-agent tour against {url}\n");

    let before = running.state.store.fingerprint().await.map_err(|e| e.to_string())?;
    println!("-- 1. north: a credential that cannot read every tenant");
    let north = ServiceClient::new(&url, "north").map_err(|e| format!("{e:?}"))?;
    refuse(&north).await?;
    if running.state.store.fingerprint().await.map_err(|e| e.to_string())? != before {
        return Err("north's tour changed the database".into());
    }
    println!("nothing changed\n");

    println!("-- 2. admin: collect unowned accounts, decide, archive with evidence");
    let admin = ServiceClient::new(&url, "admin").map_err(|e| format!("{e:?}"))?;
    let collected = collect(&admin).await?;
    // `complete` speaks of the scope the answer names: it must be the one asked for.
    if let Some(difference) =
        collected.completeness.scope().differs_from("service_accounts", &[("owner", json!("none"))])
    {
        return Err(format!("the inventory answers another question: {difference}"));
    }
    let decision = decide(&collected, Intent::Mutate);
    println!("decide(.., Mutate) = {decision:?}");
    if decision != Decision::Proceed {
        return Err(format!("admin's inventory should allow the cleanup, got {decision:?}"));
    }
    let ids: Vec<&str> = collected.items.iter().map(|item| item.id.as_str()).collect();
    let evidence = collected.completeness.evidence().ok_or("a complete inventory carries evidence")?;
    // A complete inventory with nothing unowned (a small seed) leaves nothing to archive.
    if ids.is_empty() {
        println!("no unowned account: nothing to archive");
    } else {
        let archived: Value = admin
            .post("/service-accounts/archive", &json!({"ids": ids, "evidence": evidence}))
            .await
            .map_err(|e| format!("the archive was refused: {e:?}"))?;
        let done: Vec<&str> = archived["archived"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        println!("archived {} accounts at snapshot {}", done.len(), archived["snapshot"].as_str().unwrap_or("?"));
        if done != ids {
            return Err(format!("the archive answered {done:?}, not the {} ids sent", ids.len()));
        }
    }
    let after = collect(&admin).await?;
    println!("unowned accounts left: {}\n", after.items.len());
    if !after.completeness.is_complete() || !after.items.is_empty() {
        return Err(format!("admin still finds {} unowned accounts after the archive", after.items.len()));
    }

    println!("-- 3. north again: now it sees nothing, and an empty incomplete answer still proves nothing");
    let before = running.state.store.fingerprint().await.map_err(|e| e.to_string())?;
    let seen = refuse(&north).await?;
    if seen != 0 {
        return Err(format!("north still sees {seen} unowned accounts after the archive"));
    }
    if running.state.store.fingerprint().await.map_err(|e| e.to_string())? != before {
        return Err("north's tour changed the database".into());
    }
    println!("nothing changed");
    running.stop().await.map_err(|e| e.to_string())?;
    Ok(ids.len())
}

/// Collects as a credential whose inventory cannot be complete; `decide` must refuse. Prints the
/// approval request; returns how many accounts it saw.
async fn refuse(client: &ServiceClient) -> Result<usize, String> {
    let collected = collect(client).await?;
    let decision = decide(&collected, Intent::Mutate);
    println!("decide(.., Mutate) = {decision:?}");
    if decision == Decision::Proceed {
        return Err("an incomplete inventory must not allow the cleanup".into());
    }
    let request = ApprovalRequest::new(ACTION, "all unowned service accounts, every tenant", collected.envelope())
        .evidence_required();
    println!("\n{request}");
    println!("as JSON:\n{}", serde_json::to_string_pretty(&request.to_json()).unwrap_or_default());
    Ok(collected.items.len())
}

/// Collects every unowned account the client can read, printing the verdict.
async fn collect(client: &ServiceClient) -> Result<Collected<ListItem>, String> {
    let listing = client.pages::<ListItem>("/service-accounts", &[("owner", "none"), ("page_size", "100")]);
    let collected = collect_all(|cursor| listing.fetch(cursor), CollectLimits::default())
        .await
        .map_err(|e| format!("collecting failed: {e:?}"))?;
    println!(
        "collected {} pages: {}",
        collected.pages_fetched(),
        verdict(&collected.completeness, collected.items.len())
    );
    Ok(collected)
}
