//! The tables of the completeness wire contract, in one place: the standard reason and warning
//! codes, the members a completeness block owns, and the type names that make a response a list.
//!
//! The runtime builds its `ReasonCode` and `WarningCode` enums from [`for_each_reason!`] and
//! [`for_each_warning!`]; the macros and the migration audit read the constant tables built
//! from the same lines. Adding a standard code is one line here (and its details type in the
//! runtime, which the compiler then asks for). A reason code added after the contract's first
//! table also writes its `kind` on the wire, as a service's own reason does, so that readers
//! older than it classify it (contract §7): its details type's serializer says so. The rules these tables serve are numbered in
//! the contract document, `docs/contract.md`.
//!
//! This crate has no dependencies, so that the proc-macro crate can use it.

#![no_std]

/// Calls `$callback!` with every standard reason as `Name "CODE" Kind Recovery,` in contract
/// order (contract §3.2), where `Recovery` is a [`Recovery`] variant written as an expression:
/// `Always("next_cursor")`, `Sometimes("retry_after")` or `Never`.
#[macro_export]
macro_rules! for_each_reason {
    ($callback:ident) => {
        $callback! {
            MorePagesAvailable "MORE_PAGES_AVAILABLE" Truncation Always("next_cursor"),
            ResultLimitReached "RESULT_LIMIT_REACHED" Truncation Sometimes("narrow_query"),
            TimeBudgetExceeded "TIME_BUDGET_EXCEEDED" Budget Sometimes("retry_with_deadline"),
            SourceUnavailable "SOURCE_UNAVAILABLE" Source Sometimes("retry_after"),
            VisibilityRestricted "VISIBILITY_RESTRICTED" Visibility Never,
            QuotaExhausted "QUOTA_EXHAUSTED" Budget Always("retry_after"),
            ClientLimitReached "CLIENT_LIMIT_REACHED" Truncation Sometimes("next_cursor"),
            SnapshotExpired "SNAPSHOT_EXPIRED" Snapshot Always("restart"),
        }
    };
}

/// Calls `$callback!` with every standard warning as `Name "CODE",` in contract order
/// (contract §3.5).
#[macro_export]
macro_rules! for_each_warning {
    ($callback:ident) => {
        $callback! {
            StaleIndex "STALE_INDEX",
            PartialFieldSet "PARTIAL_FIELD_SET",
            DefaultScopeApplied "DEFAULT_SCOPE_APPLIED",
            PageSizeReduced "PAGE_SIZE_REDUCED",
            OrderingDefaulted "ORDERING_DEFAULTED",
            DeprecatedField "DEPRECATED_FIELD",
        }
    };
}

/// What family a reason belongs to; it decides `truncated` and how clients classify the
/// reason (contract §3.4). Every reason has one; a reason read from the wire without a
/// `kind` member and with a code the reader does not know is [`ReasonKind::Unknown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ReasonKind {
    /// The answer was cut short; `truncated` is true.
    Truncation,
    /// A time or quota budget ran out.
    Budget,
    /// A source failed.
    Source,
    /// Records were hidden from this credential.
    Visibility,
    /// The snapshot is gone.
    Snapshot,
    /// Not known to this reader: treated as the most cautious of all.
    Unknown,
}

impl ReasonKind {
    /// Every kind a reason can declare, in contract order.
    pub const DECLARABLE: [ReasonKind; 5] =
        [ReasonKind::Truncation, ReasonKind::Budget, ReasonKind::Source, ReasonKind::Visibility, ReasonKind::Snapshot];

    /// The wire form (`"truncation"`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ReasonKind::Truncation => "truncation",
            ReasonKind::Budget => "budget",
            ReasonKind::Source => "source",
            ReasonKind::Visibility => "visibility",
            ReasonKind::Snapshot => "snapshot",
            ReasonKind::Unknown => "unknown",
        }
    }

    /// Reads a wire form; `None` for anything that is not a declarable kind.
    pub fn parse(text: &str) -> Option<ReasonKind> {
        ReasonKind::DECLARABLE.into_iter().find(|kind| kind.as_str() == text)
    }
}

/// Which continuation recovers from a standard reason (contract §2.4, rule R6): the `kind` of
/// the continuation, and whether the reason always comes with one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The reason always comes with a continuation of this kind (`MORE_PAGES_AVAILABLE` always
    /// has its `next_cursor`).
    Always(&'static str),
    /// A continuation of this kind recovers from the reason when the server knows one.
    Sometimes(&'static str),
    /// No continuation recovers from it (`VISIBILITY_RESTRICTED`: only another credential does).
    Never,
}

impl Recovery {
    /// The continuation kind that recovers, if any.
    pub const fn continuation(self) -> Option<&'static str> {
        match self {
            Recovery::Always(kind) | Recovery::Sometimes(kind) => Some(kind),
            Recovery::Never => None,
        }
    }

    /// True when the reason always comes with its continuation.
    pub const fn is_always(self) -> bool {
        matches!(self, Recovery::Always(_))
    }
}

/// One standard reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReasonEntry {
    /// The type name (`MorePagesAvailable`), as written in `reasons(...)`.
    pub name: &'static str,
    /// The wire code (`MORE_PAGES_AVAILABLE`).
    pub code: &'static str,
    /// Its kind.
    pub kind: ReasonKind,
    /// The continuation that recovers from it.
    pub recovery: Recovery,
}

/// One standard warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarningEntry {
    /// The type name (`StaleIndex`), as written in `warnings(...)`.
    pub name: &'static str,
    /// The wire code (`STALE_INDEX`).
    pub code: &'static str,
}

macro_rules! reason_table {
    ($($name:ident $code:literal $kind:ident $recovery:ident $(($continuation:literal))?,)*) => {
        /// Every standard reason, in contract order.
        pub const REASONS: &[ReasonEntry] = &[$(ReasonEntry {
            name: stringify!($name),
            code: $code,
            kind: ReasonKind::$kind,
            recovery: Recovery::$recovery $(($continuation))?,
        }),*];
    };
}
for_each_reason!(reason_table);

macro_rules! warning_table {
    ($($name:ident $code:literal,)*) => {
        /// Every standard warning, in contract order.
        pub const WARNINGS: &[WarningEntry] = &[$(WarningEntry { name: stringify!($name), code: $code }),*];
    };
}
for_each_warning!(warning_table);

/// The members a collection's completeness block owns, in wire order; the data members go
/// after `truncated` (contract §2.1).
pub const COLLECTION_MEMBERS: &[&str] = &[
    "status",
    "complete",
    "truncated",
    "incomplete_reasons",
    "continuation",
    "next_cursor",
    "page",
    "scope",
    "warnings",
    "evidence",
];

/// The members an aggregate's completeness block owns, in wire order (contract §2.6).
pub const AGGREGATE_MEMBERS: &[&str] =
    &["status", "complete", "truncated", "incomplete_reasons", "continuation", "next_cursor", "scope", "warnings"];

/// The member a single resource adds for the fields it did not fill (contract §2.7).
pub const OMITTED_FIELDS: &str = "omitted_fields";

/// The member a single resource carries its warnings in (contract §2.7).
pub const RESOURCE_WARNINGS: &str = "warnings";

/// The members of a reason object that are not its details (contract §3.1).
pub const REASON_HEAD_MEMBERS: &[&str] = &["code", "message", "kind"];

/// The members of a warning object that are not its details (contract §3.5).
pub const WARNING_HEAD_MEMBERS: &[&str] = &["code", "message", "stale"];

/// Collection types that hold any number of items (up to a capacity, for `ArrayVec`): a field
/// or response of one of these is a list. Those of the standard library, `indexmap`'s, and the
/// small-vector crates' (`smallvec`, `arrayvec`, `tinyvec`, `thin-vec`).
pub const COLLECTIONS: &[&str] = &[
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "IndexMap",
    "IndexSet",
    "SmallVec",
    "ArrayVec",
    "TinyVec",
    "ThinVec",
];

/// Type names that are never lists: numbers, `bool`, `char` and text.
pub const SCALARS: &[&str] = &[
    "String", "str", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
    "isize", "f32", "f64",
];

/// Wrappers looked through when classifying a type: an `Option<Vec<T>>` is still a list, and
/// so is a `Field<Vec<T>>` (contract §2.7).
pub const WRAPPERS: &[&str] = &["Option", "Box", "Rc", "Arc", "Cow", "Field"];

/// Response types that serialize what they hold: `Json<Vec<T>>` is a list.
pub const BODY_WRAPPERS: &[&str] = &["Json"];

/// Response types of the runtime that report completeness (a collector's `Collected` reports
/// like the envelope it holds; a `Problem` is a refusal, never taken for an answer).
pub const REPORTING_TYPES: &[&str] = &["Envelope", "Aggregate", "Problem", "Collected"];

/// The type of a completeness block (`Completeness<R>`): a response reports through the one
/// block it carries.
pub const COMPLETENESS_BLOCK: &str = "Completeness";

/// The response type of the runtime that declares, with a reason, that an answer needs no
/// completeness block.
pub const EXEMPT_TYPE: &str = "Exempt";

/// True for a code of the wire form: SCREAMING_SNAKE_CASE, starting with a letter, no empty
/// word (`LEGAL_HOLD`, not `legal_hold`, `_HOLD` or `LEGAL__HOLD`). A `const fn`, so that a
/// code written as a constant is checked when it is compiled.
pub const fn is_wire_code(code: &str) -> bool {
    let bytes = code.as_bytes();
    if bytes.is_empty() || !bytes[0].is_ascii_uppercase() {
        return false;
    }
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let fits = match byte {
            // A separator ends a word: another one must follow.
            b'_' => at + 1 < bytes.len() && bytes[at + 1] != b'_',
            _ => byte.is_ascii_uppercase() || byte.is_ascii_digit(),
        };
        if !fits {
            return false;
        }
        at += 1;
    }
    true
}

/// True for the wire code of a standard reason (a `const fn`, as [`is_wire_code`]).
pub const fn is_standard_reason_code(code: &str) -> bool {
    let mut at = 0;
    while at < REASONS.len() {
        if same_text(REASONS[at].code, code) {
            return true;
        }
        at += 1;
    }
    false
}

/// True for the wire code of a standard warning (a `const fn`, as [`is_wire_code`]).
pub const fn is_standard_warning_code(code: &str) -> bool {
    let mut at = 0;
    while at < WARNINGS.len() {
        if same_text(WARNINGS[at].code, code) {
            return true;
        }
        at += 1;
    }
    false
}

/// The standard code, a reason's or a warning's, that `code` is a letter or two from (at most
/// two letters added, dropped or changed), when there is one: a service's own code so close to
/// a standard one (`SOURCES_UNAVAILABLE`, `STALE_INDEXX`) would be read as it (contract §3.3),
/// so the derives and `ReasonCode::custom`/`WarningCode::custom` refuse it. `None` for a
/// standard code itself.
pub const fn confusable_standard_code(code: &str) -> Option<&'static str> {
    if is_standard_reason_code(code) || is_standard_warning_code(code) {
        return None;
    }
    let mut at = 0;
    while at < REASONS.len() {
        if within_edits(code, REASONS[at].code, 2) {
            return Some(REASONS[at].code);
        }
        at += 1;
    }
    let mut at = 0;
    while at < WARNINGS.len() {
        if within_edits(code, WARNINGS[at].code, 2) {
            return Some(WARNINGS[at].code);
        }
        at += 1;
    }
    None
}

/// True when `a` becomes `b` with at most `most` letters added, dropped or changed
/// (Levenshtein, by bytes, row by row, in a `const fn`): the "did you mean" of the codes and of
/// the macros' names. `b` is a known name, shorter than 64 bytes; a longer one is never near.
pub const fn within_edits(a: &str, b: &str, most: usize) -> bool {
    const ROW: usize = 64;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() > b.len() + most || b.len() > a.len() + most || b.len() >= ROW {
        return false;
    }
    let mut previous = [0usize; ROW];
    let mut j = 0;
    while j <= b.len() {
        previous[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        let mut current = [0usize; ROW];
        current[0] = i;
        let mut j = 1;
        while j <= b.len() {
            let changed = previous[j - 1] + if a[i - 1] == b[j - 1] { 0 } else { 1 };
            current[j] = least(changed, least(previous[j] + 1, current[j - 1] + 1));
            j += 1;
        }
        previous = current;
        i += 1;
    }
    previous[b.len()] <= most
}

/// The smaller of `a` and `b` (`Ord::min` is not a `const fn`).
const fn least(a: usize, b: usize) -> usize {
    if a < b { a } else { b }
}

/// `a == b`, in a `const fn` (where `==` on `str` is not available): the code tables'
/// constant checks compare codes with it.
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

/// The standard reason with this wire code.
pub fn standard_reason(code: &str) -> Option<&'static ReasonEntry> {
    REASONS.iter().find(|entry| entry.code == code)
}

/// The standard warning with this wire code.
pub fn standard_warning(code: &str) -> Option<&'static WarningEntry> {
    WARNINGS.iter().find(|entry| entry.code == code)
}

/// True when `a` and `b` are the same name but for case and underscores
/// (`MorePagesAvaliable` is not, `more_pages_available` is `MorePagesAvailable`).
pub fn same_name_loosely(a: &str, b: &str) -> bool {
    fn fold(s: &str) -> impl Iterator<Item = char> + '_ {
        s.chars().filter(|c| *c != '_').flat_map(char::to_lowercase)
    }
    fold(a).eq(fold(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_a_letter_or_two_from_a_standard_one_is_confusable() {
        assert_eq!(confusable_standard_code("SOURCES_UNAVAILABLE"), Some("SOURCE_UNAVAILABLE"));
        assert_eq!(confusable_standard_code("STALE_INDEXX"), Some("STALE_INDEX"));
        assert_eq!(confusable_standard_code("STALE_IDX"), Some("STALE_INDEX"));
        assert_eq!(confusable_standard_code("STALE_INDEX"), None, "a standard code is itself");
        for own in ["LEGAL_HOLD", "REPLICA_LAG", "STALE_DATA", "UPSTREAM_TRUNCATED", "A"] {
            assert_eq!(confusable_standard_code(own), None, "{own}");
        }
    }

    #[test]
    fn every_standard_code_is_a_wire_code_listed_once() {
        for (i, entry) in REASONS.iter().enumerate() {
            assert!(is_wire_code(entry.code), "{}", entry.code);
            assert!(same_name_loosely(entry.name, entry.code), "{} spells {}", entry.name, entry.code);
            assert!(REASONS[..i].iter().all(|other| other.code != entry.code));
        }
        for (i, entry) in WARNINGS.iter().enumerate() {
            assert!(is_wire_code(entry.code), "{}", entry.code);
            assert!(same_name_loosely(entry.name, entry.code), "{} spells {}", entry.name, entry.code);
            assert!(WARNINGS[..i].iter().all(|other| other.code != entry.code));
            assert!(standard_reason(entry.code).is_none(), "{} is both a reason and a warning", entry.code);
        }
    }

    #[test]
    fn wire_codes_are_screaming_snake_case() {
        for good in ["LEGAL_HOLD", "A", "SHARD_2_REBALANCING"] {
            assert!(is_wire_code(good), "{good}");
        }
        for bad in ["", "legal_hold", "LegalHold", "_HOLD", "LEGAL__HOLD", "HOLD_", "2_HOLD", "LEGAL-HOLD"] {
            assert!(!is_wire_code(bad), "{bad}");
        }
    }

    #[test]
    fn standard_codes_are_told_from_others_in_const_fns() {
        for entry in REASONS {
            assert!(is_standard_reason_code(entry.code) && !is_standard_warning_code(entry.code), "{}", entry.code);
        }
        for entry in WARNINGS {
            assert!(is_standard_warning_code(entry.code) && !is_standard_reason_code(entry.code), "{}", entry.code);
        }
        for other in ["LEGAL_HOLD", "MORE_PAGES", "MORE_PAGES_AVAILABLEX", "STALE_INDEX_", ""] {
            assert!(!is_standard_reason_code(other) && !is_standard_warning_code(other), "{other}");
        }
    }

    #[test]
    fn kinds_read_back_their_wire_form() {
        for kind in ReasonKind::DECLARABLE {
            assert_eq!(ReasonKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ReasonKind::parse("unknown"), None);
        assert_eq!(ReasonKind::parse("Truncation"), None);
    }
}
