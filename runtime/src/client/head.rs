//! The first page's scope and page facts, kept by the collector for a whole traversal.
//!
//! Every later page allocates and frees its own small strings while the collector
//! holds these. Held as the first page's own strings (five small allocations and the
//! cursor contract's two), they measurably slowed those pages' allocations: on pages of
//! 250 ids, a slow-path allocation more per page in glibc's smallest size class
//! (`cargo bench --bench collect`). So their text is kept side by side, inside the
//! head itself when it fits (one allocation fewer per traversal, and no heap block
//! held among the pages').

use serde_json::{Map, Value};

use crate::contract::completeness::Completeness;
use crate::contract::reason::StandardReason;
use crate::contract::scope::{CursorContract, PageInfo, Scope};

/// The text fields, in the order they are kept.
const RESOURCE: usize = 0;
const VISIBILITY: usize = 1;
const SCOPE_SNAPSHOT: usize = 2;
const ORDERING: usize = 3;
const PAGE_SNAPSHOT: usize = 4;

/// Text of up to this many bytes is kept without an allocation.
const INLINE: usize = 128;

/// The kept text: inline when it fits (its length is the last field's end).
enum Text {
    Inline([u8; INLINE]),
    Heap(String),
}

/// The traversal's scope and page facts, as the first page reported them.
pub(crate) struct Head {
    /// Resource, visibility, scope snapshot, ordering and page snapshot, side by side.
    text: Text,
    /// Where each text field ends in `text`.
    ends: [usize; 5],
    has_scope_snapshot: bool,
    filters: Map<String, Value>,
    page: Option<PageFacts>,
}

/// The page member's facts besides its text.
struct PageFacts {
    requested_size: Option<u64>,
    applied_size: u64,
    has_snapshot: bool,
}

impl Head {
    /// Keeps `block`'s scope and page facts; its filters are moved out of it.
    pub(crate) fn keep(block: &mut Completeness<StandardReason>) -> Head {
        let filters = std::mem::take(&mut block.scope_mut().filters);
        let (scope, page) = (block.scope(), block.page());
        let fields = [
            scope.resource.as_str(),
            scope.visibility.as_str(),
            scope.snapshot.as_deref().unwrap_or_default(),
            page.map_or("", |p| p.ordering.as_str()),
            page.and_then(|p| p.snapshot.as_deref()).unwrap_or_default(),
        ];
        let mut ends = [0; 5];
        let mut end = 0;
        for (field_end, field) in ends.iter_mut().zip(fields) {
            end += field.len();
            *field_end = end;
        }
        let text = if end <= INLINE {
            let mut bytes = [0; INLINE];
            let mut start = 0;
            for (field_end, field) in ends.iter().zip(fields) {
                bytes[start..*field_end].copy_from_slice(field.as_bytes());
                start = *field_end;
            }
            Text::Inline(bytes)
        } else {
            Text::Heap(fields.concat())
        };
        Head {
            text,
            ends,
            has_scope_snapshot: scope.snapshot.is_some(),
            filters,
            page: page.map(|p| PageFacts {
                requested_size: p.requested_size,
                applied_size: p.applied_size,
                has_snapshot: p.snapshot.is_some(),
            }),
        }
    }

    fn field_bytes(&self, index: usize) -> &[u8] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        let text = match &self.text {
            Text::Inline(bytes) => bytes.as_slice(),
            Text::Heap(text) => text.as_bytes(),
        };
        text.get(start..self.ends[index]).unwrap_or_default()
    }

    /// A field as text (each field was copied whole from a `str`).
    fn field(&self, index: usize) -> &str {
        std::str::from_utf8(self.field_bytes(index)).unwrap_or_default()
    }

    fn scope_snapshot(&self) -> Option<&str> {
        self.has_scope_snapshot.then(|| self.field(SCOPE_SNAPSHOT))
    }

    fn page_snapshot(&self) -> Option<&str> {
        self.page.as_ref().and_then(|p| p.has_snapshot.then(|| self.field(PAGE_SNAPSHOT)))
    }

    /// True when `block` was read at the snapshot of the traversal's first page.
    pub(crate) fn same_snapshot(&self, block: &Completeness<StandardReason>) -> bool {
        let same = |kept: bool, index: usize, later: Option<&String>| match later {
            Some(later) => kept && later.as_bytes() == self.field_bytes(index),
            None => !kept,
        };
        same(self.has_scope_snapshot, SCOPE_SNAPSHOT, block.scope().snapshot.as_ref())
            && match (&self.page, block.page()) {
                (Some(first), Some(later)) => same(first.has_snapshot, PAGE_SNAPSHOT, later.snapshot.as_ref()),
                (None, None) => true,
                _ => false,
            }
    }

    /// The scope and page member again, with `cursor` as the page member's cursor
    /// contract (`returned` is the caller's to set).
    pub(crate) fn into_scope_and_page(self, cursor: Option<CursorContract>) -> (Scope, Option<PageInfo>) {
        let page = self.page.as_ref().map(|p| PageInfo {
            returned: 0,
            requested_size: p.requested_size,
            applied_size: p.applied_size,
            ordering: self.field(ORDERING).to_owned(),
            snapshot: self.page_snapshot().map(str::to_owned),
            cursor,
        });
        let scope = Scope {
            resource: self.field(RESOURCE).to_owned(),
            visibility: self.field(VISIBILITY).to_owned(),
            snapshot: self.scope_snapshot().map(str::to_owned),
            filters: self.filters,
        };
        (scope, page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::reason::MorePagesAvailable;
    use crate::contract::scope::CursorBinding;

    fn contract(expires_at: &str) -> CursorContract {
        CursorContract {
            freezes_snapshot: true,
            expires_at: expires_at.to_owned(),
            invalidated_by: vec![CursorBinding::Filters],
        }
    }

    fn block(scope_snapshot: Option<&str>, page_snapshot: Option<Option<&str>>) -> Completeness<StandardReason> {
        let mut scope = Scope::new("accounts", "accounts readable by 'north'").with_filter("owner", "none");
        scope.snapshot = scope_snapshot.map(str::to_owned);
        let page = page_snapshot.map(|snapshot| PageInfo {
            returned: 2,
            requested_size: Some(2),
            applied_size: 2,
            ordering: "id ascending".to_owned(),
            snapshot: snapshot.map(str::to_owned),
            cursor: Some(contract("2100-01-01T00:00:00Z")),
        });
        let mut block = Completeness::incomplete(scope, MorePagesAvailable::new("c2"));
        block.set_page(page);
        block
    }

    #[test]
    fn the_kept_head_gives_back_the_first_pages_scope_and_page_facts() {
        let mut first = block(Some("s-1"), Some(Some("s-1")));
        let (scope, page) = (first.scope().clone(), first.page().cloned().unwrap());
        let head = Head::keep(&mut first);
        let latest = contract("2100-01-02T00:00:00Z");
        let (kept_scope, kept_page) = head.into_scope_and_page(Some(latest.clone()));
        assert_eq!(kept_scope, scope);
        assert_eq!(kept_page, Some(PageInfo { returned: 0, cursor: Some(latest), ..page }));
    }

    #[test]
    fn text_longer_than_the_inline_room_is_kept_too() {
        let mut first = block(Some("s-1"), Some(Some("s-1")));
        first.scope_mut().visibility = "accounts readable by 'north', ".repeat(8);
        let scope = first.scope().clone();
        let head = Head::keep(&mut first);
        assert!(matches!(head.text, Text::Heap(_)));
        assert!(head.same_snapshot(&block(Some("s-1"), Some(Some("s-1")))));
        assert!(!head.same_snapshot(&block(Some("s-2"), Some(Some("s-1")))));
        assert_eq!(head.into_scope_and_page(None).0, scope);
    }

    #[test]
    fn absent_snapshots_and_page_members_stay_absent() {
        for (scope_snapshot, page_snapshot) in [(None, None), (None, Some(None)), (Some(""), Some(Some("")))] {
            let mut first = block(scope_snapshot, page_snapshot);
            let (scope, page) = (first.scope().clone(), first.page().cloned());
            let (kept_scope, kept_page) = Head::keep(&mut first).into_scope_and_page(None);
            assert_eq!(kept_scope, scope);
            assert_eq!(kept_page, page.map(|p| PageInfo { returned: 0, cursor: None, ..p }));
        }
    }

    #[test]
    fn only_a_page_at_the_same_snapshots_is_the_same_traversal() {
        let head = Head::keep(&mut block(Some("s-1"), Some(Some("s-1"))));
        assert!(head.same_snapshot(&block(Some("s-1"), Some(Some("s-1")))));
        assert!(!head.same_snapshot(&block(Some("s-2"), Some(Some("s-1")))), "another scope snapshot");
        assert!(!head.same_snapshot(&block(Some("s-1"), Some(Some("s-2")))), "another page snapshot");
        assert!(!head.same_snapshot(&block(None, Some(Some("s-1")))), "a scope snapshot gone");
        assert!(!head.same_snapshot(&block(Some("s-1"), Some(None))), "a page snapshot gone");
        assert!(!head.same_snapshot(&block(Some("s-1"), None)), "a page member gone");
        let without_page = Head::keep(&mut block(Some("s-1"), None));
        assert!(without_page.same_snapshot(&block(Some("s-1"), None)));
        assert!(!without_page.same_snapshot(&block(Some("s-1"), Some(Some("s-1")))), "a page member appeared");
    }
}
