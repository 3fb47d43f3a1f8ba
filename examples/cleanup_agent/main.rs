//! The cleanup agent: archives unowned service accounts only on complete evidence.
//!
//! ```sh
//! cargo run --example cleanup_agent -- --server http://127.0.0.1:3000 --token admin
//! cargo run --example cleanup_agent -- --transport mcp --server http://127.0.0.1:3000 --token admin
//! ```
//!
//! It collects every unowned account (`GET /service-accounts?owner=none`, or over MCP the
//! `list_service_accounts` tool of `/mcp` with owner `none`) with
//! `collect_all`, asks `decide(.., Intent::Mutate)`, and
//! - on `Proceed` archives exactly the collected ids with the inventory's evidence
//!   (`POST /service-accounts/archive`, or the `archive_service_accounts` tool) and exits 0;
//! - otherwise prints the approval request (why the evidence is incomplete, what can
//!   be done), changes nothing and exits 2.
//!
//! Any error (bad arguments, unreachable server, a server that does not answer a request within
//! `--timeout-secs`, 30 by default, a refused request) exits 1; so does an answer that is not
//! the inventory asked for, whatever it says of itself (another scope, the rest of a traversal,
//! an account twice or one that is owned).
//!
//! A read of the inventory refused in a way that may be retried (contract §7: a 5xx, or a 429
//! with `Retry-After`, with a problem or, from a proxy in front of the service, without one; an
//! outage of the service's database is a 503 with `Retry-After: 5`),
//! on its first page or any later one, is not the end: the agent waits as long as the answer
//! asks (`Retry-After`, or a `retry_after` continuation in the problem; 5 s for a 5xx that names
//! no wait) and reads the inventory again from its first page, a new traversal whose pages are
//! never merged with the ones read before the refusal (contract §2.4). It reads it
//! [`READS`] times at most and waits at most [`LONGEST_WAIT`] at a time: an answer still refused
//! after the last read, or one that asks for a longer wait, exits 1 with nothing changed. Over
//! MCP, the `initialize` that opens the session is refused the same way while the database is
//! down (the service authenticates against it), and waited out the same way.
//!
//! An archive batch is judged by its answer (contract §5.4): a problem is a refusal, which
//! changed nothing, unless it says `"outcome": "unknown"` (the server could not tell whether the
//! change was made); that, or no answer the agent can read (a dropped connection, a body that
//! does not read), may or may not have been applied, and the agent says to read the inventory
//! again before acting on it. It never sends an archive again by itself; either way it exits 1.
//!
//! `--max-pages`, `--max-items` and `--deadline-secs` bound one run: a read one of them stops is
//! incomplete (`CLIENT_LIMIT_REACHED`), and changes nothing; `--max-items` bounds what a run
//! changes too: a page is read whole, so an inventory can end complete past it, and such an
//! inventory is shown, not archived (exit 2).
//!
//! With `--json`, standard output carries one JSON document (the approval request, the
//! archive's answer, or after an error `{"error", "archived", "outcome"}`: the accounts archived
//! before it, and whether that is all, `unchanged` or `partial`, or the failed batch may have
//! been applied too, `unknown`) and the story goes to standard error.

mod mcp;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use completeness::client::explain::verdict;
use completeness::client::http::{Retries, ServiceClient};
use completeness::client::{CollectLimits, Collected, FetchError, collect_all};
use completeness::{ApprovalRequest, Decision, Intent, Problem, decide};
use serde_json::{Map, Value, json};

use mcp::McpInventory;

const USAGE: &str = "usage: cleanup_agent [--transport rest|mcp] --server URL --token NAME [--page-size N] \
                     [--max-pages N] [--max-items N] [--deadline-secs S] [--timeout-secs S] [--json]\n\
                     On a complete inventory with evidence it ARCHIVES every unowned account it collected; \
                     otherwise it changes nothing and exits 2.\n\
                     A read of the inventory refused for a while (a 5xx, or a 429 with Retry-After: an outage) \
                     is waited out as the answer asks (5 s when a 5xx names no wait) and the inventory read again \
                     from its first page, 3 reads at most; still refused, or asked to wait over 30 s, it exits 1.\n\
                     --max-pages, --max-items, --deadline-secs: limits of one run (default 200 pages, 100000 \
                     items, 60 s). A read they stop changes nothing (exit 2); so does an inventory of more accounts \
                     than --max-items, which a page read whole can pass.\n\
                     Exit codes: 0 archived (or nothing to archive), 2 approval required (nothing changed), 1 an \
                     error (nothing changed, unless it says an archive batch may have been applied).\n\
                     --json: standard output is one JSON document: the approval request (with over_max_items when \
                     a complete inventory is larger than --max-items), the archive's answer, or after an error \
                     {\"error\", \"archived\", \"outcome\": unchanged|partial|unknown}; the story goes to standard \
                     error.";

/// How the agent talks to the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// The REST routes.
    Rest,
    /// The MCP tools at `/mcp`.
    Mcp,
}

/// A connection over one transport.
enum Link {
    Rest(ServiceClient),
    Mcp(McpInventory),
}

/// What the agent was asked to do.
struct Options {
    transport: Transport,
    server: String,
    token: String,
    page_size: Option<String>,
    limits: CollectLimits,
    /// How long one request may take, over either transport.
    timeout: Duration,
    json: bool,
}

/// The options, `None` for `--help`, or why the arguments cannot be used. A flag given twice
/// is refused, not read as its last value: `--token north --token admin` would archive as a
/// credential the operator may not have meant.
fn parse(args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut args = args.peekable();
    let (mut server, mut token, mut page_size, mut json) = (None, None, None, false);
    let mut timeout = ServiceClient::DEFAULT_TIMEOUT;
    let mut transport = Transport::Rest;
    let mut limits = CollectLimits { max_pages: 200, max_items: 100_000, deadline: Duration::from_secs(60) };
    let mut given = std::collections::HashSet::new();
    while let Some(flag) = args.next() {
        if flag.starts_with("--") && !given.insert(flag.clone()) {
            return Err(format!("{flag} is given twice; give it once\n{USAGE}"));
        }
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| {
            let digits = text.strip_prefix('-').unwrap_or(&text);
            let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            let zero = whole && digits.bytes().all(|b| b == b'0');
            match text.parse::<u64>() {
                Ok(n) => Ok(n),
                Err(_) if zero => Ok(0),
                Err(_) if whole && text.starts_with('-') => {
                    Err(format!("{flag}: '{text}' is negative; give a whole number from 1"))
                }
                Err(_) if whole => Err(format!("{flag}: '{text}' is too large; give at most {}", u64::MAX)),
                Err(_) => Err(format!("{flag}: '{text}' is not a whole number")),
            }
        };
        // A limit of zero would stop before the first page, and say nothing useful.
        let at_least_one = |n: u64| if n == 0 { Err(format!("{flag} must be at least 1")) } else { Ok(n) };
        match flag.as_str() {
            "--transport" => {
                transport = match value()?.as_str() {
                    "rest" => Transport::Rest,
                    "mcp" => Transport::Mcp,
                    other => return Err(format!("--transport: '{other}' is not rest or mcp")),
                }
            }
            "--server" => {
                let url = value()?;
                // The URL as it may be shown: without a password it carries.
                let shown = |parsed: &reqwest::Url| {
                    let mut shown = parsed.clone();
                    let _ = shown.set_password(None);
                    shown.to_string()
                };
                match reqwest::Url::parse(&url) {
                    // The credential goes in `Authorization: Bearer`; one in the URL would be
                    // sent as well (as Basic), and the server refuses two.
                    Ok(parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
                        return Err(
                            "--server: the URL carries a user or password; give it without, and the credential \
                             with --token"
                                .to_owned(),
                        );
                    }
                    Ok(parsed) if !matches!(parsed.scheme(), "http" | "https") || !parsed.has_host() => {
                        return Err(format!("--server: '{}' is not an http:// or https:// URL", shown(&parsed)));
                    }
                    // The routes are appended to it: a query or fragment would end up before them.
                    Ok(parsed) if url.contains(['?', '#']) => {
                        return Err(format!(
                            "--server: '{}' has a query or fragment; give the service's base URL, such as {}",
                            shown(&parsed),
                            parsed.origin().ascii_serialization()
                        ));
                    }
                    Ok(_) => server = Some(url),
                    // Not a URL at all; with an `@`, one whose password is not to be shown.
                    Err(_) if url.contains('@') => {
                        return Err("--server: not an http:// or https:// URL (not shown: it has an `@`, after \
                                    which a password may be)"
                            .to_owned());
                    }
                    Err(_) => return Err(format!("--server: '{url}' is not an http:// or https:// URL")),
                }
            }
            "--token" => {
                let name = value()?;
                // It goes into an `Authorization` header, which takes visible ASCII only.
                if name.is_empty() || !name.bytes().all(|byte| byte.is_ascii_graphic()) {
                    return Err("--token: a credential name is visible ASCII, without spaces".to_owned());
                }
                token = Some(name);
            }
            "--page-size" => page_size = Some(at_least_one(number(value()?)?)?.to_string()),
            "--max-pages" => limits.max_pages = at_least_one(number(value()?)?)?,
            "--max-items" => limits.max_items = at_least_one(number(value()?)?)?,
            "--deadline-secs" => limits.deadline = Duration::from_secs(at_least_one(number(value()?)?)?),
            "--timeout-secs" => timeout = Duration::from_secs(at_least_one(number(value()?)?)?),
            "--json" => json = true,
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown argument '{other}'\n{USAGE}")),
        }
    }
    Ok(Some(Options {
        transport,
        server: server.ok_or_else(|| format!("--server is required\n{USAGE}"))?,
        token: token.ok_or_else(|| format!("--token is required\n{USAGE}"))?,
        page_size,
        limits,
        timeout,
        json,
    }))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let options = match arguments().and_then(|args| parse(args.into_iter())) {
        Ok(Some(options)) => options,
        Ok(None) => {
            if let Err(error) = writeln!(std::io::stdout(), "{USAGE}") {
                let _ = writeln!(std::io::stderr(), "cleanup_agent: cannot write the usage: {error}");
                return ExitCode::from(1);
            }
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "{message}");
            // Asked for JSON, a program reads standard output even when the arguments are refused
            // (the why, without the usage text that follows it).
            if std::env::args_os().any(|argument| argument == "--json") {
                let why = message.lines().next().unwrap_or_default().to_owned();
                Out { json: true }.result(&Failed::from(why).document());
            }
            return ExitCode::from(1);
        }
    };
    match run(&options).await {
        Ok(code) => ExitCode::from(code),
        Err(failed) => {
            failed.tell(Out { json: options.json });
            ExitCode::from(1)
        }
    }
}

/// Why the tour ended in an error (exit 1), and what it had archived by then: the accounts of
/// the batches before the one that failed, and whether that one may have been applied.
#[derive(Debug)]
struct Failed {
    message: String,
    archived: Vec<Value>,
    /// The failed batch may or may not have been applied.
    unknown: bool,
}

impl From<String> for Failed {
    /// An error before anything was archived.
    fn from(message: String) -> Failed {
        Failed { message, archived: Vec::new(), unknown: false }
    }
}

impl Failed {
    /// Says it: the message on standard error; the accounts archived before it, by id, in the
    /// story; with `--json`, standard output's one document, `{"error", "archived", "outcome"}`,
    /// whose `outcome` is `unchanged` (nothing archived), `partial` (exactly `archived`) or
    /// `unknown` (`archived`, and the failed batch may have been too).
    fn tell(self, out: Out) {
        write_ignoring_closed(std::io::stderr(), &format!("cleanup_agent: {}", self.message));
        if !self.archived.is_empty() {
            let ids: Vec<String> =
                self.archived.iter().map(|id| id.as_str().map_or_else(|| id.to_string(), str::to_owned)).collect();
            out.say(&format!("archived before the error ({}): {}", ids.len(), listed(&ids)));
        }
        if out.json {
            out.result(&self.document());
        }
    }

    /// The JSON document of `--json`: `{"error", "archived", "outcome"}`.
    fn document(&self) -> String {
        let outcome = match (self.unknown, self.archived.is_empty()) {
            (true, _) => "unknown",
            (false, true) => "unchanged",
            (false, false) => "partial",
        };
        let document = json!({"error": self.message, "archived": self.archived, "outcome": outcome});
        serde_json::to_string_pretty(&document).unwrap_or_else(|_| document.to_string())
    }
}

/// The command line without the program name; an argument that is not UTF-8 is refused by
/// position, not a panic.
fn arguments() -> Result<Vec<String>, String> {
    std::env::args_os()
        .skip(1)
        .enumerate()
        .map(|(at, argument)| {
            argument.into_string().map_err(|argument| {
                format!("argument {} ({}) is not valid UTF-8\n{USAGE}", at + 1, argument.to_string_lossy())
            })
        })
        .collect()
}

/// Where the agent writes: the story, and the result a program reads (`--json`: only JSON on
/// standard output, the story on standard error). A reader that closes its end early (`| head`)
/// does not stop the agent: what it does does not depend on being watched.
#[derive(Clone, Copy)]
struct Out {
    json: bool,
}

impl Out {
    /// A line of the story.
    fn say(self, text: &str) {
        if self.json {
            write_ignoring_closed(std::io::stderr(), text)
        } else {
            write_ignoring_closed(std::io::stdout(), text)
        }
    }

    /// The result: the approval request or the archive's answer.
    fn result(self, text: &str) {
        write_ignoring_closed(std::io::stdout(), text);
    }
}

/// Writes `text` and a newline; a closed pipe is not an error here, any other failure is reported once.
fn write_ignoring_closed(mut to: impl std::io::Write, text: &str) {
    if let Err(error) = writeln!(to, "{text}")
        && error.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(std::io::stderr(), "cleanup_agent: cannot write: {error}");
    }
}

/// Collects, decides, and acts; returns the exit code.
async fn run(options: &Options) -> Result<u8, Failed> {
    let link = match options.transport {
        Transport::Rest => Link::Rest(
            ServiceClient::with_timeout(&options.server, &options.token, options.timeout).map_err(|e| e.to_string())?,
        ),
        Transport::Mcp => {
            let connect = || McpInventory::connect(&options.server, &options.token, options.timeout);
            Link::Mcp(retried(&SESSION, Out { json: options.json }, connect).await?)
        }
    };
    let outcome = tour(&link, options).await;
    if let Link::Mcp(session) = link {
        session.close().await;
    }
    outcome
}

/// The same tour over either transport.
async fn tour(link: &Link, options: &Options) -> Result<u8, Failed> {
    let out = Out { json: options.json };
    let collected = inventory(link, options, out).await?;
    answers_the_question(&collected).map_err(|why| format!("{why}; nothing was changed"))?;

    out.say(&verdict(&collected.completeness, collected.items.len()));
    out.say(&format!("pages fetched: {}", collected.pages_fetched()));
    let decision = decide(&collected, Intent::Mutate);
    // `--max-items` bounds what one run changes as well as what it reads: a page is read whole,
    // so a traversal can end complete past it (the page that passed it was its last). Such an
    // inventory is complete, and shown as such, but not archived. (One the limit stopped is
    // incomplete, and says so itself.)
    let (held, max_items) = (collected.items.len(), options.limits.max_items);
    let over_limit = collected.completeness.is_complete() && held as u64 > max_items;
    let held_back = if over_limit { format!(", held back by --max-items {max_items}") } else { String::new() };
    let decided = serde_json::to_value(decision).unwrap_or(Value::Null);
    out.say(&format!("decision for archiving: {decided}{held_back}"));

    match (decision, collected.completeness.evidence()) {
        (Decision::Proceed, Some(evidence)) if !over_limit => archive(link, &collected, evidence, out).await,
        _ => {
            // The scope the action is for, whatever this credential reads of it: a credential that
            // reads part of it is why the inventory is incomplete, not a narrower target.
            let scope = "every unowned service account (owner=none), every tenant";
            // The archive takes evidence only: acting on the ids read so far is no option.
            let request =
                ApprovalRequest::new("archive every unowned service account", scope, &collected).evidence_required();
            let limit = over_limit.then(|| {
                format!(
                    "The inventory holds {held} unowned accounts, more than --max-items {max_items}: one run archives \
                     at most that many. Raise --max-items to archive them."
                )
            });
            if options.json {
                let mut document = request.to_json();
                if let Some(limit) = &limit {
                    document["over_max_items"] = json!({"accounts": held, "max_items": max_items, "why": limit});
                }
                out.result(&serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?);
            } else {
                out.say(request.to_string().trim_end());
            }
            if let Some(limit) = &limit {
                out.say(limit);
            }
            out.say("nothing was changed.");
            Ok(2)
        }
    }
}

/// The most times the agent reads the inventory: the first read and two more after refusals
/// that may be retried.
const READS: u32 = 3;

/// The longest the agent waits before it reads the inventory again; an answer that asks for a
/// longer wait ends the tour instead.
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// The wait after a server error (5xx) that names none.
const UNNAMED_WAIT: Duration = Duration::from_secs(5);

/// Reads the whole inventory ([`traverse`]); a read refused in a way that may be retried
/// ([`Retry::after`]) is waited out, and the inventory read again from its first page:
/// a new traversal, of which nothing read before the refusal is part (contract §2.4: a retry is
/// a new attempt, never merged with the old one). [`READS`] reads at most, none after a wait
/// longer than [`LONGEST_WAIT`].
///
/// `collect_all` ends on the first refusal and drops what it read. Over REST the library's
/// `PageFetcher::retrying` could ask the refused page again and go on; the agent starts over
/// instead, the one way it has over both transports (its MCP pages come from tool calls).
async fn inventory(link: &Link, options: &Options, out: Out) -> Result<Collected<Value>, String> {
    retried(&INVENTORY, out, || traverse(link, options)).await
}

/// A step of the tour that a refusal may make the agent wait out and take again, in the words
/// it says so with.
struct Step {
    /// What was refused: "reading the inventory".
    doing: &'static str,
    /// What follows the wait: "reading it again from its first page".
    again: &'static str,
    /// One try: "read".
    each: &'static str,
    /// What the next try keeps of the last one, after a `;`, when anything is to be said.
    kept: &'static str,
}

/// Reading the whole inventory ([`inventory`]).
const INVENTORY: Step = Step {
    doing: "reading the inventory",
    again: "reading it again from its first page",
    each: "read",
    kept: "; nothing read before is kept",
};

/// Opening the MCP session: its `initialize` is refused like a read while the service's database
/// cannot be reached (authentication reads it), and waited out the same way.
const SESSION: Step = Step { doing: "opening the MCP session", again: "opening it again", each: "attempt", kept: "" };

/// Takes `step` with `attempt`; a refusal that may be retried ([`Retry::after_error`]) is waited
/// out and the step taken again, [`READS`] times at most, none after a wait longer than
/// [`LONGEST_WAIT`]. Any other failure, or the last refusal, is the error.
async fn retried<T, F: Future<Output = Result<T, FetchError>>>(
    step: &Step,
    out: Out,
    mut attempt: impl FnMut() -> F,
) -> Result<T, String> {
    let mut each = 1;
    loop {
        let refused = match attempt().await {
            Ok(done) => return Ok(done),
            Err(error) => error,
        };
        let Some(Retry { wait, named }) = Retry::after_error(&refused) else {
            return Err(refused.to_string());
        };
        if wait > LONGEST_WAIT {
            return Err(format!(
                "{refused}; it asks to be asked again in {} s, longer than the agent waits ({} s): nothing was \
                 changed. Run the agent again later",
                wait.as_secs(),
                LONGEST_WAIT.as_secs()
            ));
        }
        if each == READS {
            return Err(format!(
                "{refused}; {} was refused {READS} times, with the waits asked between: nothing was changed. Run \
                 the agent again later",
                step.doing
            ));
        }
        each += 1;
        let asked = if named { "as asked" } else { "(no wait named)" };
        out.say(&format!(
            "{} was refused ({refused}); waiting {} s {asked}, then {} ({} {each} of {READS}{})",
            step.doing,
            wait.as_secs(),
            step.again,
            step.each,
            step.kept
        ));
        tokio::time::sleep(wait).await;
    }
}

/// One traversal of the inventory, from its first page, over the link's transport.
async fn traverse(link: &Link, options: &Options) -> Result<Collected<Value>, FetchError> {
    match link {
        Link::Rest(client) => {
            let mut query = vec![FILTER];
            if let Some(size) = &options.page_size {
                query.push(("page_size", size.as_str()));
            }
            let listing = client.pages::<Value>("/service-accounts", &query);
            collect_all(|cursor| listing.fetch(cursor), options.limits).await
        }
        Link::Mcp(session) => {
            let mut arguments = Map::new();
            arguments.insert(FILTER.0.to_owned(), json!(FILTER.1));
            if let Some(size) = &options.page_size {
                arguments.insert("page_size".to_owned(), json!(size.parse::<u64>().unwrap_or(0)));
            }
            collect_all(|cursor| session.page(&arguments, cursor), options.limits).await
        }
    }
}

/// How the agent asks again after a refusal: the library's rule (contract §7: a 5xx, or a 429
/// that names a wait; the longer of `Retry-After` and a `retry_after` continuation; never after
/// a continuation that asks for something else first), with no bound of its own on the wait:
/// [`inventory`] compares it with [`LONGEST_WAIT`] to say why it stops.
const RETRIES: Retries = Retries { attempts: READS - 1, longest_wait: Duration::MAX, unnamed_wait: UNNAMED_WAIT };

/// A refused read that may be sent again: after how long, and whether the answer named the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Retry {
    /// How long to wait first.
    wait: Duration,
    /// True when the answer named the wait; otherwise it is [`UNNAMED_WAIT`].
    named: bool,
}

impl Retry {
    /// The retry `problem` allows, when it allows one ([`RETRIES`]).
    fn after(problem: &Problem) -> Option<Retry> {
        let wait = RETRIES.wait_after(problem)?;
        // A continuation of any other kind than `retry_after` allows none: one that is there named the wait.
        let named = problem.retry_after().is_some() || problem.extension("continuation").is_some();
        Some(Retry { wait, named })
    }

    /// The retry a refused read allows: its problem's ([`Retry::after`]), or a 5xx or `429`
    /// without a problem body (a proxy's page) by its status and `Retry-After` alike.
    fn after_error(error: &FetchError) -> Option<Retry> {
        match error {
            FetchError::Problem(problem) => Retry::after(problem),
            FetchError::Unserved { retry_after, .. } => {
                RETRIES.wait_after_error(error).map(|wait| Retry { wait, named: retry_after.is_some() })
            }
            _ => None,
        }
    }
}

/// The resource the agent asks for.
const RESOURCE: &str = "service_accounts";
/// The one filter it asks with: unowned accounts.
const FILTER: (&str, &str) = ("owner", "none");

/// Whether `collected` answers the agent's question before it is judged at all: whatever an
/// answer says of itself, `complete: true` covers only the scope it names, and the archive acts
/// on its items. So the scope must be the one asked for (contract §8: another resource, or a
/// filter dropped or added, is another question), the traversal must start at a first page (a
/// page that says it was reached with a cursor is only the rest of one), each account must come
/// once (a traversal that serves one twice went over the same ground, and may have skipped
/// some), and each must be unowned (the filter asked).
fn answers_the_question(collected: &Collected<Value>) -> Result<(), String> {
    let (name, value) = FILTER;
    if let Some(difference) = collected.completeness.scope().differs_from(RESOURCE, &[(name, json!(value))]) {
        return Err(format!(
            "the service answered another question than every {RESOURCE} with {name}={value}: {difference}"
        ));
    }
    if collected.completeness.page().is_some_and(|page| page.resumed == Some(true)) {
        return Err("the service answered the first request with a page it says was reached with a cursor \
                    (`page.resumed`): the rest of a traversal, not the inventory"
            .to_owned());
    }
    if let Some(twice) = collected.first_repeated(|item| item["id"].to_string()) {
        let id = twice["id"].as_str().map_or_else(|| twice["id"].to_string(), |id| format!("'{id}'"));
        return Err(format!(
            "the inventory holds {id} twice: its pages went over the same ground, and may have skipped accounts"
        ));
    }
    for item in &collected.items {
        let id = item["id"].as_str().ok_or_else(|| format!("an account without a string id: {item}"))?;
        match item.get(name) {
            Some(Value::Null) => {}
            Some(owner) => {
                return Err(format!("the inventory of unowned accounts holds '{id}', whose {name} is {owner}"));
            }
            None => {
                return Err(format!(
                    "the inventory holds '{id}' without its {name}: whether it is unowned is not said"
                ));
            }
        }
    }
    Ok(())
}

/// Why a batch did not come back archived: the one reading of an archive's failure, over
/// either transport.
enum NotArchived {
    /// The service answered with a problem that does not say its outcome is unknown: a refusal,
    /// which changes nothing (contract §5.4), whatever its status: a 503 of an outage too.
    Refused(Problem),
    /// The service answered that it cannot tell whether the change was made
    /// (`"outcome": "unknown"`): it may have been archived or not.
    Unknown(Problem),
    /// No answer the agent could read (a dropped connection, a timeout, a body that does not
    /// read): it may have been archived or not.
    Unread(String),
    /// The request was not sent (it could not be built): nothing was archived.
    NotSent(String),
}

impl NotArchived {
    /// True when the batch may have been applied: an answer that says its outcome is unknown, or
    /// none the agent could read.
    fn may_have_changed(&self) -> bool {
        matches!(self, NotArchived::Unknown(_) | NotArchived::Unread(_))
    }

    /// The archive request that failed with `error`.
    fn of(error: FetchError) -> NotArchived {
        match error {
            FetchError::Problem(problem) if outcome_unknown(&problem) => NotArchived::Unknown(problem),
            FetchError::Problem(problem) => NotArchived::Refused(problem),
            FetchError::Setup(why) => NotArchived::NotSent(why),
            other => NotArchived::Unread(other.to_string()),
        }
    }

    /// What it means for batch `n` of `batches`, `before` accounts having been archived by the
    /// batches before it.
    fn explain(self, n: usize, batches: usize, before: usize) -> String {
        let changed_nothing = |what: String| match before {
            0 => format!("batch {n} of {batches} {what}: nothing was archived"),
            // The service's "nothing was changed" is of this batch's request only.
            _ => format!(
                "batch {n} of {batches} {what}: that batch archived none of its accounts, but the {before} accounts \
                 of the batches before it were archived"
            ),
        };
        let may_have_changed = |what: String| {
            format!(
                "batch {n} of {batches} {what}: it may or may not have been archived; {before} accounts were \
                 archived before it. Read the inventory again before acting on it"
            )
        };
        match self {
            NotArchived::Refused(problem) => {
                let later = match Retry::after(&problem) {
                    Some(Retry { wait, named: true }) => format!(
                        ". The service asks to be asked again in {} s: run the agent again then, and it reads a \
                         fresh inventory",
                        wait.as_secs()
                    ),
                    _ => String::new(),
                };
                format!("{}{}{later}", changed_nothing(format!("was refused ({problem})")), named_targets(&problem))
            }
            NotArchived::Unknown(problem) => {
                may_have_changed(format!("got an answer that its outcome is unknown ({problem})"))
            }
            NotArchived::Unread(why) => may_have_changed(format!("got no answer the agent could read ({why})")),
            NotArchived::NotSent(why) => changed_nothing(format!("was not sent ({why})")),
        }
    }
}

/// The accounts a refusal names in `targets` (those that changed since the inventory, or were
/// not in it), as a sentence; empty when it names none.
fn named_targets(problem: &Problem) -> String {
    let ids: Vec<String> = problem.targets().into_iter().map(str::to_owned).collect();
    if ids.is_empty() { String::new() } else { format!(". The accounts it names: {}", listed(&ids)) }
}

/// The first ten of `ids`, and how many more (`--json` gives them all).
fn listed(ids: &[String]) -> String {
    match ids.len() {
        n if n <= 10 => ids.join(", "),
        n => format!("{} and {} more", ids[..10].join(", "), n - 10),
    }
}

/// True for a problem that says the server cannot tell whether the write was applied
/// (`"outcome": "unknown"`, contract §5.4): the only problem that does not mean "nothing changed".
fn outcome_unknown(problem: &Problem) -> bool {
    problem.extension("outcome").is_some_and(|outcome| outcome == "unknown")
}

/// The most ids one archive request names: the service's limit (`MAX_TARGETS` of its archive
/// route, `maxItems` of its archive tool).
const BATCH: usize = 1000;

/// Archives exactly the collected ids with the inventory's evidence, in batches of [`BATCH`]
/// (each batch is atomic; the evidence covers them all). A refused batch stops the agent with
/// what the batches before it archived.
async fn archive(link: &Link, collected: &Collected<Value>, evidence: &str, out: Out) -> Result<u8, Failed> {
    // Every item has a string id ([`answers_the_question`]).
    let ids: Vec<&str> = collected.items.iter().filter_map(|item| item["id"].as_str()).collect();
    if ids.is_empty() {
        out.say("the complete inventory holds no unowned accounts: nothing to archive.");
        if out.json {
            out.result(&json!({"archived": [], "snapshot": snapshot(collected)}).to_string());
        }
        return Ok(0);
    }
    let mut archived: Vec<Value> = Vec::new();
    let mut last_snapshot = Value::Null;
    let batches = ids.len().div_ceil(BATCH);
    for (n, batch) in ids.chunks(BATCH).enumerate() {
        let answer: Result<Value, FetchError> = match link {
            Link::Rest(client) => {
                let body = json!({"ids": batch, "evidence": evidence});
                client.post("/service-accounts/archive", &body).await
            }
            Link::Mcp(session) => session.archive(batch, evidence).await,
        };
        let answer = answer.map_err(|error| {
            let not_archived = NotArchived::of(error);
            let unknown = not_archived.may_have_changed();
            let message = not_archived.explain(n + 1, batches, archived.len());
            Failed { message, archived: archived.clone(), unknown }
        })?;
        archived.extend(answer["archived"].as_array().cloned().unwrap_or_default());
        last_snapshot = answer["snapshot"].clone();
    }
    out.say(&format!("archived {} accounts with evidence from snapshot {}:", archived.len(), snapshot(collected)));
    let answer = json!({"archived": archived, "snapshot": last_snapshot});
    out.result(&serde_json::to_string_pretty(&answer).map_err(|e| e.to_string())?);
    Ok(0)
}

fn snapshot(collected: &Collected<Value>) -> String {
    collected.completeness.scope().snapshot.clone().unwrap_or_else(|| "(none)".to_owned())
}
