//! Baselines: the findings known when the baseline was written. A finding in the baseline does
//! not fail `--deny`; a new one does. Findings are matched by package, verdict, method, path and
//! handler (not by line, which moves with every edit): a route known in one service of a
//! workspace is not known in another that has the same route.
//!
//! A baseline of version 1 lists its findings without their package. Such an entry still matches
//! a finding, but only when exactly one finding of the audit has that key without its package: where
//! two services have the route, the audit cannot tell which one was known, so neither is, and
//! a warning asks for the baseline to be written again (`--write-baseline`, version 2).

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::{Finding, Report};

/// The file format: a version and the sorted keys of the known findings.
#[derive(Debug, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version: 2 (keys with their package); 1 (keys without) is still read.
    pub version: u32,
    /// [`Finding::key`](crate::model::Finding::key) of every finding that asks for a change,
    /// the unchecked ones among them.
    pub findings: BTreeSet<String>,
}

/// The version [`write`](fn@write) writes.
pub const VERSION: u32 = 2;

/// Writes the findings of `report` that ask for a change to `path`, the unchecked ones among
/// them (`--deny unchecked`).
pub fn write(report: &Report, path: &Path) -> Result<usize, String> {
    let findings: BTreeSet<String> = report.findings.iter().filter(|f| f.is_shown()).map(|f| f.key()).collect();
    let count = findings.len();
    let text = serde_json::to_string_pretty(&Baseline { version: VERSION, findings }).unwrap_or_default();
    fs::write(path, text + "\n").map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    Ok(count)
}

/// Marks the findings of `report` that `path` lists as baselined, and records the entries no
/// finding matches in [`Report::stale_baseline`] (an entry of a finding `--exclude` left out,
/// one of `left_out`, is not stale); returns warnings to show (entries without a package that
/// match routes of several packages, and the stale entries).
pub fn apply(report: &mut Report, left_out: &[Finding], path: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("--baseline {}: {e}", path.display()))?;
    let baseline: Baseline =
        serde_json::from_str(&text).map_err(|e| format!("--baseline {}: not a baseline: {e}", path.display()))?;
    if baseline.version > VERSION {
        return Err(format!(
            "--baseline {}: a baseline of version {}, newer than this audit reads",
            path.display(),
            baseline.version
        ));
    }
    // How many findings share each key without a package: an entry of version 1 names one only
    // when one finding has it.
    let mut sharing: HashMap<String, usize> = HashMap::new();
    for finding in &report.findings {
        *sharing.entry(finding.key_without_crate()).or_default() += 1;
    }
    let mut ambiguous = BTreeSet::new();
    for finding in &mut report.findings {
        let old = finding.key_without_crate();
        let by_old_key = !finding.krate.is_empty() && baseline.findings.contains(&old);
        finding.baselined = baseline.findings.contains(&finding.key()) || (by_old_key && sharing[&old] == 1);
        if by_old_key && sharing[&old] > 1 {
            ambiguous.insert(old);
        }
    }
    // An entry is in use while a finding that still asks for a change has its key, with its
    // package or (an entry of version 1) without.
    let matched: BTreeSet<String> = (report.findings.iter().chain(left_out))
        .filter(|finding| finding.is_shown())
        .flat_map(|finding| [finding.key(), finding.key_without_crate()])
        .collect();
    report.stale_baseline = baseline.findings.into_iter().filter(|entry| !matched.contains(entry)).collect();
    let mut warnings: Vec<String> = ambiguous
        .into_iter()
        .map(|key| {
            format!(
                "warning: the baseline entry `{key}` names no package, and several packages have that route: \
                 none of them is taken as known; write the baseline again with --write-baseline"
            )
        })
        .collect();
    warnings.extend(report.stale_baseline.iter().map(|key| {
        format!(
            "warning: the baseline entry `{key}` matches no finding (fixed, removed or renamed): while it \
             stays, the route could come back unnoticed; write the baseline again with --write-baseline \
             (--deny stale fails on it)"
        )
    }));
    Ok(warnings)
}
