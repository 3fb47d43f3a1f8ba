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
