//! The cleanup agent: archives unowned service accounts only on complete evidence.
//!
//! ```sh
//! cargo run --example cleanup_agent -- --server http://127.0.0.1:3000 --token admin
//! ```
//!
//! It collects every unowned account (`GET /service-accounts?owner=none`) with
//! `collect_all`, asks `decide(.., Intent::Mutate)`, and
//! - on `Proceed` archives exactly the collected ids with the inventory's evidence
//!   (`POST /service-accounts/archive`) and exits 0;
//! - otherwise prints the approval request (why the evidence is incomplete, what can
//!   be done), changes nothing and exits 2.
//!
//! Any error (bad arguments, unreachable server, a refused request) exits 1.

use std::process::ExitCode;
use std::time::Duration;

use completeness::client::explain::verdict;
use completeness::client::http::ServiceClient;
use completeness::client::{CollectLimits, Collected, collect_all};
use completeness::{ApprovalRequest, Decision, Intent, decide};
use serde_json::{Value, json};

const USAGE: &str = "usage: cleanup_agent --server URL --token NAME [--page-size N] [--max-pages N] \
                     [--max-items N] [--deadline-secs S] [--json]";

/// What the agent was asked to do.
struct Options {
    server: String,
    token: String,
    page_size: Option<String>,
    limits: CollectLimits,
    json: bool,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut args = args.peekable();
    let (mut server, mut token, mut page_size, mut json) = (None, None, None, false);
    let mut limits = CollectLimits { max_pages: 200, max_items: 100_000, deadline: Duration::from_secs(60) };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| text.parse::<u64>().map_err(|_| format!("{flag}: '{text}' is not a number"));
        match flag.as_str() {
            "--server" => server = Some(value()?),
            "--token" => token = Some(value()?),
            "--page-size" => page_size = Some(number(value()?)?.to_string()),
            "--max-pages" => limits.max_pages = number(value()?)?,
            "--max-items" => limits.max_items = number(value()?)?,
            "--deadline-secs" => limits.deadline = Duration::from_secs(number(value()?)?),
            "--json" => json = true,
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    Ok(Options {
        server: server.ok_or_else(|| format!("--server is required\n{USAGE}"))?,
        token: token.ok_or_else(|| format!("--token is required\n{USAGE}"))?,
        page_size,
        limits,
        json,
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(1);
        }
    };
    match run(&options).await {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("cleanup_agent: {message}");
            ExitCode::from(1)
        }
    }
}

/// Collects, decides, and acts; returns the exit code.
async fn run(options: &Options) -> Result<u8, String> {
    let client = ServiceClient::new(&options.server, &options.token).map_err(|e| e.to_string())?;
    let mut query = vec![("owner", "none")];
    if let Some(size) = &options.page_size {
        query.push(("page_size", size.as_str()));
    }
    let listing = client.pages::<Value>("/service-accounts", &query);
    let collected: Collected<Value> =
        collect_all(|cursor| listing.fetch(cursor), options.limits).await.map_err(|e| e.to_string())?;

    println!("{}", verdict(&collected.completeness, collected.items.len()));
    println!("pages fetched: {}", collected.pages_fetched());
    let decision = decide(&collected, Intent::Mutate);
    println!("decision for archiving: {}", serde_json::to_value(decision).unwrap_or(Value::Null));

    match (decision, collected.completeness.evidence()) {
        (Decision::Proceed, Some(evidence)) => archive(&client, &collected, evidence).await,
        _ => {
            let scope = format!("unowned service accounts (owner=none) visible to credential '{}'", options.token);
            let request = ApprovalRequest::new("archive every unowned service account", scope, &collected);
            if options.json {
                let text = serde_json::to_string_pretty(&request.to_json()).map_err(|e| e.to_string())?;
                println!("{text}");
            } else {
                print!("{request}");
            }
            println!("nothing was changed.");
            Ok(2)
        }
    }
}

/// Archives exactly the collected ids with the inventory's evidence.
async fn archive(client: &ServiceClient, collected: &Collected<Value>, evidence: &str) -> Result<u8, String> {
    let ids: Vec<&str> = collected.items.iter().filter_map(|item| item["id"].as_str()).collect();
    if ids.len() != collected.items.len() {
        return Err("some collected accounts have no string id; refusing to guess".to_owned());
    }
    if ids.is_empty() {
        println!("the complete inventory holds no unowned accounts: nothing to archive.");
        return Ok(0);
    }
    let body = json!({"ids": ids, "evidence": evidence});
    let answer: Value = client.post("/service-accounts/archive", &body).await.map_err(|e| e.to_string())?;
    println!("archived {} accounts with evidence from snapshot {}:", ids.len(), snapshot(collected));
    println!("{}", serde_json::to_string_pretty(&answer).map_err(|e| e.to_string())?);
    Ok(0)
}

fn snapshot(collected: &Collected<Value>) -> String {
    collected.completeness.scope().snapshot.clone().unwrap_or_else(|| "(none)".to_owned())
}
