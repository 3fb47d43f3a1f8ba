//! SARIF 2.1.0: one result per finding that asks for a change or comes with advice, and one per
//! skipped file, so code scanning shows them inline.

use std::path::Path;

use serde_json::{Value, json};

use crate::model::{Report, Verdict};

/// The schema the log declares.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The name of a result's fingerprint in `partialFingerprints`.
pub const FINGERPRINT: &str = "route/v2";

/// The rule id of a skipped file.
pub const UNPARSEABLE: &str = "unparseable-file";

/// The rules: one per verdict a result can have (those that ask for a change, and
/// `reports_completeness` for advice), and one for skipped files.
fn rules() -> Vec<Value> {
    let mut rules: Vec<Value> = Verdict::ALL
        .iter()
        .filter(|v| v.needs_attention() || **v == Verdict::ReportsCompleteness)
        .map(|v| {
            json!({
                "id": v.code(),
                "name": v.code(),
                "shortDescription": {"text": v.label()},
                "defaultConfiguration": {"level": level(*v)},
            })
        })
        .collect();
    rules.push(json!({
        "id": UNPARSEABLE,
        "name": UNPARSEABLE,
        "shortDescription": {"text": "a file the audit could not parse; its routes were not audited"},
        "defaultConfiguration": {"level": "warning"},
    }));
    rules
}

fn level(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::ListWithoutCompleteness => "error",
        Verdict::NestedCollection => "warning",
        _ => "note",
    }
}

/// The id of the audited directory in the log's `originalUriBaseIds`: every location's `uri`
/// is relative to it, so a consumer run from elsewhere (the root of a monorepo) resolves them.
const SRCROOT: &str = "SRCROOT";

/// The report as a SARIF 2.1.0 log; its locations are relative to `root`, the audited directory.
pub fn render(report: &Report, root: &Path) -> String {
    let mut results: Vec<Value> = report
        .findings
        .iter()
        .filter(|f| f.is_shown())
        .map(|f| {
            let mut text = format!("{} {} ({}): {}: {}.", f.method, f.path, f.handler, f.verdict.label(), f.why);
            if let Some(fix) = &f.fix {
                text.push_str(&format!(" Fix: {fix}."));
            }
            let mut result = json!({
                "ruleId": f.verdict.code(),
                "level": level(f.verdict),
                "message": {"text": text},
                "locations": [location(&f.file, f.line)],
                // The baseline's key, its package first: the same route in two packages is two
                // results (`route/v1` left the package out).
                "partialFingerprints": {(FINGERPRINT): f.key()},
            });
            if f.baselined {
                result["baselineState"] = json!("unchanged");
            }
            result
        })
        .collect();
    results.extend(report.skipped.iter().map(|s| {
        json!({
            "ruleId": UNPARSEABLE,
            "level": "warning",
            "message": {"text": format!("skipped: {}", s.error)},
            "locations": [location(&s.file, s.line)],
        })
    }));
    let log = json!({
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": "cargo-completeness",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/completeness",
                "rules": rules(),
            }},
            "originalUriBaseIds": {(SRCROOT): {"uri": directory_uri(root)}},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

fn location(file: &str, line: usize) -> Value {
    json!({"physicalLocation": {
        "artifactLocation": {"uri": uri(file), "uriBaseId": SRCROOT},
        "region": {"startLine": line.max(1)},
    }})
}

/// The `file:` URI of the directory `root` (absolute, links resolved), ending in `/` as SARIF
/// asks of a base; relative as written when it cannot be resolved.
fn directory_uri(root: &Path) -> String {
    let (prefix, path) = match root.canonicalize() {
        Ok(absolute) => ("file://", absolute),
        Err(_) => ("", root.to_path_buf()),
    };
    let path = path.to_string_lossy().replace('\\', "/");
    let path = path.trim_end_matches('/');
    format!("{prefix}{}/", uri(path))
}

/// `file` (`/`-separated, relative to the audited directory) as a URI reference: every byte but
/// the unreserved characters of RFC 3986 and the separators is percent-encoded (`my api` is `my%20api`).
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn a_file_uri_is_percent_encoded() {
        assert_eq!(uri("src/main.rs"), "src/main.rs");
        assert_eq!(uri("my api/main.rs"), "my%20api/main.rs");
        assert_eq!(uri("src/r\u{e9}sum\u{e9}#1.rs"), "src/r%C3%A9sum%C3%A9%231.rs");
    }
}
