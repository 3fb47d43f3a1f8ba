//! An in-memory paged source with real snapshots, for collector tests and benches.

use std::collections::BTreeMap;

use crate::client::collect::FetchError;
use crate::contract::continuation::Continuation;
use crate::contract::envelope::Envelope;
use crate::contract::reason::{MorePagesAvailable, StandardReason, VisibilityRestricted};
use crate::contract::scope::{CursorBinding, CursorContract, PageInfo, Scope};
use crate::contract::warning::StaleIndex;
use crate::server::problem::{Problem, ProblemCode};

use serde_json::{Map, Value};

/// A change to the source between two page fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// Insert this id (nothing happens if it exists).
    Insert(u64),
    /// Delete the live row at this position (modulo the live count).
    Delete(usize),
    /// Drop every snapshot before the current one: older cursors get `410 CURSOR_EXPIRED`.
    ExpireOldSnapshots,
}

/// Versioned rows (valid-from / valid-to snapshot numbers) served in keyset pages of
/// ids, ascending.
///
/// Every mutation makes a new snapshot. With `freezes_snapshot`, a cursor reads at
/// the snapshot of the traversal's first page (as contract §2.5 asks), and a cursor
/// whose snapshot was dropped gets `410 CURSOR_EXPIRED`; without it, every page reads
/// the current snapshot and says so, like a server that does not freeze snapshots.
/// With `restricted`, ids divisible by 5 are hidden from the caller and every page
/// reports `VISIBILITY_RESTRICTED`. A page is complete exactly when no visible row
/// follows it, so an exactly full last page ends the traversal.
#[derive(Debug, Clone)]
pub struct MemorySource {
    /// id → (born at snapshot, died at snapshot).
    rows: BTreeMap<u64, (u64, Option<u64>)>,
    current: u64,
    oldest_retained: u64,
    freezes_snapshot: bool,
    restricted: bool,
    page_sizes: Vec<usize>,
    warn_every: Option<u64>,
    filters: Map<String, Value>,
    evidence: bool,
    fetches: u64,
}

impl MemorySource {
    /// A source holding ids `1..=count` at snapshot 1, served `page_size` per page.
    pub fn new(count: u64, page_size: usize) -> MemorySource {
        MemorySource {
            rows: (1..=count).map(|id| (id, (1, None))).collect(),
            current: 1,
            oldest_retained: 1,
            freezes_snapshot: true,
            restricted: false,
            page_sizes: vec![page_size],
            warn_every: None,
            filters: Map::new(),
            evidence: false,
            fetches: 0,
        }
    }

    /// Page sizes used in turn, one per fetch (0 gives an empty page that is not the end).
    pub fn with_page_sizes(mut self, sizes: Vec<usize>) -> Self {
        if !sizes.is_empty() {
            self.page_sizes = sizes;
        }
        self
    }

    /// Whether cursors keep reading at the first page's snapshot.
    pub fn freezing_snapshots(mut self, freezes: bool) -> Self {
        self.freezes_snapshot = freezes;
        self
    }

    /// Hides ids divisible by 5 and reports `VISIBILITY_RESTRICTED`.
    pub fn restricted(mut self, restricted: bool) -> Self {
        self.restricted = restricted;
        self
    }

    /// Adds a `STALE_INDEX` warning to every `n`th page.
    pub fn warning_every(mut self, n: Option<u64>) -> Self {
        self.warn_every = n.filter(|n| *n > 0);
        self
    }

    /// Echoes filter `name` with `value` in every page's scope, as a service that applied it
    /// does: for a client that checks the scope against what it asked
    /// ([`Scope::differs_from`]). The rows served are the same whatever the filters.
    pub fn with_filter(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.filters.insert(name.to_owned(), value.into());
        self
    }

    /// Gives the last page of a traversal evidence (`ev-s-N`, N its snapshot), as a service gives the
    /// inventory a destructive action needs: only where a server may (contract §6), that is when
    /// every page of the traversal was complete but for paging, at one snapshot, and read from
    /// current state. So never when the source is `restricted`, gives stale warnings, or does not
    /// freeze snapshots. The token is not signed: a client's tests read it, a server never
    /// verifies it.
    pub fn issuing_evidence(mut self, issues: bool) -> Self {
        self.evidence = issues;
        self
    }

    /// The current snapshot number.
    pub fn snapshot(&self) -> u64 {
        self.current
    }

    /// Pages fetched so far (including refused fetches).
    pub fn fetches(&self) -> u64 {
        self.fetches
    }

    /// The ids live at `snapshot`, ascending (hidden ones included).
    pub fn ids_at(&self, snapshot: u64) -> Vec<u64> {
        self.rows.iter().filter(|(_, (born, died))| live(*born, *died, snapshot)).map(|(id, _)| *id).collect()
    }

    /// Applies a mutation; it makes a new snapshot.
    pub fn apply(&mut self, mutation: Mutation) {
        match mutation {
            Mutation::Insert(id) => {
                if self.rows.contains_key(&id) {
                    return;
                }
                self.current += 1;
                self.rows.insert(id, (self.current, None));
            }
            Mutation::Delete(position) => {
                let live = self.ids_at(self.current);
                if live.is_empty() {
                    return;
                }
                let id = live[position % live.len()];
                self.current += 1;
                if let Some(row) = self.rows.get_mut(&id) {
                    row.1 = Some(self.current);
                }
            }
            Mutation::ExpireOldSnapshots => self.oldest_retained = self.current,
        }
    }

    /// Serves the page at `cursor` (the first page for `None`).
    pub fn fetch(&mut self, cursor: Option<&str>) -> Result<Envelope<u64, StandardReason>, FetchError> {
        self.fetches += 1;
        let (cursor_snapshot, after) = match cursor {
            None => (self.current, None),
            Some(cursor) => parse_cursor(cursor).ok_or_else(|| {
                FetchError::Problem(Problem::new(
                    ProblemCode::InvalidCursor,
                    "the cursor is not one this source issued",
                ))
            })?,
        };
        let snapshot = if self.freezes_snapshot { cursor_snapshot } else { self.current };
        if snapshot < self.oldest_retained {
            return Err(FetchError::Problem(
                Problem::new(ProblemCode::CursorExpired, format!("snapshot s-{snapshot} is no longer retained"))
                    .with_continuation(&Continuation::Restart { reason: "snapshot gone".to_owned() }),
            ));
        }
        let size = self.page_sizes[((self.fetches - 1) % self.page_sizes.len() as u64) as usize];
        let visible = |id: &u64| !self.restricted || !id.is_multiple_of(5);
        let mut following = self
            .rows
            .range(after.map_or(0, |a| a + 1)..)
            .filter(|(id, (born, died))| live(*born, *died, snapshot) && visible(id))
            .map(|(id, _)| *id);
        let items: Vec<u64> = following.by_ref().take(size).collect();
        let more = following.next().is_some();

        let label = format!("s-{snapshot}");
        let mut scope = Scope::new("numbers", "numbers readable by the test credential").with_snapshot(label.clone());
        scope.filters = self.filters.clone();
        let mut page = Envelope::complete(Vec::new(), scope);
        let position = items.last().copied().or(after);
        let contract = more.then(|| CursorContract {
            freezes_snapshot: self.freezes_snapshot,
            expires_at: "2100-01-01T00:00:00Z".to_owned(),
            invalidated_by: vec![CursorBinding::Filters, CursorBinding::Ordering, CursorBinding::Credential],
        });
        page.completeness = page.completeness.with_page(PageInfo {
            returned: items.len() as u64,
            requested_size: Some(size as u64),
            applied_size: size as u64,
            ordering: "id ascending".to_owned(),
            snapshot: Some(label),
            cursor: contract,
            resumed: Some(cursor.is_some()),
        });
        if self.restricted {
            page.completeness.push_reason(VisibilityRestricted::new());
        }
        if more {
            // Each cursor names the fetch that issued it, as a signed cursor carries its issue
            // time: an empty page's cursor resumes at the same position, but is a new cursor
            // (a client does not follow one cursor twice, contract §2.5).
            let after = position.map_or_else(|| "-".to_owned(), |position| position.to_string());
            let next = format!("s{snapshot}.a{after}.n{}", self.fetches);
            page.completeness.push_reason(MorePagesAvailable::new(next));
        }
        if self.warn_every.is_some_and(|n| self.fetches.is_multiple_of(n)) {
            page.completeness.push_warning(StaleIndex::new("numbers").observed_revision(format!("r-{}", self.fetches)));
        }
        let whole = self.evidence && !more && !self.restricted && self.warn_every.is_none() && self.freezes_snapshot;
        if whole {
            page.completeness.attach_evidence(format!("ev-s-{snapshot}"));
        }
        page.items = items;
        Ok(page)
    }
}

fn live(born: u64, died: Option<u64>, snapshot: u64) -> bool {
    born <= snapshot && died.is_none_or(|d| d > snapshot)
}

/// `s{snapshot}.a{after}.n{fetch}` or `s{snapshot}.a-.n{fetch}` (before the first id), where
/// `fetch` numbers the fetch that issued the cursor.
fn parse_cursor(cursor: &str) -> Option<(u64, Option<u64>)> {
    let (cursor, fetch) = cursor.rsplit_once(".n")?;
    fetch.parse::<u64>().ok()?;
    let (snapshot, after) = cursor.strip_prefix('s')?.split_once(".a")?;
    let snapshot = snapshot.parse().ok()?;
    let after = if after == "-" { None } else { Some(after.parse().ok()?) };
    Some((snapshot, after))
}
