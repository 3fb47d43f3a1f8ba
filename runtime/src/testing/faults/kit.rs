//! [`Kit`]: the client conformance kit: a client against a faulted service, many times over.

use std::any::Any;
use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use axum::Router;
use futures_util::FutureExt;

use super::examples::Examples;
use super::fault::Fault;
use super::layer::{FaultLayer, FaultRecord};
use super::schedule::{DEFAULT_PROBABILITY, Schedule};
use crate::contract::field::{Omission, OmittedFields};
use crate::contract::params;
use crate::server::problem::Problem;
use crate::server::query::query_pairs;

/// Where one run of a client goes: the faulted service's base URL (`http://127.0.0.1:PORT`)
/// and the schedule it runs under.
#[derive(Debug, Clone)]
pub struct Target {
    /// The base URL of the service, with the fault layer installed.
    pub url: String,
    /// The schedule of this run.
    pub schedule: Schedule,
}

/// What a client concluded from one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conclusion {
    /// The client concluded it covered the whole scope, and states what it found (e.g. the
    /// sorted ids it holds; everything else it thereby claims absent, or acted on).
    Complete(String),
    /// The client did not conclude, and says what it could not cover (reasons, sources, ...).
    Incomplete(Vec<String>),
}

/// Runs a client against a service with the fault layer, under every fault its routes offer,
/// a reason code none of them declares among them (`FUTURE_REASON`, [`Fault::FutureReason`]),
/// and, where they fit, a filter dropped on the way (`FILTER_DROPPED`, [`Fault::FilterDropped`])
/// and a cursor handed out twice (`CURSOR_REPEATED`, [`Fault::CursorRepeated`])
/// (each reason twice: once as drawn, once with every faulted collection empty,
/// [`Schedule::emptied`]; an aggregate's value is never emptied; a single resource's field left
/// out, `FIELD_OMITTED` ([`Fault::FieldOmitted`]), likewise twice, once with every field it filled with a value
/// left out) and `schedules` seeded schedules, and checks the properties every client of the contract
/// must keep:
///
/// 1. **No claim of completeness on an incomplete answer.** A [`Conclusion::Complete`] must
///    equal what the client concludes with no fault: the layer only removes items (or answers
///    a wider question, `FILTER_DROPPED`, or leaves a single resource's field out,
///    `FIELD_OMITTED`), so any other conclusion took an incomplete answer (or an empty one, or
///    one to another question, or a field left out for a genuine `null`) for the whole scope. And
///    every collection the run read must have finished complete: for each query (a path and
///    its parameters but `cursor`, `page_size`, `time_budget_ms` and `require_complete`), the
///    latest traversal (from its last
///    request without a cursor) ended on a `complete: true` page, with no answer in it
///    incomplete for a reason other than pagination, refused with a problem, stale
///    (contract §3.5), or over another question: an answer whose `scope` does not echo a
///    filter the request asked ([`FaultRecord::unechoed`]: a parameter the route echoes in
///    `scope.filters` answering the request as sent, dropped on the way by `FILTER_DROPPED`)
///    answers a wider one, whatever its `complete` says (contract §8). Nor did a traversal
///    finish in which a page handed out a cursor that a page answering another cursor had
///    handed out before (a server that loops, `CURSOR_REPEATED`, contract §2.5), whether the
///    client stopped there or followed the cursor on to a `complete: true` page; a page that
///    says it is a first page (`page.resumed: false`) starts its traversal over, and the same
///    request sent again (a retry) may hand out what it handed out. A client passes by
///    stopping without concluding complete, or by starting the traversal over. This part is
///    judged from the run's own requests, so
///    it holds for the fault-free run too: a client that never follows a `next_cursor`, or
///    reads a `503` as "empty", fails even when its answer happens to be right. Every read a
///    route declares, a first page or a later one, can be answered with an outage
///    (`SERVICE_UNAVAILABLE`, [`Fault::Unavailable`]): a client passes it by asking again
///    later (after `Retry-After`, at most 5 seconds; a bounded number of times, since under
///    `Schedule::always` every read is one) until the read finishes complete, or by ending
///    without concluding complete (an `Err`, or [`Conclusion::Incomplete`]). Asking again is
///    sending the refused request again (the same method, query and cursor), whose answer
///    takes the refused one's place in its traversal, which goes on from there; or starting
///    the traversal over from its first page. A traversal whose outage was never sent again
///    did not finish, nor did one that went on past it with another cursor (one it had
///    followed before): a client that takes the outage for its end, or steps over the page it
///    refused, fails. A single resource is no collection: its reads (a field left out, an
///    outage) leave no traversal unfinished; the conclusion, which must be the fault-free one,
///    judges what the client made of them (and property 2 a change to the resource after them).
/// 2. **No destructive action on an incomplete answer.** A `DELETE`, `PUT` or `PATCH`, and a
///    `POST` that was not itself answered with a completeness block (a search sent as `POST`
///    is a read), must follow reads that all finished as in property 1: every collection read
///    before it, every query, not only the last one. The kit cannot tell which reads a
///    change depends on, so it holds it to all of them: a read the change does not depend on
///    (one for a report) goes after it. And a `DELETE` or `PUT` (which replaces it whole) of a
///    single resource the run read must not follow a latest read of it that the layer faulted:
///    refused (an outage) or with a field left out (`FIELD_OMITTED`); a client that deletes a
///    record because a field it could not see reads `null` fails, as one that deletes it after
///    an outage does, and one that reads it again first passes. (A `PATCH` changes the fields it
///    names only; fields the service itself leaves out for the credential are its answer, which
///    the fault-free run meets too.)
/// 3. **No endless loop, no endless wait, no panic.** A run may send at most `max_requests`
///    requests and take at most `run_timeout`; past either it is stopped and fails (past
///    `run_timeout`, the kit stops after that run: every later one would likely wait as long). A
///    client that panics fails its run. The timeout is a timer on the client's own task: a
///    client that blocks its thread (a synchronous sleep or request) cannot be stopped.
/// 4. **It reports what it could not cover.** A [`Conclusion::Incomplete`] names something.
/// 5. **A retry waits as long as it was asked to.** A request that repeats an earlier one of
///    the run (the same method, the same query as in property 1, and the same cursor or none)
///    answered with a wait (a `Retry-After` header, in seconds or as an HTTP date, or a
///    `retry_after` continuation in its body, a collection's or a problem's, the layer's or the
///    service's own; the longer when it gave both: [`FaultRecord::wait`]) must
///    arrive no sooner than that many seconds after the answer left the layer (contract §2.4,
///    §7). The request it repeats is the last of them answered before it arrived. A request
///    that continues a traversal with a new cursor, or asks another question, is no retry. The
///    layer takes both times in one process, the answer's before it leaves and the request's
///    once it came: a client that sleeps the full wait after reading the answer always passes.
///
/// What the kit leaves to others: a client that ends with `Err` breaks no property (it did
/// not conclude; report errors yourself); the service's data does not change during a run, so
/// a client that merges a restarted traversal (`TRAVERSAL_RESTARTED`: a cursor answered with
/// the first page again) with the pages it read before (contract §2.5 forbids it), or that
/// starts over after an outage on a later page and keeps the pages read before it, is caught
/// only when that shows in its conclusion (items taken twice in a list), not when it collects
/// into a set; the judge compares requests, not items, so a retry of an outage is taken
/// for the page its cursor asks, whatever the client does with its answer; a refusal a
/// traversal goes on after is one that may be retried (contract §7: a 5xx, the layer's outage
/// or the service's own, or a `429` that names a wait): any other problem in a traversal (a
/// `410`, a `400`) ends it; a `POST` change answered with a completeness block is taken for a read (a search
/// sent as `POST`): answer a change with `Exempt` or send it as `DELETE`, `PUT` or `PATCH`; the conclusion is compared as a string, so it must
/// hold everything the client acted on (the ids it archived, not "archived"); evidence is the
/// server's to check (`RequireEvidence` refuses a change without it); answers to methods other
/// than `GET` are not faulted. A wait (property 5) binds only the same request sent again: a
/// traversal started over from its first page after a later page asked for a wait is another
/// request, and a request body is not compared (a write sent again with another body after a
/// `503` with `Retry-After` is a retry). An answer's scope is held to the filters the layer
/// dropped, not to the question: the kit cannot tell a filter from another parameter but by the
/// route's own echo, so a service whose own answer names another resource, or echoes a filter
/// it did not apply or applies one not asked, is not caught (check `scope` against the question
/// with [`Scope::differs_from`](crate::Scope::differs_from) in the client under test). A loop is
/// seen by the strings of the cursors handed out: a server that goes back to an earlier position
/// with a new string for it (contract §2.5 lets a cursor be signed again) is caught only when
/// that shows in the client's conclusion, or by `max_requests`.
///
/// Each run starts a fresh router from `make_router` on a free loopback port and serves it
/// over real HTTP. A run without faults comes first: it gives the conclusion the others are
/// held to, and the faults the routes offer; when it concludes nothing complete, or its routes
/// offer no fault, the kit fails there, having nothing to check. Each fault that run offered
/// is then forced on every request that offers it (and each reason once more with every faulted
/// page empty), before the seeded runs. A fault that only a later request offers (an expired
/// cursor, when the fault-free traversal is one page; a repeated cursor, when it is two) is met
/// by the seeded runs alone, and [`KitReport::not_covered`] lists it when none drew it: let the
/// fault-free traversal span three pages or more (a small page size) to have each forced. A failure prints its schedule,
/// with the code that replays it ([`Kit::replay`]), and the fault sequence that broke the client. Faults go to requests in the
/// order they arrive, so a replay gives the same faults to a client that sends its requests
/// one after another; one that sends some at once may see them land differently.
///
/// ```no_run
/// use completeness_runtime::testing::faults::{Conclusion, Kit, Target};
///
/// async fn my_client(target: Target) -> Result<Conclusion, String> {
///     // Read `target.url` with the client under test; conclude `Complete` with what it
///     // found only when every answer it used was complete.
///     Ok(Conclusion::Incomplete(vec!["not written yet".to_owned()]))
/// }
///
/// # async fn router() -> axum::Router { axum::Router::new() }
/// # async fn test() {
/// let report = Kit::new(router).schedules(100).run(my_client).await;
/// report.assert_passes();
/// assert!(report.not_covered().is_empty(), "every fault the routes offer was applied");
/// # }
/// ```
pub struct Kit<M> {
    make_router: M,
    schedules: u64,
    first_seed: u64,
    probability: f64,
    max_requests: u64,
    run_timeout: Duration,
    examples: Examples,
}

impl<M> fmt::Debug for Kit<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kit")
            .field("schedules", &self.schedules)
            .field("first_seed", &self.first_seed)
            .field("probability", &self.probability)
            .field("max_requests", &self.max_requests)
            .field("run_timeout", &self.run_timeout)
            .field("examples", &self.examples)
            .finish_non_exhaustive()
    }
}

/// One failing run.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The schedule that broke the client.
    pub schedule: Schedule,
    /// What the client did wrong.
    pub violations: Vec<String>,
    /// Every request of the run and the fault it got.
    pub log: Vec<FaultRecord>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The fault-free run is judged without a truth; every other against it.
        let truth = if self.schedule == Schedule::header_only() { "None" } else { "Some(&truth)" };
        writeln!(
            f,
            "schedule: {} (replay: kit.replay({}, {truth}, &client).await, truth the fault-free conclusion)",
            self.schedule,
            self.schedule.code()
        )?;
        for violation in &self.violations {
            writeln!(f, "  violation: {violation}")?;
        }
        writeln!(f, "  fault sequence:")?;
        for record in &self.log {
            writeln!(f, "    {record}")?;
        }
        Ok(())
    }
}

/// The result of [`Kit::run`].
#[derive(Debug, Clone, Default)]
pub struct KitReport {
    /// Runs made, the fault-free one included.
    pub runs: u64,
    /// The conclusion without faults.
    pub truth: Option<Result<Conclusion, String>>,
    /// Every fault the routes offered on some request.
    pub offered: BTreeSet<Fault>,
    /// Every fault applied in some run.
    pub applied: BTreeSet<Fault>,
    /// The failing runs.
    pub failures: Vec<Failure>,
}

impl KitReport {
    /// The faults offered but never applied: what this kit run could not cover.
    pub fn not_covered(&self) -> Vec<Fault> {
        self.offered.difference(&self.applied).cloned().collect()
    }

    /// Panics, printing the first failures with their seeds and fault sequences, unless every
    /// run kept every property.
    #[track_caller]
    pub fn assert_passes(&self) {
        if self.failures.is_empty() {
            return;
        }
        let mut text = format!("{} of {} runs broke the client contract.\n", self.failures.len(), self.runs);
        for failure in self.failures.iter().take(3) {
            text.push_str(&failure.to_string());
        }
        panic!("{text}");
    }
}

impl<M, R> Kit<M>
where
    M: Fn() -> R,
    R: Future<Output = Router>,
{
    /// A kit over the routers `make_router` builds (async: a real service opens its store
    /// first): 300 seeded schedules from seed 1, each
    /// request faulted with probability 0.5, at most 200 requests and 120 seconds a run.
    pub fn new(make_router: M) -> Kit<M> {
        Kit {
            make_router,
            schedules: 300,
            first_seed: 1,
            probability: DEFAULT_PROBABILITY,
            max_requests: 200,
            run_timeout: Duration::from_secs(120),
            examples: Examples::new(),
        }
    }

    /// Injects the service's own reasons and warnings as `examples` give them ([`Examples`]).
    pub fn examples(mut self, examples: Examples) -> Kit<M> {
        self.examples = examples;
        self
    }

    /// Sets how many seeded schedules to run.
    pub fn schedules(mut self, schedules: u64) -> Kit<M> {
        self.schedules = schedules;
        self
    }

    /// Sets the first seed (the others follow it).
    pub fn first_seed(mut self, seed: u64) -> Kit<M> {
        self.first_seed = seed;
        self
    }

    /// Sets the probability that a request is faulted.
    pub fn probability(mut self, probability: f64) -> Kit<M> {
        self.probability = probability;
        self
    }

    /// Sets the most requests one run may send.
    pub fn max_requests(mut self, max_requests: u64) -> Kit<M> {
        self.max_requests = max_requests;
        self
    }

    /// Sets the longest one run may take; past it the run is stopped and fails, and the kit
    /// stops after it (the runs after it would likely wait as long). Injected `retry_after`
    /// values go up to 60 seconds (an outage's `Retry-After`, 5): a client that honours them
    /// waits that long.
    pub fn run_timeout(mut self, run_timeout: Duration) -> Kit<M> {
        self.run_timeout = run_timeout;
        self
    }

    /// Runs `client` without faults, under every offered fault, then under the seeded schedules.
    pub async fn run<C, F>(&self, client: C) -> KitReport
    where
        C: Fn(Target) -> F,
        F: Future<Output = Result<Conclusion, String>>,
    {
        let mut report = KitReport::default();
        let baseline = self.replay(Schedule::header_only(), None, &client).await;
        report.offered.extend(baseline.log.iter().flat_map(|record| record.offered.iter().cloned()));
        report.runs = 1;
        let truth = match &baseline.outcome {
            Some(Ok(conclusion @ Conclusion::Complete(_))) => Some(conclusion.clone()),
            _ => None,
        };
        report.truth = baseline.outcome.clone();
        // Without a fault-free conclusion there is nothing to hold the runs' conclusions to,
        // and without a fault to give, no run differs from this one: the kit stops there,
        // failing, rather than pass a client it could not test.
        let mut failure = baseline.clone();
        if truth.is_none() {
            failure.violations.push(format!(
                "without faults the client did not conclude complete ({:?}); nothing can be checked against it",
                baseline.outcome
            ));
        } else if report.offered.is_empty() {
            failure.violations.push(
                "no answer the client read offered a fault, so the kit can check nothing: the fault layer faults \
                 answers that report completeness (a `#[completeness]` handler's, routed through \
                 `completeness::routing`) and single resources with a `Field` member; does the client read such \
                 a route?"
                    .to_owned(),
            );
        }
        if !failure.violations.is_empty() {
            report.failures.push(failure.into_failure());
        }
        if truth.is_none() || report.offered.is_empty() {
            return report;
        }
        let mut schedules: Vec<Schedule> = report.offered.iter().map(|fault| Schedule::always(fault.name())).collect();
        // Each reason once more with every faulted page empty: the incomplete and empty answer a
        // client must never read as "nothing exists", which a random draw gives too rarely.
        // And a single resource with every field it filled with a value left out.
        let reasons = report
            .offered
            .iter()
            .filter(|fault| matches!(fault, Fault::Reason(_) | Fault::FutureReason | Fault::FieldOmitted));
        schedules.extend(reasons.map(|fault| Schedule::always(fault.name()).emptied()));
        schedules.extend((0..self.schedules).map(|i| Schedule::seeded(self.first_seed + i, self.probability)));
        for schedule in schedules {
            let mut run = self.replay(schedule, truth.as_ref(), &client).await;
            report.runs += 1;
            report.offered.extend(run.log.iter().flat_map(|record| record.offered.iter().cloned()));
            report.applied.extend(run.log.iter().filter_map(|record| record.fault.clone()));
            if run.timed_out {
                // Every later run would likely wait as long: the kit stops at the first.
                run.violations.push("the kit stopped after this run: the runs after it would wait as long".to_owned());
                report.failures.push(run.into_failure());
                break;
            }
            if !run.violations.is_empty() {
                report.failures.push(run.into_failure());
            }
        }
        report
    }

    /// One run of `client` under `schedule`, judged against the fault-free conclusion
    /// `truth` when given. A fault the schedule names that no request of the run offered (a
    /// name written wrong, a fault the routes do not declare) is a violation too: the run
    /// could not check it.
    pub async fn replay<C, F>(&self, schedule: Schedule, truth: Option<&Conclusion>, client: &C) -> Run
    where
        C: Fn(Target) -> F,
        F: Future<Output = Result<Conclusion, String>>,
    {
        let layer =
            FaultLayer::with_limit(schedule.clone(), Some(self.max_requests)).with_examples(self.examples.clone());
        let router = (self.make_router)().await.layer(layer.clone());
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", 0)).await {
            Ok(listener) => listener,
            Err(error) => return Run::broken(schedule, format!("could not listen on 127.0.0.1: {error}")),
        };
        let url = match listener.local_addr() {
            Ok(addr) => format!("http://{addr}"),
            Err(error) => return Run::broken(schedule, format!("no local address: {error}")),
        };
        let server = tokio::spawn(async move { axum::serve(listener, router).await });
        let target = Target { url, schedule: schedule.clone() };
        let mut stopped = format!(
            "the client sent more than {} requests without concluding: does it loop on a continuation?",
            self.max_requests
        );
        let mut timed_out = false;
        // A panic is the client's failure under this schedule, reported with it, not the end
        // of the whole kit.
        let outcome = tokio::select! {
            // Called inside the caught future: a panic before the client's first await counts too.
            outcome = AssertUnwindSafe(async move { client(target).await }).catch_unwind() => match outcome {
                Ok(outcome) => Some(outcome),
                Err(panic) => {
                    stopped = format!("the client panicked: {}", panic_message(panic.as_ref()));
                    None
                }
            },
            () = layer.exceeded() => None,
            () = tokio::time::sleep(self.run_timeout) => {
                timed_out = true;
                stopped = format!(
                    "the client did not conclude within {} s: does it wait without end (a retry_after it \
                     honours without a deadline, a request without a timeout)?",
                    self.run_timeout.as_secs_f64()
                );
                None
            }
        };
        // A client that ends on the limit's refusal was stopped all the same.
        let outcome = outcome.filter(|_| !layer.was_exceeded());
        server.abort();
        let log = layer.log();
        let mut violations = judge(truth, outcome.as_ref(), &log, &stopped);
        violations.extend(unoffered(&schedule, &log));
        Run { schedule, outcome, log, violations, timed_out }
    }
}

/// One run: its schedule, the client's conclusion (`None`: stopped at the request limit),
/// every request, and what the client did wrong.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Run {
    /// The schedule.
    pub schedule: Schedule,
    /// The client's conclusion; `None` when it was stopped at the request limit.
    pub outcome: Option<Result<Conclusion, String>>,
    /// Every request and its fault.
    pub log: Vec<FaultRecord>,
    /// The broken properties (empty: the client kept them all).
    pub violations: Vec<String>,
    /// The run was stopped at the kit's `run_timeout`.
    pub timed_out: bool,
}

impl Run {
    fn broken(schedule: Schedule, why: String) -> Run {
        Run { schedule, outcome: None, log: Vec::new(), violations: vec![why], timed_out: false }
    }

    /// The run as a failure.
    pub fn into_failure(self) -> Failure {
        Failure { schedule: self.schedule, violations: self.violations, log: self.log }
    }
}

/// The faults `schedule` names that no request of the run offered: a name written wrong, or a
/// fault the routes the client read do not declare. A run under such a schedule checks nothing
/// about that fault, and passing it would prove nothing, so it fails saying so.
fn unoffered(schedule: &Schedule, log: &[FaultRecord]) -> Vec<String> {
    let offered: BTreeSet<&Fault> = log.iter().flat_map(|record| record.offered.iter()).collect();
    schedule
        .named()
        .into_iter()
        .filter(|name| !offered.iter().any(|fault| fault.name() == *name))
        .map(|name| {
            let names: Vec<String> = offered.iter().map(|fault| fault.name().to_string()).collect();
            format!(
                "the schedule names the fault {name}, which no request of this run offered (offered: {}): \
                 the run checked nothing about it; name a fault the routes the client reads declare",
                if names.is_empty() { "none".to_owned() } else { names.join(", ") }
            )
        })
        .collect()
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// The properties of the kit's documentation, on one run. `outcome` is `None` when the run
/// was stopped, for the reason `stopped` gives.
fn judge(
    truth: Option<&Conclusion>,
    outcome: Option<&Result<Conclusion, String>>,
    log: &[FaultRecord],
    stopped: &str,
) -> Vec<String> {
    let mut violations = Vec::new();
    let reads = Reads::of(log);
    match outcome {
        None => violations.push(stopped.to_owned()),
        Some(Ok(Conclusion::Complete(found))) => {
            if let Some(Conclusion::Complete(whole)) = truth
                && found != whole
            {
                // A restarted traversal whose first page was merged with the pages before it
                // holds items twice: say so where the run had one.
                let restarted = log.iter().any(|record| record.fault == Some(Fault::Restarted));
                let wider = log.iter().any(|record| !record.unechoed.is_empty());
                violations.push(format!(
                    "the client concluded complete with {found:?}, but the whole scope gives {whole:?}: it took an \
                     incomplete answer for a complete one{}{}",
                    if restarted {
                        ", or merged a traversal restarted with the pages read before it (a cursor answered with \
                         the first page again, `resumed: false`)"
                    } else {
                        ""
                    },
                    if wider {
                        ", or an answer to a wider question (a filter dropped on the way, its `scope` without it) \
                         for the answer to its own"
                    } else {
                        ""
                    }
                ));
            }
            if let Some((query, traversal)) = reads.unfinished(log.len()) {
                violations.push(format!("the client concluded complete, but {}", traversal.why(&query)));
            }
        }
        Some(Ok(Conclusion::Incomplete(uncovered))) => {
            if uncovered.iter().all(|what| what.trim().is_empty()) {
                violations.push("the client did not conclude, and did not say what it could not cover".to_owned());
            }
        }
        Some(Err(_)) => {}
    }
    // Rule 2: the state of every collection read when each destructive request was sent.
    for (at, record) in log.iter().enumerate() {
        if !reads.is_read(record)
            && !matches!(record.method.as_str(), "GET" | "HEAD")
            && let Some((query, traversal)) = reads.unfinished(at)
        {
            violations.push(format!(
                "the client sent {} {} although {}: a destructive action on an incomplete or stale answer",
                record.method,
                record.uri,
                traversal.why(&query)
            ));
        }
    }
    // Rule 2, for one resource: a `DELETE` or `PUT` of a single resource the run read.
    for (at, record) in log.iter().enumerate().filter(|(_, record)| matches!(record.method.as_str(), "DELETE" | "PUT"))
    {
        if let Some(why) = unread_whole(&log[..at], path(record)) {
            violations.push(format!(
                "the client sent {} {} although {why}: a destructive action on a resource it could not see whole",
                record.method, record.uri
            ));
        }
    }
    violations.extend(hasty_retries(log));
    violations
}

/// Why the latest read of the single resource at `path` in `log` did not give it whole, when the
/// layer faulted it: refused (an outage), or with a field left out. `None` when the layer did not
/// fault it (fields the service itself leaves out for the credential, `NO_ACCESS`, are its
/// answer, which a fault-free run meets too), or the run never read it (as a single resource
/// the layer could fault: [`FaultRecord::omitted`]).
fn unread_whole(log: &[FaultRecord], path_of: &str) -> Option<String> {
    let read = log.iter().rev().find(|read| read.omitted.is_some() && read.method == "GET" && path(read) == path_of)?;
    read.fault.as_ref()?;
    if read.status != 200 {
        return Some(format!(
            "its latest read, {} {}, was answered with a problem ({}): a refusal says nothing of it",
            read.method, read.uri, read.status
        ));
    }
    let asked_for = |(_, why): &(&String, &Omission)| **why != Omission::NotRequested;
    let left_out = read.omitted.iter().flat_map(|omitted| &omitted.0).filter(asked_for);
    let left_out = OmittedFields(left_out.map(|(name, why)| (name.clone(), why.clone())).collect());
    (!left_out.is_empty()).then(|| {
        format!(
            "its latest read, {} {}, left fields out ({left_out}): their `null` is no value (contract §2.7)",
            read.method, read.uri
        )
    })
}

/// Rule 5: the requests that repeat one answered with a wait ([`FaultRecord::wait`]) sooner than
/// it asked. A request repeats the last request with its method, query ([`query`]) and cursor
/// whose answer left before it arrived.
fn hasty_retries(log: &[FaultRecord]) -> Vec<String> {
    let asks: Vec<(&str, String, Option<&str>)> =
        log.iter().map(|record| (record.method.as_str(), query(record), record.cursor.as_deref())).collect();
    let mut violations = Vec::new();
    for (retry, asked) in log.iter().zip(&asks) {
        let repeated = log
            .iter()
            .zip(&asks)
            .filter(|(earlier, same)| {
                earlier.request != retry.request && earlier.answered <= retry.arrived && *same == asked
            })
            .max_by_key(|(earlier, _)| earlier.answered);
        let Some((earlier, _)) = repeated else { continue };
        let Some(seconds) = earlier.wait else { continue };
        let waited = retry.arrived - earlier.answered;
        // No slack: the layer takes the answer's time before the answer leaves and the request's
        // after it came, on one monotonic clock, so a client that slept the full wait once it
        // had the answer always shows at least that wait here. Measured over loopback, clients
        // that sleep `Retry-After` (`tokio::time::sleep`, which rounds up to the millisecond)
        // came 1.5 to 8 ms past the wait, never before it.
        if waited < Duration::from_secs(seconds) {
            violations.push(format!(
                "request #{} {} {} came {:.3} s after the answer to request #{} {} {}, the same request, asked it \
                 to wait {seconds} s (`Retry-After`, or a `retry_after` continuation): a retry waits as long as it \
                 was asked to",
                retry.request,
                retry.method,
                retry.uri,
                waited.as_secs_f64(),
                earlier.request,
                earlier.method,
                earlier.uri,
            ));
        }
    }
    violations
}

/// The collection reads of a run, by query: a request without a cursor starts a traversal of
/// its query, one with a cursor continues the traversal that issued it (see
/// [`Reads::unfinished`]). A path is a
/// collection's when some answer on it in the run was one (the layer offered faults on a
/// request that read no single resource, or the answer said `complete`); a problem on such a
/// path is an answer of its traversal too.
struct Reads<'a> {
    log: &'a [FaultRecord],
    collections: BTreeSet<&'a str>,
}

/// The state of one path's latest traversal.
#[derive(Debug, Clone, Copy)]
struct Traversal<'a> {
    /// The first answer that was incomplete for a reason other than pagination, a problem,
    /// or stale.
    spoiled: Option<&'a FaultRecord>,
    /// Its last answer was a refusal that may be retried ([`may_be_retried`]), and the request
    /// has not been sent again yet ([`is_retry`]): the retry takes its place. Anything else that
    /// continues the traversal goes past a page it never read, and the refusal spoils it.
    refused: bool,
    /// The last answer.
    last: &'a FaultRecord,
    /// The first page that handed out a cursor an earlier page of the traversal (the second)
    /// had handed out: a server that loops (contract §2.5).
    looped: Option<(&'a FaultRecord, &'a FaultRecord)>,
}

/// True for a refusal that says nothing of what exists and may be sent again, the same
/// request, after its wait (contract §2.4, §7): a 5xx (the layer's outage, [`Fault::Unavailable`],
/// or the service's own), or a 429 that names a wait.
fn may_be_retried(record: &FaultRecord) -> bool {
    Problem::may_be_retried(record.status, record.wait.is_some())
}

/// True when `record` sends `refused` again: the same method, the same query ([`query`]) and
/// the same cursor.
fn is_retry(refused: &FaultRecord, record: &FaultRecord) -> bool {
    record.method == refused.method && record.cursor == refused.cursor && query(record) == query(refused)
}

impl<'a> Reads<'a> {
    fn of(log: &'a [FaultRecord]) -> Reads<'a> {
        let collection = |record: &&FaultRecord| {
            (!record.offered.is_empty() && record.omitted.is_none()) || record.complete.is_some()
        };
        let collections = log.iter().filter(collection).map(path).collect();
        Reads { log, collections }
    }

    /// True for a request that read a collection: a `GET` or `HEAD` on a collection's path, or
    /// a `POST` answered with a completeness block (a search sent as `POST`). A `DELETE`, `PUT`
    /// or `PATCH` is a change whatever it answers (a purge answering the ids it removed with a
    /// block still removed them).
    fn is_read(&self, record: &FaultRecord) -> bool {
        match record.method.as_str() {
            "GET" | "HEAD" => record.complete.is_some() || self.collections.contains(path(record)),
            "DELETE" | "PUT" | "PATCH" => false,
            _ => record.complete.is_some(),
        }
    }

    /// The first query, of those read before request `before`, whose latest traversal did not
    /// finish complete, current and clean. A query is a path and its parameters but those of
    /// [`NOT_WHAT`], so that two searches are two reads and a retry with a longer time budget
    /// reads the same query again. A request with a cursor continues the traversal whose answer
    /// issued that cursor (a client reading two queries at once, or one read again); a cursor no
    /// answer of the run issued continues the query named beside it, or, sent alone, the one its
    /// path last served.
    fn unfinished(&self, before: usize) -> Option<(String, Traversal<'a>)> {
        let mut latest: Vec<(String, Traversal<'a>)> = Vec::new();
        let mut serving: Vec<(&str, usize)> = Vec::new(); // a path → the query it last served
        // A path and a next cursor → the query whose answer issued it.
        let mut issued: Vec<(&str, &str, usize)> = Vec::new();
        // The cursors each latest traversal handed out, with the page that handed each out.
        let mut handed: Vec<Vec<(&str, &'a FaultRecord)>> = Vec::new();
        for record in self.log[..before].iter().filter(|record| self.is_read(record)) {
            // An outage is held apart until the traversal shows whether it was sent again.
            let refused = may_be_retried(record);
            // An answer that does not echo a filter asked answers another question (contract §8).
            let another_question = !record.unechoed.is_empty();
            let spoiled = (!refused && (record.is_incomplete() || record.stale || another_question)).then_some(record);
            let key = query(record);
            let named = (key != path(record)).then(|| latest.iter().position(|(k, _)| *k == key)).flatten();
            // A cursor two queries were given (a service's own page token, `2`) goes to the one
            // named beside it, else to the latest that issued it.
            let issuers: Vec<usize> = issued
                .iter()
                .filter(|(p, c, _)| *p == path(record) && Some(*c) == record.cursor.as_deref())
                .map(|(_, _, at)| *at)
                .collect();
            let continued = match named {
                Some(named) if issuers.contains(&named) => Some(named),
                _ => issuers.last().copied(),
            }
            .or(named)
            .or_else(|| serving.iter().find(|(p, _)| *p == path(record)).map(|(_, at)| *at));
            let at = match continued.filter(|_| record.had_cursor) {
                Some(at) => {
                    let earlier = latest[at].1;
                    // The outage sent again is retried: the retry takes its place. Any other
                    // request went on past the page the outage refused.
                    let passed = (earlier.refused && !is_retry(earlier.last, record)).then_some(earlier.last);
                    let spoiled = earlier.spoiled.or(passed).or(spoiled);
                    // A page that says it is a first page starts the traversal over: a cursor it
                    // hands out again is no loop. Any other that hands out a cursor a page
                    // answering another cursor handed out before loops.
                    if record.resumed == Some(false) {
                        handed[at].clear();
                    }
                    let repeated = record.next_cursor.as_deref().and_then(|next| {
                        handed[at].iter().find(|(cursor, page)| *cursor == next && page.cursor != record.cursor)
                    });
                    let looped = earlier.looped.or(repeated.map(|(_, page)| (record, *page)));
                    latest[at].1 = Traversal { spoiled, refused, last: record, looped };
                    at
                }
                None => {
                    let traversal = Traversal { spoiled, refused, last: record, looped: None };
                    match latest.iter().position(|(k, _)| *k == key) {
                        Some(at) => {
                            latest[at].1 = traversal;
                            handed[at].clear();
                            at
                        }
                        None => {
                            latest.push((key, traversal));
                            handed.push(Vec::new());
                            latest.len() - 1
                        }
                    }
                }
            };
            if let Some(next) = &record.next_cursor {
                handed[at].push((next, record));
            }
            match serving.iter_mut().find(|(p, _)| *p == path(record)) {
                Some(entry) => entry.1 = at,
                None => serving.push((path(record), at)),
            }
            if let Some(next) = &record.next_cursor {
                issued.push((path(record), next, at));
            }
        }
        latest.into_iter().find(|(_, traversal)| !traversal.is_finished())
    }
}

impl Traversal<'_> {
    fn is_finished(&self) -> bool {
        self.spoiled.is_none() && !self.refused && self.looped.is_none() && self.last.complete == Some(true)
    }

    /// What is wrong with it, in words.
    fn why(&self, query: &str) -> String {
        if self.spoiled.is_none()
            && let Some((page, earlier)) = self.looped
        {
            return format!(
                "{} {} handed out a cursor that {} {} had handed out before in the same traversal of {query}: a \
                 server that loops (contract §2.5); following it reads pages already read, without end, so the \
                 traversal cannot be finished complete: a client stops there without concluding complete, or \
                 starts over",
                page.method, page.uri, earlier.method, earlier.uri
            );
        }
        match self.spoiled {
            Some(record) if record.stale => {
                format!(
                    "{} {} answered with a stale warning: what was not read from current state cannot be claimed absent",
                    record.method, record.uri
                )
            }
            Some(record) if record.status != 200 => {
                format!(
                    "{} {} was answered with a problem ({}): a refusal says nothing of what exists",
                    record.method, record.uri, record.status
                )
            }
            Some(record) if !record.unechoed.is_empty() => format!(
                "{} {} was answered over another question: its `scope` does not echo the filter `{}` the request \
                 asked (dropped on the way, contract §8), so its `complete` says nothing of {query}",
                record.method,
                record.uri,
                record.unechoed.join("`, `")
            ),
            Some(record) => format!(
                "{} {} answered incomplete ({}), and no later traversal of {query} was complete",
                record.method,
                record.uri,
                record.reasons.join(", ")
            ),
            None if self.refused => format!(
                "{} {} was answered with a problem ({}): a refusal says nothing of what exists, and the request was \
                 not sent again after it (nor the traversal of {query} started over)",
                self.last.method, self.last.uri, self.last.status
            ),
            None => format!(
                "the latest traversal of {query} ended on {} {} with more pages to come: its `next_cursor` was not \
                 followed to a complete page",
                self.last.method, self.last.uri
            ),
        }
    }
}

/// The path of a request, without its query.
fn path(record: &FaultRecord) -> &str {
    record.uri.split('?').next().unwrap_or("")
}

/// The parameters of the framework's extractors that say where, how much, how long or how
/// strictly a query is read, not what it reads: `cursor` and `page_size` (`PageRequest`),
/// `time_budget_ms` (`TimeBudget`: a retry with the budget a `retry_with_deadline`
/// continuation asks for reads the same query again) and `require_complete` (`RequireComplete`).
pub(super) const NOT_WHAT: [&str; 4] =
    [params::CURSOR, params::PAGE_SIZE, params::TIME_BUDGET_MS, params::REQUIRE_COMPLETE];

/// The query a request reads: its path and its parameters, decoded and sorted, but those of
/// [`NOT_WHAT`]. A decoded `%`, `&` or `=` is written encoded again, so that one parameter
/// holding `1&b=2` is not two; a query that does not decode is kept as written.
fn query(record: &FaultRecord) -> String {
    let decoded = record.uri.parse::<axum::http::Uri>().ok().and_then(|uri| {
        let pairs = query_pairs(&uri).ok()?;
        Some(pairs.map(|(name, value)| (name.into_owned(), value.into_owned())).collect::<Vec<_>>())
    });
    let pairs = decoded.unwrap_or_else(|| {
        let raw = record.uri.split_once('?').map_or("", |(_, query)| query);
        let pairs = raw.split('&').filter(|pair| !pair.is_empty());
        pairs
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect()
    });
    let encoded = |text: &str| text.replace('%', "%25").replace('&', "%26").replace('=', "%3D");
    let mut parameters: Vec<String> = pairs
        .into_iter()
        .filter(|(name, _)| !NOT_WHAT.contains(&name.as_str()))
        .map(|(name, value)| format!("{}={}", encoded(&name), encoded(&value)))
        .collect();
    parameters.sort_unstable();
    if parameters.is_empty() { path(record).to_owned() } else { format!("{}?{}", path(record), parameters.join("&")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::reason::ReasonCode;

    /// A request of a run on `/things`, as the layer logs it: a `GET` is a page (complete, or
    /// with more pages to come), any other method a change.
    fn record(request: u64, method: &str, had_cursor: bool, complete: bool, stale: bool) -> FaultRecord {
        on("/things", request, method, had_cursor, complete, stale)
    }

    /// [`record`] on `path`.
    fn on(path: &str, request: u64, method: &str, had_cursor: bool, complete: bool, stale: bool) -> FaultRecord {
        let page = method == "GET";
        FaultRecord {
            request,
            draw: page.then_some(request),
            method: method.to_owned(),
            uri: format!("{path}?page_size=3"),
            had_cursor,
            cursor: had_cursor.then(|| "c".to_owned()),
            resumed: page.then_some(had_cursor),
            unechoed: Vec::new(),
            next_cursor: (page && !complete).then(|| "c".to_owned()),
            offered: if page { vec![Fault::Reason(ReasonCode::VisibilityRestricted)] } else { Vec::new() },
            fault: None,
            status: 200,
            complete: page.then_some(complete),
            reasons: if complete || !page { Vec::new() } else { vec!["MORE_PAGES_AVAILABLE".to_owned()] },
            stale,
            omitted: None,
            wait: None,
            arrived: Duration::ZERO,
            answered: Duration::ZERO,
        }
    }

    /// A page of `path` the layer made partial.
    fn partial(path: &str, request: u64) -> FaultRecord {
        let mut record = on(path, request, "GET", false, false, false);
        record.reasons = vec!["VISIBILITY_RESTRICTED".to_owned()];
        record
    }

    fn judged(concluded: Conclusion, log: &[FaultRecord]) -> Vec<String> {
        judge(Some(&concluded.clone()), Some(&Ok(concluded)), log, "stopped")
    }

    /// The one violation a complete conclusion on `log` breaks; fails when there is not exactly one.
    #[track_caller]
    fn only_violation(log: &[FaultRecord]) -> String {
        let violations = judged(all(), log);
        assert_eq!(violations.len(), 1, "{violations:?}");
        violations.into_iter().next().unwrap_or_default()
    }

    fn all() -> Conclusion {
        Conclusion::Complete("all".to_owned())
    }

    #[test]
    fn a_stale_answer_in_the_latest_traversal_forbids_a_complete_conclusion_and_a_change() {
        // Two pages, the first stale, then a change.
        let stale_run = [
            record(0, "GET", false, false, true),
            record(1, "GET", true, true, false),
            record(2, "POST", false, true, false),
        ];
        let violations = judged(all(), &stale_run);
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(violations[0].contains("answered with a stale warning"), "{}", violations[0]);
        assert!(violations[1].contains("sent POST /things"), "{}", violations[1]);
        // Started over, and current throughout: nothing to say.
        let retried = [
            record(0, "GET", false, true, true),
            record(1, "GET", false, false, false),
            record(2, "GET", true, true, false),
            record(3, "POST", false, true, false),
        ];
        assert_eq!(judged(all(), &retried), Vec::<String>::new());
    }

    /// A single resource is no collection: its reads, a field left out or an outage among them,
    /// leave no traversal unfinished (its conclusion, against the fault-free one, judges what it
    /// made of them); but a `DELETE` or `PUT` of the resource itself must follow a read of it
    /// that gave it whole.
    #[test]
    fn single_resource_reads_are_no_collection_reads() {
        let resource = |request: u64, status: u16, fault: Fault| {
            let mut read = on("/things/bob", request, "GET", false, false, false);
            (read.complete, read.next_cursor, read.resumed, read.reasons) = (None, None, None, Vec::new());
            (read.status, read.fault) = (status, Some(fault));
            read.offered = vec![Fault::FieldOmitted, Fault::Unavailable];
            read.omitted = Some(Default::default());
            read
        };
        let left_out = |request: u64, why: Omission| {
            let mut read = resource(request, 200, Fault::FieldOmitted);
            read.omitted = Some(OmittedFields([("owner".to_owned(), why)].into()));
            read
        };
        let change = |request: u64, method: &str| on("/things/bob", request, method, false, true, false);
        let run = [
            record(0, "GET", false, true, false),
            resource(1, 503, Fault::Unavailable),
            left_out(2, Omission::NoAccess),
            resource(3, 200, Fault::FieldOmitted),
            change(4, "DELETE"),
        ];
        assert_eq!(judged(all(), &run), Vec::<String>::new(), "read whole at last");
        // The same reads taken for a collection's: the outage would leave it unfinished.
        let mut unmarked = run.clone();
        unmarked[1].omitted = None;
        assert_eq!(judged(all(), &unmarked).len(), 2, "the conclusion, and the change after it");
        // A delete or a put after a read that left a field out, or was refused; not a patch.
        for (read, said) in [
            (left_out(1, Omission::SourceFailed), "owner (SOURCE_FAILED)"),
            (resource(1, 503, Fault::Unavailable), "(503)"),
        ] {
            for method in ["DELETE", "PUT", "PATCH"] {
                let violations = judged(all(), &[read.clone(), change(2, method)]);
                if method == "PATCH" {
                    assert_eq!(violations, Vec::<String>::new(), "{said}");
                    continue;
                }
                assert_eq!(violations.len(), 1, "{method} after {said}: {violations:?}");
                assert!(
                    violations[0].starts_with(&format!("the client sent {method} /things/bob")),
                    "{}",
                    violations[0]
                );
                assert!(violations[0].contains(said), "{}", violations[0]);
            }
        }
        // A field left out as the client asked (`fields=`) is no field it could not see; one the
        // service itself leaves out for the credential is its answer, met without faults too.
        assert_eq!(judged(all(), &[left_out(1, Omission::NotRequested), change(2, "DELETE")]), Vec::<String>::new());
        let mut unfaulted = left_out(1, Omission::NoAccess);
        unfaulted.fault = None;
        assert_eq!(judged(all(), &[unfaulted, change(2, "DELETE")]), Vec::<String>::new());
    }

    /// A `DELETE`, `PUT` or `PATCH` is a change even when answered with a completeness block
    /// (a purge answering the ids it removed); a `POST` answered with one is a read (a search).
    #[test]
    fn a_change_answered_with_a_block_is_still_a_change_unless_it_is_a_post() {
        for method in ["DELETE", "PUT", "PATCH", "POST"] {
            let mut change = on("/things/bob", 1, method, false, true, false);
            change.complete = Some(true);
            let run = [partial("/things", 0), change];
            // The client ended with an error: only the change is judged.
            let violations = judge(None, Some(&Err("gave up".to_owned())), &run, "stopped");
            if method == "POST" {
                assert_eq!(violations, Vec::<String>::new(), "a search sent as POST");
            } else {
                assert_eq!(violations.len(), 1, "{method}: {violations:?}");
                assert!(violations[0].contains(&format!("sent {method} /things/bob")), "{}", violations[0]);
            }
        }
    }

    /// A client that reads the first page and never follows its `next_cursor` is caught even
    /// without a fault: its own log shows the traversal unfinished.
    #[test]
    fn a_complete_conclusion_on_an_unfollowed_next_cursor_is_caught_without_faults() {
        let first_page_only = [record(0, "GET", false, false, false)];
        let violation = only_violation(&first_page_only);
        assert!(violation.contains("`next_cursor` was not followed"), "{violation}");
    }

    /// A later read of another collection does not hide a partial one: every collection read
    /// must have finished complete before a complete conclusion or a change.
    #[test]
    fn a_partial_read_is_not_hidden_by_a_later_complete_read_of_another_route() {
        let run = [
            partial("/accounts", 0),
            on("/owners", 1, "GET", false, true, false),
            on("/archive", 2, "POST", false, true, false),
        ];
        let violations = judged(all(), &run);
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(
            violations
                .iter()
                .all(|v| v.contains("GET /accounts?page_size=3 answered incomplete (VISIBILITY_RESTRICTED)")),
            "{violations:?}"
        );
        // Read again, complete: the archive follows complete reads.
        let reread = [
            partial("/accounts", 0),
            on("/owners", 1, "GET", false, true, false),
            on("/accounts", 2, "GET", false, true, false),
            on("/archive", 3, "POST", false, true, false),
        ];
        assert_eq!(judged(all(), &reread), Vec::<String>::new());
    }

    /// Two queries of one path are two reads: a complete second search does not make a partial
    /// first one whole; the same query read again, complete, does.
    #[test]
    fn each_query_is_a_read_of_its_own() {
        let search = |request, q: &str, complete: bool| {
            let mut record =
                if complete { on("/search", request, "GET", false, true, false) } else { partial("/search", request) };
            record.uri = format!("/search?q={q}&page_size=3");
            record
        };
        let violation = only_violation(&[search(0, "a", false), search(1, "b", true)]);
        assert!(violation.contains("GET /search?q=a&page_size=3 answered incomplete"), "{violation}");
        assert_eq!(
            judged(all(), &[search(0, "a", false), search(1, "b", true), search(2, "a", true)]),
            Vec::<String>::new()
        );
    }

    /// A traversal cut short by its time budget and read again whole with the longer budget its
    /// `retry_with_deadline` continuation asks for is the same query, read again complete.
    #[test]
    fn a_retry_with_a_longer_time_budget_reads_the_same_query_again() {
        let mut cut = record(1, "GET", true, false, false);
        cut.reasons = vec!["TIME_BUDGET_EXCEEDED".to_owned()];
        let mut retried = record(2, "GET", false, true, false);
        retried.uri = "/things?page_size=3&time_budget_ms=10000".to_owned();
        let run = [record(0, "GET", false, false, false), cut, retried];
        assert_eq!(judged(all(), &run), Vec::<String>::new());
    }

    /// A page of `/numbers` with the query `query` (no `?`), the cursor it sent and the next
    /// cursor it issued (none: the last page, complete).
    fn numbers(request: u64, query: &str, cursor: Option<&str>, next: Option<&str>) -> FaultRecord {
        let mut record = on("/numbers", request, "GET", cursor.is_some(), next.is_none(), false);
        let sent = cursor.map(|c| format!("&cursor={c}")).unwrap_or_default();
        record.uri = format!("/numbers?{query}{sent}");
        (record.cursor, record.next_cursor) = (cursor.map(str::to_owned), next.map(str::to_owned));
        record
    }

    /// A client that reads two queries of one path at once continues each traversal with the
    /// cursor its answer issued, whatever it sends beside the cursor: neither is left unfinished
    /// by the other's pages.
    #[test]
    fn two_queries_read_at_once_each_continue_their_own_traversal() {
        let interleaved = [
            numbers(0, "parity=odd&page_size=2", None, Some("o")),
            numbers(1, "parity=even&page_size=2", None, Some("e")),
            numbers(2, "parity=odd&page_size=2", Some("o"), None),
            numbers(3, "page_size=2", Some("e"), None),
        ];
        assert_eq!(judged(all(), &interleaved), Vec::<String>::new());
        // One of them left unfinished is still caught, under its own query.
        let violation = only_violation(&interleaved[..3]);
        assert!(violation.contains("traversal of /numbers?parity=even"), "{violation}");
        // A query without parameters beside one with them: each cursor continues its own.
        let bare = [
            numbers(0, "page_size=2", None, Some("a")),
            numbers(1, "parity=odd&page_size=2", None, Some("b")),
            numbers(2, "page_size=2", Some("a"), None),
            numbers(3, "parity=odd", Some("b"), None),
        ];
        assert_eq!(judged(all(), &bare), Vec::<String>::new());
    }

    /// A cursor sent again continues the traversal that issued it, not the one its path served
    /// last: reading a finished query's last page again does not finish another.
    #[test]
    fn a_cursor_sent_again_continues_the_traversal_that_issued_it() {
        let run = [
            numbers(0, "page_size=2", None, Some("a")),
            numbers(1, "page_size=2", Some("a"), None),
            numbers(2, "parity=odd&page_size=2", None, Some("b")),
            numbers(3, "page_size=2", Some("a"), None),
        ];
        let violation = only_violation(&run);
        assert!(violation.contains("traversal of /numbers?parity=odd ended on"), "{violation}");
    }

    /// A cursor two queries were given (a service's own page token) continues the one named
    /// beside it; a cursor no answer issued continues the query named beside it too.
    #[test]
    fn a_cursor_two_queries_were_given_continues_the_one_named_beside_it() {
        let shared = [
            numbers(0, "parity=odd&page_size=2", None, Some("2")),
            numbers(1, "parity=even&page_size=2", None, Some("2")),
            numbers(2, "parity=odd&page_size=2", Some("2"), None),
            numbers(3, "parity=even&page_size=2", Some("2"), None),
        ];
        assert_eq!(judged(all(), &shared), Vec::<String>::new());
        let mut unissued = shared.clone();
        for page in &mut unissued[..2] {
            page.next_cursor = None;
            page.complete = Some(false);
        }
        assert_eq!(judged(all(), &unissued), Vec::<String>::new());
        // The same string on another path is another cursor.
        let mut other = shared.clone();
        other[1].uri = "/letters?page_size=2".to_owned();
        other[3].uri = "/letters?page_size=2&cursor=2".to_owned();
        assert_eq!(judged(all(), &other), Vec::<String>::new());
    }

    /// A query that does not decode is kept as written, not read as its bare path; a decoded
    /// `&` stays inside its value.
    #[test]
    fn queries_that_do_not_decode_or_hold_separators_stay_apart() {
        let refused = numbers(0, "owner=%FF", None, None);
        let refused = FaultRecord { status: 400, complete: None, ..refused };
        let bare = numbers(1, "page_size=2", None, None);
        let violation = only_violation(&[refused, bare]);
        assert!(violation.contains("GET /numbers?owner=%FF was answered with a problem"), "{violation}");
        let one = numbers(0, "a=1%26b%3D2", None, None);
        let two = numbers(0, "a=1&b=2", None, None);
        assert_ne!(query(&one), query(&two));
    }

    /// Parameters are compared decoded: `time%5Fbudget%5Fms` is the time budget, and
    /// `parity=%6Fdd` the query `parity=odd`.
    #[test]
    fn parameters_are_compared_decoded() {
        let mut cut = numbers(0, "parity=odd&page_size=2", None, Some("o"));
        cut.reasons = vec!["TIME_BUDGET_EXCEEDED".to_owned()];
        let retried = numbers(1, "parity=%6Fdd&time%5Fbudget%5Fms=9000", None, None);
        assert_eq!(judged(all(), &[cut, retried]), Vec::<String>::new());
    }

    /// Request `n` of `/numbers` with the cursor `cursor`, answered with the layer's outage (its
    /// wait left out: [`asked_to_wait`] times one).
    fn outage(request: u64, query: &str, cursor: Option<&str>) -> FaultRecord {
        let mut record = numbers(request, query, cursor, None);
        (record.status, record.complete, record.fault) = (503, None, Some(Fault::Unavailable));
        record
    }

    /// An outage on a later page sent again (the same cursor, query and method) is a retry: its
    /// answer takes the outage's place, and the traversal goes on and finishes complete. Taken
    /// for the end, or stepped over, the outage leaves the traversal unfinished.
    #[test]
    fn an_outage_on_a_later_page_sent_again_continues_its_traversal() {
        let first = numbers(0, "page_size=2", None, Some("a"));
        let retried = [
            first.clone(),
            outage(1, "page_size=2", Some("a")),
            outage(2, "page_size=2", Some("a")),
            // Another page size, another time budget: still the same request.
            numbers(3, "page_size=5&time_budget_ms=900", Some("a"), Some("b")),
            numbers(4, "page_size=2", Some("b"), None),
        ];
        assert_eq!(judged(all(), &retried), Vec::<String>::new());
        // Then archived: the change follows a traversal read whole.
        let archive = on("/archive", 5, "POST", false, true, false);
        assert_eq!(judged(all(), &[retried.to_vec(), vec![archive.clone()]].concat()), Vec::<String>::new());

        // Taken for the end of the traversal: concluded on the pages before it, or acted on.
        let ended = [first.clone(), outage(1, "page_size=2", Some("a"))];
        let violation = only_violation(&ended);
        assert!(
            violation.contains(
                "GET /numbers?page_size=2&cursor=a was answered with a problem (503): a refusal says nothing of what \
                 exists, and the request was not sent again"
            ),
            "{violation}"
        );
        let acted = judge(None, Some(&Err("gave up".to_owned())), &[ended.to_vec(), vec![archive]].concat(), "");
        assert_eq!(acted.len(), 1, "{acted:?}");
        assert!(acted[0].contains("sent POST /archive?page_size=3 although GET /numbers"), "{}", acted[0]);

        // Stepped over: the traversal went on with a cursor it had followed before, or the
        // refused cursor was sent with another query. The outage spoils it.
        let stepped = [
            first.clone(),
            numbers(1, "page_size=2", Some("a"), Some("b")),
            outage(2, "page_size=2", Some("b")),
            numbers(3, "page_size=2", Some("a"), Some("b")),
            numbers(4, "page_size=2", Some("b"), None),
        ];
        let violation = only_violation(&stepped);
        assert!(
            violation.contains("GET /numbers?page_size=2&cursor=b was answered with a problem (503)"),
            "{violation}"
        );
        let other_query =
            [first.clone(), outage(1, "page_size=2", Some("a")), numbers(2, "parity=odd", Some("a"), None)];
        let violation = only_violation(&other_query);
        assert!(
            violation.contains("GET /numbers?page_size=2&cursor=a was answered with a problem (503)"),
            "{violation}"
        );

        // Started over from the first page instead: a new traversal, read whole.
        let restarted = [
            first.clone(),
            outage(1, "page_size=2", Some("a")),
            numbers(2, "page_size=2", None, Some("c")),
            numbers(3, "page_size=2", Some("c"), None),
        ];
        assert_eq!(judged(all(), &restarted), Vec::<String>::new());

        // A refusal of the service's own that may be retried is sent again the same way (contract
        // §2.4): a 5xx, or a 429 that names a wait. A 429 naming none, or a 410, ends it.
        let mut own = outage(1, "page_size=2", Some("a"));
        own.fault = None;
        assert_eq!(
            judged(all(), &[first.clone(), own.clone(), numbers(2, "page_size=2", Some("a"), None)]),
            Vec::<String>::new()
        );
        let mut limited = own.clone();
        (limited.status, limited.wait) = (429, None);
        let [limited, retried] = asked_to_wait(limited, 1, numbers(2, "page_size=2", Some("a"), None), 1.0);
        assert_eq!(judged(all(), &[first.clone(), limited.clone(), retried]), Vec::<String>::new());
        for status in [429, 410] {
            let mut ended = limited.clone();
            (ended.status, ended.wait) = (status, None);
            let violation = only_violation(&[first.clone(), ended, numbers(2, "page_size=2", Some("a"), None)]);
            assert!(violation.contains(&format!("was answered with a problem ({status})")), "{violation}");
        }
    }

    /// The retry of a later page's outage is held to its wait, as a first page's is.
    #[test]
    fn a_later_page_sent_again_sooner_than_its_outage_asked_is_caught() {
        let [refused, hasty] =
            asked_to_wait(outage(1, "page_size=2", Some("a")), 2, numbers(2, "page_size=2", Some("a"), None), 1.5);
        let violations = hasty_retries(&[refused.clone(), hasty]);
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert!(
            violations[0].starts_with("request #2 GET /numbers?page_size=2&cursor=a came 1.500 s"),
            "{violations:?}"
        );
        let [refused, patient] = asked_to_wait(refused, 2, numbers(2, "page_size=2", Some("a"), None), 2.0);
        assert_eq!(hasty_retries(&[refused, patient]), Vec::<String>::new());
    }

    /// `first` answered with a wait of `seconds` at 10 s into the run, and `then` arriving
    /// `after` seconds later.
    fn asked_to_wait(mut first: FaultRecord, seconds: u64, mut then: FaultRecord, after: f64) -> [FaultRecord; 2] {
        (first.wait, first.arrived, first.answered) = (Some(seconds), Duration::from_secs(9), Duration::from_secs(10));
        then.arrived = Duration::from_secs(10) + Duration::from_secs_f64(after);
        then.answered = then.arrived;
        [first, then]
    }

    /// The same request sent again sooner than its answer asked is caught, naming both requests,
    /// the wait and the time waited; sent the full wait later, or asking another page or another
    /// question, it is not.
    #[test]
    fn a_retry_sooner_than_its_answer_asked_is_caught() {
        let outage = FaultRecord { status: 503, complete: None, ..numbers(0, "page_size=2", None, None) };
        let retry = numbers(1, "page_size=5&time_budget_ms=900", None, None);
        let hasty = hasty_retries(&asked_to_wait(outage.clone(), 3, retry.clone(), 0.25));
        assert_eq!(
            hasty,
            ["request #1 GET /numbers?page_size=5&time_budget_ms=900 came 0.250 s after the answer to request #0 GET \
              /numbers?page_size=2, the same request, asked it to wait 3 s (`Retry-After`, or a `retry_after` \
              continuation): a retry waits as long as it was asked to"]
        );
        assert_eq!(hasty_retries(&asked_to_wait(outage.clone(), 3, retry, 3.0)), Vec::<String>::new());
        // The next page, another query, another method: no retry.
        let partial = numbers(0, "page_size=2", Some("a"), Some("b"));
        let next = numbers(1, "page_size=2", Some("b"), None);
        assert_eq!(hasty_retries(&asked_to_wait(partial.clone(), 30, next, 0.1)), Vec::<String>::new());
        let other = numbers(1, "parity=odd&page_size=2", None, None);
        assert_eq!(hasty_retries(&asked_to_wait(outage.clone(), 3, other, 0.1)), Vec::<String>::new());
        let head = FaultRecord { method: "HEAD".to_owned(), ..numbers(1, "page_size=2", None, None) };
        assert_eq!(hasty_retries(&asked_to_wait(outage, 3, head, 0.1)), Vec::<String>::new());
        // The same page again, too soon.
        let again = numbers(1, "page_size=2", Some("a"), Some("b"));
        assert_eq!(hasty_retries(&asked_to_wait(partial, 30, again, 29.999)).len(), 1);
    }

    /// A request sent before the answer that asked for a wait left (two at once) does not repeat
    /// it; the request repeated is the last one answered, so a retry that waited its own answer's
    /// wait is not held to an earlier one's.
    #[test]
    fn a_retry_repeats_the_last_request_answered_before_it() {
        let [outage, at_once] =
            asked_to_wait(numbers(0, "page_size=2", None, None), 3, numbers(1, "page_size=2", None, None), 0.1);
        let at_once = FaultRecord { arrived: Duration::from_secs(9), ..at_once };
        assert_eq!(hasty_retries(&[outage.clone(), at_once]), Vec::<String>::new());
        // #0 asks 3 s; #1 comes too soon and asks 1 s; #2 comes 1 s after #1's answer.
        let [outage, hasty] = asked_to_wait(outage, 3, numbers(1, "page_size=2", None, None), 0.5);
        let hasty = FaultRecord { wait: Some(1), ..hasty };
        let mut patient = numbers(2, "page_size=2", None, None);
        patient.arrived = hasty.answered + Duration::from_secs(1);
        let violations = hasty_retries(&[outage, hasty, patient]);
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert!(violations[0].starts_with("request #1 GET"), "{violations:?}");
    }

    /// A problem on a collection's path is no answer to conclude from; a search sent as `POST`
    /// and answered with a completeness block is a read, not a change.
    #[test]
    fn problems_are_not_answers_and_posted_searches_are_reads() {
        let mut refused = on("/accounts", 1, "GET", false, true, false);
        (refused.status, refused.complete, refused.offered) = (503, None, Vec::new());
        let run = [on("/accounts", 0, "GET", false, true, false), refused];
        let violations = judged(all(), &run);
        assert!(violations.iter().any(|v| v.contains("was answered with a problem (503)")), "{violations:?}");

        let mut search = on("/search", 0, "POST", false, true, false);
        search.complete = Some(true);
        assert_eq!(judged(all(), &[search.clone()]), Vec::<String>::new(), "a complete search by POST");
        search.complete = Some(false);
        search.reasons = vec!["SOURCE_UNAVAILABLE".to_owned()];
        let violations = judged(all(), &[search]);
        assert_eq!(violations.len(), 1, "a conclusion, no change: {violations:?}");
        assert!(violations[0].contains("POST /search?page_size=3 answered incomplete"), "{}", violations[0]);
    }

    /// A traversal answered without a filter the request asked (its `scope` does not echo it)
    /// does not finish complete, even when it says so and its items happen to be right: a
    /// complete conclusion on it, or a change after it, is caught; read again echoing the
    /// filter, it finishes.
    #[test]
    fn an_answer_that_does_not_echo_a_filter_asked_does_not_finish_its_traversal() {
        let mut wider = numbers(0, "parity=odd&page_size=2", None, Some("w"));
        wider.unechoed = vec!["parity".to_owned()];
        let mut rest = numbers(1, "parity=odd&page_size=2", Some("w"), None);
        rest.unechoed = vec!["parity".to_owned()];
        let violation = only_violation(&[wider.clone(), rest.clone()]);
        assert!(
            violation.contains(
                "GET /numbers?parity=odd&page_size=2 was answered over another question: its `scope` does not echo \
                 the filter `parity` the request asked (dropped on the way, contract §8), so its `complete` says \
                 nothing of /numbers?parity=odd"
            ),
            "{violation}"
        );
        let archive = on("/archive", 2, "POST", false, true, false);
        let acted = judge(None, Some(&Err("gave up".to_owned())), &[wider.clone(), rest.clone(), archive], "");
        assert_eq!(acted.len(), 1, "{acted:?}");
        assert!(acted[0].contains("sent POST /archive?page_size=3 although GET /numbers"), "{}", acted[0]);
        // Read again, answered over the question asked: finished.
        let again = [wider, rest, numbers(2, "parity=odd&page_size=2", None, None)];
        assert_eq!(judged(all(), &again), Vec::<String>::new());
    }

    /// A later page that hands out a cursor an earlier page of its traversal handed out (a server
    /// that loops) leaves the traversal unfinished, whether the client stops there or follows it
    /// to a complete page; the same cursor sent again (a retry) handing out the same next cursor
    /// is no loop, nor is a first page again (`page.resumed: false`) handing out its own.
    #[test]
    fn a_cursor_handed_out_twice_in_a_traversal_leaves_it_unfinished() {
        let looping = [
            numbers(0, "page_size=2", None, Some("a")),
            numbers(1, "page_size=2", Some("a"), Some("b")),
            numbers(2, "page_size=2", Some("b"), Some("a")),
        ];
        let expected = "GET /numbers?page_size=2&cursor=b handed out a cursor that GET /numbers?page_size=2 had \
                        handed out before in the same traversal of /numbers: a server that loops (contract §2.5)";
        // Stopped there and concluded complete.
        let violation = only_violation(&looping);
        assert!(violation.contains(expected), "{violation}");
        // Followed to the end.
        let followed = [
            looping.to_vec(),
            vec![numbers(3, "page_size=2", Some("a"), Some("b2")), numbers(4, "page_size=2", Some("b2"), None)],
        ]
        .concat();
        let violation = only_violation(&followed);
        assert!(violation.contains(expected), "{violation}");
        // Stopped without concluding: nothing to say; started over and read whole: finished.
        let stopped = judge(None, Some(&Ok(Conclusion::Incomplete(vec!["loop".to_owned()]))), &looping, "");
        assert_eq!(stopped, Vec::<String>::new());
        let over = [looping.to_vec(), vec![numbers(3, "page_size=2", None, None)]].concat();
        assert_eq!(judged(all(), &over), Vec::<String>::new());
        // A retry of a page hands out what it handed out; a first page again hands out its own.
        let retried = [
            numbers(0, "page_size=2", None, Some("a")),
            numbers(1, "page_size=2", Some("a"), Some("b")),
            numbers(2, "page_size=2", Some("a"), Some("b")),
            numbers(3, "page_size=2", Some("b"), None),
        ];
        assert_eq!(judged(all(), &retried), Vec::<String>::new());
        let mut first_again = numbers(2, "page_size=2", Some("b"), Some("a"));
        first_again.resumed = Some(false);
        let restarted = [
            numbers(0, "page_size=2", None, Some("a")),
            numbers(1, "page_size=2", Some("a"), Some("b")),
            first_again,
            numbers(3, "page_size=2", Some("a"), Some("b")),
            numbers(4, "page_size=2", Some("b"), None),
        ];
        assert_eq!(judged(all(), &restarted), Vec::<String>::new());
    }
}
