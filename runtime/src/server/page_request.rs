//! `PageRequest`: the validated page size and the authenticated cursor of a list request (contract §2.5).
//!
//! ```
//! use axum::Router;
//! use completeness_runtime::routing::get;
//! use completeness_runtime::{Credential, Envelope, Problem, Scope, StandardReason};
//! use completeness_runtime::config::CompletenessConfig;
//! use completeness_runtime::cursor::{CursorKeys, QueryBinding};
//! use completeness_runtime::page_request::PageRequest;
//!
//! async fn list(request: PageRequest) -> Result<Envelope<u32>, Problem> {
//!     let credential = request.credential().clone();
//!     let scope = Scope::new("numbers", credential.visibility("numbers")).with_filter("odd", true);
//!     let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
//!     let after: u32 = page.position().map_or(Ok(0), |p| p.parse().map_err(|_| page.unreadable_position()))?;
//!     // Fetch one more than the page size: that extra row proves a next page exists.
//!     let rows: Vec<u32> = (after + 1..100).filter(|n| n % 2 == 1).take(page.fetch_size()).collect();
//!     Ok(page.envelope(scope, rows, |n| n.to_string()))
//! }
//!
//! let config = CompletenessConfig::new(CursorKeys::ephemeral());
//! let app: Router = Router::new().route("/numbers", get(list).into()).with_state(config);
//! ```

use std::borrow::Cow;

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::Uri;
use axum::http::request::Parts;

use crate::contract::completeness::Completeness;
use crate::contract::declared::AcceptsWarning;
use crate::contract::envelope::Envelope;
use crate::contract::params::{CURSOR, PAGE_SIZE};
use crate::contract::reason::{MorePagesAvailable, Reason, ReasonCode, continues, keep_message};
use crate::contract::scope::{CursorBinding, CursorContract, PageInfo, Scope};
use crate::contract::warning::{PageSizeReduced, Warning};
use crate::server::config::{CompletenessConfig, CompletenessState};
use crate::server::credential::Credential;
use crate::server::cursor::{
    CursorClaims, CursorError, CursorKeys, QueryBinding, after, now_ms, rfc3339_rounded_up, unix_ms,
};
use crate::server::problem::{Problem, ProblemCode};
use crate::server::query::query_pairs;

/// The page size and cursor of a list request, validated and authenticated.
///
/// Extracting it reads `page_size` and `cursor` from the query string and the
/// [`Credential`] from the request (401 without one):
/// - `page_size` absent → the configured default; `0`, negative, non-numeric or
///   given twice → 400 `INVALID_PAGE_SIZE`; above the maximum, however many digits
///   → clamped, with a `PAGE_SIZE_REDUCED` warning on the response;
/// - `cursor` oversized, malformed, signed by an unknown key, or altered → 400
///   `INVALID_CURSOR`, before the handler runs.
///
/// The cursor's bindings are checked by [`PageRequest::bind`], once the handler knows
/// the query's filters and ordering.
#[derive(Debug, Clone)]
pub struct PageRequest {
    config: CompletenessConfig,
    credential: Credential,
    requested_size: Option<u64>,
    applied_size: u64,
    cursor: Option<CursorClaims>,
    /// The route's template, which binds the cursor when the query names no resource.
    route: Option<MatchedPath>,
}

impl PageRequest {
    /// Reads and validates the request (what the extractor does).
    pub fn from_parts(parts: &Parts, config: &CompletenessConfig) -> Result<PageRequest, Problem> {
        // The route's demand layer learns that this handler reads the cursor.
        if let Some(read) = parts.extensions.get::<crate::server::require::CursorRead>() {
            read.mark_read();
        }
        let credential = Credential::from_parts(parts, config)?;
        let (requested_size, cursor) = query_parameters(&parts.uri)?;
        let mut request = PageRequest::new(config.clone(), credential, requested_size, cursor.as_deref())?;
        request.route = parts.extensions.get::<MatchedPath>().cloned();
        Ok(request)
    }

    /// A request from values already read (e.g. the arguments of an MCP tool call), with the
    /// extractor's checks: a `page_size` of 0 → 400 `INVALID_PAGE_SIZE`, above the maximum →
    /// clamped; a bad `cursor` → 400 `INVALID_CURSOR`.
    ///
    /// Such a request has no route: a query that names no resource is bound to none
    /// ([`PageRequest::bind`]), so two such lists with the same filters and ordering would
    /// take each other's cursors. Name the resource in the [`QueryBinding`] it is bound to.
    pub fn new(
        config: CompletenessConfig,
        credential: Credential,
        page_size: Option<u64>,
        cursor: Option<&str>,
    ) -> Result<PageRequest, Problem> {
        if page_size == Some(0) {
            return Err(invalid_page_size("page_size must be a positive integer, got '0'"));
        }
        let applied_size = page_size.map_or(config.default_page_size(), |r| r.min(config.max_page_size()));
        let cursor = match cursor {
            None => None,
            Some(text) => Some(CursorClaims::decode(config.keys(), text, config.max_token_len())?),
        };
        Ok(PageRequest { config, credential, requested_size: page_size, applied_size, cursor, route: None })
    }

    /// The page size the request named, echoed as `page.requested_size`.
    pub fn requested_size(&self) -> Option<u64> {
        self.requested_size
    }

    /// The page size used.
    pub fn applied_size(&self) -> u64 {
        self.applied_size
    }

    /// The caller.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// The configuration.
    pub fn config(&self) -> &CompletenessConfig {
        &self.config
    }

    /// True when the request continues a traversal (carries a cursor).
    pub fn has_cursor(&self) -> bool {
        self.cursor.is_some()
    }

    /// Checks the cursor (if any) against this request's query and credential and
    /// returns the page to serve.
    ///
    /// Refuses with 403 `CURSOR_CREDENTIAL_MISMATCH` (another credential or changed
    /// permissions), 400 `CURSOR_QUERY_MISMATCH` (other resource, filters or ordering),
    /// 410 `CURSOR_EXPIRED` with a `restart` continuation (expired). An expired cursor is
    /// never served as a first page.
    ///
    /// A query that names no resource (a scope left for `#[completeness]` to fill) is bound to
    /// the route instead, so that two such endpoints with the same filters and ordering do not
    /// take each other's cursors.
    pub fn bind(&self, mut query: QueryBinding) -> Result<Page, Problem> {
        if query.resource().is_empty()
            && let Some(route) = &self.route
        {
            query.bind_route(route.as_str());
        }
        let resumed = match &self.cursor {
            Some(claims) => {
                claims.check(&query.fingerprint(), &self.credential.fingerprint(), now_ms())?;
                Some(claims)
            }
            None => None,
        };
        Ok(Page {
            config: self.config.clone(),
            credential: self.credential.clone(),
            query,
            requested_size: self.requested_size,
            applied_size: self.applied_size,
            position: resumed.map(|c| c.position().to_owned()),
            snapshot: resumed.and_then(|c| c.snapshot().map(str::to_owned)),
            resumed: resumed.is_some(),
            stale: resumed.is_some_and(CursorClaims::is_stale),
            partial: resumed.is_some_and(CursorClaims::is_partial),
            attested: resumed.is_none_or(CursorClaims::is_attested_whole),
        })
    }
}

impl<S: CompletenessState> FromRequestParts<S> for PageRequest {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        PageRequest::from_parts(parts, &state.completeness())
    }
}

/// The `page_size` (read) and `cursor` (as sent) of a query, each given at most once: a second
/// one is a 400 `INVALID_PAGE_SIZE` or `INVALID_CURSOR`, and an unreadable size the first.
pub(crate) fn query_parameters(uri: &Uri) -> Result<(Option<u64>, Option<Cow<'_, str>>), Problem> {
    let mut page_size = None;
    let mut cursor = None;
    for (key, value) in query_pairs(uri)? {
        match &*key {
            PAGE_SIZE if page_size.is_some() => {
                return Err(invalid_page_size("page_size was given more than once"));
            }
            PAGE_SIZE => page_size = Some(value),
            CURSOR if cursor.is_some() => {
                return Err(
                    Problem::new(ProblemCode::InvalidCursor, "cursor was given more than once").with_parameter(CURSOR)
                );
            }
            CURSOR => cursor = Some(value),
            _ => {}
        }
    }
    Ok((page_size.as_deref().map(parse_page_size).transpose()?, cursor))
}

fn invalid_page_size(detail: impl Into<String>) -> Problem {
    Problem::new(ProblemCode::InvalidPageSize, detail).with_parameter(PAGE_SIZE)
}

fn parse_page_size(text: &str) -> Result<u64, Problem> {
    let bad = || invalid_page_size(format!("page_size must be a positive integer, got '{}'", truncate(text, 32)));
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match text.parse::<u64>() {
        Ok(0) => Err(bad()),
        Ok(size) => Ok(size),
        // Only digits, so the one possible error is more digits than u64 holds: a huge
        // request, clamped like any other.
        Err(_) => Ok(u64::MAX),
    }
}

fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_owned()
    } else {
        text.chars().take(max_chars).collect::<String>() + "…"
    }
}

/// The cursor of the next page and the contract it is issued under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextCursor {
    /// The opaque cursor.
    pub cursor: String,
    /// Its contract, echoed in `page.cursor`.
    pub contract: CursorContract,
}

/// The reason a next page gives, with the cursor's contract, which the block's page facts
/// state when they do not already (R10): for a handler that adds the reason itself.
impl From<NextCursor> for MorePagesAvailable {
    fn from(next: NextCursor) -> Self {
        MorePagesAvailable::issued(next.cursor, next.contract)
    }
}

/// One page of a bound traversal: sizes, position and snapshot, and the builders of
/// the response's page facts, next cursor and evidence.
#[derive(Debug, Clone)]
pub struct Page {
    config: CompletenessConfig,
    credential: Credential,
    query: QueryBinding,
    requested_size: Option<u64>,
    applied_size: u64,
    position: Option<String>,
    snapshot: Option<String>,
    resumed: bool,
    /// A page of the traversal, this one included, was read from stale state.
    stale: bool,
    /// A page of the traversal, this one included, was incomplete for another reason than the
    /// next page.
    partial: bool,
    /// Every page before this one was attested whole and current by [`Page::attach_evidence`]
    /// (true on a first page).
    attested: bool,
}

impl Page {
    /// The page size used.
    pub fn applied_size(&self) -> u64 {
        self.applied_size
    }

    /// How many rows to fetch: one more than the page size, so that a next page is
    /// known to exist only when it does.
    pub fn fetch_size(&self) -> usize {
        usize::try_from(self.applied_size).unwrap_or(usize::MAX).saturating_add(1)
    }

    /// The page size the request named.
    pub fn requested_size(&self) -> Option<u64> {
        self.requested_size
    }

    /// The keyset key after which this page starts; `None` for a first page.
    pub fn position(&self) -> Option<&str> {
        self.position.as_deref()
    }

    /// The traversal's snapshot: from the cursor, or pinned by [`Page::pin_snapshot`].
    pub fn snapshot(&self) -> Option<&str> {
        self.snapshot.as_deref()
    }

    /// True for the first page of a traversal (no cursor).
    pub fn is_first_page(&self) -> bool {
        !self.resumed
    }

    /// Says that this page is read from stale state (a lagging replica, index or cache; the
    /// page also carries the stale warning that says so, contract §3.5). No page of the
    /// traversal from here on gets evidence ([`Page::attach_evidence`] refuses), since a change
    /// needs an inventory read from current state throughout (§6). Called before
    /// [`Page::envelope`] or [`Page::next_cursor`], it also puts the mark in the cursors this
    /// page issues, so that the later pages can tell ([`Page::is_stale`]); the stale warning
    /// alone is enough to withhold their evidence.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// True when this page or an earlier page of the traversal was read from stale state
    /// ([`Page::mark_stale`]).
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Says that this page is incomplete for a reason other than the next page (a source
    /// unavailable, a limit, a permission filter: any reason the handler pushes besides
    /// `MORE_PAGES_AVAILABLE`). No page of the traversal from here on gets evidence
    /// ([`Page::attach_evidence`] refuses), since the pages after a partial one do not make the
    /// inventory whole (contract §6). Called before [`Page::envelope`] or [`Page::next_cursor`],
    /// it also puts the mark in the cursors this page issues, so that the later pages can tell
    /// ([`Page::is_partial`]); the reason alone is enough to withhold their evidence.
    pub fn mark_partial(&mut self) {
        self.partial = true;
    }

    /// True when this page or an earlier page of the traversal was incomplete for a reason
    /// other than the next page ([`Page::mark_partial`]).
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// The caller.
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// The query this page is bound to.
    pub fn query(&self) -> &QueryBinding {
        &self.query
    }

    /// Freezes the traversal at `current` on its first page and returns the traversal's
    /// snapshot (on later pages: the cursor's, whatever `current` is now). A traversal of more
    /// than one page gets evidence only when pinned (see [`Page::attach_evidence`]); call it
    /// before [`Page::envelope`] or [`Page::next_cursor`], as a cursor signed before carries no
    /// snapshot.
    pub fn pin_snapshot(&mut self, current: impl Into<String>) -> &str {
        self.snapshot.get_or_insert_with(|| current.into())
    }

    /// Refuses with 410 `CURSOR_EXPIRED` (and a `restart` continuation) when the cursor's
    /// snapshot is no longer retained; `retained` is asked only on a resumed page.
    pub fn ensure_retained(&self, retained: impl FnOnce(&str) -> bool) -> Result<(), Problem> {
        match (&self.snapshot, self.resumed) {
            (Some(snapshot), true) if !retained(snapshot) => {
                Err(CursorError::SnapshotGone { snapshot: snapshot.clone() }.into())
            }
            _ => Ok(()),
        }
    }

    /// The 400 `INVALID_CURSOR` problem for a signed position the handler cannot read
    /// (e.g. issued by another version of the service).
    pub fn unreadable_position(&self) -> Problem {
        CursorError::Invalid(crate::server::cursor::TokenError::Unreadable).to_problem()
    }

    /// Signs the cursor of the page after `position` (the keyset key of this page's last item),
    /// valid for the configured lifetime.
    pub fn next_cursor(&self, position: &str) -> NextCursor {
        self.signed_next_cursor(position, None)
    }

    /// As [`Page::next_cursor`], for a position that can be read only until `deadline`: a page
    /// token of an upstream API that expires then, say. The cursor expires at the earlier of
    /// `deadline` and the configured lifetime, and `page.cursor.expires_at` says when, so that
    /// no client is promised a page the service can no longer read; followed later, it is
    /// refused as any expired cursor is (410 `CURSOR_EXPIRED`, a `restart`). A `deadline` already
    /// past gives a cursor expired as it is issued: report what ends the traversal instead.
    pub fn next_cursor_until(&self, position: &str, deadline: std::time::SystemTime) -> NextCursor {
        self.signed_next_cursor(position, Some(unix_ms(deadline)))
    }

    /// The next cursor after `position`, expiring after the configured lifetime or at
    /// `deadline_ms`, whichever comes first.
    fn signed_next_cursor(&self, position: &str, deadline_ms: Option<u64>) -> NextCursor {
        let now = now_ms();
        let lifetime_ends = after(now, self.config.cursor_ttl());
        let expires_at_ms = deadline_ms.map_or(lifetime_ends, |deadline| deadline.min(lifetime_ends));
        let mut claims = CursorClaims::at(
            self.query.fingerprint(),
            self.credential.fingerprint(),
            self.snapshot.as_deref(),
            position,
            now,
            expires_at_ms,
        );
        if self.stale {
            claims = claims.read_stale_state();
        }
        if self.partial {
            claims = claims.read_partial_page();
        }
        let cursor = claims.encode(self.config.keys());
        self.report_if_too_long(&cursor);
        NextCursor {
            cursor,
            contract: CursorContract {
                freezes_snapshot: self.snapshot.is_some(),
                // To the second, rounded up (contract §2.5: the latest the cursor lives): a cursor
                // is never read past the time written, as it was for the fraction of a second that
                // rounding down cut off.
                expires_at: rfc3339_rounded_up(claims.expires_at_ms()),
                invalidated_by: vec![CursorBinding::Filters, CursorBinding::Ordering, CursorBinding::Credential],
            },
        }
    }

    /// The `page` member for a page of `returned` items.
    pub fn page_info(&self, returned: usize, next: Option<&NextCursor>) -> PageInfo {
        self.page_info_with(returned, next.map(|n| n.contract.clone()))
    }

    fn page_info_with(&self, returned: usize, cursor: Option<CursorContract>) -> PageInfo {
        PageInfo {
            returned: returned as u64,
            requested_size: self.requested_size,
            applied_size: self.applied_size,
            ordering: self.query.ordering().to_owned(),
            snapshot: self.snapshot.clone(),
            cursor,
            resumed: Some(self.resumed),
        }
    }

    /// The warning paging adds: `PAGE_SIZE_REDUCED` when the requested size was clamped.
    pub fn page_size_reduced(&self) -> Option<PageSizeReduced> {
        match self.requested_size {
            Some(requested) if requested > self.applied_size => {
                Some(PageSizeReduced::new(requested, self.applied_size))
            }
            _ => None,
        }
    }

    /// The completeness block of a page of `returned` items: page facts, paging warnings,
    /// the snapshot in `scope`, and `MORE_PAGES_AVAILABLE` with `next` when there is a next page.
    ///
    /// Further reasons (visibility, limits) are pushed on the result by the handler, which ends
    /// with [`Page::attach_evidence`]: only a cursor it attests leads to pages that get evidence.
    pub fn completeness<R: Reason + From<MorePagesAvailable> + AcceptsWarning<PageSizeReduced>>(
        &self,
        mut scope: Scope,
        returned: usize,
        next: Option<NextCursor>,
    ) -> Completeness<R> {
        if scope.snapshot.is_none() {
            scope.snapshot = self.snapshot.clone();
        }
        let (cursor, contract) = next.map(|next| (next.cursor, next.contract)).unzip();
        let mut completeness = Completeness::complete(scope).with_page(self.page_info_with(returned, contract));
        if let Some(warning) = self.page_size_reduced() {
            completeness.push_warning(warning);
        }
        if let Some(cursor) = cursor {
            completeness.push_reason(MorePagesAvailable::new(cursor));
        }
        completeness
    }

    /// The envelope of this page from up to [`Page::fetch_size`] rows read after
    /// [`Page::position`] in the query's ordering: keeps the first `applied_size`, and
    /// when a row is left over, ends with `MORE_PAGES_AVAILABLE` and a cursor after the
    /// last kept row (`key` gives a row's keyset key).
    pub fn envelope<T, R: Reason + From<MorePagesAvailable> + AcceptsWarning<PageSizeReduced>>(
        &self,
        scope: Scope,
        mut rows: Vec<T>,
        key: impl Fn(&T) -> String,
    ) -> Envelope<T, R> {
        let size = usize::try_from(self.applied_size).unwrap_or(usize::MAX);
        let next = if rows.len() > size {
            rows.truncate(size);
            rows.last().map(|last| self.next_cursor(&key(last)))
        } else {
            None
        };
        let completeness = self.completeness(scope, rows.len(), next);
        Envelope::new(rows, completeness)
    }

    /// Attaches an evidence token to a complete inventory response; see
    /// [`EvidenceIssuer::attach`](crate::server::evidence::EvidenceIssuer::attach). Call it
    /// last, on every page: it is also what lets the later pages of the traversal get evidence.
    ///
    /// On a page with a next cursor it gives no evidence (the block is incomplete); when the
    /// page lacks nothing but the next page, is current (no stale warning, no
    /// [`Page::mark_stale`]), the traversal is pinned to a snapshot ([`Page::pin_snapshot`],
    /// before the cursor is signed: its pages make one inventory) and every page before it was
    /// attested the same way, it signs the cursor again (same position and expiry) with that
    /// attestation. A cursor without it leads to pages that get no evidence (contract §6): the
    /// pages after a partial or stale one do not make a current, whole inventory, and a page
    /// whose handler returned without this check (an early return after pushing a reason, say)
    /// counts as one of them. Only a cursor
    /// carried by `MORE_PAGES_AVAILABLE`, as [`Page::envelope`] makes it, is signed again; a
    /// traversal whose cursor a reason of the service's own carries gets no evidence.
    ///
    /// A reason other than the next page's, or a stale warning, pushed on the block after this
    /// call withdraws the attestation (the cursor goes out as [`Page::envelope`] signed it).
    ///
    /// Refused (false) on the last page as well when an earlier page was not attested, or when
    /// [`Page::mark_partial`] or [`Page::mark_stale`] was called, though this page may be
    /// current and whole.
    ///
    /// It cannot tell how the rows were read. A page assembled from several reads of a source
    /// that can change between them (an upstream API read page by page, a fan-out without a
    /// common snapshot) is no inventory of one moment, first page or not: pin the reads to one
    /// snapshot, or do not call this on such a page (contract §6: evidence is of one state).
    pub fn attach_evidence<R: Reason + From<MorePagesAvailable>>(&self, completeness: &mut Completeness<R>) -> bool {
        let partial = self.partial || completeness.reasons().iter().any(|reason| !continues(reason));
        let stale = self.stale || completeness.warnings().iter().any(Warning::is_stale);
        if partial || stale || !self.attested {
            return false;
        }
        if completeness.next_cursor().is_some() {
            self.attest_cursor(completeness);
            return false;
        }
        crate::server::evidence::attach(&self.config, &self.credential, completeness)
    }

    /// Signs the block's next cursor again, attested whole ([`CursorClaims::attested_whole`]),
    /// when it carries a snapshot: pages read at different times do not make one inventory (a
    /// row that moved across the cursor between two of them is on neither), so only a traversal
    /// pinned to one snapshot is attested.
    ///
    /// A traversal that is not pinned is told to the operator, once per settings (a `WARN`
    /// event `evidence_unpinned`): the handler asked for evidence, and a traversal of more than
    /// one page never gets it, which tests with little data do not show.
    fn attest_cursor<R: Reason + From<MorePagesAvailable>>(&self, completeness: &mut Completeness<R>) {
        let pinned = |claims: CursorClaims| match claims.snapshot() {
            Some(_) => Some(claims.attested_whole()),
            None => {
                self.report_unpinned();
                None
            }
        };
        let signed = completeness.next_cursor().map_or(0, str::len);
        if let Some(attested) = resigned_next_cursor(self.config.keys(), completeness, pinned) {
            completeness.attest_next_cursor(attested.into());
            // The attestation makes the cursor longer: reported here when only it passes the bound.
            if let Some(cursor) = completeness.next_cursor()
                && signed <= self.config.max_token_len()
            {
                self.report_if_too_long(cursor);
            }
        }
    }

    /// Reports, once per settings, a page that asked for evidence on a traversal without a pinned
    /// snapshot ([`Page::attest_cursor`]).
    fn report_unpinned(&self) {
        if self.config.first_unpinned_evidence() {
            tracing::warn!(
                target: crate::server::observe::TARGET,
                event = "evidence_unpinned",
                resource = self.query.resource(),
                "a page asked for evidence (attach_evidence) on a traversal not pinned to a snapshot: a traversal \
                 of more than one page gets no evidence, as its pages read at different times make no one \
                 inventory (contract §6); call Page::pin_snapshot before the page is built. Said once."
            );
        }
    }

    /// Reports a cursor this page hands out that the next request will be refused with, since
    /// it is longer than the token bound ([`CompletenessConfig::with_max_token_len`]): an
    /// `ERROR` event, `cursor_too_long`. The service's keys are longer than its bound allows (a
    /// setting to fix), never the client's mistake: it is said where it is made.
    fn report_if_too_long(&self, cursor: &str) {
        if cursor.len() > self.config.max_token_len() {
            tracing::error!(
                target: crate::server::observe::TARGET,
                event = "cursor_too_long",
                length = cursor.len(),
                max_token_len = self.config.max_token_len(),
                "a page handed out a cursor longer than this server accepts: the next page will be refused; \
                 raise CompletenessConfig::with_max_token_len above it, or page on a shorter key"
            );
        }
    }
}

/// The block's next cursor as a `MORE_PAGES_AVAILABLE` reason signed again with `keys` after
/// `change` (same position and expiry, the reason's message kept): how a page attests its cursor
/// and the fault layer takes the attestation back. `None` when no `MORE_PAGES_AVAILABLE` carries
/// a cursor `keys` can read (one the handler made by other means), or `change` leaves it be.
pub(crate) fn resigned_next_cursor<R: Reason>(
    keys: &CursorKeys,
    completeness: &Completeness<R>,
    change: impl FnOnce(CursorClaims) -> Option<CursorClaims>,
) -> Option<MorePagesAvailable> {
    let claims = CursorClaims::decode(keys, completeness.next_cursor()?, usize::MAX).ok()?;
    let carrier = &completeness.reasons()[completeness.next_cursor_carrier()?];
    if carrier.code() != ReasonCode::MorePagesAvailable {
        return None;
    }
    let mut reissued = MorePagesAvailable::new(change(claims)?.encode(keys));
    keep_message(&mut reissued, carrier.message());
    Some(reissued)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::{CompletenessConfig, Credential, CursorKeys, Page, PageRequest, QueryBinding, rfc3339_rounded_up};
    use crate::server::cursor::{CursorClaims, rfc3339, unix_ms};

    /// The page of `config`'s numbers list at `cursor` (the first page for `None`), or the problem
    /// its cursor gets.
    fn page(config: &CompletenessConfig, cursor: Option<&str>) -> Result<Page, String> {
        let request = PageRequest::new(config.clone(), Credential::new("reader", 1), None, cursor)
            .map_err(|problem| problem.code().as_str().to_owned())?;
        request.bind(QueryBinding::new("numbers", "value ascending")).map_err(|p| p.code().as_str().to_owned())
    }

    /// A position readable for a minute (an upstream page token) gives a cursor that expires
    /// with it, and says so; a position readable for longer than the configured lifetime is
    /// held to that lifetime; one whose deadline has passed is refused as expired when followed.
    #[test]
    fn a_next_cursor_expires_no_later_than_its_position_can_be_read() {
        let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_cursor_ttl(Duration::from_secs(600));
        let first = page(&config, None).unwrap();

        let in_a_minute = SystemTime::now() + Duration::from_secs(60);
        let upstream = first.next_cursor_until("41", in_a_minute);
        let deadline = rfc3339_rounded_up(unix_ms(in_a_minute));
        assert_eq!(upstream.contract.expires_at, deadline, "the upstream token's deadline");
        let next = page(&config, Some(&upstream.cursor)).expect("followed within the minute");
        assert_eq!(next.position(), Some("41"));

        let lifetime_from = |at: SystemTime| rfc3339(unix_ms(at + Duration::from_secs(600)));
        let earliest = lifetime_from(SystemTime::now());
        let held = first.next_cursor_until("41", SystemTime::now() + Duration::from_secs(86_400));
        // (Its end rounded up to the second, as written.)
        let latest = lifetime_from(SystemTime::now() + Duration::from_secs(1));
        // The same format throughout, so the text orders as the time does.
        assert!((earliest.as_str()..=latest.as_str()).contains(&held.contract.expires_at.as_str()), "{held:?}");

        let gone = first.next_cursor_until("41", SystemTime::now() - Duration::from_secs(1));
        assert_eq!(page(&config, Some(&gone.cursor)).err().as_deref(), Some("CURSOR_EXPIRED"));
    }

    /// A cursor is never read past the time its `expires_at` names, which is written to the
    /// second: the end of its lifetime, rounded up.
    #[test]
    fn a_cursor_expires_at_the_second_its_contract_names() {
        for ttl in [Duration::from_millis(2_500), Duration::from_millis(2_999), Duration::from_secs(600)] {
            let config = CompletenessConfig::new(CursorKeys::ephemeral()).with_cursor_ttl(ttl);
            let first = page(&config, None).unwrap();
            let next = first.next_cursor("7");
            let claims = CursorClaims::decode(config.keys(), &next.cursor, usize::MAX).unwrap();
            let written: jiff::Timestamp = next.contract.expires_at.parse().unwrap();
            let (at, written) = (claims.expires_at_ms(), u64::try_from(written.as_millisecond()).unwrap());
            assert!((at..at + 1000).contains(&written), "{ttl:?}: ends at {at}, written {written}");
            assert_eq!(u128::from(at - claims.issued_at_ms()), ttl.as_millis(), "the lifetime is the configured one");
            let (query, credential) = (first.query.fingerprint(), first.credential.fingerprint());
            assert!(claims.check(&query, &credential, at - 1).is_ok(), "read until its lifetime ends");
            assert!(claims.check(&query, &credential, written).is_err(), "refused at the written time");
        }
    }

    /// Attesting signs again the cursor the block carries, with its position and expiry: the one
    /// the page signed, or another the handler signed after it and put in its place.
    #[test]
    fn attesting_signs_again_the_cursor_the_block_carries() {
        use crate::contract::reason::{MorePagesAvailable, StandardReason};
        use crate::contract::scope::Scope;
        let config = CompletenessConfig::new(CursorKeys::ephemeral());
        let read = |cursor: &str| CursorClaims::decode(config.keys(), cursor, usize::MAX).unwrap();
        for (signed, carried) in [(&["7"][..], "7"), (&["7", "9"][..], "9")] {
            let mut first = page(&config, None).unwrap();
            first.pin_snapshot("s1");
            let cursors: Vec<_> = signed.iter().map(|position| first.next_cursor(position)).collect();
            let next = cursors.into_iter().find(|next| read(&next.cursor).position() == carried).unwrap();
            let unattested = read(&next.cursor);
            let mut block = first.completeness::<StandardReason>(Scope::new("numbers", "all"), 2, None);
            block.push_reason(MorePagesAvailable::from(next));
            assert!(!first.attach_evidence(&mut block), "a page with a next page gets no evidence");
            let attested = read(block.next_cursor().unwrap());
            assert!(attested.is_attested_whole() && !unattested.is_attested_whole(), "{signed:?}");
            assert_eq!(attested.position(), carried, "{signed:?}");
            assert_eq!(attested.expires_at_ms(), unattested.expires_at_ms(), "{signed:?}");
            assert_eq!(attested.attested_whole(), unattested.attested_whole(), "only the mark differs");
        }
    }
}
