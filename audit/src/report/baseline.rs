//! Baselines: the findings known when the baseline was written. A finding in the baseline does
//! not fail `--deny`; a new one does. Findings are matched by verdict, method, path and handler
//! (not by line, which moves with every edit).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::Report;

/// The file format: a version and the sorted keys of the known findings.
#[derive(Debug, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version, 1.
    pub version: u32,
    /// [`Finding::key`](crate::model::Finding::key) of every finding that asks for a change.
    pub findings: BTreeSet<String>,
}

/// Writes the findings of `report` that ask for a change to `path`.
pub fn write(report: &Report, path: &Path) -> Result<usize, String> {
    let findings: BTreeSet<String> =
        report.findings.iter().filter(|f| f.verdict.needs_attention()).map(|f| f.key()).collect();
    let count = findings.len();
    let text = serde_json::to_string_pretty(&Baseline { version: 1, findings }).unwrap_or_default();
    fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(count)
}

/// Marks the findings of `report` that `path` lists as baselined.
pub fn apply(report: &mut Report, path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let baseline: Baseline =
        serde_json::from_str(&text).map_err(|e| format!("{}: not a baseline: {e}", path.display()))?;
    for finding in &mut report.findings {
        finding.baselined = baseline.findings.contains(&finding.key());
    }
    Ok(())
}
