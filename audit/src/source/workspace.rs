//! The targets to audit: every member of a workspace, every target of a crate.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// One compilation root: a library, a binary, an example, or a loose directory's root file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target {
    /// A name unique in the audit (`package/kind/name`): items of different targets never resolve to each other.
    pub name: String,
    /// The root file (`src/lib.rs`, `src/main.rs`, `examples/x/main.rs`, ...).
    pub root: PathBuf,
    /// For a library, the crate name other targets use it by (`users_api` for `users-api`).
    pub library: Option<String>,
    /// The package the target belongs to; empty for sources audited without a manifest.
    pub package: String,
    /// The dependencies its manifest renames, as the code writes them (`common` for
    /// `common = { package = "acme-common", .. }`), with the package each is.
    pub renamed: Vec<(String, String)>,
}

impl Target {
    /// A target of sources without a manifest, named by its root file or directory.
    fn loose(name: &Path, root: PathBuf) -> Target {
        Target { name: name.display().to_string(), root, library: None, package: String::new(), renamed: Vec::new() }
    }
}

/// The targets under `path`:
/// 1. a `Cargo.toml` (or a directory holding one) with `[workspace]`: the targets of every member,
///    of every path dependency under its directory (cargo makes those members too), and of the
///    root package when there is one;
/// 2. a `Cargo.toml` with `[package]`: its library, binaries and examples, declared or
///    auto-discovered (tests and benches serve no one and are not audited);
/// 3. a directory without `Cargo.toml`: its `main.rs`, `lib.rs` or `mod.rs` when there is one,
///    otherwise each `.rs` file in it, otherwise the same in its `src/`;
/// 4. a `.rs` file: that file.
pub fn targets(path: &Path) -> Result<Vec<Target>, String> {
    if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
        return Ok(vec![Target::loose(path, path.to_path_buf())]);
    }
    if path.is_file() && path.file_name().is_none_or(|name| name != "Cargo.toml") {
        return Err(format!("{}: not a Cargo.toml, a .rs file or a directory", path.display()));
    }
    let manifest = if path.is_file() { path.to_path_buf() } else { path.join("Cargo.toml") };
    if !manifest.is_file() {
        if !path.is_dir() {
            return Err(format!("{}: no such crate, workspace or directory", path.display()));
        }
        return Ok(loose_directory(path));
    }
    let mut found = BTreeSet::new();
    crate_targets(&manifest, true, &mut found)?;
    let mut roots = BTreeSet::new();
    Ok(found.into_iter().filter(|target| roots.insert(target.root.clone())).collect())
}

/// Rule 3: a directory of sources without a manifest (its `src/` when it has no sources of its own).
fn loose_directory(dir: &Path) -> Vec<Target> {
    for root in ["main.rs", "lib.rs", "mod.rs"] {
        let file = dir.join(root);
        if file.is_file() {
            return vec![Target::loose(dir, file)];
        }
    }
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    if files.is_empty() && dir.join("src").is_dir() {
        return loose_directory(&dir.join("src"));
    }
    files.into_iter().map(|root| Target::loose(&root, root.clone())).collect()
}

/// Rules 1 and 2 for one manifest; `follow_members` is false for members (no nested workspaces).
/// Returns the directories of the path dependencies the manifest declares.
fn crate_targets(manifest: &Path, follow_members: bool, found: &mut BTreeSet<Target>) -> Result<Vec<PathBuf>, String> {
    let text = fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let depends_on = path_dependencies(&doc, dir);
    if follow_members && let Some(workspace) = doc.get("workspace") {
        let excluded: Vec<PathBuf> = workspace
            .get("exclude")
            .and_then(|e| e.as_array())
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str())
            .map(|e| dir.join(e.trim_end_matches('/')))
            .collect();
        let mut members_found = vec![dir.to_path_buf()];
        let mut pending = depends_on.clone();
        for member in workspace.get("members").and_then(|m| m.as_array()).into_iter().flatten() {
            let Some(member) = member.as_str() else { continue };
            let member_dirs: Vec<PathBuf> = expand_member(dir, member)?
                .into_iter()
                .filter(|member_dir| !excluded.contains(member_dir) && member_dir.join("Cargo.toml").is_file())
                .collect();
            // A member the audit cannot find would leave its routes out without a word: as for
            // cargo, it is an error.
            if member_dirs.is_empty() {
                return Err(format!(
                    "{}: the workspace member `{member}` names no crate (no directory with a Cargo.toml)",
                    manifest.display()
                ));
            }
            for member_dir in member_dirs {
                pending.extend(crate_targets(&member_dir.join("Cargo.toml"), false, found)?);
                members_found.push(member_dir);
            }
        }
        // Cargo makes every path dependency under the workspace's directory a member, listed or
        // not (`members = ["api"]`, whose `svc-common = { path = "../svc-common" }` builds the
        // router): its routes are the service's too. Directories are compared resolved, and a
        // dependency is read at its path under `dir`, as the members are.
        // (`Cargo.toml` given alone has the empty path for its directory.)
        let resolved = |path: &Path| Path::new(".").join(path).canonicalize().ok();
        let mut seen: Vec<PathBuf> = members_found.iter().chain(&excluded).filter_map(|d| resolved(d)).collect();
        let root = resolved(dir);
        while let Some(dependency) = pending.pop() {
            let Some((at, root)) = resolved(&dependency).zip(root.as_ref()) else { continue };
            let Ok(under) = at.strip_prefix(root) else { continue };
            if seen.contains(&at) || !at.join("Cargo.toml").is_file() {
                continue;
            }
            seen.push(at.clone());
            pending.extend(crate_targets(&dir.join(under).join("Cargo.toml"), false, found)?);
        }
    }
    package_targets(&doc, dir, found);
    Ok(depends_on)
}

/// The directories of the path dependencies `doc`, the manifest in `dir`, declares: in every
/// dependency table (also per platform), and in `[workspace.dependencies]`.
fn path_dependencies(doc: &toml::Table, dir: &Path) -> Vec<PathBuf> {
    let inherited = doc.get("workspace").and_then(|w| w.get("dependencies")).and_then(toml::Value::as_table);
    dependency_tables(doc)
        .chain(inherited)
        .flat_map(|table| table.values())
        .filter_map(|spec| spec.get("path")?.as_str())
        .map(|path| dir.join(path))
        .collect()
}

/// The dependency tables of the manifest `doc`: `[dependencies]`, `[dev-dependencies]` and
/// `[build-dependencies]`, also those of each `[target.'cfg(..)']`.
fn dependency_tables(doc: &toml::Table) -> impl Iterator<Item = &toml::Table> {
    const TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let platforms = doc.get("target").and_then(toml::Value::as_table).into_iter().flat_map(|t| t.values());
    let owners = std::iter::once(doc).chain(platforms.filter_map(toml::Value::as_table));
    owners.flat_map(|owner| TABLES.iter().filter_map(|name| owner.get(*name)?.as_table()))
}

/// Rule 2: the library, binaries and examples of the package `doc` declares in `dir`.
fn package_targets(doc: &toml::Table, dir: &Path, found: &mut BTreeSet<Target>) {
    let Some(package) = doc.get("package") else { return };
    let package_name = package.get("name").and_then(|n| n.as_str()).unwrap_or("crate").to_owned();
    let renamed = renamed_dependencies(doc);
    let mut add = |kind: &str, name: &str, root: PathBuf| {
        if root.is_file() {
            let library = (kind == "lib").then(|| name.replace('-', "_"));
            let (package, renamed) = (package_name.clone(), renamed.clone());
            found.insert(Target { name: format!("{package_name}/{kind}/{name}"), root, library, package, renamed });
        }
    };
    let declared = |key: &str| -> Vec<(String, Option<PathBuf>)> {
        let entries = match doc.get(key) {
            Some(toml::Value::Array(entries)) => entries.iter().collect(),
            Some(entry @ toml::Value::Table(_)) => vec![entry],
            _ => Vec::new(),
        };
        entries
            .into_iter()
            .map(|entry| {
                let name = entry.get("name").and_then(|n| n.as_str()).unwrap_or(&package_name).to_owned();
                (name, entry.get("path").and_then(|p| p.as_str()).map(|p| dir.join(p)))
            })
            .collect()
    };
    let (lib_name, lib_path) = declared("lib").into_iter().next().unwrap_or_else(|| (package_name.clone(), None));
    add("lib", &lib_name, lib_path.unwrap_or_else(|| dir.join("src/lib.rs")));
    add("bin", &package_name, dir.join("src/main.rs"));
    for (name, path) in declared("bin") {
        add("bin", &name, path.unwrap_or_else(|| dir.join("src/bin").join(format!("{name}.rs"))));
    }
    for (kind, folder) in [("bin", "src/bin"), ("example", "examples")] {
        for entry in fs::read_dir(dir.join(folder)).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            if path.extension().is_some_and(|e| e == "rs") {
                add(kind, &name, path);
            } else if path.is_dir() {
                add(kind, &name, path.join("main.rs"));
            }
        }
    }
    for (name, path) in declared("example") {
        add("example", &name, path.unwrap_or_else(|| dir.join("examples").join(format!("{name}.rs"))));
    }
}

/// The dependencies the manifest `doc` renames (`common = { package = "acme-common", .. }`), in
/// every dependency table (also per platform): the crate name the code writes, and the package.
fn renamed_dependencies(doc: &toml::Table) -> Vec<(String, String)> {
    dependency_tables(doc)
        .flat_map(|table| table.iter())
        .filter_map(|(key, spec)| Some((key.replace('-', "_"), spec.get("package")?.as_str()?.to_owned())))
        .collect()
}

/// The directories a `members` entry names: a path, or a path whose last segment is a pattern
/// (`crates/*`, `services/svc-*`, `?` for one character). A pattern elsewhere in the path, or
/// other glob syntax (`[..]`, `**`), is an error rather than a member silently left out.
fn expand_member(dir: &Path, member: &str) -> Result<Vec<PathBuf>, String> {
    let member = member.trim_end_matches('/');
    let (parent, last) = member.rsplit_once('/').unwrap_or(("", member));
    let is_pattern = |s: &str| s.contains(['*', '?', '[', ']']);
    if !is_pattern(last) {
        if is_pattern(parent) {
            return Err(unsupported(member));
        }
        return Ok(vec![dir.join(member)]);
    }
    if is_pattern(parent) || last.contains(['[', ']']) || last.contains("**") {
        return Err(unsupported(member));
    }
    let mut dirs: Vec<PathBuf> = fs::read_dir(dir.join(parent))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| p.file_name().is_some_and(|name| matches_pattern(last, &name.to_string_lossy())))
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn unsupported(member: &str) -> String {
    format!(
        "the workspace member `{member}` uses a pattern the audit does not expand (only `*` and `?` in the \
         last segment): list the members, or audit each one"
    )
}

/// True when `name` matches `pattern`, where `*` stands for any run of characters and `?` for one.
fn matches_pattern(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    // The classic two-pointer match, going back to the last `*` on a mismatch.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((star_p, star_n)) = star {
            p = star_p + 1;
            n = star_n + 1;
            star = Some((star_p, star_n + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches_pattern;

    #[test]
    fn member_patterns_match_as_cargo_s_globs_do() {
        assert!(matches_pattern("*", "api"));
        assert!(matches_pattern("svc-*", "svc-users"));
        assert!(matches_pattern("svc-*", "svc-"));
        assert!(!matches_pattern("svc-*", "users"));
        assert!(matches_pattern("*-api", "users-api"));
        assert!(matches_pattern("a*b*c", "aXbYc"));
        assert!(!matches_pattern("a*b*c", "aXbY"));
        assert!(matches_pattern("svc-?", "svc-a"));
        assert!(!matches_pattern("svc-?", "svc-ab"));
    }
}
