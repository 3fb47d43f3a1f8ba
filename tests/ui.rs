//! Compile-time guarantees: the cases under `tests/ui/fail` must not compile, with the
//! messages recorded next to them; the cases under `tests/ui/pass` must compile and run.
//!
//! Compiler messages change between Rust releases, so the `.stderr` files are pinned to the
//! toolchain recorded in `tests/ui/TOOLCHAIN`. On another toolchain this test fails and says
//! how to regenerate them. Some messages list the types implementing `ReportsCompleteness`:
//! adding an implementation changes them too (regenerate the same way and review the diff).

use std::path::{Path, PathBuf};
use std::process::Command;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use regex::Regex;

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
         Compiler messages differ between releases. Either use the pinned toolchain, or write `{actual}`\n\
         into tests/ui/TOOLCHAIN first (`rustc --version > tests/ui/TOOLCHAIN`), then regenerate them with\n\
         `TRYBUILD=overwrite cargo test --all-features --test ui` and review every changed .stderr."
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

    // (file, line, message) of every message a case must show.
    let mut messages = Vec::new();
    for path in rust_files(&root.join("macros/src")) {
        for (line, literal) in string_literals(tokens_of(&path)) {
            let message = squeeze(&literal);
            if message.contains(' ') && message.len() >= 12 && !not_diagnostics.iter().any(|n| message.starts_with(n)) {
                messages.push((path.clone(), line, message));
            }
        }
    }
    // The type-level checks the macros and `completeness::routing` rely on speak through
    // `#[diagnostic::on_unimplemented]` messages of the runtime: each is seen by a case too.
    for path in rust_files(&root.join("runtime/src")) {
        let mut found = Vec::new();
        on_unimplemented_messages(tokens_of(&path), &mut found);
        messages.extend(found.into_iter().map(|(line, message)| (path.clone(), line, squeeze(&message))));
    }
    let uncovered: Vec<String> = messages
        .into_iter()
        .filter(|(_, _, message)| {
            let pattern = pattern_of(message);
            !stderr.iter().any(|recorded| pattern.is_match(recorded))
        })
        .map(|(path, line, message)| format!("{}:{line}: {message}", path.strip_prefix(root).unwrap().display()))
        .collect();
    assert!(
        uncovered.is_empty(),
        "these messages appear in no tests/ui/fail/*.stderr; add a case that emits each:\n{}",
        uncovered.join("\n")
    );
}

/// The `.rs` files under `dir`, at any depth.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The tokens of the Rust source file at `path`.
fn tokens_of(path: &Path) -> TokenStream {
    std::fs::read_to_string(path).unwrap().parse().expect("the file tokenizes")
}

/// The string literals of Rust source `tokens`, with the line each starts on: comments are
/// gone, doc comments (`[doc = "..."]`) are skipped, and literals inside macro calls
/// (`format!`, `quote!`) are kept.
fn string_literals(tokens: TokenStream) -> Vec<(usize, String)> {
    fn collect(tokens: TokenStream, out: &mut Vec<(usize, String)>) {
        for tree in tokens {
            match tree {
                TokenTree::Group(group) if !is_doc(&group) => collect(group.stream(), out),
                TokenTree::Literal(literal) => {
                    let line = literal.span().start().line;
                    if let syn::Lit::Str(string) = syn::Lit::new(literal) {
                        out.push((line, string.value()));
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    collect(tokens, &mut out);
    out
}

/// True for the `[doc = "..."]` of a doc comment.
fn is_doc(group: &Group) -> bool {
    group.delimiter() == Delimiter::Bracket
        && matches!(group.stream().into_iter().next(), Some(TokenTree::Ident(name)) if name == "doc")
}

/// The `message` of each `#[diagnostic::on_unimplemented(...)]` in `tokens`, with its line.
fn on_unimplemented_messages(tokens: TokenStream, out: &mut Vec<(usize, String)>) {
    for tree in tokens {
        let TokenTree::Group(group) = tree else { continue };
        let inner: Vec<TokenTree> = group.stream().into_iter().collect();
        match inner.as_slice() {
            [TokenTree::Ident(tool), _, _, TokenTree::Ident(name), TokenTree::Group(arguments)]
                if tool == "diagnostic" && name == "on_unimplemented" =>
            {
                let arguments: Vec<TokenTree> = arguments.stream().into_iter().collect();
                for window in arguments.windows(3) {
                    if let [TokenTree::Ident(key), TokenTree::Punct(_), TokenTree::Literal(literal)] = window
                        && key == "message"
                        && let syn::Lit::Str(message) = syn::Lit::new(literal.clone())
                    {
                        out.push((literal.span().start().line, message.value()));
                    }
                }
            }
            _ => on_unimplemented_messages(group.stream(), out),
        }
    }
}

/// `text` with every run of whitespace made one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A pattern that finds `message` in a recorded `.stderr`, each `{...}` placeholder standing
/// for any text.
fn pattern_of(message: &str) -> Regex {
    let placeholder = Regex::new(r"\{[^}]*\}").unwrap();
    let pieces: Vec<String> =
        placeholder.split(message).filter(|piece| !piece.trim().is_empty()).map(regex::escape).collect();
    Regex::new(&pieces.join(".*?")).expect("an escaped message is a pattern")
}
