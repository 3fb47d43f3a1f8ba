//! Reading the audited sources: the crates of a workspace, the module tree of each target, parsed
//! with syn (nothing is compiled).

mod modules;
mod workspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use modules::{Module, ModuleId, test_only};
pub use workspace::{Target, targets};

use crate::model::Skipped;

/// An item's or module's name as the audit keeps it: without `r#`, so that `r#type::router`
/// names the module `type` (in `type.rs`) and `fn r#match` is found as `match`.
pub fn name(ident: &syn::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// Every module of every target under the audited path.
pub struct Sources {
    /// The audited directory; file names are reported relative to it.
    pub root: PathBuf,
    /// The modules, each with its items; `ModuleId` indexes this.
    pub modules: Vec<Module>,
    /// Files that could not be read or parsed.
    pub skipped: Vec<Skipped>,
    /// How many files were parsed.
    pub files: usize,
    /// The root module of each library of the audited workspace, by crate name: a path
    /// `users_api::router` written in another member resolves into it.
    pub libraries: HashMap<String, ModuleId>,
    /// The root module of each library of the audited workspace that a target depends on under
    /// another name, by target and that name (`common` of `common = { package = "acme-common" }`).
    pub renamed: HashMap<(String, String), ModuleId>,
}

impl Sources {
    /// Loads every target under `path` (a crate, a workspace, or a directory of `.rs` files).
    /// `progress` receives the number of files parsed so far.
    pub fn load(path: &Path, progress: &mut dyn FnMut(usize)) -> Result<Sources, String> {
        let root = root_of(path).to_path_buf();
        let targets = targets(path)?;
        let mut loader = modules::Loader::new(root.clone(), progress);
        let mut libraries = HashMap::new();
        let mut by_package = HashMap::new();
        for target in &targets {
            if let Some(root) = loader.load_target(target)
                && let Some(name) = &target.library
            {
                libraries.insert(name.clone(), root);
                by_package.insert(target.package.clone(), root);
            }
        }
        let renamed = targets
            .iter()
            .flat_map(|target| target.renamed.iter().map(move |(written, package)| (target, written, package)))
            .filter_map(|(target, written, package)| {
                by_package.get(package).map(|root| ((target.name.clone(), written.clone()), *root))
            })
            .collect();
        let (modules, skipped, files) = loader.finish();
        Ok(Sources { root, modules, skipped, files, libraries, renamed })
    }

    /// `file` relative to the audited directory, with `/` separators.
    pub fn display(&self, file: &Path) -> String {
        relative(&self.root, file)
    }
}

/// The directory the paths of an audit of `path` are relative to: the parent if `path` is a
/// file, else `path`.
pub fn root_of(path: &Path) -> &Path {
    // `Cargo.toml` alone has the parent `""`, the current directory.
    let parent = path.parent().filter(|parent| !parent.as_os_str().is_empty());
    if path.is_file() { parent.unwrap_or(Path::new(".")) } else { path }
}

/// `file` relative to `root`, with `/` separators, `.` and `..` resolved as far as the path
/// allows (`src/../shared/x.rs` of a `#[path]` is `shared/x.rs`).
pub fn relative(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file);
    let mut parts: Vec<String> = Vec::new();
    for component in relative.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if parts.last().is_some_and(|p| p != ".." && p != "/") => {
                parts.pop();
            }
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}
