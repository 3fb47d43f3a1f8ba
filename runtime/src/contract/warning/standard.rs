//! The standard warnings' details (contract §3.5).

use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use super::{WarningCode, WarningDetails, member};

/// `STALE_INDEX`: a source's index lags behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StaleIndex {
    /// The stable id of the source.
    pub source: String,
    /// The revision the index reflects, when known.
    pub observed_revision: Option<String>,
    /// When the index was last refreshed (RFC 3339), when known.
    pub refreshed_at: Option<String>,
}

impl StaleIndex {
    /// The index of `source` lags behind it.
    pub fn new(source: impl Into<String>) -> Self {
        StaleIndex { source: source.into(), observed_revision: None, refreshed_at: None }
    }
    /// The revision the index reflects.
    pub fn observed_revision(mut self, revision: impl Into<String>) -> Self {
        self.observed_revision = Some(revision.into());
        self
    }
    /// When the index was last refreshed (RFC 3339).
    pub fn refreshed_at(mut self, at: impl Into<String>) -> Self {
        self.refreshed_at = Some(at.into());
        self
    }
}

impl WarningDetails for StaleIndex {
    const CODE: WarningCode = WarningCode::StaleIndex;
    const STALE: bool = true;
    fn message(&self) -> String {
        format!("The {} index lags its source.", self.source)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("source", &self.source)?;
        if let Some(revision) = &self.observed_revision {
            map.serialize_entry("observed_revision", revision)?;
        }
        if let Some(at) = &self.refreshed_at {
            map.serialize_entry("refreshed_at", at)?;
        }
        Ok(())
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(StaleIndex {
            source: member(object, "STALE_INDEX", "source")?,
            observed_revision: member(object, "STALE_INDEX", "observed_revision")?,
            refreshed_at: member(object, "STALE_INDEX", "refreshed_at")?,
        })
    }
}

/// `PARTIAL_FIELD_SET`: some fields were not filled.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PartialFieldSet {
    /// The fields left out.
    pub fields: Vec<String>,
    /// The fields that can be asked for with `fields=`.
    pub requestable: Vec<String>,
}

impl PartialFieldSet {
    /// `fields` were not filled; `requestable` can be asked for with `fields=`.
    pub fn new(fields: &[&str], requestable: &[&str]) -> Self {
        let owned = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect();
        PartialFieldSet { fields: owned(fields), requestable: owned(requestable) }
    }
}

impl WarningDetails for PartialFieldSet {
    const CODE: WarningCode = WarningCode::PartialFieldSet;
    fn message(&self) -> String {
        "Some fields were not filled.".into()
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("fields", &self.fields)?;
        map.serialize_entry("requestable", &self.requestable)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(PartialFieldSet {
            fields: member(object, "PARTIAL_FIELD_SET", "fields")?,
            requestable: member(object, "PARTIAL_FIELD_SET", "requestable")?,
        })
    }
}

/// `DEFAULT_SCOPE_APPLIED`: the server narrowed an unspecified scope.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DefaultScopeApplied {
    /// The scope applied.
    pub scope: String,
}

impl DefaultScopeApplied {
    /// The server applied `scope` because the request named none.
    pub fn new(scope: impl Into<String>) -> Self {
        DefaultScopeApplied { scope: scope.into() }
    }
}

impl WarningDetails for DefaultScopeApplied {
    const CODE: WarningCode = WarningCode::DefaultScopeApplied;
    fn message(&self) -> String {
        format!("No scope was given; the default scope '{}' was applied.", self.scope)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("scope", &self.scope)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(DefaultScopeApplied { scope: member(object, "DEFAULT_SCOPE_APPLIED", "scope")? })
    }
}

/// `PAGE_SIZE_REDUCED`: the requested page size was clamped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageSizeReduced {
    /// The size asked for.
    pub requested: u64,
    /// The size applied.
    pub applied: u64,
}

impl PageSizeReduced {
    /// `requested` was clamped to `applied`.
    pub fn new(requested: u64, applied: u64) -> Self {
        PageSizeReduced { requested, applied }
    }
}

impl WarningDetails for PageSizeReduced {
    const CODE: WarningCode = WarningCode::PageSizeReduced;
    fn message(&self) -> String {
        format!("The requested page size {} exceeds the maximum; {} was applied.", self.requested, self.applied)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("requested", &self.requested)?;
        map.serialize_entry("applied", &self.applied)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(PageSizeReduced {
            requested: member(object, "PAGE_SIZE_REDUCED", "requested")?,
            applied: member(object, "PAGE_SIZE_REDUCED", "applied")?,
        })
    }
}

/// `ORDERING_DEFAULTED`: the server chose the ordering.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OrderingDefaulted {
    /// The ordering applied.
    pub ordering: String,
}

impl OrderingDefaulted {
    /// The server ordered by `ordering`.
    pub fn new(ordering: impl Into<String>) -> Self {
        OrderingDefaulted { ordering: ordering.into() }
    }
}

impl WarningDetails for OrderingDefaulted {
    const CODE: WarningCode = WarningCode::OrderingDefaulted;
    fn message(&self) -> String {
        format!("No ordering was given; results are ordered by {}.", self.ordering)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("ordering", &self.ordering)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(OrderingDefaulted { ordering: member(object, "ORDERING_DEFAULTED", "ordering")? })
    }
}

/// `DEPRECATED_FIELD`: a requested field is deprecated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeprecatedField {
    /// The deprecated field.
    pub field: String,
}

impl DeprecatedField {
    /// `field` is deprecated.
    pub fn new(field: impl Into<String>) -> Self {
        DeprecatedField { field: field.into() }
    }
}

impl WarningDetails for DeprecatedField {
    const CODE: WarningCode = WarningCode::DeprecatedField;
    fn message(&self) -> String {
        format!("The field '{}' is deprecated.", self.field)
    }
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("field", &self.field)
    }
    fn read_details(object: &Map<String, Value>) -> Result<Self, String> {
        Ok(DeprecatedField { field: member(object, "DEPRECATED_FIELD", "field")? })
    }
}
