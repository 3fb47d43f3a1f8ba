//! The contract document (`docs/contract.md`) is the one the code cites: every `§` reference in
//! code, tests and documents resolves to a section of it, every rule the strict reader enforces
//! is numbered in it, and nothing cites the old design brief.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use completeness::rules::Rule;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn contract() -> String {
    fs::read_to_string(root().join("docs/contract.md")).expect("docs/contract.md exists")
}

/// The section numbers of the document's headings: `## 2.` gives `2`, `### 2.5 ...` gives `2.5`.
fn sections(doc: &str) -> BTreeSet<String> {
    doc.lines()
        .filter(|line| line.starts_with("## ") || line.starts_with("### "))
        .filter_map(|line| line.trim_start_matches('#').split_whitespace().next())
        .map(|number| number.trim_end_matches('.').to_owned())
        .filter(|number| number.chars().all(|c| c.is_ascii_digit() || c == '.') && !number.is_empty())
        .collect()
}

/// The numbered rules: `- **R4** ...` gives `R4`.
fn rules(doc: &str) -> Vec<String> {
    doc.lines()
        .filter_map(|line| line.trim_start().strip_prefix("- **R"))
        .filter_map(|rest| rest.split("**").next())
        .filter(|number| !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
        .map(|number| format!("R{number}"))
        .collect()
}

/// Every source and document file of the repository (not `target/`).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                files(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") || name.ends_with(".sh") {
            out.push(path);
        }
    }
}

/// The `§N` and `§N.M` references of `text`, with the rule (`R4`) that follows one, if any.
fn references(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('§') {
        let rest = &text[at + '§'.len_utf8()..];
        let number: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let number = number.trim_end_matches('.').to_owned();
        if number.is_empty() {
            continue;
        }
        let after = rest[number.len()..].trim_start();
        let rule = after
            .strip_prefix('R')
            .map(|r| r.chars().take_while(char::is_ascii_digit).collect::<String>())
            .filter(|digits| !digits.is_empty())
            .map(|digits| format!("R{digits}"));
        out.push((number, rule));
    }
    out
}

#[test]
fn every_section_reference_resolves_to_the_contract() {
    let doc = contract();
    let (sections, rules) = (sections(&doc), rules(&doc));
    assert!(sections.contains("2.2") && sections.contains("7"), "the document has its sections: {sections:?}");
    let mut all = Vec::new();
    files(&root(), &mut all);
    let mut dangling = Vec::new();
    let mut cited = 0;
    for path in all {
        let text = fs::read_to_string(&path).unwrap_or_default();
        let shown = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
        let old_brief = ["DESIGN", " §"].concat();
        assert!(!text.contains(&old_brief), "{shown} cites the old design brief; cite docs/contract.md");
        for (section, rule) in references(&text) {
            cited += 1;
            if !sections.contains(&section) {
                dangling.push(format!("{shown}: §{section}"));
            }
            if let Some(rule) = rule
                && !rules.contains(&rule)
            {
                dangling.push(format!("{shown}: §{section} {rule}"));
            }
        }
    }
    assert!(cited > 40, "the code cites the contract ({cited} references found)");
    assert!(dangling.is_empty(), "references to nothing in docs/contract.md:\n{}", dangling.join("\n"));
}

#[test]
fn every_rule_the_reader_enforces_is_numbered_in_the_contract() {
    let numbered = rules(&contract());
    let enforced: Vec<String> = Rule::ALL.iter().map(|rule| rule.number()).collect();
    assert_eq!(enforced, numbered, "Rule::ALL and the rules of contract §2.2 are one list");
}

#[test]
fn a_dangling_reference_would_be_found() {
    let sections = sections("## 2. Collections\n### 2.1 Members\n");
    let refs = references("see contract \u{a7}2.1 and \u{a7}2.9 R4, and \u{a7}3.");
    assert_eq!(refs[0], ("2.1".to_owned(), None));
    assert_eq!(refs[1], ("2.9".to_owned(), Some("R4".to_owned())));
    assert!(sections.contains("2.1") && !sections.contains("2.9") && !sections.contains("3"));
}

/// The rows of the standard reasons' table (§3.2): code, kind and usual continuation.
fn reason_rows(doc: &str) -> Vec<(String, String, String)> {
    let start = doc.find("### 3.2").expect("§3.2 exists");
    doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with("| `"))
        .take_while(|line| line.starts_with("| `"))
        .map(|line| {
            let line = line.replace("\\|", "/"); // an escaped bar inside a cell
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let bare = |cell: &str| cell.split_whitespace().next().unwrap_or("").trim_matches('`').to_owned();
            (bare(cells[1]), cells[2].to_owned(), bare(cells[4]))
        })
        .collect()
}

#[test]
fn the_standard_reasons_table_of_the_contract_is_the_code_table() {
    use completeness::ReasonCode;
    let rows = reason_rows(&contract());
    let table: Vec<(String, String, String)> = ReasonCode::KNOWN
        .iter()
        .map(|code| {
            let recovery = code.recovery().and_then(|r| r.continuation()).unwrap_or("—");
            (code.as_str().to_owned(), code.standard_kind().as_str().to_owned(), recovery.to_owned())
        })
        .collect();
    assert_eq!(rows, table, "§3.2 lists each standard code with its kind and continuation, in table order");

    // R6 names the codes that always come with their continuation.
    let doc = contract();
    let r6 = doc.lines().skip_while(|l| !l.starts_with("- **R6**")).take_while(|l| !l.starts_with("- **R7**"));
    let r6: String = r6.collect::<Vec<_>>().join(" ");
    let always = r6.split("always have one").next().unwrap_or("");
    for code in ReasonCode::KNOWN {
        let named = always.contains(&format!("`{}`", code.as_str()));
        let is_always = code.recovery().is_some_and(|r| r.is_always());
        assert_eq!(named, is_always, "R6 and the table disagree on {code}");
    }
}
