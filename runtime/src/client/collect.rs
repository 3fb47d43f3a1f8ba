//! `collect_all`: follow `next_cursor` until `complete: true`, and report honestly
//! what was not collected (contract §2.5, §8).

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Deref;
use std::time::{Duration, Instant};

use serde::{Serialize, Serializer};

use crate::contract::completeness::Completeness;
use crate::contract::continuation::Continuation;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{
    ClientLimitReached, LimitKind, Reason, ReasonDetails, SnapshotExpired, StandardReason, WithMessage,
};
use crate::contract::scope::{PageInfo, Scope};
use crate::contract::warning::Warning;
use crate::server::problem::{Problem, ProblemCode};
use crate::server::report::{CompletenessReport, ReportsCompleteness};

/// The limits a collector applies itself. Reaching one yields `CLIENT_LIMIT_REACHED`
/// with a cursor that resumes where the collector stopped ([`resume`]; before the first page,
/// with none: [`resume`] then starts from the first page).
///
/// Limits are checked before each fetch: a fetched page is never cut in half (its
/// items are kept, so `max_items` may be exceeded by at most one page), and a single
/// slow fetch is bounded by the fetcher's own request timeout, not by `deadline` (nor, for a
/// fetcher that asks a refused page again, are its waits: they count once the next page is due).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectLimits {
    /// The most pages to fetch.
    pub max_pages: u64,
    /// Stop before fetching another page once this many items are held.
    pub max_items: u64,
    /// Stop before fetching another page once this much time has passed.
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
#[non_exhaustive]
pub enum FetchError {
    /// The server answered with an RFC 9457 problem (a cursor error, 401, 403, ...).
    Problem(Problem),
    /// No answer: the server could not be reached, the exchange broke off, or it timed out.
    Transport(String),
    /// No answer of the service's: a server error (5xx) or a `429` without a problem body, most
    /// likely a proxy's or a load balancer's page. It says nothing of what exists, and may be
    /// sent again (contract §5.4, §7: a 5xx, or a `429` that names a wait), after `retry_after` seconds
    /// when its `Retry-After` names them ([`Retries::wait_after_error`](crate::client::http::Retries::wait_after_error)).
    Unserved {
        /// The HTTP status.
        status: u16,
        /// The seconds its `Retry-After` asks to wait (given in seconds or as a date).
        retry_after: Option<u64>,
        /// What it said: the status and an excerpt of the body.
        message: String,
    },
    /// The server answered, but not with a valid envelope or problem: the strict
    /// deserializer rejected it (e.g. `complete` missing or an invariant violated), or its
    /// body exceeded the client's bound.
    Contract(String),
    /// The request was not sent: the client is set up wrong (a base URL that is not an http
    /// URL, a token a header cannot carry). Retrying does not help; the setup needs fixing.
    Setup(String),
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
            FetchError::Transport(message) => write!(f, "no answer from the server: {message}"),
            // An answer, a refusal without a problem body: not served now, maybe later.
            FetchError::Unserved { message, .. } => write!(f, "the server did not serve the request: {message}"),
            FetchError::Contract(message) => write!(f, "the response breaks the completeness contract: {message}"),
            FetchError::Setup(message) => write!(f, "the client is set up wrong: {message}"),
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
/// other reason; it then carries the server's evidence token from that last page, unless a
/// page carried a stale warning (evidence needs current state, contract §6).
#[derive(Debug, Clone, PartialEq)]
pub struct Collected<T> {
    envelope: Envelope<T, StandardReason>,
    pages_fetched: u64,
    /// The cursor of the collector's own `CLIENT_LIMIT_REACHED`, when a limit stopped it: what
    /// [`resume`] goes on from. Kept apart from the block, whose reasons may include a page's
    /// own `CLIENT_LIMIT_REACHED` (a gateway's, on a last page, without a cursor).
    resume_cursor: Option<String>,
    /// The cursors the traversal followed ([`fingerprint`]s), kept when it can be resumed:
    /// [`resume`] refuses them too, as one run refuses a cursor given again.
    followed: HashSet<u64>,
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

    /// The first item whose `key` (its identity: an id) an earlier item has too: a traversal
    /// that serves an item twice went over the same ground, and may have skipped others. The
    /// collector cannot tell items apart itself (it knows no identity), so a client about to act
    /// on the items, or to count them, checks this first; `None` when every key comes once.
    ///
    /// ```
    /// # use completeness_runtime::client::{CollectLimits, collect_all};
    /// # use completeness_runtime::{Envelope, Scope};
    /// # async fn run() {
    /// let page = Envelope::complete(vec![1_u64, 2, 1], Scope::new("numbers", "every number"));
    /// let collected = collect_all(|_| std::future::ready(Ok(page.clone())), CollectLimits::default()).await.unwrap();
    /// assert_eq!(collected.first_repeated(|n| *n), Some(&1));
    /// # }
    /// ```
    pub fn first_repeated<K: Eq + Hash>(&self, key: impl Fn(&T) -> K) -> Option<&T> {
        let mut seen = HashSet::new();
        self.envelope.items.iter().find(|item| !seen.insert(key(item)))
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
    const ANSWERS_WITH_BLOCK: bool = true;
    fn completeness_report(&self) -> Option<&dyn CompletenessReport> {
        Some(&self.envelope.completeness)
    }
    fn completeness_report_mut(&mut self) -> Option<&mut dyn CompletenessReport> {
        Some(&mut self.envelope.completeness)
    }
}

/// Why a traversal stopped.
enum Stop {
    /// The last page said `complete: true`, or it was incomplete with no next page.
    LastPage,
    /// A limit of the collector, with the cursor that resumes the traversal (when a page
    /// offered one).
    Limit(ClientLimitReached),
    /// `410 CURSOR_EXPIRED` (with what the server said), or a page read at another snapshot.
    SnapshotGone(Option<Refused>),
    /// A page that cannot continue this traversal, in words: it said `MORE_PAGES_AVAILABLE`
    /// without a cursor or with a cursor already followed, or answered another query.
    Broken(&'static str),
}

/// What a server said when it refused a cursor with `410 CURSOR_EXPIRED`: its detail, and the
/// reason of the `restart` it offered.
struct Refused {
    detail: String,
    restart: Option<String>,
}

impl Refused {
    fn of(problem: &Problem) -> Refused {
        let restart = match problem.continuation() {
            Some(Continuation::Restart { reason }) if !reason.is_empty() => Some(reason),
            _ => None,
        };
        Refused { detail: problem.detail().to_owned(), restart }
    }
}

/// Why a page cannot continue its traversal (each is a server's bug, or a proxy's).
const NO_CURSOR: &str =
    "A page said more pages are available but gave no cursor: the traversal cannot be continued and must be restarted.";
const REPEATED_CURSOR: &str = "A page gave a cursor this traversal had already followed: following it again would read \
     the same pages again, without end; the traversal must be restarted.";
const ANOTHER_QUERY: &str = "A page answered another query than the first page (its scope or its ordering differs): \
     it is not merged, and the traversal must be restarted.";
const MID_TRAVERSAL: &str = "The first page this traversal read was reached with a cursor (`page.resumed: true`): \
     its items cover the scope only together with the pages before it, which this traversal did not read; it is not \
     taken, and the traversal must be started at its first page (one a limit stopped goes on with `resume`).";
const RESTARTED: &str = "A cursor was answered with a first page (`page.resumed: false`): the traversal was started \
     again, by the server or by something on the way that dropped the cursor, and its items would repeat the ones \
     taken; it is not merged, and the traversal must be restarted.";

/// A cursor as the loop check remembers it: its 64-bit hash, so that a page's cursor is checked
/// without keeping a copy. Two cursors of one traversal that share a hash (a chance of about one
/// in 2^64 a pair) stop it as a loop: the result is incomplete, never wrongly complete.
fn fingerprint(cursor: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    cursor.hash(&mut hasher);
    hasher.finish()
}

/// What to do after a page.
enum Next {
    /// Fetch the page after it, with this cursor.
    Fetch(String),
    /// Stop here.
    Stop(Stop),
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
/// - requires every page to answer the first page's query (the same `scope` and
///   `page.ordering`): a page of another query is not merged, and the result is incomplete
///   with `SNAPSHOT_EXPIRED` and a `restart`;
/// - never follows a cursor twice: a page giving one it already followed (a loop) stops the
///   traversal, incomplete with `SNAPSHOT_EXPIRED` and a `restart` (contract §2.5);
/// - never merges a first page into a traversal: a page fetched with a cursor whose page facts
///   say `page.resumed: false` (the server, or a cache or redirect that dropped the cursor,
///   started over) stops it the same way. A page that does not say (a server older than
///   `page.resumed`) cannot be told apart, and is merged as before (contract §2.5);
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
/// `fetch_page(None)` must fetch the first page of the scope: a run that starts from a
/// cursor sees only the rest of the traversal, no answer to the question (contract §8). When
/// that first page says so (`page.resumed: true`) the result is incomplete with a `restart`
/// (`SNAPSHOT_EXPIRED`), holds none of its items and backs no change, however complete the
/// rest says it is; a server that does not send `page.resumed` cannot tell it.
/// To go on from `CLIENT_LIMIT_REACHED`, pass the result to [`resume`].
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
pub async fn collect_all<T, F, Fut>(fetch_page: F, limits: CollectLimits) -> Result<Collected<T>, FetchError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Envelope<T, StandardReason>, FetchError>>,
{
    run(Traversal::new(limits), None, fetch_page).await
}

/// Goes on with a traversal that one of the collector's own limits stopped
/// (`CLIENT_LIMIT_REACHED` with a resume cursor): fetches from that cursor with
/// `fetch_page`, keeps every item, reason and warning collected so far, and is complete
/// (with the server's evidence) only when the whole traversal, from its first page, is.
///
/// `limits` apply to this run: `max_pages` and `deadline` count from now, `max_items`
/// counts every item held. A cursor an earlier run of the traversal followed is not followed
/// again (a loop across runs stops it as one within a run does). A result a limit stopped
/// before its first page (`max_pages: 0`, a deadline spent before the first fetch) has no
/// cursor, and resumes from the first page. A result that cannot be resumed (complete, or
/// stopped for another reason) is returned as it is, with no fetch.
///
/// ```
/// use completeness_runtime::client::{CollectLimits, FetchError, collect_all, resume};
/// use completeness_runtime::reason::MorePagesAvailable;
/// use completeness_runtime::{Envelope, Scope};
///
/// let fetch = |cursor: Option<String>| async move {
///     let scope = Scope::new("numbers", "every number").with_snapshot("s-1");
///     Ok::<_, FetchError>(match cursor {
///         None => Envelope::incomplete(vec![1_u32], scope, MorePagesAvailable::new("p2")),
///         Some(_) => Envelope::complete(vec![2], scope),
///     })
/// };
/// let one_page = CollectLimits { max_pages: 1, ..CollectLimits::default() };
/// let stopped = block_on(collect_all(fetch, one_page)).unwrap();
/// assert!(!stopped.is_complete());
/// let whole = block_on(resume(stopped, fetch, CollectLimits::default())).unwrap();
/// assert!(whole.is_complete());
/// assert_eq!(whole.items, vec![1, 2]);
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub async fn resume<T, F, Fut>(
    previous: Collected<T>,
    fetch_page: F,
    limits: CollectLimits,
) -> Result<Collected<T>, FetchError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Envelope<T, StandardReason>, FetchError>>,
{
    // Stopped by a limit before its first page (a limit of zero, a deadline spent at once): no
    // page holds a cursor, and nothing was collected; the traversal begins now.
    if previous.pages_fetched == 0 {
        return run(Traversal::new(limits), None, fetch_page).await;
    }
    let Some(cursor) = previous.resume_cursor.clone() else {
        return Ok(previous);
    };
    run(Traversal::resuming(previous, limits), Some(cursor), fetch_page).await
}

/// Fetches from `cursor` (the first page when `None`) until the traversal stops.
async fn run<T, F, Fut>(
    mut traversal: Traversal<T>,
    mut cursor: Option<String>,
    mut fetch_page: F,
) -> Result<Collected<T>, FetchError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Envelope<T, StandardReason>, FetchError>>,
{
    loop {
        if let Some(limit) = traversal.reached_limit() {
            let limit = match cursor {
                Some(cursor) => limit.resume_with(cursor),
                None => limit,
            };
            return Ok(traversal.finish(Stop::Limit(limit)));
        }
        let continuing = cursor.is_some();
        traversal.pages_fetched += 1;
        let page = match fetch_page(cursor.take()).await {
            Ok(page) => page,
            Err(error) if error.is_cursor_expired() && continuing => {
                let said = error.problem().map(Refused::of);
                return Ok(traversal.finish(Stop::SnapshotGone(said)));
            }
            Err(error) => return Err(error),
        };
        match traversal.take(page, continuing) {
            Next::Fetch(next) => cursor = Some(next),
            Next::Stop(stop) => return Ok(traversal.finish(stop)),
        }
    }
}

/// The state of one traversal: what was collected, and what must be reported about it.
struct Traversal<T> {
    limits: CollectLimits,
    started: Instant,
    items: Vec<T>,
    pages_fetched: u64,
    /// Pages fetched by an earlier run this one resumes: `max_pages` counts from here.
    pages_before: u64,
    /// The first page's scope and page member: the traversal's snapshot, ordering and sizes.
    first: Option<(Scope, Option<PageInfo>)>,
    /// The latest page's block, kept whole (moved, not copied): its cursor contract describes
    /// the resume cursor when a limit stops the traversal.
    last: Option<Completeness<StandardReason>>,
    carried: Vec<StandardReason>,
    warnings: Vec<Warning>,
    evidence: Option<String>,
    /// The [`fingerprint`]s of the cursors this traversal followed, in this run and the runs it
    /// resumes: a server that hands one out again loops.
    followed: HashSet<u64>,
}

impl<T> Traversal<T> {
    fn new(limits: CollectLimits) -> Self {
        Traversal {
            limits,
            started: Instant::now(),
            items: Vec::new(),
            pages_fetched: 0,
            pages_before: 0,
            first: None,
            last: None,
            carried: Vec::new(),
            warnings: Vec::new(),
            evidence: None,
            followed: HashSet::new(),
        }
    }

    /// The traversal `previous` stopped at a limit, taken up again under `limits`: what it
    /// collected and must report, but not its limit, its evidence (it had none) or its cursor.
    fn resuming(previous: Collected<T>, limits: CollectLimits) -> Self {
        let Collected { envelope: Envelope { items, completeness }, pages_fetched, resume_cursor, mut followed } =
            previous;
        let mut carried = completeness.reasons().to_vec();
        // The collector's own limit, which `finish` pushes last; a page's own
        // `CLIENT_LIMIT_REACHED` (a gateway's, on a last page) stays reported.
        if resume_cursor.is_some() {
            carried.pop();
        }
        // The earlier runs' cursors, and the resume cursor, this run's first fetch.
        followed.extend(resume_cursor.as_deref().map(fingerprint));
        Traversal {
            limits,
            started: Instant::now(),
            items,
            pages_fetched,
            pages_before: pages_fetched,
            first: Some((completeness.scope().clone(), completeness.page().cloned())),
            last: None,
            carried,
            warnings: completeness.warnings().to_vec(),
            evidence: None,
            followed,
        }
    }

    /// The first limit that forbids another fetch, if any.
    fn reached_limit(&self) -> Option<ClientLimitReached> {
        let limits = &self.limits;
        if self.pages_fetched - self.pages_before >= limits.max_pages {
            return Some(ClientLimitReached::new(LimitKind::Pages, limits.max_pages));
        }
        if self.items.len() as u64 >= limits.max_items {
            return Some(ClientLimitReached::new(LimitKind::Items, limits.max_items));
        }
        if self.started.elapsed() >= limits.deadline {
            let millis = crate::contract::whole_millis(limits.deadline);
            return Some(ClientLimitReached::new(LimitKind::Deadline, millis));
        }
        None
    }

    /// Takes in a fetched page, `continuing` when it was fetched with a cursor, and says what
    /// comes next.
    fn take(&mut self, page: Envelope<T, StandardReason>, continuing: bool) -> Next {
        let Envelope { mut items, completeness: mut block } = page;
        // A cursor answered with a first page: its items would repeat the ones taken.
        if continuing && block.page().is_some_and(|page| page.resumed == Some(false)) {
            return Next::Stop(Stop::Broken(RESTARTED));
        }
        // A traversal's first page reached with a cursor (one the query or the fetch put in):
        // what it collects from there is no answer to the question (contract §8).
        // The result names the question that page answered, and says it was a tail.
        if !continuing && self.first.is_none() && block.page().is_some_and(|page| page.resumed == Some(true)) {
            self.first = Some((block.scope().clone(), block.page().cloned()));
            return Next::Stop(Stop::Broken(MID_TRAVERSAL));
        }
        if let Some((scope, page)) = &self.first {
            // A page of another snapshot is not merged.
            if scope.snapshot != block.scope().snapshot
                || page.as_ref().map(|p| &p.snapshot) != block.page().map(|p| &p.snapshot)
            {
                return Next::Stop(Stop::SnapshotGone(None));
            }
            // Nor is a page of another query: one complete answer is one traversal (contract §2.5).
            if scope != block.scope() || page.as_ref().map(|p| &p.ordering) != block.page().map(|p| &p.ordering) {
                return Next::Stop(Stop::Broken(ANOTHER_QUERY));
            }
        }
        self.items.append(&mut items);
        // Pagination: MORE_PAGES_AVAILABLE, or on a page with a next cursor a limit of the
        // page's own (a gateway's CLIENT_LIMIT_REACHED): that cursor goes on where the limit
        // stopped, as `decide` reads it (contract §8), whichever reason the wire gave it to.
        let has_next = block.next_cursor().is_some();
        let pages_on = |reason: &StandardReason| match reason {
            StandardReason::MorePagesAvailable(_) => true,
            StandardReason::ClientLimitReached(_) => has_next,
            _ => false,
        };
        let more_pages = block.reasons().iter().any(pages_on);
        // The service's own truncation that offered the cursor, when the page says which: the
        // next page is its recovery, as it is MORE_PAGES_AVAILABLE's.
        let paging = if more_pages { None } else { block.own_paging_reason() };
        for (at, reason) in block.reasons().iter().enumerate() {
            if pages_on(reason) || paging == Some(at) {
                continue;
            }
            // (A page's own limit is here only on a last page, without a cursor to resume with.)
            // One reason reported on several pages is carried once: the same wire object, with
            // the recovery of the latest page that gave it one (the pages before the last offered
            // their next cursor, R6, and a later wait is the one that holds now).
            match self.carried.iter_mut().find(|carried| same_reason(carried, reason)) {
                None => self.carried.push(reason.clone()),
                Some(carried) if Reason::recovery(reason).is_some() => carried.clone_from(reason),
                Some(_) => {}
            }
        }
        for warning in block.warnings() {
            if !self.warnings.contains(warning) {
                self.warnings.push(warning.clone());
            }
        }
        if self.first.is_none() {
            self.first = Some((block.scope().clone(), block.page().cloned()));
        }
        let next = match (more_pages || paging.is_some(), block.take_next_cursor()) {
            (true, Some(next)) => {
                if self.followed.insert(fingerprint(&next)) {
                    Next::Fetch(next)
                } else {
                    Next::Stop(Stop::Broken(REPEATED_CURSOR))
                }
            }
            (true, None) => Next::Stop(Stop::Broken(NO_CURSOR)),
            (false, _) => {
                if block.is_complete() {
                    self.evidence = block.evidence().map(str::to_owned);
                }
                Next::Stop(Stop::LastPage)
            }
        };
        self.last = Some(block);
        next
    }

    /// The result: everything collected, with a block that says why it is incomplete.
    fn finish(self, stop: Stop) -> Collected<T> {
        let Traversal { items, pages_fetched, first, last, carried, warnings, evidence, followed, .. } = self;
        let (scope, page) = first.unwrap_or_default();
        let resume_cursor = match &stop {
            Stop::Limit(limit) => ReasonDetails::recovery(limit).and_then(|c| c.cursor().map(str::to_owned)),
            _ => None,
        };
        let resumable = resume_cursor.is_some();
        // The page member describes a cursor only when the result resumes.
        let cursor =
            if resumable { last.and_then(|block| block.page().and_then(|page| page.cursor.clone())) } else { None };
        // A traversal read from its first page answers the query, as its first page does; one
        // whose first page fetched was reached with a cursor (a caller's `cursor` in the query)
        // is the rest of a traversal, and says so as that page did (contract §8).
        let page = page.map(|page| PageInfo { returned: items.len() as u64, cursor, ..page });
        let mut completeness = Completeness::complete(scope);
        completeness.set_page(page);
        for warning in warnings {
            completeness.push_warning(warning);
        }
        for reason in carried {
            completeness.push_reason(reason);
        }
        let snapshot = || {
            completeness
                .scope()
                .snapshot
                .clone()
                .or_else(|| completeness.page().and_then(|p| p.snapshot.clone()))
                .unwrap_or_else(|| "of this traversal".to_owned())
        };
        match stop {
            Stop::LastPage => {}
            Stop::Limit(limit) => completeness.push_reason(limit),
            Stop::SnapshotGone(said) => {
                // The server's own words, when it refused the cursor: "expired" is not "pruned",
                // in the message and in the restart it offered.
                let expired = match said {
                    Some(Refused { detail, restart }) => {
                        let expired = match restart {
                            Some(why) => SnapshotExpired::cannot_continue(snapshot(), why),
                            None => SnapshotExpired::new(snapshot()),
                        };
                        if detail.is_empty() { expired } else { expired.with_message(detail) }
                    }
                    None => SnapshotExpired::new(snapshot()),
                };
                completeness.push_reason(expired);
            }
            Stop::Broken(why) => {
                let stopped = SnapshotExpired::cannot_continue(snapshot(), "the traversal cannot be continued");
                completeness.push_reason(stopped.with_message(why));
            }
        }
        if let Some(token) = evidence {
            // Passes the server's token through; refused unless the whole result is complete.
            completeness.attach_evidence(token);
        }
        let followed = if resumable { followed } else { HashSet::new() };
        Collected { envelope: Envelope::new(items, completeness), pages_fetched, resume_cursor, followed }
    }
}

/// True when `a` and `b` are one reason as the wire writes it (its recovery travels beside it,
/// in the block's continuation).
fn same_reason(a: &StandardReason, b: &StandardReason) -> bool {
    a == b || (a.code() == b.code() && serde_json::to_value(a).ok() == serde_json::to_value(b).ok())
}
