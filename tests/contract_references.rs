//! The contract document (`docs/contract.md`) is the one the code cites: every `§` reference in
//! code, tests and documents resolves to a section of it, every rule the strict reader enforces
//! is numbered in it, its tables of codes are the code's tables, and nothing cites the old
//! design brief.

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

/// Every source, document, fixture and settings file of the repository (not `target/`).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                files(&path, out);
            }
        } else if [".rs", ".md", ".sh", ".json", ".toml"].iter().any(|ext| name.ends_with(ext)) {
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
        // The brief the contract replaced, cited in any form (by file name, section or `§`).
        let old_brief = ["DES", "IGN"].concat();
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

/// The first cell of each row of the first table after `heading`, without its backticks.
fn first_cells(doc: &str, heading: &str) -> Vec<String> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("{heading} exists"));
    doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with("| `"))
        .take_while(|line| line.starts_with("| `"))
        .map(|line| line.split('|').nth(1).unwrap_or("").trim().trim_matches('`').to_owned())
        .collect()
}

#[test]
fn the_warnings_table_of_the_contract_is_the_code_table() {
    use completeness::WarningCode;
    let rows = first_cells(&contract(), "### 3.5");
    let table: Vec<String> = WarningCode::KNOWN.iter().map(|code| code.as_str().to_owned()).collect();
    assert_eq!(rows, table, "§3.5 lists each standard warning code, in table order");
}

/// The refusal tables (§2.5 for cursors, §6 for evidence): rows `| situation | status | `CODE` |`.
#[test]
fn the_refusal_tables_of_the_contract_give_each_problem_code_its_status() {
    use completeness::ProblemCode;
    let doc = contract();
    let mut rows = 0;
    for line in doc.lines().filter(|line| line.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).filter(|cell| !cell.is_empty()).collect();
        let [.., status, code] = cells.as_slice() else { continue };
        let (Ok(status), Some(code)) = (status.parse::<u16>(), code.strip_prefix('`')) else { continue };
        let code = code.split('`').next().unwrap_or("");
        let problem = ProblemCode::parse(code);
        assert!(ProblemCode::KNOWN.contains(&problem), "the contract's problem code {code} is not a ProblemCode");
        assert_eq!(problem.status(), status, "the contract gives {code} status {status}");
        rows += 1;
    }
    assert_eq!(rows, 11, "the cursor table has five rows and the evidence table six");
}

/// A code the document names is a code of one of the code's tables: reasons, warnings,
/// problems, or the omissions of a single resource (§2.7).
#[test]
fn every_code_the_contract_names_is_in_a_code_table() {
    use completeness::{Omission, ProblemCode, ReasonCode, WarningCode};
    let doc = contract();
    let mut named = 0;
    for piece in doc.split('`').skip(1).step_by(2) {
        let is_code = piece.len() > 2 && piece.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        if !is_code {
            continue;
        }
        named += 1;
        let known = ReasonCode::KNOWN.iter().any(|c| c.as_str() == piece)
            || WarningCode::KNOWN.iter().any(|c| c.as_str() == piece)
            || ProblemCode::KNOWN.contains(&ProblemCode::parse(piece))
            || !matches!(Omission::parse(piece), Omission::Unknown(_));
        assert!(known, "the contract names `{piece}`, which no table of the code holds");
    }
    assert!(named > 25, "the contract names its codes ({named} found)");
}

/// §5.4's table of the runtime's problem codes is `ProblemCode::KNOWN`, in its order, each with
/// the code's own status first.
#[test]
fn the_problem_codes_table_of_the_contract_is_the_code_table() {
    use completeness::ProblemCode;
    let doc = contract();
    let start = doc.find("| code | status | when |").expect("§5.4 has its table of problem codes");
    let rows: Vec<(String, u16)> = doc[start..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let first_status = cells[2].split(',').next().unwrap_or("").trim();
            (cells[1].trim_matches('`').to_owned(), first_status.parse().unwrap_or(0))
        })
        .collect();
    let table: Vec<(String, u16)> =
        ProblemCode::KNOWN.iter().map(|code| (code.as_str().to_owned(), code.status())).collect();
    assert_eq!(rows, table, "§5.4 lists each runtime problem code in table order, its own status first");
}
