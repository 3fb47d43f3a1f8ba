//! The readable table: one line per route and method, the most severe first, then a summary.

use std::fmt::Write;

use crate::model::{Report, Verdict};

/// The report as a table with a summary line.
pub fn render(report: &Report) -> String {
    let mut rows: Vec<[String; 5]> = Vec::new();
    let mut order: Vec<_> = report.findings.iter().collect();
    order.sort_by_key(|f| f.verdict);
    for f in &order {
        let mut verdict = f.verdict.label().to_owned();
        if f.baselined {
            verdict.push_str(" (baseline)");
        }
        rows.push([verdict, f.method.clone(), f.path.clone(), f.handler.clone(), format!("{}:{}", f.file, f.line)]);
    }
    let header = ["VERDICT", "METHOD", "PATH", "HANDLER", "LOCATION"].map(str::to_owned);
    let mut widths = header.clone().map(|h| h.len());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, row: &[String; 5]| {
        let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    };
    line(&mut out, &header);
    for (row, f) in rows.iter().zip(&order) {
        line(&mut out, row);
        if f.is_shown() {
            let _ = writeln!(out, "    why: {}", f.why);
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "    fix: {fix}");
            }
        }
    }
    for skipped in &report.skipped {
        let _ = writeln!(out, "skipped {}:{}: {}", skipped.file, skipped.line, skipped.error);
    }
    let counts: Vec<String> =
        Verdict::ALL.iter().map(|v| format!("{} {}", report.count(*v, false), v.label())).collect();
    let _ = writeln!(
        out,
        "{} routes in {} files: {}; {} files skipped",
        report.findings.len(),
        report.files,
        counts.join(", "),
        report.skipped.len()
    );
    out
}
