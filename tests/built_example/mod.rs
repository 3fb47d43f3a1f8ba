//! The examples `cargo test` builds next to the test binaries, for tests that run them as
//! processes (the cleanup agent, replicas of the service).

use std::path::PathBuf;

/// The built example `name` (`target/<profile>/examples/<name>`); fails saying how to build it
/// when it is missing.
pub fn binary(name: &str) -> PathBuf {
    let test = std::env::current_exe().expect("the test binary's path");
    let profile = test.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let binary = profile.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(binary.exists(), "{} is missing: build it with `cargo build --example {name}`", binary.display());
    binary
}
