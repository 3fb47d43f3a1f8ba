//! Rendering a [`crate::model::Report`]: a table for people, JSON, SARIF 2.1.0 for code
//! scanning, and baselines of known findings.

pub mod baseline;
pub mod sarif;
pub mod table;

use crate::model::Report;

/// The report as pretty-printed JSON.
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_default()
}
