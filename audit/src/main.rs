//! `cargo completeness audit [PATH]`: lists every route of an axum service with a verdict on
//! whether it reports completeness. Exit status: 0, or 1 when `--deny` finds a denied verdict
//! that no baseline lists, or 2 when the audit could not run, when a flag cannot work (`--exclude`
//! of the audited directory or outside it, `--deny stale` without `--baseline`), when it found no
//! route (or `--exclude` left out every one) under `--deny` or `--write-baseline`, or when its
//! report could not be written (a closed pipe, `| head`, only ends the output).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cargo_completeness::model::{Report, Verdict};
use cargo_completeness::report::{self, baseline};
use cargo_completeness::source;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// A line on standard error; one that cannot be written (a closed pipe) is dropped, where
/// `eprintln!` would panic: progress and warnings never end the audit.
macro_rules! note {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Cargo runs `cargo-completeness completeness ...` for `cargo completeness ...`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo", version, about)]
enum Cargo {
    /// Completeness tooling for axum services.
    #[command(subcommand)]
    Completeness(Command),
}

#[derive(Subcommand)]
enum Command {
    /// Lists every route with a verdict: reports completeness, list without completeness,
    /// single resource with a nested collection, unknown, exempt (`Exempt`, or a file service
    /// such as tower-http's `ServeDir`), or not a list.
    Audit(Audit),
}

#[derive(Args)]
struct Audit {
    /// A crate, a workspace (its `Cargo.toml` or directory) or a directory of `.rs` files.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Exit with status 1 while a finding of this kind remains (repeatable).
    #[arg(long, value_enum)]
    deny: Vec<Deny>,
    /// A baseline of known findings: they are reported but do not fail `--deny`. Findings are
    /// keyed by package, so a route known in one service is not known in another; an entry of an
    /// older baseline, without its package, matches only a route no other package has.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the current findings to the `--baseline` file instead of reading it.
    #[arg(long, requires = "baseline")]
    write_baseline: bool,
    /// Leave out findings and skipped files under this path, relative to PATH or absolute (repeatable).
    #[arg(long, value_name = "DIR")]
    exclude: Vec<String>,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, ValueEnum)]
enum Deny {
    /// Lists without completeness.
    List,
    /// Single resources with a nested collection.
    Nested,
    /// Handlers the audit cannot see through.
    Unknown,
    /// Answers that carry a completeness block the completeness layer does not see: a handler
    /// routed with `axum::routing` (no `require_complete`, no events or counters), or an envelope
    /// inside `Json`.
    Unchecked,
    /// Files the audit could not read or parse: their routes were not audited.
    Skipped,
    /// Entries of the `--baseline` that no finding matches any more (fixed, removed or renamed
    /// routes): kept, each would let its route come back unnoticed; write the baseline again.
    Stale,
}

impl Deny {
    /// One line for each thing of this kind `report` holds that no baseline lists: the findings
    /// `--deny` fails on.
    fn denied(self, report: &Report) -> Vec<String> {
        let verdict = match self {
            Deny::List => Some(Verdict::ListWithoutCompleteness),
            Deny::Nested => Some(Verdict::NestedCollection),
            Deny::Unknown => Some(Verdict::Unknown),
            // Reports completeness, with a change to make: the block is not seen on its way out.
            Deny::Unchecked => None,
            Deny::Skipped => {
                return report.skipped.iter().map(|s| format!("skipped {}:{}", s.file, s.line)).collect();
            }
            Deny::Stale => {
                return report.stale_baseline.iter().map(|key| format!("stale baseline entry `{key}`")).collect();
            }
        };
        report
            .findings
            .iter()
            .filter(|f| !f.baselined && verdict.map_or(f.is_unchecked(), |v| f.verdict == v))
            .map(|f| {
                let label = if verdict.is_some() { f.verdict.label() } else { "unchecked" };
                format!("{label}: {} {} {} ({}:{})", f.method, f.path, f.handler, f.file, f.line)
            })
            .collect()
    }
}

/// The stack of the thread the audit runs on. Parsing and following a router are recursive, so
/// a chain of a thousand `.route` calls or a deeply nested expression needs more than the main
/// thread's few megabytes; the memory is only reserved, not used, until something is that deep.
const AUDIT_STACK_BYTES: usize = 64 * 1024 * 1024;

/// The arguments as cargo passes them (`cargo-completeness completeness audit ...`), also when
/// the binary is run by its own name (`cargo-completeness audit ...`), which lacks cargo's
/// subcommand.
fn cargo_arguments(arguments: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut arguments: Vec<_> = arguments.collect();
    if arguments.get(1).is_some_and(|first| first == "audit") {
        arguments.insert(1, "completeness".into());
    }
    arguments
}

fn main() -> ExitCode {
    let Cargo::Completeness(Command::Audit(args)) = Cargo::parse_from(cargo_arguments(std::env::args_os()));
    let audit =
        std::thread::Builder::new().name("audit".to_owned()).stack_size(AUDIT_STACK_BYTES).spawn(move || run(&args));
    let result = match audit {
        Ok(thread) => thread.join().unwrap_or_else(|_| Err("the audit stopped on an internal error".to_owned())),
        Err(error) => Err(format!("cannot start the audit: {error}")),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            note!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// An `--exclude` written as the report writes files: relative to the audited directory `root`
/// (an absolute path under it is made relative), normalised as the reported files are (`./`
/// dropped, `..` resolved, `/` separators), so that `src/../gen` leaves out `gen/x.rs`.
fn exclude_prefix(dir: &str, root: &Path) -> String {
    let path = Path::new(dir);
    match (path.is_absolute(), path.canonicalize(), root.canonicalize()) {
        (true, Ok(path), Ok(root)) => source::relative(&root, &path),
        _ => source::relative(Path::new(""), path),
    }
}

fn run(args: &Audit) -> Result<ExitCode, String> {
    let quiet = args.quiet;
    let mut progress = |files: usize| {
        if !quiet && files.is_multiple_of(100) {
            note!("audit: {files} files parsed");
        }
    };
    // The flags that cannot work, refused before the audit runs.
    if args.deny.contains(&Deny::Stale) && args.baseline.is_none() {
        return Err("--deny stale needs a --baseline to find stale entries in".to_owned());
    }
    let root = source::root_of(&args.path);
    let excludes: Vec<String> = args.exclude.iter().map(|dir| exclude_prefix(dir, root)).collect();
    for (written, dir) in args.exclude.iter().zip(&excludes) {
        if dir.is_empty() {
            return Err(format!(
                "--exclude {written} names the audited directory itself: it would leave everything out"
            ));
        }
        if dir == ".." || dir.starts_with("../") || Path::new(dir).is_absolute() {
            return Err(format!("--exclude {written} is not inside the audited directory {}", root.display()));
        }
    }
    let mut report = cargo_completeness::audit(&args.path, &mut progress)?;
    let under = |file: &str, dir: &str| file == dir || file.starts_with(&format!("{dir}/"));
    for (written, dir) in args.exclude.iter().zip(&excludes) {
        let matches = report.findings.iter().map(|f| &f.file).chain(report.skipped.iter().map(|s| &s.file));
        if !matches.into_iter().any(|file| under(file, dir)) {
            note!("warning: --exclude {written} leaves nothing out: no finding or skipped file is under it");
        }
    }
    let found = report.findings.len();
    let excluded = |file: &str| excludes.iter().any(|dir| under(file, dir));
    // Left out, not gone: their baseline entries are not stale.
    let left_out: Vec<_> = report.findings.iter().filter(|f| excluded(&f.file)).cloned().collect();
    report.findings.retain(|f| !excluded(&f.file));
    report.skipped.retain(|s| !excluded(&s.file));
    // An audit that found no route passes every gate on nothing: a service whose router is
    // built where the audit cannot follow it (in another crate, by a macro, in a struct it
    // does not read), or whose routes `--exclude` all left out, would pass `--deny list` with
    // every list it has; and a baseline written from it would forget every known finding.
    // With `--deny` or `--write-baseline`, an error.
    if report.findings.is_empty() {
        let nothing = match found {
            0 => format!(
                "{}: no route found in {} files: the audit follows the routers the sources build, and saw none \
                 (one built in another crate or by a macro is not seen); audit the crate that builds the router",
                args.path.display(),
                report.files
            ),
            _ => format!("{}: --exclude left out every one of the {found} routes found", args.path.display()),
        };
        if !args.deny.is_empty() {
            return Err(format!("{nothing}; --deny passes no audit of nothing"));
        }
        if args.write_baseline {
            return Err(format!("{nothing}; --write-baseline writes no baseline of nothing (the file is unchanged)"));
        }
        note!("warning: {nothing}");
    }
    if let Some(path) = &args.baseline {
        if args.write_baseline {
            let count = baseline::write(&report, path)?;
            if !quiet {
                note!("audit: wrote {count} findings to {}", path.display());
            }
        }
        for warning in baseline::apply(&mut report, &left_out, path)? {
            note!("{warning}");
        }
    }
    let out = match args.format {
        Format::Table => report::table::render(&report),
        Format::Json => report::json(&report),
        Format::Sarif => report::sarif::render(&report, root),
    };
    // A closed pipe (`| head`) ends the output, not the audit: the exit status still counts.
    // Any other failure (a full disk) leaves a report that is not the audit's: an error, so
    // that a CI step writing it to a file does not pass on an empty one.
    if let Err(error) = writeln!(std::io::stdout().lock(), "{}", out.trim_end())
        && error.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(format!("cannot write the report: {error}"));
    }
    // A kind given twice counts its findings once.
    let mut kinds: Vec<Deny> = Vec::new();
    for kind in &args.deny {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    let denied: Vec<String> = kinds.iter().flat_map(|kind| kind.denied(&report)).collect();
    if !denied.is_empty() {
        // The reason for the exit status, even under `--quiet`: it is the step's failure.
        note!("audit: {} denied by --deny:", denied.len());
        for line in denied {
            note!("  {line}");
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
