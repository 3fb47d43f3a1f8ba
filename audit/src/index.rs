//! Names of the audited sources: functions, methods, types, string constants and `use`
//! imports of every module, and the resolution of a path written in one module to the item it names.

use std::collections::HashMap;

use syn::{
    Attribute, Block, Expr, ImplItem, Item, ItemEnum, ItemFn, ItemImpl, ItemStruct, ItemType, Lit, Signature, Stmt,
    TraitItem, Type, UseTree,
};

use crate::shapes::FRAMEWORK_CRATES;

/// How many glob imports deep a name is followed to the framework (`use super::*;` chains).
const GLOB_DEPTH: usize = 4;

/// True for a crate of the framework, as a path names it.
fn is_framework(krate: &str) -> bool {
    FRAMEWORK_CRATES.contains(&krate)
}
use crate::source::{ModuleId, Sources, name, test_only};

/// A function or method of the audited sources.
#[derive(Clone)]
pub struct FnItem<'s> {
    /// Its position in [`Index::fns`].
    pub id: usize,
    /// The module it is defined in.
    pub module: ModuleId,
    /// For a method, the last segment of the `impl` block's type, or the trait's name for a
    /// method a trait declares.
    pub self_ty: Option<String>,
    /// For a method, the `impl` block's type as written, which `Self` in its signature stands for.
    pub impl_ty: Option<&'s Type>,
    /// For a method, the `impl` block's generics (`impl<T> Page<T>`).
    pub impl_generics: Option<&'s syn::Generics>,
    /// Its attributes.
    pub attrs: &'s [Attribute],
    /// Its signature.
    pub sig: &'s Signature,
    /// Its body; `None` for a trait method declared without one.
    pub block: Option<&'s Block>,
}

impl<'s> FnItem<'s> {
    /// The free function `f` of `module`, at position `id`.
    fn free(id: usize, module: ModuleId, f: &'s ItemFn) -> FnItem<'s> {
        FnItem {
            id,
            module,
            self_ty: None,
            impl_ty: None,
            impl_generics: None,
            attrs: &f.attrs,
            sig: &f.sig,
            block: Some(&f.block),
        }
    }
}

/// A type definition of the audited sources.
#[derive(Clone, Copy)]
pub enum TypeDef<'s> {
    /// A struct.
    Struct(&'s ItemStruct),
    /// An enum.
    Enum(&'s ItemEnum),
    /// A type alias.
    Alias(&'s ItemType),
}

/// A type definition and the module it is in.
#[derive(Clone, Copy)]
pub struct TypeItem<'s> {
    /// The module it is defined in.
    pub module: ModuleId,
    /// The definition.
    pub def: TypeDef<'s>,
}

/// Everything the audit looks names up in.
pub struct Index<'s> {
    /// The sources indexed.
    pub sources: &'s Sources,
    fns: Vec<FnItem<'s>>,
    fns_by_name: HashMap<(&'s str, String), Vec<usize>>,
    types: Vec<TypeItem<'s>>,
    types_by_name: HashMap<(&'s str, String), Vec<usize>>,
    consts: HashMap<(ModuleId, String), String>,
    /// The declared types of constants and statics, by module and name.
    value_types: HashMap<(ModuleId, String), &'s Type>,
    /// Per module: imported name → absolute path (`crate::...` or an external crate's path).
    uses: Vec<HashMap<String, Vec<String>>>,
    /// Per module: the absolute paths of its glob imports.
    globs: Vec<Vec<Vec<String>>>,
    modules_by_path: HashMap<(&'s str, Vec<String>), ModuleId>,
    /// Per function: the functions its body declares, by name (`async fn list() ..` inside a
    /// router function), which its body's names mean before the module's.
    nested_fns: HashMap<(usize, String), usize>,
    /// Per function: the names its body imports (`use orders::list;`), with their paths as
    /// written, which its body's names mean before the module's.
    nested_uses: HashMap<(usize, String), Vec<String>>,
}

impl<'s> Index<'s> {
    /// Indexes every module of `sources`.
    pub fn new(sources: &'s Sources) -> Index<'s> {
        let mut index = Index {
            sources,
            fns: Vec::new(),
            fns_by_name: HashMap::new(),
            types: Vec::new(),
            types_by_name: HashMap::new(),
            consts: HashMap::new(),
            value_types: HashMap::new(),
            uses: vec![HashMap::new(); sources.modules.len()],
            globs: vec![Vec::new(); sources.modules.len()],
            modules_by_path: HashMap::new(),
            nested_fns: HashMap::new(),
            nested_uses: HashMap::new(),
        };
        for (id, module) in sources.modules.iter().enumerate() {
            index.modules_by_path.insert((module.target.as_str(), module.path.clone()), id);
        }
        for (id, module) in sources.modules.iter().enumerate() {
            let target = module.target.as_str();
            for item in &module.items {
                match item {
                    Item::Fn(f) => index.add_fn(target, FnItem::free(0, id, f)),
                    Item::Impl(imp) => {
                        let methods = imp.items.iter().filter_map(|inner| match inner {
                            ImplItem::Fn(f) => Some((&f.attrs[..], &f.sig, Some(&f.block))),
                            _ => None,
                        });
                        index.add_methods(target, id, last_ident(&imp.self_ty), Some(imp), methods);
                    }
                    // A trait's methods, with the signature every implementation shares (a store
                    // behind `dyn Store`), and the provided body when it has one.
                    Item::Trait(tr) => {
                        let methods = tr.items.iter().filter_map(|inner| match inner {
                            TraitItem::Fn(f) => Some((&f.attrs[..], &f.sig, f.default.as_ref())),
                            _ => None,
                        });
                        index.add_methods(target, id, Some(name(&tr.ident)), None, methods);
                    }
                    Item::Struct(s) => index.add_type(target, name(&s.ident), id, TypeDef::Struct(s)),
                    Item::Enum(e) => index.add_type(target, name(&e.ident), id, TypeDef::Enum(e)),
                    Item::Type(t) => index.add_type(target, name(&t.ident), id, TypeDef::Alias(t)),
                    Item::Static(s) => {
                        index.value_types.insert((id, s.ident.to_string()), &s.ty);
                    }
                    Item::Const(c) => {
                        index.value_types.insert((id, c.ident.to_string()), &c.ty);
                        if let Expr::Lit(lit) = &*c.expr
                            && let Lit::Str(text) = &lit.lit
                        {
                            index.consts.insert((id, c.ident.to_string()), text.value());
                        }
                    }
                    Item::Use(u) => {
                        let mut found = Vec::new();
                        use_paths(&u.tree, Vec::new(), &mut found);
                        for (name, path) in found {
                            let absolute = index.absolute(id, &path);
                            match name {
                                Some(name) => {
                                    index.uses[id].insert(name, absolute);
                                }
                                None => index.globs[id].push(absolute),
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        index
    }

    fn add_fn(&mut self, target: &'s str, mut item: FnItem<'s>) {
        item.id = self.fns.len();
        self.fns_by_name.entry((target, name(&item.sig.ident))).or_default().push(self.fns.len());
        let block = item.block;
        self.fns.push(item.clone());
        if let Some(block) = block {
            self.add_nested(item.id, item.module, block);
        }
    }

    /// The functions and imports the body `block` of function `parent` declares at its top
    /// level. They are found from that body only ([`Index::find_fn_from`]), never as the module's.
    fn add_nested(&mut self, parent: usize, module: ModuleId, block: &'s Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Item(Item::Fn(f)) if !test_only(&f.attrs) => {
                    let id = self.fns.len();
                    self.nested_fns.insert((parent, name(&f.sig.ident)), id);
                    self.fns.push(FnItem::free(id, module, f));
                    self.add_nested(id, module, &f.block);
                }
                Stmt::Item(Item::Use(u)) => {
                    let mut found = Vec::new();
                    use_paths(&u.tree, Vec::new(), &mut found);
                    for (name, path) in found {
                        if let Some(name) = name {
                            self.nested_uses.insert((parent, name), path);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `segments`, written in the body of function `from`, with a first segment that body
    /// imports (`use completeness::routing::get;`) replaced by its path: as the module would
    /// write it.
    pub fn written_in(&self, from: usize, mut segments: Vec<String>) -> Vec<String> {
        if let Some(first) = segments.first()
            && let Some(path) = self.nested_uses.get(&(from, first.clone()))
        {
            segments.splice(..1, path.iter().cloned());
        }
        segments
    }

    /// [`Index::find_fn`] for a path written in the body of function `from`: a function that body
    /// declares, or a path through a name it imports, before the module's.
    pub fn find_fn_from(
        &self,
        from: usize,
        module: ModuleId,
        self_ty: Option<&str>,
        segments: &[String],
    ) -> Option<FnItem<'s>> {
        if let [name] = segments
            && let Some(&id) = self.nested_fns.get(&(from, name.clone()))
        {
            return Some(self.fns[id].clone());
        }
        if let Some((first, rest)) = segments.split_first()
            && let Some(path) = self.nested_uses.get(&(from, first.clone()))
        {
            let mut through = path.clone();
            through.extend(rest.iter().cloned());
            return self.find_fn(module, self_ty, &through);
        }
        self.find_fn(module, self_ty, segments)
    }

    /// The methods of an `impl` block (`imp`) or a trait, as methods of `self_ty`; code only
    /// tests compile left out.
    fn add_methods(
        &mut self,
        target: &'s str,
        module: ModuleId,
        self_ty: Option<String>,
        imp: Option<&'s ItemImpl>,
        methods: impl Iterator<Item = (&'s [Attribute], &'s Signature, Option<&'s Block>)>,
    ) {
        for (attrs, sig, block) in methods {
            if test_only(attrs) {
                continue;
            }
            let item = FnItem {
                id: 0,
                module,
                self_ty: self_ty.clone(),
                impl_ty: imp.map(|imp| &*imp.self_ty),
                impl_generics: imp.map(|imp| &imp.generics),
                attrs,
                sig,
                block,
            };
            self.add_fn(target, item);
        }
    }

    fn add_type(&mut self, target: &'s str, name: String, module: ModuleId, def: TypeDef<'s>) {
        self.types_by_name.entry((target, name)).or_default().push(self.types.len());
        self.types.push(TypeItem { module, def });
    }

    /// Every function and method, in source order.
    pub fn fns(&self) -> &[FnItem<'s>] {
        &self.fns
    }

    /// The string value of the constant `name` seen from `module`.
    pub fn string_const(&self, module: ModuleId, segments: &[String]) -> Option<&str> {
        self.consts.get(&self.item_key(module, segments)?).map(String::as_str)
    }

    /// The module and declared type of the constant or static `segments` names from `module`.
    pub fn value_type(&self, module: ModuleId, segments: &[String]) -> Option<(ModuleId, &'s Type)> {
        let key = self.item_key(module, segments)?;
        self.value_types.get(&key).map(|ty| (key.0, *ty))
    }

    /// The module an item `segments` names from `module` is defined in, and its name: the key
    /// of the tables of constants and statics.
    fn item_key(&self, module: ModuleId, segments: &[String]) -> Option<(ModuleId, String)> {
        let name = segments.last()?;
        let absolute = self.absolute(module, segments);
        let owner = self.module_at(module, &absolute[..absolute.len() - 1]).unwrap_or(module);
        Some((owner, name.clone()))
    }

    /// `segments` as written in `module`, made absolute: `crate::a::b`, or an external path left as written.
    pub fn absolute(&self, module: ModuleId, segments: &[String]) -> Vec<String> {
        self.absolute_within(module, segments, GLOB_DEPTH)
    }

    /// [`Index::absolute`], following a first segment the module neither imports nor defines
    /// into the modules of the sources it glob-imports (`use super::*;`), `depth` globs deep.
    fn absolute_within(&self, module: ModuleId, segments: &[String], depth: usize) -> Vec<String> {
        let here = &self.sources.modules[module];
        let Some(first) = segments.first() else { return Vec::new() };
        let crate_path = |rest: &[String]| {
            let mut path = vec!["crate".to_owned()];
            path.extend(rest.iter().cloned());
            path
        };
        match first.as_str() {
            "crate" => crate_path(&segments[1..]),
            "self" => {
                let mut path = here.path.clone();
                path.extend(segments[1..].iter().cloned());
                crate_path(&path)
            }
            "super" => {
                let mut path = here.path.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    path.pop();
                    rest = &rest[1..];
                }
                path.extend(rest.iter().cloned());
                crate_path(&path)
            }
            _ => {
                if let Some(imported) = self.uses.get(module).and_then(|uses| uses.get(first)) {
                    let mut path = imported.clone();
                    path.extend(segments[1..].iter().cloned());
                    return path;
                }
                let local = here.children.contains(first)
                    || (segments.len() == 1 && self.defines(module, first))
                    || self.defines_type(module, first);
                if local {
                    let mut path = here.path.clone();
                    path.extend(segments.iter().cloned());
                    return crate_path(&path);
                }
                if depth > 0 {
                    for glob in &self.globs[module] {
                        let glob = self.absolute_within(module, glob, depth - 1);
                        let Some(from) = self.module_at(module, &glob) else { continue };
                        let there = &self.sources.modules[from];
                        let names_it = self.uses[from].contains_key(first)
                            || there.children.contains(first)
                            || (segments.len() == 1 && self.defines(from, first))
                            || self.defines_type(from, first);
                        if names_it {
                            // Read in the module the glob leads to: in another library of the
                            // workspace, its `crate` is that library, named as `module` names it.
                            let mut path = self.absolute_within(from, segments, depth - 1);
                            if glob.first().is_some_and(|first| first != "crate")
                                && path.first().is_some_and(|first| first == "crate")
                            {
                                path[0].clone_from(&glob[0]);
                            }
                            return path;
                        }
                    }
                }
                segments.to_vec()
            }
        }
    }

    /// The module at the absolute module path `path` (`["crate", "a"]`) in `from`'s target, or
    /// in another library of the workspace that `path` starts with (`["users_api", "model"]`).
    fn module_at(&self, from: ModuleId, path: &[String]) -> Option<ModuleId> {
        let (first, rest) = path.split_first()?;
        let target = match first.as_str() {
            "crate" => self.sources.modules[from].target.as_str(),
            _ => self.sources.modules[self.library_of(from, path)?].target.as_str(),
        };
        self.modules_by_path.get(&(target, rest.to_vec())).copied()
    }

    /// The functions and methods called `name` in `module`'s target.
    fn fns_named<'a>(&'a self, module: ModuleId, name: &str) -> impl Iterator<Item = &'a FnItem<'s>> + use<'a, 's> {
        let target = self.sources.modules[module].target.as_str();
        self.fns_by_name.get(&(target, name.to_owned())).into_iter().flatten().map(|&i| &self.fns[i])
    }

    fn defines(&self, module: ModuleId, name: &str) -> bool {
        self.fns_named(module, name).any(|f| f.module == module && f.self_ty.is_none())
    }

    fn defines_type(&self, module: ModuleId, name: &str) -> bool {
        let target = self.sources.modules[module].target.as_str();
        self.types_by_name
            .get(&(target, name.to_owned()))
            .is_some_and(|ids| ids.iter().any(|&i| self.types[i].module == module))
    }

    /// The function or method `segments` names in `module` (`self_ty` is the type `Self` stands
    /// for), through `use` imports and re-exports, renaming ones (`pub use users::list as people;`) included.
    pub fn find_fn(&self, module: ModuleId, self_ty: Option<&str>, segments: &[String]) -> Option<FnItem<'s>> {
        let written = segments.last()?;
        let free = |module: ModuleId, name: &str, module_path: &[String]| {
            self.fns_named(module, name)
                .find(|f| f.self_ty.is_none() && self.sources.modules[f.module].path == module_path)
                .cloned()
        };
        let mut absolute = self.absolute(module, segments);
        // `Self::f` and `Type::f` (the type possibly imported under another name): a method of that type.
        if segments.len() >= 2 && absolute.len() >= 2 {
            let on_self = segments[segments.len() - 2] == "Self";
            let owner = if on_self { self_ty.unwrap_or_default() } else { absolute[absolute.len() - 2].as_str() };
            let methods: Vec<&FnItem<'s>> =
                self.fns_named(module, written).filter(|f| f.self_ty.as_deref() == Some(owner)).collect();
            // Types of the same name in two modules (`health::Routes`, `users::Routes`): the
            // method of the one meant. `Self` is the type of the `impl` around the call, in the
            // module of the call; a written type is the one its path resolves to.
            let type_path = &absolute[..absolute.len() - 1];
            let method = match methods.as_slice() {
                [one] => Some(*one),
                _ if on_self => methods.iter().find(|f| f.module == module).copied(),
                _ => methods
                    .iter()
                    .find(|f| {
                        f.impl_ty.is_some_and(|ty| match ty {
                            Type::Path(p) => self.absolute(f.module, &crate::index::segments(&p.path)) == type_path,
                            _ => false,
                        })
                    })
                    .copied(),
            };
            if let Some(method) = method {
                return Some(method.clone());
            }
            // A type of another library of the workspace (`handlers::ItemHandlers::list`, or the
            // type imported from it): its one method of that name there.
            if !on_self && let Some(library) = self.library_of(module, &absolute) {
                let mut there = self.fns_named(library, written).filter(|f| f.self_ty.as_deref() == Some(owner));
                if let (Some(one), None) = (there.next(), there.next()) {
                    return Some(one.clone());
                }
            }
        }
        // The crate the path is in: this target's, or another library of the workspace.
        let mut krate = module;
        for _ in 0..8 {
            if let Some(library) = self.library_of(krate, &absolute) {
                krate = library;
                absolute[0] = "crate".to_owned();
            }
            // `crate` alone (a library's name called as a function, `db()` where `db` is a
            // parameter) names no function.
            let [first, module_path @ .., name] = absolute.as_slice() else { break };
            if first != "crate" {
                break;
            }
            let name = name.clone();
            let owner_path = &absolute[..absolute.len() - 1];
            if let Some(found) = free(krate, &name, module_path) {
                return Some(found);
            }
            // A re-export in the owner module: `pub use inner::f;`, `pub use inner::f as g;`, `pub use inner::*;`.
            let Some(owner) = self.module_at(krate, owner_path) else { break };
            if let Some(found) = self.globs[owner].iter().find_map(|glob| match glob.split_first() {
                Some((first, rest)) if first == "crate" => free(krate, &name, rest),
                _ => None,
            }) {
                return Some(found);
            }
            match self.uses[owner].get(&name) {
                Some(next) if *next != absolute => absolute = next.clone(),
                _ => break,
            }
        }
        let candidates: Vec<&FnItem<'s>> = self.fns_named(module, written).collect();
        if segments.len() == 1 {
            for glob in &self.globs[module] {
                if let Some((first, rest)) = glob.split_first()
                    && first == "crate"
                    && let Some(found) = free(module, written, rest)
                {
                    return Some(found);
                }
            }
        }
        // Last resort: the one free function of that name in the target whose module path ends as written.
        let written_path: Vec<&String> = segments[..segments.len() - 1]
            .iter()
            .filter(|s| !matches!(s.as_str(), "crate" | "self" | "super"))
            .collect();
        let matching: Vec<&&FnItem<'s>> = candidates
            .iter()
            .filter(|f| f.self_ty.is_none())
            .filter(|f| {
                let path = &self.sources.modules[f.module].path;
                path.len() >= written_path.len()
                    && path[path.len() - written_path.len()..].iter().zip(&written_path).all(|(a, b)| a == *b)
            })
            .collect();
        match matching.as_slice() {
            [one] => Some((**one).clone()),
            _ => None,
        }
    }

    /// The method `name` (taking `self`) called in `module` on a value of type `self_ty`, or,
    /// when the type is not known, the only method of that name in the target.
    pub fn find_method(&self, module: ModuleId, self_ty: Option<&str>, name: &str) -> Option<FnItem<'s>> {
        match self.methods(module, self_ty, name).as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// Every method `name` (taking `self`) of the target that a call in `module` on a value of
    /// type `self_ty` (any type, when not known) could be: of impl blocks and of traits.
    pub fn methods(&self, module: ModuleId, self_ty: Option<&str>, name: &str) -> Vec<&FnItem<'s>> {
        let in_target = |module: ModuleId| {
            self.fns_named(module, name)
                .filter(|f| f.self_ty.is_some() && f.sig.receiver().is_some())
                .filter(|f| self_ty.is_none_or(|ty| f.self_ty.as_deref() == Some(ty)))
                .collect::<Vec<_>>()
        };
        let here = in_target(module);
        if !here.is_empty() {
            return here;
        }
        // None in this target: those of the workspace's libraries (a trait of a `domain` crate
        // that a handler calls through `Arc<dyn Repo>`), each library once.
        let mut roots: Vec<ModuleId> = self.sources.libraries.values().copied().collect();
        roots.sort_unstable();
        let target = &self.sources.modules[module].target;
        roots.into_iter().filter(|root| self.sources.modules[*root].target != *target).flat_map(in_target).collect()
    }

    /// The type definition `segments` names in `module`.
    pub fn find_type(&self, module: ModuleId, segments: &[String]) -> Option<TypeItem<'s>> {
        let name = segments.last()?;
        let target = self.sources.modules[module].target.as_str();
        let absolute = self.absolute(module, segments);
        // A type of another library of the workspace: looked up there.
        if let Some(library) = self.library_of(module, &absolute)
            && library != module
        {
            let mut path = vec!["crate".to_owned()];
            path.extend(absolute[1..].iter().cloned());
            return self.find_type(library, &path);
        }
        // Imported under another name (`use crate::model::Page as P;`): looked up by its own name.
        let own_name = absolute.last().unwrap_or(name);
        let candidates: Vec<TypeItem<'s>> =
            self.types_by_name.get(&(target, own_name.clone())).into_iter().flatten().map(|&i| self.types[i]).collect();
        if absolute.first().is_some_and(|s| s == "crate") {
            // `crate` alone (a segment of a path read one name at a time) names no type.
            let [_, owner_path @ .., _] = absolute.as_slice() else { return None };
            if let Some(found) = candidates.iter().find(|t| self.sources.modules[t.module].path == owner_path) {
                return Some(*found);
            }
        } else if segments.len() > 1 || self.uses[module].contains_key(name) {
            // Written or imported as an external path: not ours.
            return None;
        }
        match candidates.as_slice() {
            [one] => Some(*one),
            _ => candidates.iter().find(|t| t.module == module).copied(),
        }
    }

    /// True when the type `segments`, written in `module`, is one of the framework's crates
    /// ([`FRAMEWORK_CRATES`]), not merely one of the same name (a team's own `Envelope`, or another
    /// crate's): its path leads into one of them, directly, by an import, or by a re-export in the
    /// sources (`pub use completeness::Envelope;`, or a glob of the framework in the module it is
    /// re-exported from that the sources define no type of that name beside); or it is a bare name
    /// the module neither imports nor defines, under a glob import of the framework; or it is
    /// written in one of the framework's crates. Anything else (another crate's type, a type the
    /// sources define) is not taken on trust: a legacy wrapper named `Envelope` is no migration.
    pub fn is_framework_type(&self, module: ModuleId, segments: &[String]) -> bool {
        let package = self.sources.modules[module].package.replace('-', "_");
        if is_framework(&package) {
            return true;
        }
        let absolute = self.absolute(module, segments);
        let Some(first) = absolute.first() else { return false };
        if is_framework(first) {
            return true;
        }
        if self.is_ours(module, segments) {
            let Some((name, owner)) = absolute.split_last() else { return false };
            let Some(owner) = self.module_at(module, owner) else { return false };
            return match self.uses[owner].get(name) {
                Some(path) => path.first().is_some_and(|s| is_framework(s)),
                None => {
                    self.find_type(module, segments).is_none() && self.glob_imports_framework(owner, name, GLOB_DEPTH)
                }
            };
        }
        let [name] = segments else { return false };
        !self.uses[module].contains_key(name)
            && self.find_type(module, segments).is_none()
            && self.glob_imports_framework(module, name, GLOB_DEPTH)
    }

    /// True when a glob import of `module` brings `name` from the framework: a glob of one of its
    /// crates, or a glob of a module of the sources that imports `name` from one (or has such a
    /// glob, `depth` levels down: `use super::*;` under a module that imports the framework).
    fn glob_imports_framework(&self, module: ModuleId, name: &str, depth: usize) -> bool {
        self.globs[module].iter().any(|glob| {
            if glob.first().is_some_and(|s| is_framework(s)) {
                return true;
            }
            let Some(from) = self.module_at(module, &self.absolute(module, glob)) else { return false };
            match self.uses[from].get(name) {
                Some(path) => path.first().is_some_and(|s| is_framework(s)),
                None => depth > 0 && self.glob_imports_framework(from, name, depth - 1),
            }
        })
    }

    /// The name of the item `segments` names in `module`: the last segment of its [`absolute`](Self::absolute)
    /// path, so that `J` of `use axum::Json as J;` is `Json`.
    pub fn resolved_name(&self, module: ModuleId, segments: &[String]) -> String {
        self.absolute(module, segments).pop().unwrap_or_default()
    }

    /// True when `segments`, written in `module`, names an item of the audited sources: of its
    /// own crate, or of a library of the audited workspace.
    pub fn is_ours(&self, module: ModuleId, segments: &[String]) -> bool {
        let absolute = self.absolute(module, segments);
        absolute.first().is_some_and(|first| first == "crate") || self.library_of(module, &absolute).is_some()
    }

    /// The root module of the workspace library an absolute path written in `module` starts with
    /// (`users_api::router`), by its crate name or by the name `module`'s manifest renames it to.
    fn library_of(&self, module: ModuleId, absolute: &[String]) -> Option<ModuleId> {
        let first = absolute.first()?;
        let target = &self.sources.modules[module].target;
        self.sources
            .renamed
            .get(&(target.clone(), first.clone()))
            .or_else(|| self.sources.libraries.get(first))
            .copied()
    }

    /// True when `segments`, written in `module`, names an item of another crate by a path into
    /// it: written as one (`othercrate::Page`) or imported as one (`use othercrate::Page;`). A
    /// bare name the module neither imports nor defines is not: a macro may generate it there.
    pub fn is_external(&self, module: ModuleId, segments: &[String]) -> bool {
        self.absolute(module, segments).len() > 1 && !self.is_ours(module, segments)
    }

    /// True when `segments`, written in `module`, names an item of the crate `krate` (an external crate).
    pub fn is_from(&self, module: ModuleId, segments: &[String], krate: &str) -> bool {
        self.absolute(module, segments).first().is_some_and(|s| s == krate)
    }
}

/// The imports of a `use` tree: `(Some(name), path)` for a name, `(None, path)` for a glob.
fn use_paths(tree: &UseTree, prefix: Vec<String>, out: &mut Vec<(Option<String>, Vec<String>)>) {
    match tree {
        UseTree::Path(p) => {
            let mut next = prefix;
            next.push(name(&p.ident));
            use_paths(&p.tree, next, out);
        }
        UseTree::Name(n) => {
            let written = name(&n.ident);
            if written == "self" {
                if let Some(last) = prefix.last() {
                    out.push((Some(last.clone()), prefix.clone()));
                }
            } else {
                let mut path = prefix;
                path.push(written.clone());
                out.push((Some(written), path));
            }
        }
        UseTree::Rename(r) => {
            let mut path = prefix;
            path.push(name(&r.ident));
            out.push((Some(name(&r.rename)), path));
        }
        UseTree::Glob(_) => out.push((None, prefix)),
        UseTree::Group(g) => {
            for item in &g.items {
                use_paths(item, prefix.clone(), out);
            }
        }
    }
}

/// The last identifier of a path type (`Api` for `crate::Api<S>`).
pub fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The segments of a path as strings.
pub fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| name(&s.ident)).collect()
}
