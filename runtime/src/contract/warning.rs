//! Warnings: they change confidence, freshness or interpretation, never `complete` (DESIGN §2.5).

use std::collections::BTreeMap;
use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

pub use crate::contract::date::Date;

/// A stable warning code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarningCode {
    /// `STALE_INDEX`: a source's index lags behind it.
    StaleIndex,
    /// `PARTIAL_FIELD_SET`: some fields were not filled.
    PartialFieldSet,
    /// `DEFAULT_SCOPE_APPLIED`: the server narrowed an unspecified scope.
    DefaultScopeApplied,
    /// `PAGE_SIZE_REDUCED`: the requested page size was clamped.
    PageSizeReduced,
    /// `ORDERING_DEFAULTED`: the server chose the ordering.
    OrderingDefaulted,
    /// `DEPRECATED_FIELD`: a requested field is deprecated.
    DeprecatedField,
    /// A code this version does not know; kept as received.
    Unknown(String),
}

impl WarningCode {
    /// Every code this version knows.
    pub const KNOWN: [WarningCode; 6] = [
        WarningCode::StaleIndex,
        WarningCode::PartialFieldSet,
        WarningCode::DefaultScopeApplied,
        WarningCode::PageSizeReduced,
        WarningCode::OrderingDefaulted,
        WarningCode::DeprecatedField,
    ];

    /// The SCREAMING_SNAKE_CASE wire form.
    pub fn as_str(&self) -> &str {
        match self {
            WarningCode::StaleIndex => "STALE_INDEX",
            WarningCode::PartialFieldSet => "PARTIAL_FIELD_SET",
            WarningCode::DefaultScopeApplied => "DEFAULT_SCOPE_APPLIED",
            WarningCode::PageSizeReduced => "PAGE_SIZE_REDUCED",
            WarningCode::OrderingDefaulted => "ORDERING_DEFAULTED",
            WarningCode::DeprecatedField => "DEPRECATED_FIELD",
            WarningCode::Unknown(code) => code,
        }
    }

    /// Parses a wire code; unknown codes are kept.
    pub fn parse(code: &str) -> WarningCode {
        WarningCode::KNOWN
            .into_iter()
            .find(|known| known.as_str() == code)
            .unwrap_or_else(|| WarningCode::Unknown(code.to_owned()))
    }
}

impl fmt::Display for WarningCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for WarningCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for WarningCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(WarningCode::parse(&String::deserialize(deserializer)?))
    }
}

/// One warning: `{"code", "message", ...details}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    code: WarningCode,
    message: String,
    details: Map<String, Value>,
}

impl Warning {
    /// A warning with a code, a message and no details.
    pub fn new(code: WarningCode, message: impl Into<String>) -> Self {
        Warning { code, message: message.into(), details: Map::new() }
    }

    /// Adds a detail member.
    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// `STALE_INDEX` for `source`, with its observed revision and refresh time when known.
    pub fn stale_index(source: &str, observed_revision: Option<&str>, refreshed_at: Option<&str>) -> Self {
        let mut warning = Warning::new(WarningCode::StaleIndex, format!("The {source} index lags its source."))
            .with_detail("source", source);
        if let Some(revision) = observed_revision {
            warning = warning.with_detail("observed_revision", revision);
        }
        if let Some(at) = refreshed_at {
            warning = warning.with_detail("refreshed_at", at);
        }
        warning
    }

    /// `PARTIAL_FIELD_SET`: `fields` were not filled; `requestable` can be asked for with `fields=`.
    pub fn partial_field_set(fields: &[&str], requestable: &[&str]) -> Self {
        Warning::new(WarningCode::PartialFieldSet, "Some fields were not filled.")
            .with_detail("fields", fields.iter().map(|f| Value::from(*f)).collect::<Vec<_>>())
            .with_detail("requestable", requestable.iter().map(|f| Value::from(*f)).collect::<Vec<_>>())
    }

    /// `DEFAULT_SCOPE_APPLIED`: the server applied `scope` because the request named none.
    pub fn default_scope_applied(scope: &str) -> Self {
        Warning::new(
            WarningCode::DefaultScopeApplied,
            format!("No scope was given; the default scope '{scope}' was applied."),
        )
        .with_detail("scope", scope)
    }

    /// `PAGE_SIZE_REDUCED`: `requested` was clamped to `applied`.
    pub fn page_size_reduced(requested: u64, applied: u64) -> Self {
        Warning::new(
            WarningCode::PageSizeReduced,
            format!("The requested page size {requested} exceeds the maximum; {applied} was applied."),
        )
        .with_detail("requested", requested)
        .with_detail("applied", applied)
    }

    /// `ORDERING_DEFAULTED`: the server ordered by `ordering`.
    pub fn ordering_defaulted(ordering: &str) -> Self {
        Warning::new(
            WarningCode::OrderingDefaulted,
            format!("No ordering was given; results are ordered by {ordering}."),
        )
        .with_detail("ordering", ordering)
    }

    /// `DEPRECATED_FIELD`: `field` is deprecated.
    pub fn deprecated_field(field: &str) -> Self {
        Warning::new(WarningCode::DeprecatedField, format!("The field '{field}' is deprecated."))
            .with_detail("field", field)
    }

    /// The code.
    pub fn code(&self) -> &WarningCode {
        &self.code
    }

    /// The human message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The detail members.
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }
}

impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2 + self.details.len()))?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        for (key, value) in &self.details {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Warning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut object = Map::deserialize(deserializer)?;
        let code = match object.remove("code") {
            Some(Value::String(code)) if !code.is_empty() => WarningCode::parse(&code),
            _ => return Err(D::Error::custom("a warning needs a non-empty string `code`")),
        };
        let message = match object.remove("message") {
            Some(Value::String(message)) => message,
            _ => return Err(D::Error::custom(format!("warning {code} needs a string `message`"))),
        };
        Ok(Warning { code, message, details: object })
    }
}

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
