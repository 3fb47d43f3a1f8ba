//! `TimeBudget`: how long a request may take, capped by the server (contract §5.2).
//!
//! A request asks with `time_budget_ms=<ms>` (query) or `Request-Timeout: <seconds>`
//! (header, decimals allowed; a positive time under a millisecond is one); when it names both,
//! the smaller applies. Absent → the configured default; above the configured maximum → the
//! maximum. Zero, negative or unreadable values, and either one given twice → 400
//! `INVALID_TIME_BUDGET`. The applied budget is echoed in the
//! `Time-Budget-Ms` response header (by the checked routes of [`crate::server::routing`]) and in the
//! `budget_ms` of any `TIME_BUDGET_EXCEEDED` reason.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderValue};
use axum::response::Response;
use tokio::time::Instant;

use crate::contract::params::TIME_BUDGET_MS;
use crate::contract::reason::{Progress, TimeBudgetExceeded};
use crate::server::config::{CompletenessConfig, CompletenessState};
use crate::server::problem::{Problem, ProblemCode};
use crate::server::query::query_pairs;

/// The response header that echoes the time budget applied to a request, in milliseconds.
pub const TIME_BUDGET_HEADER: &str = "time-budget-ms";

/// The request-timeout header (seconds).
pub const REQUEST_TIMEOUT_HEADER: &str = crate::contract::params::REQUEST_TIMEOUT;

/// The time budget applied to a request, and the clock it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeBudget {
    applied: Duration,
    requested: Option<Duration>,
    max: Duration,
    started: Instant,
}

impl TimeBudget {
    /// A budget of `applied` (capped at `max`), starting now.
    pub fn new(applied: Duration, max: Duration) -> TimeBudget {
        TimeBudget { applied: applied.min(max), requested: None, max, started: Instant::now() }
    }

    /// Reads the request (what the extractor does) and records the applied budget for
    /// the response header.
    pub fn from_parts(parts: &Parts, config: &CompletenessConfig) -> Result<TimeBudget, Problem> {
        let mut requested = requested_in_query(&parts.uri)?;
        let mut headers = parts.headers.get_all(REQUEST_TIMEOUT_HEADER).iter();
        if let Some(header) = headers.next() {
            // One budget, as the query's `time_budget_ms` is: two would leave the client
            // unsure which one applied.
            if headers.next().is_some() {
                return Err(invalid("Request-Timeout was given more than once", "Request-Timeout"));
            }
            let text = header.to_str().map_err(|_| invalid("Request-Timeout is not text", "Request-Timeout"))?;
            let from_header = parse_seconds(text)?;
            requested = Some(requested.map_or(from_header, |r| r.min(from_header)));
        }
        let mut budget = TimeBudget::new(requested.unwrap_or(config.default_time_budget()), config.max_time_budget());
        budget.requested = requested;
        if let Some(echo) = parts.extensions.get::<BudgetEcho>() {
            let _ = echo.0.set(budget);
        }
        Ok(budget)
    }

    /// The budget applied.
    pub fn applied(&self) -> Duration {
        self.applied
    }

    /// The budget applied, in milliseconds.
    pub fn applied_ms(&self) -> u64 {
        crate::contract::whole_millis(self.applied)
    }

    /// The budget the request asked for, if it named one.
    pub fn requested(&self) -> Option<Duration> {
        self.requested
    }

    /// True when the request asked for more than the server allows.
    pub fn was_capped(&self) -> bool {
        self.requested.is_some_and(|r| r > self.applied)
    }

    /// When the budget runs out.
    pub fn deadline(&self) -> Instant {
        // A configured maximum too far in the future for the clock: a year is forever here.
        self.started.checked_add(self.applied).unwrap_or_else(|| self.started + Duration::from_secs(365 * 86_400))
    }

    /// The time left (zero once spent).
    pub fn remaining(&self) -> Duration {
        self.deadline().saturating_duration_since(Instant::now())
    }

    /// True once the budget is spent.
    pub fn is_spent(&self) -> bool {
        Instant::now() >= self.deadline()
    }

    /// A progress tracker over `planned` units (`None` when unknown) named `unit`
    /// (`"sources"`, `"rows"`, `"pages"`).
    pub fn tracker(&self, planned: Option<u64>, unit: &str) -> BudgetTracker {
        BudgetTracker { budget: *self, completed: 0, planned, unit: unit.to_owned() }
    }

    /// The `TIME_BUDGET_EXCEEDED` reason at `progress`. It offers `retry_with_deadline`
    /// only when the server would allow a larger budget (a real recovery path).
    pub fn exceeded(&self, progress: Progress) -> TimeBudgetExceeded {
        let reason = TimeBudgetExceeded::new(self.applied_ms(), progress);
        // Twice the budget, at most the cap, in whole seconds as the continuation counts them:
        // rounded up unless that passes the cap, and offered only when it is still more than
        // the budget spent (a cap under a second leaves none to offer).
        let larger = self.applied.saturating_mul(2).min(self.max);
        let up = larger.as_millis().div_ceil(1000);
        let seconds = if up * 1000 <= self.max.as_millis() { up } else { u128::from(larger.as_secs()) };
        match u64::try_from(seconds) {
            Ok(seconds) if Duration::from_secs(seconds) > self.applied => reason.retry_with_deadline(seconds),
            _ => reason,
        }
    }
}

impl<S: CompletenessState> FromRequestParts<S> for TimeBudget {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        TimeBudget::from_parts(parts, &state.completeness())
    }
}

/// Counts finished units of budgeted work and says when the budget is spent.
///
/// On a paged endpoint, a page the budget cut short whose next cursor resumes right after its
/// last item loses nothing: report only `MORE_PAGES_AVAILABLE` (a page may hold fewer items
/// than its size). `TIME_BUDGET_EXCEEDED` beside it would stay on every page a client follows,
/// so the traversal could never be complete; report it for work a cursor cannot continue (a
/// fan-out, a search, a count), or when the page offers no cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetTracker {
    budget: TimeBudget,
    completed: u64,
    planned: Option<u64>,
    unit: String,
}

impl BudgetTracker {
    /// Records `units` more finished units.
    pub fn complete(&mut self, units: u64) {
        self.completed = self.completed.saturating_add(units);
    }

    /// The progress so far, e.g. `{completed: 1, planned: 3, unit: "sources"}`.
    pub fn progress(&self) -> Progress {
        Progress { completed: self.completed, planned: self.planned, unit: self.unit.clone() }
    }

    /// True once the budget is spent.
    pub fn is_spent(&self) -> bool {
        self.budget.is_spent()
    }

    /// `Err(TIME_BUDGET_EXCEEDED)` with the progress so far once the budget is spent.
    pub fn check(&self) -> Result<(), TimeBudgetExceeded> {
        if self.is_spent() { Err(self.exceeded()) } else { Ok(()) }
    }

    /// The `TIME_BUDGET_EXCEEDED` reason with the progress so far.
    pub fn exceeded(&self) -> TimeBudgetExceeded {
        self.budget.exceeded(self.progress())
    }

    /// The budget being tracked.
    pub fn budget(&self) -> &TimeBudget {
        &self.budget
    }
}

/// The `time_budget_ms` of a query, given at most once: a second one, or an unreadable one, is
/// a 400 `INVALID_TIME_BUDGET`.
pub(crate) fn requested_in_query(uri: &axum::http::Uri) -> Result<Option<Duration>, Problem> {
    let mut requested = None;
    for (key, value) in query_pairs(uri)? {
        if key == TIME_BUDGET_MS {
            if requested.is_some() {
                return Err(invalid("time_budget_ms was given more than once", TIME_BUDGET_MS));
            }
            requested = Some(parse_ms(&value)?);
        }
    }
    Ok(requested)
}

fn invalid(detail: &str, parameter: &str) -> Problem {
    Problem::new(ProblemCode::InvalidTimeBudget, detail).with_parameter(parameter)
}

fn shown(text: &str) -> String {
    text.chars().take(32).collect()
}

fn parse_ms(text: &str) -> Result<Duration, Problem> {
    let bad = || {
        invalid(
            &format!("time_budget_ms must be a positive number of milliseconds, got '{}'", shown(text)),
            TIME_BUDGET_MS,
        )
    };
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match text.parse::<u64>() {
        Ok(0) => Err(bad()),
        Ok(ms) => Ok(Duration::from_millis(ms)),
        // More digits than u64 holds: a huge request, capped like any other.
        Err(_) => Ok(Duration::MAX),
    }
}

fn parse_seconds(text: &str) -> Result<Duration, Problem> {
    let bad = || {
        invalid(
            &format!("Request-Timeout must be a positive number of seconds, got '{}'", shown(text)),
            "Request-Timeout",
        )
    };
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || (text.contains('.') && fraction.is_empty())
    {
        return Err(bad());
    }
    let seconds: u64 = whole.parse().unwrap_or(u64::MAX);
    let millis: u64 = fraction
        .bytes()
        .take(3)
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0, |acc, digit| acc * 10 + u64::from(digit - b'0'));
    let duration = Duration::from_secs(seconds).saturating_add(Duration::from_millis(millis));
    // A positive time under the budget's millisecond: the smallest budget there is.
    let positive = fraction.bytes().any(|digit| digit != b'0');
    match duration.is_zero() {
        true if positive => Ok(Duration::from_millis(1)),
        true => Err(bad()),
        false => Ok(duration),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_timeout_seconds_parse_with_decimals_and_reject_garbage() {
        assert_eq!(parse_seconds("2").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_seconds("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_seconds("0.0255").unwrap(), Duration::from_millis(25));
        assert_eq!(parse_seconds("0.0001").unwrap(), Duration::from_millis(1), "positive, under a millisecond");
        for bad in ["", "0", "0.000", "-1", "1.", ".5", "1e3", "abc", "1,5", "2 s"] {
            assert!(parse_seconds(bad).is_err(), "'{bad}' must be refused");
        }
    }

    #[test]
    fn time_budget_ms_rejects_zero_negative_and_text_but_caps_huge() {
        for bad in ["", "0", "-5", "12ms", "1.5", " 7"] {
            assert_eq!(parse_ms(bad).unwrap_err().code(), &ProblemCode::InvalidTimeBudget, "'{bad}'");
        }
        assert_eq!(parse_ms("99999999999999999999999").unwrap(), Duration::MAX);
        let budget = TimeBudget::new(Duration::MAX, Duration::from_secs(30));
        assert_eq!(budget.applied(), Duration::from_secs(30));
    }

    #[test]
    fn exceeded_offers_a_larger_deadline_only_below_the_cap() {
        let progress = Progress { completed: 1, planned: Some(3), unit: "sources".into() };
        let small = TimeBudget::new(Duration::from_millis(400), Duration::from_secs(30));
        let json = serde_json::to_value(crate::StandardReason::from(small.exceeded(progress.clone()))).unwrap();
        assert_eq!(json["budget_ms"], 400);
        assert_eq!(json["progress"]["planned"], 3);
        use crate::Reason;
        assert_eq!(
            crate::StandardReason::from(small.exceeded(progress.clone())).recovery(),
            Some(crate::Continuation::RetryWithDeadline { minimum_seconds: 1 })
        );
        let capped = TimeBudget::new(Duration::from_secs(30), Duration::from_secs(30));
        assert_eq!(crate::StandardReason::from(capped.exceeded(progress.clone())).recovery(), None);
        // The advice is one the server takes: never more than its cap, always more than spent.
        let retry = |applied_ms, max_ms| {
            let budget = TimeBudget::new(Duration::from_millis(applied_ms), Duration::from_millis(max_ms));
            crate::StandardReason::from(budget.exceeded(progress.clone())).recovery()
        };
        let at_least = |minimum_seconds| Some(crate::Continuation::RetryWithDeadline { minimum_seconds });
        assert_eq!(retry(300, 800), None, "a cap under a second leaves no whole second to offer");
        assert_eq!(retry(700, 1500), at_least(1), "1.4 s rounds up past the cap: down to 1 s, more than 0.7 s");
        assert_eq!(retry(1200, 1500), None, "1.5 s rounds to 1 s, less than the 1.2 s spent");
        assert_eq!(retry(1200, 5000), at_least(3), "2.4 s rounds up to 3 s, within the cap");
    }
}

#[cfg(test)]
mod tracker_tests {
    use super::*;

    #[test]
    fn a_tracker_reports_progress_once_the_budget_is_spent() {
        let budget = TimeBudget::new(Duration::from_millis(1), Duration::from_secs(1));
        let mut tracker = budget.tracker(Some(10), "rows");
        tracker.complete(4);
        std::thread::sleep(Duration::from_millis(3));
        let exceeded = tracker.check().unwrap_err();
        assert_eq!(exceeded.budget_ms, 1);
        assert_eq!(exceeded.progress, Progress { completed: 4, planned: Some(10), unit: "rows".into() });
        let roomy = TimeBudget::new(Duration::from_secs(60), Duration::from_secs(60)).tracker(None, "pages");
        assert!(roomy.check().is_ok());
    }
}

/// Where the time budget extractor records the budget for the response (a request's budget is
/// the same however often it is extracted: the first record stands).
#[derive(Debug, Clone, Default)]
pub(crate) struct BudgetEcho(Arc<OnceLock<TimeBudget>>);

impl BudgetEcho {
    /// A fresh record, left in a request's `extensions` for the extractor to fill.
    pub(crate) fn expect(extensions: &mut Extensions) -> BudgetEcho {
        let echo = BudgetEcho::default();
        extensions.insert(echo.clone());
        echo
    }

    /// Echoes the recorded budget, if the handler extracted one, on `response`: the header, and
    /// the budget itself in its extensions.
    pub(crate) fn onto(&self, response: &mut Response) {
        if let Some(&budget) = self.0.get() {
            response.headers_mut().insert(TIME_BUDGET_HEADER, HeaderValue::from(budget.applied_ms()));
            response.extensions_mut().insert(budget);
        }
    }
}

/// The layer that echoes the applied budget in the `Time-Budget-Ms` response header when the
/// handler extracted a [`TimeBudget`], and leaves the budget in the response's extensions for
/// the layers outside (the fault layer's `TIME_BUDGET_EXCEEDED` is the one this budget gives).
/// The checked routes of [`crate::server::routing`] echo the budget in their demand layer, so
/// they need none; a handler routed with `axum::routing` gets it with
/// `.route_layer(completeness::budget::echo_layer())`.
pub fn echo_layer() -> EchoLayer {
    EchoLayer
}

/// See [`echo_layer`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoLayer;

impl<S> tower::Layer<S> for EchoLayer {
    type Service = EchoService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        EchoService { inner }
    }
}

/// The service of [`EchoLayer`].
#[derive(Debug, Clone)]
pub struct EchoService<S> {
    inner: S,
}

impl<S> tower::Service<Request> for EchoService<S>
where
    S: tower::Service<Request, Response = Response> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let echo = BudgetEcho::expect(request.extensions_mut());
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            echo.onto(&mut response);
            Ok(response)
        })
    }
}
