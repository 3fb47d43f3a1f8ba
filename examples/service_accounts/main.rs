//! The service_accounts example: an inventory of service accounts on SQLite whose every list,
//! search and count says whether it is complete, and why not.
//!
//! `cargo run --example service_accounts -- --help` lists the flags.

// The service tree is shared with the end-to-end tests and benches, which use parts this binary does not.
#[allow(dead_code)]
mod service;

mod demo;

use std::io::Write;

use service::Config;

const CREDENTIALS: &str = "admin (all tenants), north (tenant north), south (tenant south)";

#[tokio::main]
async fn main() {
    let config = match arguments().and_then(Config::from_args) {
        Ok(Some(config)) => config,
        Ok(None) => {
            if let Err(error) = writeln!(std::io::stdout(), "{}", service::config::USAGE) {
                let _ = writeln!(std::io::stderr(), "error: cannot write the usage: {error}");
                std::process::exit(1);
            }
            return;
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "error: {message}\n{}", service::config::USAGE);
            std::process::exit(2);
        }
    };
    if config.demo {
        match demo::run(config).await {
            Ok(_) => return,
            Err(message) => {
                let _ = writeln!(std::io::stderr(), "demo failed: {message}");
                std::process::exit(1);
            }
        }
    }
    // The tour prints its own story; the request log is the running service's.
    if let Err(message) = service::telemetry::init_logging(config.log_format) {
        let _ = writeln!(std::io::stderr(), "error: {message}");
        std::process::exit(2);
    }
    let log_format = config.log_format;
    let faults = config.faults.clone();
    // The flags read the ring from the file or the environment, when one was given.
    let keys = key_ring_said(&config);
    if let Some(exposed) = config.keys_file.as_deref().and_then(service::keyring::exposure) {
        tracing::warn!("{exposed}");
    }
    if config.keys_file.is_some() && std::env::var_os(service::state::KEYS_VARIABLE).is_some() {
        tracing::warn!(
            "{} is set and not read: --keys-file gives the key ring; unset one of the two",
            service::state::KEYS_VARIABLE
        );
    }
    let store = config.location().map_or_else(|message| message, |location| location.to_string());
    // Listened for from before the start, so that a signal during a long one (seeding a large
    // store) is not met by the default action: the start is not cut halfway (a half-seeded
    // store, a replica checked in and never out), and the service stops once it has started.
    let mut signals = match Signals::listen() {
        Ok(signals) => signals,
        Err(error) => {
            fatal(log_format, &format!("cannot listen for the signals that stop the service: {error}"));
            std::process::exit(1);
        }
    };
    // On a task of its own: seeding holds its thread (SQLite runs in place), and this one
    // hears the signals meanwhile.
    let mut start = tokio::spawn(service::start(config));
    let mut stop_asked = None;
    let started = loop {
        tokio::select! {
            started = &mut start => break started.unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic())),
            signal = signals.next() => {
                if stop_asked.is_some() {
                    fatal(log_format, &format!("{signal} again: stopping at once, during the start-up"));
                    std::process::exit(1);
                }
                tracing::info!(signal, "stopping as soon as the start-up ends (a second signal stops at once)");
                stop_asked = Some(signal);
            }
        }
    };
    let mut running = match started {
        Ok(running) => running,
        Err(error) => {
            fatal(log_format, &error.to_string());
            std::process::exit(match error {
                service::StartError::Config(_) => 2,
                service::StartError::Failed(_) => 1,
            });
        }
    };
    if let Some(signal) = stop_asked {
        tracing::info!(signal, "stopping");
        stop_at_a_second_signal(signals, log_format);
        // Never announced: no balancer sends to it yet, so no `--stop-delay`.
        stopped(running.stop_after(std::time::Duration::ZERO).await, log_format);
        return;
    }
    let url = running.url();
    if let Some(schedule) = &faults {
        // In the log too, where an operator reads the partial answers and outages it causes.
        tracing::warn!(%schedule, "fault injection on (--faults): answers are incomplete, and outages happen, on purpose");
    }
    if log_format == service::telemetry::LogFormat::Json {
        // A machine reads this process's output: what the banner says a person, as one event of
        // the log, where a collector that merges stdout and stderr reads only JSON lines.
        tracing::info!(%url, mcp = %format!("{url}/mcp"), %store, keys, "serving");
    } else {
        banner(&url, &store, &keys, faults.as_ref());
    }
    tokio::select! {
        signal = signals.next() => tracing::info!(signal, "stopping"),
        error = running.failed() => {
            fatal(log_format, &error.to_string());
            std::process::exit(1);
        }
    }
    stop_at_a_second_signal(signals, log_format);
    stopped(running.stop().await, log_format);
}

/// The last line of a stop: `stopped`, or the server's failure, which exits 1.
fn stopped(outcome: std::io::Result<()>, log_format: service::telemetry::LogFormat) {
    match outcome {
        Ok(()) => tracing::info!("stopped"),
        Err(error) => {
            fatal(log_format, &format!("the server failed while stopping: {error}"));
            std::process::exit(1);
        }
    }
}

/// A second signal stops at once: whoever sends it does not want to wait for the open
/// connections or the check-out.
fn stop_at_a_second_signal(mut signals: Signals, log_format: service::telemetry::LogFormat) {
    tokio::spawn(async move {
        let signal = signals.next().await;
        fatal(
            log_format,
            &format!("{signal} again: stopping at once, without waiting for open connections or checking out"),
        );
        std::process::exit(1);
    });
}

/// The banner's line about the cursor and evidence key ring: where it comes from and its key ids
/// (never a secret), the signing one first, so that an operator rotating keys sees which ring
/// each replica holds.
fn key_ring_said(config: &service::Config) -> String {
    let Some(ring) = &config.cursor_keys else {
        return format!(
            "cursor and evidence keys: ephemeral (set {}=kid:base64key or --keys-file to keep them valid across \
             restarts)",
            service::state::KEYS_VARIABLE
        );
    };
    let from = match &config.keys_file {
        Some(file) => format!("--keys-file {}", file.display()),
        None => service::state::KEYS_VARIABLE.to_owned(),
    };
    let others: Vec<&str> = ring.key_ids().skip(1).collect();
    let accepted = if others.is_empty() { String::new() } else { format!(", also accepting {}", others.join(", ")) };
    format!("cursor and evidence keys from {from}: signing with {}{accepted}", ring.active_key_id())
}

/// The command line without the program name; an argument that is not UTF-8 is refused by
/// position (every flag and value here is text; a path too must be written in UTF-8).
fn arguments() -> Result<Vec<String>, String> {
    std::env::args_os()
        .skip(1)
        .enumerate()
        .map(|(at, argument)| {
            argument
                .into_string()
                .map_err(|argument| format!("argument {} ({}) is not valid UTF-8", at + 1, argument.to_string_lossy()))
        })
        .collect()
}

/// Writes why the service stops, once the log is installed in `format`. Under `--log-format
/// json` it is an `ERROR` event of the log, so that every line of standard error is a JSON
/// object a log collector reads; in the human format it stays the plain `error: MESSAGE` line
/// the flag errors are written as. It is that line too when `RUST_LOG` filters the event out:
/// the reason the process exits must reach the operator.
fn fatal(format: service::telemetry::LogFormat, message: &str) {
    if format == service::telemetry::LogFormat::Json && tracing::enabled!(tracing::Level::ERROR) {
        tracing::error!("{message}");
    } else {
        let _ = writeln!(std::io::stderr(), "error: {message}");
    }
}

/// The banner of the human format, on standard output: where the service listens, its store,
/// its credentials and key ring, and requests to try.
fn banner(url: &str, store: &str, keys: &str, faults: Option<&completeness::testing::faults::Schedule>) {
    say(&format!("service_accounts listening on {url} (MCP tools over streamable HTTP at {url}/mcp)"));
    say(&format!("store: {store}"));
    say(&format!("credentials (Authorization: Bearer NAME): {CREDENTIALS}"));
    if let Some(schedule) = faults {
        say(&format!(
            "FAULT INJECTION ON (--faults, {schedule}): REST and MCP answers are incomplete on purpose; a REST request names one with the header {}: CODE",
            completeness::testing::faults::FAULT_HEADER
        ));
    }
    say(keys);
    say(&format!("metrics and readiness (no credential needed): {url}/metrics, {url}/ready"));
    say("try:");
    say(&format!("  curl -s -H 'Authorization: Bearer admin' '{url}/service-accounts?owner=none&page_size=5'"));
    say(&format!("  curl -s -H 'Authorization: Bearer north' '{url}/service-accounts?owner=none&tenant=south'"));
    say(&format!("  curl -s -H 'Authorization: Bearer admin' '{url}/search?q=svc-north-0004&time_budget_ms=50'"));
    say(&format!("  cargo run --example cleanup_agent -- --transport mcp --server {url} --token north"));
}

/// Writes a line of the banner. A reader that went away (`| head -3`) does not stop the
/// service: what it serves does not depend on the banner being read.
fn say(line: &str) {
    let _ = writeln!(std::io::stdout(), "{line}");
}

/// The signals that ask the process to stop, listened for from [`Signals::listen`] on: SIGINT
/// (Ctrl-C), and on Unix SIGTERM, the signal `kill`, systemd and Kubernetes stop a process
/// with, and SIGHUP, the one a closed terminal sends its jobs. Each stops the service cleanly:
/// `/ready` turns 503, and it answers the requests in flight and, on PostgreSQL, checks out of
/// the replicas table. Listened for before the start, so that a signal sent during it (or as
/// soon as the banner is read) is not met by the default action (death, no check-out).
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hangup: tokio::signal::unix::Signal,
}

impl Signals {
    #[cfg(unix)]
    fn listen() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: signal(SignalKind::hangup())?,
        })
    }

    #[cfg(not(unix))]
    fn listen() -> std::io::Result<Signals> {
        Ok(Signals {})
    }

    /// The next signal, by name.
    #[cfg(unix)]
    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.hangup.recv() => "SIGHUP",
        }
    }

    /// The next Ctrl-C, elsewhere than on Unix.
    #[cfg(not(unix))]
    async fn next(&mut self) -> &'static str {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}
