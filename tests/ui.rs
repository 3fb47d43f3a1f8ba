//! Compile-time guarantees: the cases under `tests/ui/fail` must not compile, with the
//! messages recorded next to them; the cases under `tests/ui/pass` must compile and run.
//!
//! Compiler messages change between Rust releases, so the `.stderr` files are pinned to the
//! toolchain recorded in `tests/ui/TOOLCHAIN`. On another toolchain this test fails and says
//! how to regenerate them. Some messages list the types implementing `ReportsCompleteness`:
//! adding an implementation changes them too (regenerate the same way and review the diff).

use std::path::Path;
use std::process::Command;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

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
        let tokens: TokenStream = std::fs::read_to_string(&path).unwrap().parse().expect("the file tokenizes");
        let mut messages = Vec::new();
        on_unimplemented_messages(tokens, &mut messages);
        for (line, message) in messages {
            let message = squeeze(&message);
            if !stderr.iter().any(|recorded| appears_in(&message, recorded)) {
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

/// The string literals of Rust source `text`, with the line each starts on, as proc-macro2
/// tokenizes it: comments are gone, doc comments (`[doc = "..."]`) are skipped, and literals
/// inside macro calls (`format!`, `quote!`) are kept.
fn string_literals(text: &str) -> Vec<(usize, String)> {
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
    collect(text.parse().expect("the file tokenizes"), &mut out);
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
