//! [`Kit`]: the client conformance kit: a client against a faulted service, many times over.

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;

use axum::Router;

use super::fault::Fault;
use super::layer::{FaultLayer, FaultRecord};
use super::schedule::{DEFAULT_PROBABILITY, Schedule};

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

/// Runs a client against a service with the fault layer, under every fault its routes offer
/// and `schedules` seeded schedules, and checks the properties every client of the contract
/// must keep:
///
/// 1. **No claim of completeness on an incomplete answer.** A [`Conclusion::Complete`] must
///    equal what the client concludes with no fault: the layer only removes items, so any
///    other conclusion took an incomplete answer (or an empty one) for the whole scope. Nor
///    may it follow an answer with a stale warning (contract §3.5): the client then claims
///    absent what it did not read from current state.
/// 2. **No destructive action on an incomplete answer.** A request other than `GET`/`HEAD`
///    must follow a finished traversal (its last answer complete) in which every answer was
///    complete but for pagination, and none had a stale warning.
/// 3. **No endless loop on a continuation.** A run may send at most `max_requests` requests;
///    past them it is stopped and fails.
/// 4. **It reports what it could not cover.** A [`Conclusion::Incomplete`] names something.
///
/// Each run starts a fresh router from `make_router` on a free loopback port and serves it
/// over real HTTP. A run without faults comes first: it gives the conclusion the others are
/// held to, and the faults the routes offer. A failure prints its schedule (replay it with
/// [`Kit::replay`]) and the fault sequence that broke the client.
pub struct Kit<M> {
    make_router: M,
    schedules: u64,
    first_seed: u64,
    probability: f64,
    max_requests: u64,
}

impl<M> fmt::Debug for Kit<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kit")
            .field("schedules", &self.schedules)
            .field("first_seed", &self.first_seed)
            .field("probability", &self.probability)
            .field("max_requests", &self.max_requests)
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
        writeln!(f, "schedule: {} (seed {})", self.schedule, self.schedule.seed())?;
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
    /// request faulted with probability 0.5, at most 200 requests a run.
    pub fn new(make_router: M) -> Kit<M> {
        Kit { make_router, schedules: 300, first_seed: 1, probability: DEFAULT_PROBABILITY, max_requests: 200 }
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
        if truth.is_none() {
            let mut failure = baseline.clone();
            failure.violations.push(format!(
                "without faults the client did not conclude complete ({:?}); nothing can be checked against it",
                baseline.outcome
            ));
            report.failures.push(failure.into_failure());
        } else if !baseline.violations.is_empty() {
            report.failures.push(baseline.clone().into_failure());
        }
        report.truth = baseline.outcome.clone();
        let mut schedules: Vec<Schedule> = report.offered.iter().map(|fault| Schedule::always(fault.name())).collect();
        schedules.extend((0..self.schedules).map(|i| Schedule::seeded(self.first_seed + i, self.probability)));
        for schedule in schedules {
            let run = self.replay(schedule, truth.as_ref(), &client).await;
            report.runs += 1;
            report.offered.extend(run.log.iter().flat_map(|record| record.offered.iter().cloned()));
            report.applied.extend(run.log.iter().filter_map(|record| record.fault.clone()));
            if !run.violations.is_empty() {
                report.failures.push(run.into_failure());
            }
        }
        report
    }

    /// One run of `client` under `schedule`, judged against the fault-free conclusion
    /// `truth` when given.
    pub async fn replay<C, F>(&self, schedule: Schedule, truth: Option<&Conclusion>, client: &C) -> Run
    where
        C: Fn(Target) -> F,
        F: Future<Output = Result<Conclusion, String>>,
    {
        let layer = FaultLayer::with_limit(schedule.clone(), Some(self.max_requests));
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
        let outcome = tokio::select! {
            outcome = client(target) => Some(outcome),
            () = layer.exceeded() => None,
        };
        // A client that ends on the limit's refusal was stopped all the same.
        let outcome = outcome.filter(|_| !layer.was_exceeded());
        server.abort();
        let log = layer.log();
        let violations = judge(truth, outcome.as_ref(), &log, self.max_requests);
        Run { schedule, outcome, log, violations }
    }
}

/// One run: its schedule, the client's conclusion (`None`: stopped at the request limit),
/// every request, and what the client did wrong.
#[derive(Debug, Clone)]
pub struct Run {
    /// The schedule.
    pub schedule: Schedule,
    /// The client's conclusion; `None` when it was stopped at the request limit.
    pub outcome: Option<Result<Conclusion, String>>,
    /// Every request and its fault.
    pub log: Vec<FaultRecord>,
    /// The broken properties (empty: the client kept them all).
    pub violations: Vec<String>,
}

impl Run {
    fn broken(schedule: Schedule, why: String) -> Run {
        Run { schedule, outcome: None, log: Vec::new(), violations: vec![why] }
    }

    /// The run as a failure.
    pub fn into_failure(self) -> Failure {
        Failure { schedule: self.schedule, violations: self.violations, log: self.log }
    }
}

/// The properties of the kit's documentation, on one run.
fn judge(
    truth: Option<&Conclusion>,
    outcome: Option<&Result<Conclusion, String>>,
    log: &[FaultRecord],
    max_requests: u64,
) -> Vec<String> {
    let mut violations = Vec::new();
    match outcome {
        None => violations.push(format!(
            "the client sent more than {max_requests} requests without concluding: does it loop on a continuation?"
        )),
        Some(Ok(Conclusion::Complete(found))) => {
            if let Some(Conclusion::Complete(whole)) = truth
                && found != whole
            {
                violations.push(format!(
                    "the client concluded complete with {found:?}, but the whole scope gives {whole:?}: it took an \
                     incomplete answer for a complete one"
                ));
            }
            if let Some(stale) = stale_in_latest_traversal(log) {
                violations.push(format!(
                    "the client concluded complete after {} {} answered with a stale warning: what it did not read \
                     from current state, it cannot claim absent",
                    stale.method, stale.uri
                ));
            }
        }
        Some(Ok(Conclusion::Incomplete(uncovered))) => {
            if uncovered.iter().all(|what| what.trim().is_empty()) {
                violations.push("the client did not conclude, and did not say what it could not cover".to_owned());
            }
        }
        Some(Err(_)) => {}
    }
    // Rule 2: the state of the latest traversal when each destructive request was sent.
    // (A collection answer is one the layer could fault, or one that said `complete`; a
    // request without a cursor starts a traversal.)
    let mut latest: Option<(bool, bool)> = None; // (every answer complete but for pagination, finished)
    for record in log {
        match record.method.as_str() {
            "GET" | "HEAD" => {
                if record.offered.is_empty() && record.complete.is_none() && !record.had_cursor {
                    continue;
                }
                let (clean, _) = if record.had_cursor { latest.unwrap_or((false, false)) } else { (true, false) };
                latest = Some((clean && !record.is_incomplete() && !record.stale, record.complete == Some(true)));
            }
            _ => match latest {
                Some((true, true)) => {}
                _ => violations.push(format!(
                    "the client sent {} {} after a traversal that was not complete, or not read from current \
                     state: a destructive action on an incomplete or stale answer",
                    record.method, record.uri
                )),
            },
        }
    }
    violations
}

/// The first answer with a stale warning in the run's latest traversal (from its last
/// collection request without a cursor), if any: a retry that starts over is judged alone.
fn stale_in_latest_traversal(log: &[FaultRecord]) -> Option<&FaultRecord> {
    let answers: Vec<&FaultRecord> = log
        .iter()
        .filter(|r| matches!(r.method.as_str(), "GET" | "HEAD"))
        .filter(|r| !r.offered.is_empty() || r.complete.is_some() || r.had_cursor)
        .collect();
    let start = answers.iter().rposition(|r| !r.had_cursor).unwrap_or(0);
    answers[start..].iter().copied().find(|r| r.stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request of a run, as the layer logs it.
    fn record(request: u64, method: &str, had_cursor: bool, complete: bool, stale: bool) -> FaultRecord {
        FaultRecord {
            request,
            method: method.to_owned(),
            uri: format!("/things?request={request}"),
            had_cursor,
            offered: Vec::new(),
            fault: None,
            status: 200,
            complete: (method == "GET").then_some(complete),
            reasons: if complete || method != "GET" { Vec::new() } else { vec!["MORE_PAGES_AVAILABLE".to_owned()] },
            stale,
        }
    }

    #[test]
    fn a_stale_answer_in_the_latest_traversal_forbids_a_complete_conclusion_and_a_change() {
        let truth = Conclusion::Complete("all".to_owned());
        let concluded = Some(Ok(Conclusion::Complete("all".to_owned())));
        // Two pages, the first stale, then a change.
        let stale_run = [
            record(0, "GET", false, false, true),
            record(1, "GET", true, true, false),
            record(2, "POST", false, true, false),
        ];
        let violations = judge(Some(&truth), concluded.as_ref(), &stale_run, 10);
        assert_eq!(violations.len(), 2, "{violations:?}");
        assert!(violations[0].contains("answered with a stale warning"), "{}", violations[0]);
        assert!(violations[1].contains("not read from current state"), "{}", violations[1]);
        // Started over, and current throughout: nothing to say.
        let retried = [
            record(0, "GET", false, true, true),
            record(1, "GET", false, false, false),
            record(2, "GET", true, true, false),
            record(3, "POST", false, true, false),
        ];
        assert_eq!(judge(Some(&truth), concluded.as_ref(), &retried, 10), Vec::<String>::new());
    }
}
