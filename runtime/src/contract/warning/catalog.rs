//! The warning catalog: every warning code a service emits has an owner and a review-by date
//! (contract §3.5).

use std::collections::BTreeMap;
use std::fmt;

use super::{WarningCode, WarningDetails};

pub use crate::contract::date::Date;

/// Who owns a warning code and when it must be reviewed again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// The team or person answerable for the warning.
    pub owner: String,
    /// After this date the code must be reviewed (kept, changed or removed).
    pub review_by: Date,
    /// Why the warning exists.
    pub purpose: String,
}

/// The service's catalog of warning codes: each has an owner and a review-by date.
///
/// Put [`WarningCatalog::check`] in a test: it fails once a code is past its date,
/// and [`WarningCatalog::require`] fails for a code a service emits without an entry.
#[derive(Debug, Clone, Default)]
pub struct WarningCatalog {
    entries: BTreeMap<WarningCode, CatalogEntry>,
}

/// A catalog problem: a code past its review date or missing from the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogProblem {
    /// The code's review-by date has passed.
    Overdue {
        /// The code.
        code: WarningCode,
        /// Its owner.
        owner: String,
        /// The date that passed.
        review_by: Date,
    },
    /// The code is emitted but not in the catalog.
    Uncatalogued(WarningCode),
}

impl fmt::Display for CatalogProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogProblem::Overdue { code, owner, review_by } => {
                write!(f, "warning {code} was due for review by {review_by}; {owner} must review it and move the date")
            }
            CatalogProblem::Uncatalogued(code) => {
                write!(
                    f,
                    "warning {code} is emitted but has no catalog entry; add one with an owner and a review-by date"
                )
            }
        }
    }
}

impl std::error::Error for CatalogProblem {}

impl WarningCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        WarningCatalog::default()
    }

    /// Adds a code with its owner, review-by date (`YYYY-MM-DD`) and purpose.
    ///
    /// # Panics
    /// When `review_by` is not a valid date: catalogs are written by hand, and a typo must not pass silently.
    pub fn entry(mut self, code: WarningCode, owner: &str, review_by: &str, purpose: &str) -> Self {
        let review_by = Date::parse(review_by).unwrap_or_else(|e| panic!("warning catalog entry {code}: {e}"));
        self.entries.insert(code, CatalogEntry { owner: owner.to_owned(), review_by, purpose: purpose.to_owned() });
        self
    }

    /// Adds a service's own warning with the owner and review-by date its
    /// `#[warning(owner = "...", review_by = "...")]` declares (checked at compile time).
    ///
    /// # Panics
    /// For a standard warning, which has no owner in a service: use [`WarningCatalog::entry`].
    pub fn declare<W: WarningDetails>(self, purpose: &str) -> Self {
        match (W::OWNER, W::REVIEW_BY) {
            (Some(owner), Some(review_by)) => self.entry(W::CODE, owner, review_by, purpose),
            _ => panic!("warning {} is standard: catalog it with `entry(code, owner, review_by, purpose)`", W::CODE),
        }
    }

    /// The entry of a code.
    pub fn get(&self, code: &WarningCode) -> Option<&CatalogEntry> {
        self.entries.get(code)
    }

    /// Every entry.
    pub fn entries(&self) -> impl Iterator<Item = (&WarningCode, &CatalogEntry)> {
        self.entries.iter()
    }

    /// The codes whose review-by date is before `today`.
    pub fn check(&self, today: Date) -> Result<(), Vec<CatalogProblem>> {
        let overdue: Vec<_> = self
            .entries
            .iter()
            .filter(|(_, entry)| entry.review_by < today)
            .map(|(code, entry)| CatalogProblem::Overdue {
                code: code.clone(),
                owner: entry.owner.clone(),
                review_by: entry.review_by,
            })
            .collect();
        if overdue.is_empty() { Ok(()) } else { Err(overdue) }
    }

    /// [`WarningCatalog::check`] against today's date.
    pub fn check_today(&self) -> Result<(), Vec<CatalogProblem>> {
        self.check(Date::today())
    }

    /// Fails for every code in `emitted` that has no entry.
    pub fn require<'a>(&self, emitted: impl IntoIterator<Item = &'a WarningCode>) -> Result<(), Vec<CatalogProblem>> {
        let missing: Vec<_> = emitted
            .into_iter()
            .filter(|code| !self.entries.contains_key(*code))
            .map(|code| CatalogProblem::Uncatalogued(code.clone()))
            .collect();
        if missing.is_empty() { Ok(()) } else { Err(missing) }
    }
}
