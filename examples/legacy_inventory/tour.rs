//! Shared by `legacy_inventory` and `inventory_migrated`: serve the router, or, with `--tour`,
//! request every route over loopback and print what the audit layer counted.

use std::process::ExitCode;

use axum::Router;
use completeness::audit_layer::{AUDIT_HEADER, AuditLayer};

/// The requests of the tour, one per route.
pub const TOUR: [&str; 5] =
    ["/health", "/api/products", "/api/products/search?q=bolt", "/api/products/p-3", "/api/warehouses"];

/// Serves `app` on `address`, or runs the tour when the first argument is `--tour`.
pub async fn main(app: Router, audit: AuditLayer, address: &str) -> ExitCode {
    // `--tour` or nothing: any other argument (an `--addr` this example does not take, say) is
    // refused, never ignored.
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let tour = match arguments.as_slice() {
        [] => false,
        [only] if only == "--tour" => true,
        _ => {
            eprintln!(
                "error: unexpected arguments {arguments:?}\nusage: [--tour]   (serves on {address}; --tour requests \
                 every route on a loopback port the system picks and prints the audit's counts)"
            );
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(if tour { "127.0.0.1:0" } else { address }).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("error: cannot listen on {address}: {error}");
            return ExitCode::from(2);
        }
    };
    if !tour {
        println!("listening on http://{address}; try: curl -i http://{address}/api/products");
        return match axum::serve(listener, app).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        };
    }
    let Ok(local) = listener.local_addr() else { return ExitCode::FAILURE };
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = reqwest::Client::new();
    for path in TOUR {
        match client.get(format!("http://{local}{path}")).send().await {
            Ok(response) => {
                let flag = response.headers().get(AUDIT_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("-").to_owned();
                println!("GET {path:<30} {} {AUDIT_HEADER}: {flag}", response.status().as_u16());
            }
            Err(error) => {
                eprintln!("error: GET {path}: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let snapshot = audit.snapshot();
    println!("{}", serde_json::to_string_pretty(&snapshot).unwrap_or_default());
    println!("flagged responses: {}", snapshot.flagged());
    ExitCode::SUCCESS
}
