//! `collect_all`: follow `next_cursor` until `complete: true`, and report honestly
//! what was not collected (DESIGN §2.4, §4).

use std::fmt;
use std::future::{Future, poll_fn};
use std::ops::Deref;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use serde::{Serialize, Serializer};

use super::deadline::Deadline;
use super::head::Head;
use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{ClientLimitReached, LimitKind, ReasonDetails, SnapshotExpired, StandardReason};
use crate::contract::scope::{PageInfo, Scope};
use crate::contract::warning::Warning;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::report::{CompletenessReport, ReportsCompleteness};

/// The limits a collector applies itself. Reaching one yields `CLIENT_LIMIT_REACHED`
/// with a cursor that resumes where the collector stopped.
///
/// Limits are checked before each fetch: a fetched page is never cut in half (its
/// items are kept, so `max_items` may be exceeded by at most one page), and a single
/// slow fetch is bounded by the fetcher's own request timeout, not by `deadline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectLimits {
    /// The most pages to fetch.
    pub max_pages: u64,
    /// Stop before fetching another page once this many items are held.
    pub max_items: u64,
    /// Stop before fetching another page once this much time has passed.
    ///
    /// The clock is read before every fetch that follows a fetch that had to wait, and
    /// otherwise while fetches are measured to cost more than 2 µs or the deadline is
    /// near; runs of cheaper fetches far from the deadline read it at most 16 fetches
    /// apart, so the check costs nothing next to pages served from memory.
    pub deadline: Duration,
}

impl Default for CollectLimits {
    /// 1,000 pages, 1,000,000 items, 5 minutes.
    fn default() -> Self {
        CollectLimits { max_pages: 1_000, max_items: 1_000_000, deadline: Duration::from_secs(300) }
    }
}

/// Why a page could not be fetched.
#[derive(Debug, Clone, PartialEq)]
pub enum FetchError {
    /// The server answered with an RFC 9457 problem (a cursor error, 401, 403, ...).
    Problem(Problem),
    /// The server could not be reached or the exchange broke off.
    Transport(String),
    /// The server answered, but not with a valid envelope or problem: the strict
    /// deserializer rejected it (e.g. `complete` missing or an invariant violated).
    Contract(String),
}

impl FetchError {
    /// The problem, when the server answered with one.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            FetchError::Problem(problem) => Some(problem),
            _ => None,
        }
    }

    /// True for `410 CURSOR_EXPIRED`: the traversal's snapshot is gone.
    pub fn is_cursor_expired(&self) -> bool {
        self.problem().is_some_and(|p| *p.code() == ProblemCode::CursorExpired)
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Problem(problem) => write!(f, "the server refused the request: {problem}"),
            FetchError::Transport(message) => write!(f, "the server could not be reached: {message}"),
            FetchError::Contract(message) => write!(f, "the response breaks the completeness contract: {message}"),
        }
    }
}

impl std::error::Error for FetchError {}

impl From<Problem> for FetchError {
    fn from(problem: Problem) -> Self {
        FetchError::Problem(problem)
    }
}

/// The result of [`collect_all`]: every collected item with a completeness block that
/// keeps the contract of [`Envelope`] and serializes exactly like one.
///
/// It is complete only when the last page was complete and no page reported any
/// other reason; it then carries the server's evidence token from that last page.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected<T> {
    envelope: Envelope<T, StandardReason>,
    pages_fetched: u64,
}

impl<T> Collected<T> {
    /// The collected envelope.
    pub fn envelope(&self) -> &Envelope<T, StandardReason> {
        &self.envelope
    }

    /// The collected envelope, by value.
    pub fn into_envelope(self) -> Envelope<T, StandardReason> {
        self.envelope
    }

    /// How many pages were fetched (successfully or not).
    pub fn pages_fetched(&self) -> u64 {
        self.pages_fetched
    }
}

impl<T> Deref for Collected<T> {
    type Target = Envelope<T, StandardReason>;
    fn deref(&self) -> &Self::Target {
        &self.envelope
    }
}

impl<T: Serialize> Serialize for Collected<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.envelope.serialize(serializer)
    }
}

impl<T> ReportsCompleteness for Collected<T> {
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(&self.envelope.completeness)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(&mut self.envelope.completeness)
    }
}

/// Why the loop stopped.
enum Stop {
    /// The last page said `complete: true`, or it was incomplete with no next page.
    LastPage,
    /// A limit of the collector.
    Limit(ClientLimitReached),
    /// `410 CURSOR_EXPIRED`, or a page read at another snapshot.
    SnapshotGone,
}

/// Collects every page of a traversal by following `next_cursor` until a page says
/// `complete: true`.
///
/// `fetch_page(None)` fetches the first page, `fetch_page(Some(cursor))` the next.
/// The collector
/// - never stops on a short or empty page and never fetches past a complete one;
/// - requires every page to report the first page's `scope.snapshot` and
///   `page.snapshot`: a page read at another snapshot is not merged, the result is
///   incomplete with `SNAPSHOT_EXPIRED`;
/// - on `410 CURSOR_EXPIRED` returns what it has with `SNAPSHOT_EXPIRED` (and a
///   `restart` continuation) and never restarts by itself;
/// - stops at its own [`CollectLimits`] with `CLIENT_LIMIT_REACHED` whose
///   `next_cursor` resumes the traversal;
/// - carries every reason other than `MORE_PAGES_AVAILABLE` and every warning of
///   every page into the result (exact duplicates once).
///
/// Any other fetch error is returned as an error: a failed read is never reported as
/// a shorter result.
///
/// ```
/// use completeness_runtime::client::{CollectLimits, FetchError, collect_all};
/// use completeness_runtime::reason::MorePagesAvailable;
/// use completeness_runtime::{Envelope, Scope};
///
/// // Two pages: the first is empty but not the end.
/// let fetch = |cursor: Option<String>| async move {
///     let scope = Scope::new("numbers", "every number").with_snapshot("s-1");
///     Ok::<_, FetchError>(match cursor {
///         None => Envelope::incomplete(vec![], scope, MorePagesAvailable::new("p2")),
///         Some(_) => Envelope::complete(vec![7_u32], scope),
///     })
/// };
/// let collected = block_on(collect_all(fetch, CollectLimits::default())).unwrap();
/// assert!(collected.is_complete());
/// assert_eq!(collected.items, vec![7]);
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn collect_all<T, F, Fut>(mut fetch_page: F, limits: CollectLimits) -> Result<Collected<T>, FetchError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Envelope<T, StandardReason>, FetchError>>,
{
    let mut traversal = Traversal::new(limits);
    if let Some(limit) = traversal.reached_limit(false) {
        return Ok(traversal.finish(Stop::Limit(limit)));
    }
    loop {
        let continuing = traversal.cursor.is_some();
        traversal.pages_fetched += 1;
        let mut fetch = pin!(fetch_page(traversal.cursor.take()));
        let mut waited = false;
        // Each page is taken in by reference as soon as it is ready, in the place the
        // fetch wrote it: moving it out (its block alone is about 360 bytes) cost as
        // much per page as checking it.
        let more = poll_fn(|cx| match fetch.as_mut().poll(cx) {
            Poll::Pending => {
                waited = true;
                Poll::Pending
            }
            Poll::Ready(Ok(ref mut page)) => Poll::Ready(Ok(traversal.take(page, waited))),
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
        })
        .await;
        match more {
            Ok(true) => {}
            Ok(false) => {
                let stop = traversal.stop.take().unwrap_or(Stop::LastPage);
                return Ok(traversal.finish(stop));
            }
            Err(error) if error.is_cursor_expired() && continuing => {
                return Ok(traversal.finish(Stop::SnapshotGone));
            }
            Err(error) => return Err(error),
        }
    }
}

/// The state of one traversal: what was collected, and what must be reported about it.
///
/// Aligned to a cache line, so that the state read on every page lies the same way
/// across cache lines wherever the caller's stack puts the traversal. Unaligned, the
/// collector's cost depended on the stack's alignment: moving the stack 48 bytes at a
/// time, every fourth position (same offset modulo 64) cost it 3% more per traversal.
#[repr(align(64))]
struct Traversal<T> {
    limits: CollectLimits,
    deadline: Deadline,
    items: Vec<T>,
    pages_fetched: u64,
    /// The cursor of the next page to fetch.
    cursor: Option<String>,
    /// Why the traversal stopped after a page, once it did.
    stop: Option<Stop>,
    /// The first page's scope and page facts: the traversal's snapshot, ordering and
    /// sizes, kept from the first page on when more pages follow.
    head: Option<Head>,
    /// The result's scope and page member, once the traversal stopped after a page. When
    /// a limit stopped it, the page member's cursor contract is the latest page's, so it
    /// describes the resume cursor.
    kept: Option<(Scope, Option<PageInfo>)>,
    carried: Vec<StandardReason>,
    warnings: Vec<Warning>,
    evidence: Option<String>,
}

impl<T> Traversal<T> {
    fn new(limits: CollectLimits) -> Self {
        Traversal {
            limits,
            deadline: Deadline::start(limits.deadline),
            items: Vec::new(),
            pages_fetched: 0,
            cursor: None,
            stop: None,
            head: None,
            kept: None,
            carried: Vec::new(),
            warnings: Vec::new(),
            evidence: None,
        }
    }

    /// The first limit that forbids another fetch, if any; the deadline is asked last.
    /// `waited` says whether the last fetch had to wait.
    fn reached_limit(&mut self, waited: bool) -> Option<ClientLimitReached> {
        let limits = &self.limits;
        if self.pages_fetched >= limits.max_pages {
            return Some(ClientLimitReached::new(LimitKind::Pages, limits.max_pages));
        }
        if self.items.len() as u64 >= limits.max_items {
            return Some(ClientLimitReached::new(LimitKind::Items, limits.max_items));
        }
        if self.deadline.passed(waited) {
            let millis = u64::try_from(limits.deadline.as_millis()).unwrap_or(u64::MAX);
            return Some(ClientLimitReached::new(LimitKind::Deadline, millis));
        }
        None
    }

    /// Takes in a fetched page (its items are moved out). True when the next page is to
    /// be fetched (with `self.cursor`); false when the traversal stops here (`self.stop`
    /// says why).
    fn take(&mut self, page: &mut Envelope<T, StandardReason>, waited: bool) -> bool {
        if let Some(head) = &self.head
            && !head.same_snapshot(&page.completeness)
        {
            // A page of another snapshot is not merged.
            self.stop = Some(Stop::SnapshotGone);
            return false;
        }
        // The first page's items are copied too rather than kept in its buffer: for the
        // same reason as the cursor below, that measured faster.
        self.items.append(&mut page.items);
        let block = &mut page.completeness;
        let mut more = false;
        for reason in block.reasons() {
            if let StandardReason::MorePagesAvailable(_) = reason {
                more = true;
            } else if !self.carried.contains(reason) {
                self.carried.push(reason.clone());
            }
        }
        for warning in block.warnings() {
            if !self.warnings.contains(warning) {
                self.warnings.push(warning.clone());
            }
        }
        // Copied, not moved out: the page is then freed whole before the next fetch, as
        // in a plain loop. Keeping one of its strings alive into the next fetch made
        // each later page's allocations slower in glibc (one more slow-path allocation
        // a page, about 7% on pages of 250 ids; `cargo bench --bench collect`).
        let next = if more { block.next_cursor().map(str::to_owned) } else { None };
        let Some(next) = next else {
            if block.is_complete() {
                self.evidence = block.evidence().map(str::to_owned);
            }
            self.keep_result(block);
            self.stop = Some(Stop::LastPage);
            return false;
        };
        // The limits are checked before the next fetch, while this page is at hand.
        if let Some(limit) = self.reached_limit(waited) {
            self.keep_result(block);
            self.stop = Some(Stop::Limit(limit.resume_with(next)));
            return false;
        }
        if self.head.is_none() {
            self.head = Some(Head::keep(block));
        }
        self.cursor = Some(next);
        true
    }

    /// Keeps the result's scope and page member when the traversal stops after `block`:
    /// the first page's (moved out of `block` when it is the first), with `block`'s cursor
    /// contract, which [`Traversal::finish`] keeps only when the result resumes.
    fn keep_result(&mut self, block: &mut Completeness<StandardReason>) {
        self.kept = Some(match self.head.take() {
            None => block.take_scope_and_page(),
            Some(head) => head.into_scope_and_page(block.page_mut().and_then(|latest| latest.cursor.take())),
        });
    }

    /// The result: everything collected, with a block that says why it is incomplete.
    fn finish(self, stop: Stop) -> Collected<T> {
        let Traversal { items, pages_fetched, head, kept, carried, warnings, evidence, .. } = self;
        let mut completeness = match kept.or_else(|| head.map(|head| head.into_scope_and_page(None))) {
            Some((scope, page)) => {
                let mut block = Completeness::complete(scope);
                block.set_page(page.map(|page| PageInfo { returned: items.len() as u64, ..page }));
                block
            }
            None => Completeness::complete(Scope::default()),
        };
        for warning in warnings {
            completeness.push_warning(warning);
        }
        for reason in carried {
            completeness.push_reason(reason);
        }
        let resumable = matches!(&stop, Stop::Limit(limit) if ReasonDetails::recovery(limit).is_some());
        if let Some(page) = completeness.page_mut() {
            // The page member describes a cursor only when the result resumes.
            if !resumable {
                page.cursor = None;
            }
        }
        match stop {
            Stop::LastPage => {}
            Stop::Limit(limit) => completeness.push_reason(limit),
            Stop::SnapshotGone => {
                let snapshot = completeness
                    .scope()
                    .snapshot
                    .clone()
                    .or_else(|| completeness.page().and_then(|p| p.snapshot.clone()))
                    .unwrap_or_else(|| "of this traversal".to_owned());
                completeness.push_reason(SnapshotExpired::new(snapshot));
            }
        }
        if let Some(token) = evidence {
            // Passes the server's token through; refused unless the whole result is complete.
            completeness.attach_evidence(token);
        }
        Collected { envelope: Envelope::new(items, completeness), pages_fetched }
    }
}
