//! Compile-time guarantees: the cases under `tests/ui/fail` must not compile, with the
//! messages recorded next to them; the cases under `tests/ui/pass` must compile and run.
//!
//! Compiler messages change between Rust releases, so the `.stderr` files are pinned to the
//! toolchain recorded in `tests/ui/TOOLCHAIN`. On another toolchain this test fails and says
//! how to regenerate them. Some messages list the types implementing `ReportsCompleteness`:
//! adding an implementation changes them too (regenerate the same way and review the diff).

use std::path::Path;
use std::process::Command;

#[test]
fn ui_cases_fail_and_pass_as_recorded() {
    let pinned_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/TOOLCHAIN");
    let pinned = std::fs::read_to_string(&pinned_file).expect("tests/ui/TOOLCHAIN records the rustc version");
    let pinned = pinned.trim();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = Command::new(rustc).arg("--version").output().expect("rustc --version runs");
    let actual = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert_eq!(
        actual, pinned,
        "the UI expectations in tests/ui/fail/*.stderr were recorded with `{pinned}`, but this is `{actual}`.\n\
         Compiler messages differ between releases. Either use the pinned toolchain, or regenerate them with\n\
         `TRYBUILD=overwrite cargo test --all-features --test ui`, review every changed .stderr, and write\n\
         `{actual}` into tests/ui/TOOLCHAIN."
    );

    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// Every message the macros can emit is seen by a compile-fail case: each string literal of
/// `macros/src` that reads as a message (a space, at least twelve characters), and the message
/// of each `#[diagnostic::on_unimplemented]` of the runtime, appears, its `{...}` placeholders
/// filled by anything, in one recorded `.stderr`. A new diagnostic without a case fails here,
/// naming its file and line.
#[test]
fn every_macro_diagnostic_has_a_compile_fail_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stderr: Vec<String> = std::fs::read_dir(root.join("tests/ui/fail"))
        .expect("tests/ui/fail exists")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "stderr"))
        .map(|path| squeeze(&std::fs::read_to_string(path).unwrap()))
        .collect();
    // Not diagnostics: the doc comment the attribute writes on the reason type it generates.
    let not_diagnostics = ["The incomplete reasons `{fn_name}` declares"];

    let mut sources = Vec::new();
    rust_files(&root.join("macros/src"), &mut sources);
    let mut uncovered = Vec::new();
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, literal) in string_literals(&text) {
            let message = squeeze(&literal);
            if !message.contains(' ') || message.len() < 12 || not_diagnostics.iter().any(|n| message.starts_with(n)) {
                continue;
            }
            if !stderr.iter().any(|recorded| appears_in(&message, recorded)) {
                uncovered.push(format!("{}:{line}: {message}", path.strip_prefix(root).unwrap().display()));
            }
        }
    }
    // The type-level checks the macros and `completeness::routing` rely on speak through
    // `#[diagnostic::on_unimplemented]` messages of the runtime: each is seen by a case too.
    let mut runtime = Vec::new();
    rust_files(&root.join("runtime/src"), &mut runtime);
    for path in runtime {
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("#[diagnostic::on_unimplemented(") {
            let attribute = &text[at..];
            let Some(message) = string_literals(attribute).into_iter().next().map(|(_, m)| squeeze(&m)) else {
                continue;
            };
            if !stderr.iter().any(|recorded| appears_in(&message, recorded)) {
                let line = text[..at].lines().count() + 1;
                uncovered.push(format!("{}:{line}: {message}", path.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(
        uncovered.is_empty(),
        "these messages appear in no tests/ui/fail/*.stderr; add a case that emits each:\n{}",
        uncovered.join("\n")
    );
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of Rust source `text`, unescaped (a `\` line continuation joins the
/// lines), with the line each starts on; comments are skipped.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '\'' => {
                // A char literal such as '"' or '\'', or a lifetime: skip what a literal holds.
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with("\\") {
                    chars.nth(2);
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.nth(1);
                }
            }
            '"' => {
                let start = line;
                let mut literal = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('\n') => {
                                line += 1;
                                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                    if chars.next() == Some('\n') {
                                        line += 1;
                                    }
                                }
                            }
                            Some('n') => literal.push('\n'),
                            Some(escaped) => literal.push(escaped),
                            None => break,
                        },
                        '\n' => {
                            line += 1;
                            literal.push('\n');
                        }
                        c => literal.push(c),
                    }
                }
                out.push((start, literal));
            }
            _ => {}
        }
    }
    out
}

/// `text` with every run of whitespace made one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `message` appears in `recorded`, each `{...}` placeholder standing for any text.
fn appears_in(message: &str, recorded: &str) -> bool {
    let mut pieces = Vec::new();
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        match rest[open..].find('}') {
            Some(close) => {
                pieces.push(&rest[..open]);
                rest = &rest[open + close + 1..];
            }
            None => break,
        }
    }
    pieces.push(rest);
    let pieces: Vec<&str> = pieces.into_iter().filter(|piece| !piece.trim().is_empty()).collect();
    let Some(first) = pieces.first() else { return true };
    // Every start of the first piece, then each next piece after the one before.
    recorded.match_indices(first).any(|(at, _)| {
        let mut from = at + first.len();
        pieces[1..].iter().all(|piece| match recorded[from..].find(piece) {
            Some(found) => {
                from += found + piece.len();
                true
            }
            None => false,
        })
    })
}
