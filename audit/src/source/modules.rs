//! The module tree of a target: `mod` declarations followed from the root file, `#[path]` included.

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::TokenTree;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Item, Lit, Meta};

use super::Target;
use crate::model::Skipped;
use crate::shapes::SCHEMA_ALIASES;

/// Index of a module in [`super::Sources::modules`].
pub type ModuleId = usize;

/// One module: its place in its target and its items (child modules are modules of their own).
pub struct Module {
    /// The target the module belongs to (names resolve within a target).
    pub target: String,
    /// The package of that target; empty for sources audited without a manifest.
    pub package: String,
    /// The module's path below the target root: `["service", "routes"]`.
    pub path: Vec<String>,
    /// The file the module's items are in.
    pub file: PathBuf,
    /// The items, child `mod` items left out, and the type aliases utoipa's `#[aliases(..)]`
    /// generates (`macro_aliases`).
    pub items: Vec<Item>,
    /// The names of the child modules.
    pub children: Vec<String>,
}

/// Reads files and builds modules, recording what it could not read.
pub(super) struct Loader<'p> {
    root: PathBuf,
    /// The files of the module being loaded and of the modules above it (canonical paths): a
    /// `#[path]` back to one of them is a circular module, which rustc refuses and which would
    /// otherwise be loaded again and again.
    loading: Vec<PathBuf>,
    modules: Vec<Module>,
    skipped: Vec<Skipped>,
    files: usize,
    progress: &'p mut dyn FnMut(usize),
}

impl<'p> Loader<'p> {
    pub(super) fn new(root: PathBuf, progress: &'p mut dyn FnMut(usize)) -> Loader<'p> {
        Loader { root, loading: Vec::new(), modules: Vec::new(), skipped: Vec::new(), files: 0, progress }
    }

    pub(super) fn finish(self) -> (Vec<Module>, Vec<Skipped>, usize) {
        (self.modules, self.skipped, self.files)
    }

    /// Loads the target's root file and every module below it; the root module's id, unless the
    /// root file was skipped.
    pub(super) fn load_target(&mut self, target: &Target) -> Option<ModuleId> {
        let dir = target.root.parent().unwrap_or(Path::new(".")).to_path_buf();
        let root = self.modules.len();
        self.load_file(target, Vec::new(), &target.root, dir, 0);
        (self.modules.len() > root).then_some(root)
    }

    /// Parses `file` as the module `path`; `dir` is where its child module files live.
    fn load_file(&mut self, target: &Target, path: Vec<String>, file: &Path, dir: PathBuf, depth: usize) {
        let text = match fs::read_to_string(file) {
            Ok(text) => text,
            Err(error) => return self.skip(file, 1, format!("cannot read: {error}")),
        };
        let deepest = depth_of(&text).unwrap_or_default();
        if deepest.nesting > MAX_NESTING {
            let why = format!(
                "nested {} levels deep (brackets and angle brackets), more than the {MAX_NESTING} the audit reads; \
                 generated code, most likely: exclude it with --exclude",
                deepest.nesting
            );
            return self.skip(file, 1, why);
        }
        if deepest.chain > MAX_CHAIN {
            let why = format!(
                "has an expression chained {} levels deep (calls, operators or `else` branches), more than the \
                 {MAX_CHAIN} the audit reads; generated code, most likely: exclude it with --exclude",
                deepest.chain
            );
            return self.skip(file, 1, why);
        }
        let parsed = match syn::parse_file(&text) {
            Ok(parsed) => parsed,
            Err(error) => return self.skip(file, error.span().start().line.max(1), parse_error(&error)),
        };
        self.files += 1;
        (self.progress)(self.files);
        self.loading.push(canonical(file));
        self.add_module(target, path, file, dir, parsed.items, depth, false);
        self.loading.pop();
    }

    /// Adds a module with `items` and follows its `mod` declarations.
    #[allow(clippy::too_many_arguments)]
    fn add_module(
        &mut self,
        target: &Target,
        path: Vec<String>,
        file: &Path,
        dir: PathBuf,
        items: Vec<Item>,
        depth: usize,
        inline: bool,
    ) {
        let mut kept = Vec::with_capacity(items.len());
        let mut children = Vec::new();
        let mut pending = Vec::new();
        for item in items {
            match item {
                // Code only tests compile: no service serves its routes.
                item if item_attrs(&item).is_some_and(test_only) => {}
                Item::Mod(module) => {
                    // `mod r#type;` is the module `type`, in `type.rs` (paths are read without `r#`).
                    let name = super::name(&module.ident);
                    children.push(name.clone());
                    pending.push((name, module));
                }
                other => {
                    let generated = macro_aliases(&other);
                    kept.push(other);
                    kept.extend(generated);
                }
            }
        }
        self.modules.push(Module {
            target: target.name.clone(),
            package: target.package.clone(),
            path: path.clone(),
            file: file.to_path_buf(),
            items: kept,
            children,
        });
        for (name, module) in pending {
            let mut child = path.clone();
            child.push(name.clone());
            let explicit = path_attribute(&module.attrs);
            match module.content {
                Some((_, items)) => {
                    let child_dir = match &explicit {
                        Some(p) => dir.join(p),
                        None => dir.join(&name),
                    };
                    self.add_module(target, child, file, child_dir, items, depth + 1, true);
                }
                None => {
                    let line = module.span().start().line;
                    let found = match explicit {
                        // A file named by `#[path]` is relative to the declaring file's directory
                        // (to the module's directory inside inline modules); its children sit beside it.
                        Some(p) => {
                            let base = if inline {
                                dir.clone()
                            } else {
                                file.parent().unwrap_or(Path::new(".")).to_path_buf()
                            };
                            let target_file = base.join(p);
                            let child_dir = target_file.parent().unwrap_or(Path::new(".")).to_path_buf();
                            Some((target_file, child_dir))
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            let nested = dir.join(&name).join("mod.rs");
                            if flat.is_file() {
                                Some((flat, dir.join(&name)))
                            } else if nested.is_file() {
                                Some((nested, dir.join(&name)))
                            } else {
                                None
                            }
                        }
                    };
                    match found {
                        Some((child_file, _)) if self.loading.contains(&canonical(&child_file)) => {
                            let why = format!(
                                "module `{name}`: its file {} is a module this one is in, a circular module \
                                 rustc refuses: point its #[path] at another file",
                                super::relative(&self.root, &child_file)
                            );
                            self.skip(file, line, why)
                        }
                        Some(_) if depth >= MAX_MODULE_DEPTH => {
                            let why = format!(
                                "module `{name}`: modules nested more than {MAX_MODULE_DEPTH} deep, which the audit \
                                 does not read: generated code, most likely: exclude it with --exclude"
                            );
                            self.skip(file, line, why)
                        }
                        Some((child_file, child_dir)) => {
                            self.load_file(target, child, &child_file, child_dir, depth + 1)
                        }
                        None => self.skip(file, line, format!("module `{name}`: no file {name}.rs or {name}/mod.rs")),
                    }
                }
            }
        }
    }

    fn skip(&mut self, file: &Path, line: usize, error: String) {
        let file = super::relative(&self.root, file);
        if !self.skipped.iter().any(|s| s.file == file && s.line == line) {
            self.skipped.push(Skipped { file, line, error });
        }
    }
}

/// The deepest module the audit reads below a target's root.
const MAX_MODULE_DEPTH: usize = 64;

/// `file` as the file system resolves it (links followed), to compare files named differently;
/// as written when it cannot be resolved.
fn canonical(file: &Path) -> PathBuf {
    fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

/// What a parse error says. The tokenizer's own error ("cannot parse string into token stream")
/// names no cause; the causes it has are these.
/// The deepest nesting the audit reads. Parsing and reading are recursive: a file nested
/// deeper (generated code, say) is skipped with its reason rather than overflowing the stack
/// and ending the whole audit; hand-written code stays far below it.
const MAX_NESTING: usize = 1000;

/// The longest chain the audit reads in one expression: method calls (`.route(..)` after
/// `.route(..)`), operators (`a + b + ..`, `!!x`) and `else` branches (`else if` after `else if`)
/// each add a level to the syntax tree, as a bracket does, without one. Above a router of a
/// thousand routes written as one chain; below what overflows the audit's stack in a build
/// without optimizations (3,500 `.route` calls did).
const MAX_CHAIN: usize = 2000;

/// How deep `text` goes: its deepest nesting ([`MAX_NESTING`]) and its longest chain
/// ([`MAX_CHAIN`]).
#[derive(Default)]
struct Depth {
    nesting: usize,
    chain: usize,
}

/// One open group of tokens as [`depth_of`] walks it.
struct Open {
    tokens: proc_macro2::token_stream::IntoIter,
    /// Its angle brackets open since its last `;`.
    angles: usize,
    /// Its chain since its last `;`, `,`, attribute or block (unless `else` follows the block).
    run: usize,
    /// A `{..}` block has just closed in it: the chain ends there, unless `else` goes on.
    after_block: bool,
}

/// How deep `text` goes. Nesting: delimiters (`{`, `(`, `[`), read on its tokens so that strings
/// and comments do not count, plus the angle brackets open at that point since the last `;` of
/// the same group (`Vec<Vec<..>>`). Chain: the punctuation and `else`s of each open group since
/// its last `;`, `,`, `#` (an attribute, a doc comment) or `{..}` block not followed by `else`
/// (an item's body ends its chain: the items of a long module are no chain), added up. `None`
/// when it does not tokenize: syn then says why. Walked with a stack of its own, never by
/// recursion.
fn depth_of(text: &str) -> Option<Depth> {
    let tokens: proc_macro2::TokenStream = text.parse().ok()?;
    let mut deepest = Depth::default();
    let mut stack = vec![Open { tokens: tokens.into_iter(), angles: 0, run: 0, after_block: false }];
    // The sums over the open groups.
    let (mut angles, mut chain) = (0, 0);
    while let Some(open) = stack.last_mut() {
        let token = open.tokens.next();
        if std::mem::take(&mut open.after_block) && !matches!(&token, Some(TokenTree::Ident(i)) if i == "else") {
            chain -= open.run;
            open.run = 0;
        }
        match token {
            Some(TokenTree::Group(group)) => {
                open.after_block = group.delimiter() == proc_macro2::Delimiter::Brace;
                stack.push(Open { tokens: group.stream().into_iter(), angles: 0, run: 0, after_block: false });
            }
            Some(TokenTree::Punct(punct)) => match punct.as_char() {
                ';' | ',' | '#' => {
                    if punct.as_char() == ';' {
                        angles -= open.angles;
                        open.angles = 0;
                    }
                    chain -= open.run;
                    open.run = 0;
                }
                other => {
                    if other == '<' {
                        open.angles += 1;
                        angles += 1;
                    } else if other == '>' && open.angles > 0 {
                        open.angles -= 1;
                        angles -= 1;
                    }
                    open.run += 1;
                    chain += 1;
                }
            },
            Some(TokenTree::Ident(ident)) if ident == "else" => {
                open.run += 1;
                chain += 1;
            }
            Some(_) => {}
            None => {
                angles -= open.angles;
                chain -= open.run;
                stack.pop();
            }
        }
        deepest.nesting = deepest.nesting.max(stack.len().saturating_sub(1) + angles);
        deepest.chain = deepest.chain.max(chain);
    }
    Some(deepest)
}

fn parse_error(error: &syn::Error) -> String {
    let message = error.to_string();
    if message == "cannot parse string into token stream" {
        return "does not parse: an unclosed or mismatched delimiter, or an unterminated string, character or \
                comment (the line is where the tokenizer stopped)"
            .to_owned();
    }
    format!("does not parse: {message}")
}

/// True for attributes of code that only tests compile: `#[cfg(test)]` (also inside
/// `all(..)`) and test functions (`#[test]`, `#[tokio::test]`).
pub fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        if !path.is_ident("cfg") {
            return false;
        }
        let mut test = false;
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("test") {
                test = true;
            } else if meta.path.is_ident("all") {
                meta.parse_nested_meta(|inner| {
                    test |= inner.path.is_ident("test");
                    // Skip a `feature = ".."` value.
                    if inner.input.peek(syn::Token![=]) {
                        inner.value()?.parse::<Expr>()?;
                    } else if inner.input.peek(syn::token::Paren) {
                        inner.parse_nested_meta(|_| Ok(()))?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        });
        test
    })
}

/// The attributes of an item, for the kinds that can be test-only.
fn item_attrs(item: &Item) -> Option<&[Attribute]> {
    Some(match item {
        Item::Mod(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Const(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => return None,
    })
}

/// The type aliases a derive generates beside `item`, as the items they are: utoipa's
/// `#[aliases(JobCollection = NonPaginatedCollection<Job>)]` on a generic struct or enum declares
/// `type JobCollection = NonPaginatedCollection<Job>;` in its module, at the item's visibility. A
/// handler that returns `Json<JobCollection>` is then read as the type it stands for, not as a
/// type the audit cannot find. An attribute that does not parse as `Name = Type, ..` adds none.
fn macro_aliases(item: &Item) -> Vec<Item> {
    let (attrs, vis) = match item {
        Item::Struct(s) => (&s.attrs, &s.vis),
        Item::Enum(e) => (&e.attrs, &e.vis),
        _ => return Vec::new(),
    };
    let declared = |input: syn::parse::ParseStream| {
        let name: syn::Ident = input.parse()?;
        input.parse::<syn::Token![=]>()?;
        Ok((name, input.parse::<syn::Type>()?))
    };
    let parser = |input: syn::parse::ParseStream| {
        syn::punctuated::Punctuated::<(syn::Ident, syn::Type), syn::Token![,]>::parse_terminated_with(input, declared)
    };
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident(SCHEMA_ALIASES))
        .filter_map(|attr| attr.parse_args_with(parser).ok())
        .flatten()
        .filter_map(|(name, ty)| syn::parse2::<syn::ItemType>(quote::quote!(#vis type #name = #ty;)).ok())
        .map(Item::Type)
        .collect()
}

/// The value of `#[path = "..."]`, if any.
fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::test_only;

    fn attrs(source: &str) -> Vec<syn::Attribute> {
        syn::parse_str::<syn::ItemFn>(&format!("{source} fn f() {{}}")).unwrap().attrs
    }

    #[test]
    fn test_only_code_is_told_by_its_attributes() {
        for source in ["#[cfg(test)]", "#[cfg(all(test, feature = \"x\"))]", "#[test]", "#[tokio::test]"] {
            assert!(test_only(&attrs(source)), "{source}");
        }
        for source in ["#[cfg(not(test))]", "#[cfg(feature = \"test\")]", "#[cfg(any(test, unix))]", "#[inline]", ""] {
            assert!(!test_only(&attrs(source)), "{source}");
        }
    }
}
