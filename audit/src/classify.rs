//! The verdict on one handler: what its response is, read from its signature, the types it names
//! and, for `impl IntoResponse` and `Response`, the values its body returns.
//!
//! Rules, first match wins:
//! 1. A handler annotated `#[completeness]` reports completeness.
//! 2. The declared response type decides ([`Classifier::ty`]): framework types that report
//!    completeness, collections, structs of the audited sources (by their fields), aliases
//!    (followed), wrappers and `Result`/`Json`/tuples (looked through; a reporting response
//!    inside `Json` still reports, with advice: `Json` hides its block from the layer). The type
//!    arguments of a generic alias or newtype are read where they are written; `Self` in a
//!    method's signature is the type of its `impl` (`fn new(..) -> Self`).
//! 3. `impl IntoResponse`, `Response` and other opaque types, also behind an alias or a generic
//!    newtype (`ApiResult<impl IntoResponse>`): the values the body returns decide (`Classifier::expr`),
//!    its tail and every `return`. A `json!` shows what it writes (`Classifier::json`), and
//!    `serde_json::to_value(x)` is `x`. Their error side is not read, as a declared `Result`'s is not:
//!    an `Err(..)`, returned early or not, gives way to the success values, and `value?` is what
//!    `value` holds on success.
//! 4. Registered through `completeness::routing`: the compiler has checked what rule 2 and 3 could not see.
//! 5. A route that mounts a tower service instead of a handler (`nest_service`, `route_service`,
//!    `get_service` and the other methods' `_service` forms):
//!    a known non-list service, tower-http's file services ([`NON_LIST_SERVICES`](crate::shapes::NON_LIST_SERVICES)), is exempt
//!    ([`non_list_service`]); the audit cannot see what any other service answers.

use proc_macro2::Span;
use syn::visit::Visit;
use syn::{Block, Expr, Fields, GenericArgument, PathArguments, ReturnType, Stmt, Type};

use crate::index::{FnItem, Index, TypeDef, TypeItem, segments};
use crate::model::Verdict;
use crate::routes::text;
use crate::shapes::{
    BODY_WRAPPERS, COLLECTIONS, COMPLETENESS_BLOCK, ENVELOPE_DERIVE, EXEMPT, HANDLER_ATTRIBUTE, LIST_MEMBERS,
    OPAQUE_RESPONSES, PAGE_ONLY_MEMBERS, PAGINATION_MEMBERS, REPORTING, SUCCESS_KEEPING, SUCCESS_MAPPING, WRAPPERS,
    documentation_router, known_service, never_a_list,
};
use crate::source::ModuleId;

/// What an unknown verdict says of a response type of another crate: the audit reads only the
/// audited sources, so its fix is to audit that crate too.
pub const DEFINED_ELSEWHERE: &str = "is defined outside the audited sources";

/// How a `json!` object is named in findings.
pub const JSON_OBJECT: &str = "json!({..})";

/// What a response is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Reports completeness; the string says how.
    Reports(String),
    /// Reports completeness in its body, but wrapped in `Json`, which hides the block from
    /// the completeness layer; the string says how the wrapped response reports.
    InJson(String),
    /// A list without completeness.
    List {
        /// The type (or expression) as written.
        shown: String,
        /// The item type, when known.
        item: Option<String>,
        /// The struct or enum of the audited sources that carries the list, if one does.
        owner: Option<String>,
    },
    /// A struct or enum of the audited sources holding a collection beside other members.
    Nested {
        /// The struct or enum.
        owner: String,
        /// Its collection member.
        field: String,
    },
    /// Declared not to need a block (`Exempt`); the string says how.
    Exempt(String),
    /// Cannot tell, and why.
    Unknown(String),
    /// Not a list: what it is.
    NotAList(String),
    /// The error side of a `Result` (`Err(..)`), which is not read (rule 3): any other part of
    /// the response decides over it.
    Error,
}

impl Class {
    /// The verdict this class gives.
    pub fn verdict(&self) -> Verdict {
        match self {
            Class::Reports(_) | Class::InJson(_) => Verdict::ReportsCompleteness,
            Class::List { .. } => Verdict::ListWithoutCompleteness,
            Class::Nested { .. } => Verdict::NestedCollection,
            Class::Unknown(_) => Verdict::Unknown,
            Class::Exempt(_) => Verdict::Exempt,
            Class::NotAList(_) | Class::Error => Verdict::NotAList,
        }
    }

    /// Of two parts of one response (tuple members, branches), the one that decides: a list
    /// anywhere makes the response a list; a reported block beats parts the audit cannot see.
    fn worst(self, other: Class) -> Class {
        let rank = |c: &Class| match c {
            Class::List { .. } => 0,
            Class::Nested { .. } => 1,
            Class::Unknown(_) => 2,
            Class::Reports(_) | Class::InJson(_) => 3,
            Class::Exempt(_) => 4,
            Class::NotAList(_) => 5,
            Class::Error => 6,
        };
        if rank(&other) < rank(&self) { other } else { self }
    }

    /// Parts of one tuple response: a reporting or exempt part covers the parts the audit
    /// cannot see.
    fn with_part(self, other: Class) -> Class {
        let covers = |c: &Class| matches!(c, Class::Reports(_) | Class::InJson(_) | Class::Exempt(_));
        let covered = |c: &Class| matches!(c, Class::Unknown(_) | Class::NotAList(_));
        match (&self, &other) {
            (a, b) if covers(a) && covered(b) => self,
            (a, b) if covered(a) && covers(b) => other,
            _ => self.worst(other),
        }
    }
}

/// The code a returned expression is read in: a function's body, or a closure handler's.
struct Code<'b> {
    module: ModuleId,
    /// The type `Self` stands for.
    self_ty: Option<&'b str>,
    /// The function, when the code is one: a helper that calls itself is not followed again.
    id: Option<usize>,
    /// The block whose `let` bindings name the locals.
    block: Option<&'b Block>,
    /// The typed parameters.
    params: Vec<&'b syn::PatType>,
    /// The type parameters a call bound ([`Classifier::called`]), which the parameters' types
    /// are read with: `fn ok<T>(data: T)` called as `ok(users())` holds a list in `data`.
    bound: &'b [(syn::Ident, Type)],
}

/// Where a type is read: its module and, inside a generic alias or newtype, that definition's
/// type parameters bound to the arguments of the use. An argument is read where it is written,
/// not in the module of the definition: `Wrapped<Users>` names the `Users` the handler's module
/// imports, whichever `Users` the module of `Wrapped` has.
#[derive(Clone, Copy)]
struct Scope<'a> {
    module: ModuleId,
    bound: &'a [Bound<'a>],
}

/// A type parameter bound to its argument, and the scope the argument is read in.
struct Bound<'a> {
    param: syn::Ident,
    arg: Type,
    read: Scope<'a>,
}

impl<'a> Scope<'a> {
    /// Types written in `module`, outside any generic definition.
    fn at(module: ModuleId) -> Scope<'a> {
        Scope { module, bound: &[] }
    }

    /// When `ty` is one of the bound type parameters: its argument, and where to read it.
    fn argument(&self, ty: &Type) -> Option<(&'a Type, Scope<'a>)> {
        let bound: &'a [Bound<'a>] = self.bound;
        bound.iter().find(|b| is_param(ty, &b.param)).map(|b| (&b.arg, b.read))
    }

    /// `ty` with every bound parameter replaced by its argument, itself expanded where it is read:
    /// the type as it reads once the definitions are applied, for what only looks at its shape
    /// (members, collections, the text a report shows).
    fn expand(&self, ty: &Type) -> Type {
        substituted(ty, &expanded(self.bound))
    }

    /// `ty` as a report shows it.
    fn text(&self, ty: &Type) -> String {
        text(&self.expand(ty))
    }
}

/// The parameters of `bound` and their arguments, expanded where they are read.
fn expanded(bound: &[Bound<'_>]) -> Vec<(syn::Ident, Type)> {
    bound.iter().map(|b| (b.param.clone(), b.read.expand(&b.arg))).collect()
}

/// Classifies types and expressions seen from one module.
pub struct Classifier<'i, 's> {
    index: &'i Index<'s>,
    depth: usize,
    /// The structs and enums being read, by module and name: one that holds itself is read once.
    reading: Vec<(ModuleId, String)>,
}

impl<'i, 's> Classifier<'i, 's> {
    /// A classifier over `index`.
    pub fn new(index: &'i Index<'s>) -> Self {
        Classifier { index, depth: 0, reading: Vec::new() }
    }

    /// Rules 1 to 3 for a handler function.
    pub fn handler(&mut self, f: &FnItem<'s>) -> Class {
        if f.attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == HANDLER_ATTRIBUTE)) {
            return Class::Reports("annotated with `#[completeness]`".to_owned());
        }
        self.handler_like(f, &[])
    }

    /// Rule 3 for a closure handler written in `module` (in an `impl` of `self_ty`): the values
    /// its body returns.
    pub fn closure(&mut self, module: ModuleId, self_ty: Option<&str>, body: &Expr) -> Class {
        let block = match body {
            Expr::Async(b) => Some(&b.block),
            Expr::Block(b) => Some(&b.block),
            _ => None,
        };
        let code = Code { module, self_ty, id: None, block, params: Vec::new(), bound: &[] };
        let class = match block {
            Some(block) => self.returned(&code, block, "it returns nothing the audit can see".to_owned()),
            None => self.expr(&code, body),
        };
        match class {
            Class::Unknown(why) => Class::Unknown(format!(
                "{why}; a closure handler: move it into a named function that names its response type"
            )),
            other => other,
        }
    }

    /// What every method `name` of the target returns, when they agree on a list or on a nested
    /// collection (the first one's class); `None` when there is none, or one says otherwise.
    fn every_method(&mut self, code: &Code<'_>, name: &str) -> Option<Class> {
        let methods: Vec<FnItem<'s>> = self
            .index
            .methods(code.module, None, name)
            .into_iter()
            .filter(|f| Some(f.id) != code.id)
            .cloned()
            .collect();
        let mut agreed: Option<Class> = None;
        for method in &methods {
            let class = self.handler_like(method, &[]);
            match &agreed {
                None if matches!(class, Class::List { .. } | Class::Nested { .. }) => agreed = Some(class),
                Some(first) if std::mem::discriminant(first) == std::mem::discriminant(&class) => {}
                _ => return None,
            }
        }
        agreed
    }

    /// Rule 3: the values `f`'s body returns, for a response type that does not say.
    fn body(&mut self, f: &FnItem<'s>, why: String, bound: &[(syn::Ident, Type)]) -> Class {
        let code = Code {
            bound,
            module: f.module,
            self_ty: f.self_ty.as_deref(),
            id: Some(f.id),
            block: f.block,
            params: f
                .sig
                .inputs
                .iter()
                .filter_map(|input| match input {
                    syn::FnArg::Typed(t) => Some(t),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect(),
        };
        match f.block {
            Some(block) => self.returned(&code, block, why),
            None => Class::Unknown(why),
        }
    }

    /// The values `block` of `code` returns (its tail and every `return`), the worst deciding.
    fn returned(&mut self, code: &Code<'_>, block: &Block, why: String) -> Class {
        let mut returns = Returns::default();
        returns.tail(block.stmts.last());
        returns.visit_block(block);
        if returns.exprs.is_empty() {
            return Class::Unknown(why);
        }
        let mut class: Option<Class> = None;
        for expr in returns.exprs {
            let next = self.expr(code, expr);
            class = Some(match class {
                None => next,
                Some(prev) => prev.worst(next),
            });
        }
        class.unwrap_or(Class::Unknown(why))
    }

    /// Rule 2: what a response type is, written in `module`.
    pub fn ty(&mut self, module: ModuleId, ty: &Type) -> Class {
        self.ty_in(Scope::at(module), ty)
    }

    fn ty_in(&mut self, scope: Scope<'_>, ty: &Type) -> Class {
        if self.depth > 24 {
            return Class::Unknown("the type is nested too deeply to follow".to_owned());
        }
        self.depth += 1;
        let class = self.ty_inner(scope, ty);
        self.depth -= 1;
        class
    }

    fn ty_inner(&mut self, scope: Scope<'_>, ty: &Type) -> Class {
        let module = scope.module;
        match ty {
            Type::Paren(t) => self.ty_in(scope, &t.elem),
            Type::Group(t) => self.ty_in(scope, &t.elem),
            Type::Reference(r) => self.ty_in(scope, &r.elem),
            Type::Slice(s) => Class::List { shown: scope.text(ty), item: Some(scope.text(&s.elem)), owner: None },
            Type::Array(_) => Class::NotAList(format!("`{}` has a fixed size", scope.text(ty))),
            Type::Tuple(t) if t.elems.is_empty() => Class::NotAList("returns `()`".to_owned()),
            Type::Tuple(t) => {
                let mut parts = t.elems.iter().map(|e| self.ty_in(scope, e));
                let first = parts.next().unwrap_or(Class::NotAList(String::new()));
                parts.fold(first, Class::with_part)
            }
            Type::ImplTrait(_) => Class::Unknown(format!("`{}` does not name the response", scope.text(ty))),
            Type::TraitObject(_) => Class::Unknown(format!("`{}` does not name the response", scope.text(ty))),
            Type::Path(p) if p.qself.is_none() => {
                // A type parameter of the definition being read: its argument, where it is written.
                if let Some((arg, read)) = scope.argument(ty) {
                    return self.ty_in(read, arg);
                }
                let Some(last) = p.path.segments.last() else { return Class::Unknown(scope.text(ty)) };
                // Compared by the name it has where it is defined (`use axum::Json as J;`).
                let name = self.index.resolved_name(module, &segments(&p.path));
                let args = type_args(&last.arguments);
                if name == "Box" && args.first().is_some_and(|a| matches!(a, Type::Slice(_))) {
                    return Class::List { shown: scope.text(ty), item: None, owner: None };
                }
                if let Some(class) = framework_response(&name)
                    && self.index.is_framework_type(module, &segments(&p.path))
                {
                    return class;
                }
                if COLLECTIONS.contains(&name.as_str()) {
                    let item = if is_map_name(&name) { args.get(1) } else { args.first() };
                    return Class::List { shown: scope.text(ty), item: item.map(|t| scope.text(t)), owner: None };
                }
                if WRAPPERS.contains(&name.as_str()) || BODY_WRAPPERS.contains(&name.as_str()) {
                    return match args.first() {
                        Some(inner) => match self.ty_in(scope, inner) {
                            Class::List { item, owner, .. } => Class::List { shown: scope.text(ty), item, owner },
                            other => in_json(&name, other),
                        },
                        None => Class::Unknown(format!("`{}` without its type argument", scope.text(ty))),
                    };
                }
                if let Some(found) = self.index.find_type(module, &segments(&p.path)) {
                    return self.definition(scope, found, &name, &args);
                }
                if never_a_list(&name) {
                    return Class::NotAList(format!("returns `{name}`"));
                }
                if OPAQUE_RESPONSES.contains(&name.as_str()) {
                    return Class::Unknown(format!("`{name}` can hold any JSON, the type does not say which"));
                }
                Class::Unknown(format!("`{}` {DEFINED_ELSEWHERE}", scope.text(ty)))
            }
            _ => Class::Unknown(format!("the audit does not follow the type `{}`", scope.text(ty))),
        }
    }

    /// A struct, enum or alias of the audited sources, its type parameters bound to `args`, the
    /// type arguments as written where it is used (`ApiResponse<Vec<User>>`), in `used`.
    fn definition(&mut self, used: Scope<'_>, found: TypeItem<'s>, name: &str, args: &[&Type]) -> Class {
        match found.def {
            TypeDef::Alias(alias) => {
                let bound = bind(&alias.generics, args, used, found.module);
                shown_as(name, args, self.ty_in(Scope { module: found.module, bound: &bound }, &alias.ty))
            }
            TypeDef::Struct(s) => {
                if derives(&s.attrs, ENVELOPE_DERIVE) {
                    if !has_completeness_field(&s.fields) {
                        // Derived without a block: a single resource, whose written lists the
                        // derive refuses (or takes as `bounded`); it reports no completeness.
                        return Class::NotAList(format!(
                            "`{name}` derives `ResultEnvelope` without a completeness block: a single resource, \
                             whose collections the derive refuses unless marked `bounded`"
                        ));
                    }
                    return Class::Reports(format!("`{name}` derives `ResultEnvelope`"));
                }
                let bound = bind(&s.generics, args, used, found.module);
                // A generic newtype (`struct AppJson<T>(T)`) is a body wrapper like `Json`: the
                // response is its argument, and the fix belongs to the argument, not the wrapper.
                if let Some(param) = newtype_param(s)
                    && let Some(inner) = bound.iter().find(|b| b.param == *param)
                {
                    return shown_as(name, args, self.ty_in(inner.read, &inner.arg));
                }
                if let Some(class) = self.own_response(found, &s.attrs, name) {
                    return class;
                }
                // A type that holds itself (`next: Option<Box<Node>>`) is read once; the same
                // generic type with other arguments (`ApiResponse<ApiResponse<Page>>`) is another.
                let key = (found.module, reading_key(name, args, used));
                if self.reading.contains(&key) {
                    return Class::NotAList(format!("`{name}` holds itself"));
                }
                self.reading.push(key);
                let class = self.fields(name, Scope { module: found.module, bound: &bound }, &s.fields, &s.generics);
                self.reading.pop();
                class
            }
            TypeDef::Enum(e) => {
                if derives(&e.attrs, ENVELOPE_DERIVE) {
                    return Class::Reports(format!("`{name}` derives `ResultEnvelope`"));
                }
                if let Some(class) = self.own_response(found, &e.attrs, name) {
                    return class;
                }
                let bound = bind(&e.generics, args, used, found.module);
                let key = (found.module, reading_key(name, args, used));
                if self.reading.contains(&key) {
                    return Class::NotAList(format!("`{name}` holds itself"));
                }
                self.reading.push(key);
                // A variant is read as a struct is: one that would make a struct a list
                // (`Success { data: Vec<User> }`, `Page(Vec<Item>)`) makes the enum a list, as a
                // list is answered whenever that variant is.
                let mut class = Class::NotAList(format!("`{name}` is an enum without collections"));
                for variant in &e.variants {
                    let scope = Scope { module: found.module, bound: &bound };
                    class = class.worst(match self.fields(name, scope, &variant.fields, &e.generics) {
                        Class::List { item, .. } => Class::List {
                            shown: format!("{name}::{}", variant.ident),
                            item,
                            owner: Some(name.to_owned()),
                        },
                        Class::Nested { field, .. } => {
                            Class::Nested { owner: name.to_owned(), field: format!("{}::{field}", variant.ident) }
                        }
                        other => other,
                    });
                }
                self.reading.pop();
                class
            }
        }
    }

    /// The response of the struct or enum `found` (named `name`, with the attributes `attrs`) when
    /// it answers with an `into_response` of its own and is not serialized (no `Serialize`
    /// derive): what that method returns. Its members are then what it answers with, not its
    /// body: an error enum's `Schema(Vec<String>)` holds the error's details, whatever its
    /// `into_response` writes. `None` for a type without such a method (or with several of that
    /// name, of types of the same name), read by its members.
    fn own_response(&mut self, found: TypeItem<'s>, attrs: &[syn::Attribute], name: &str) -> Option<Class> {
        if derives(attrs, "Serialize") {
            return None;
        }
        let method = self.index.find_method(found.module, Some(name), "into_response")?;
        let key = (found.module, format!("{name}::into_response"));
        if self.reading.contains(&key) {
            return Some(Class::Unknown(format!("`{name}::into_response` answers with itself")));
        }
        self.reading.push(key);
        let class = match self.handler_like(&method, &[]) {
            Class::Unknown(why) => Class::Unknown(format!("`{name}` answers with its own `into_response`: {why}")),
            other => other,
        };
        self.reading.pop();
        Some(class)
    }

    /// The type arguments of a generic struct built in `code` from `values` (its members and
    /// their values), which do not name them: a parameter that is the type of a member whose
    /// value is a list stands for a `Vec` of its items, one whose value is not a list for `()`
    /// (a member that is no collection); one the values do not show stays itself, unbound.
    fn built_args(&mut self, code: &Code<'_>, def: TypeDef<'s>, values: &[(syn::Member, &Expr)]) -> Vec<Type> {
        let TypeDef::Struct(s) = def else { return Vec::new() };
        let mut args = Vec::new();
        for param in s.generics.type_params() {
            let value = s.fields.iter().enumerate().find_map(|(i, field)| {
                if !holds_param(&field.ty, &param.ident) {
                    return None;
                }
                let member = match &field.ident {
                    Some(ident) => syn::Member::Named(ident.clone()),
                    None => syn::Member::from(i),
                };
                values.iter().find(|(m, _)| *m == member).map(|(_, value)| *value)
            });
            let ident = &param.ident;
            let arg =
                value.and_then(|value| bound_to(self.expr(code, value))).unwrap_or_else(|| syn::parse_quote!(#ident));
            args.push(arg);
        }
        args
    }

    /// True for `Vec<Warning>` of the framework's `Warning`, read in `module`: a resource's
    /// warnings are metadata, not data. A service's own type of that name (an alert it lists)
    /// is data: a list of it is a list.
    fn is_warning_list(&self, module: ModuleId, ty: &Type) -> bool {
        let Type::Path(p) = ty else { return false };
        let Some(last) = p.path.segments.last().filter(|s| s.ident == "Vec") else { return false };
        match type_args(&last.arguments).first() {
            Some(Type::Path(item)) if item.path.segments.last().is_some_and(|s| s.ident == "Warning") => {
                self.index.is_framework_type(module, &segments(&item.path))
            }
            _ => false,
        }
    }

    /// A struct (or an enum variant) by its fields, their types read in `scope` (the definition's
    /// module, its type parameters bound to the arguments of the use): a completeness block
    /// reports; a collection under a list member name (or beside pagination members only) is a
    /// list; any other collection is nested. A member that is no collection by its name is read as
    /// a response type is: an alias of a collection is a collection; a type of the sources that
    /// is a list (`data: UserPage`, `page: Option<Page>`, flattened or not) makes this one a
    /// list; a member whose type does not say what it holds (`serde_json::Value`, a generic type
    /// of another crate over a type of the sources), or is unknown one level down (a type of the
    /// sources, or the payload of a generic wrapper bound to an unknown type:
    /// [`Classifier::read_further`]), leaves it unknown rather than not a list, unless another
    /// member makes it a list. A member whose own type is another crate's without such an
    /// argument (a timestamp, an id) is taken for no list.
    /// `generics` are the owner's: a member whose type is still one of its parameters (not bound
    /// where the type is used or built) could be a collection.
    fn fields(&mut self, owner: &str, scope: Scope<'_>, fields: &Fields, generics: &syn::Generics) -> Class {
        let mut collections = Vec::new();
        let mut others = Vec::new();
        let mut unbound = None;
        let mut pages: Vec<(String, String)> = Vec::new();
        let mut unseen = None;
        let mut nested = None;
        for (i, field) in fields.iter().enumerate() {
            let name = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_else(|| i.to_string());
            let serde = SerdeField::of(field);
            // What serde never writes is not in the response.
            if serde.skipped {
                continue;
            }
            let name = serde.renamed.unwrap_or(name);
            let ty = scope.expand(&field.ty);
            // A flattened map's entries are members of this object, not a collection.
            if serde.flattened && is_map(&ty) {
                others.push(name);
                continue;
            }
            if crate::index::last_ident(&ty).is_some_and(|t| t == COMPLETENESS_BLOCK) {
                return Class::Reports(format!("`{owner}` carries a `Completeness` block"));
            }
            if let Some(param) = generics.type_params().find(|p| holds_param(&ty, &p.ident)) {
                if unbound.is_none() {
                    unbound = Some((name.clone(), param.ident.to_string()));
                }
                others.push(name);
                continue;
            }
            if let Some(item) = collection_item(&ty) {
                if self.is_warning_list(scope.module, &ty) || is_bytes_member(&ty) {
                    others.push(name);
                } else {
                    collections.push((name, item));
                }
                continue;
            }
            match self.ty_in(scope, &field.ty) {
                // A type of the sources that is a list (a page, a newtype over a collection) is a
                // collection member: the response is that list when the member is its payload
                // (`data: UserPage`), as for a collection; beside a resource's own members
                // (`metadata: Metadata(HashMap<..>)`), a nested collection.
                Class::List { owner: Some(inner), item, .. } => {
                    pages.push((name.clone(), inner));
                    collections.push((name, item.unwrap_or_default()));
                }
                Class::List { owner: None, item, .. } => collections.push((name, item.unwrap_or_default())),
                // A resource inside this one holds a collection (`article: Article` with its
                // `tags`): that collection is this response's too, one level further down.
                Class::Nested { field: inner, .. } => {
                    if nested.is_none() {
                        nested = Some(format!("{name}.{inner}"));
                    }
                    others.push(name);
                }
                Class::Unknown(why) if self.unseen_member(scope, &field.ty) || self.read_further(scope, &field.ty) => {
                    if unseen.is_none() {
                        unseen = Some(match unseen_parts(&why) {
                            // One level down, the member that does not say is named by its path.
                            Some((inner, why)) => (format!("{name}.{inner}"), why.to_owned()),
                            None => (name.clone(), why),
                        });
                    }
                    others.push(name);
                }
                _ => others.push(name),
            }
        }
        let Some(field) = collections.first().map(|(name, _)| name.clone()) else {
            if let Some(field) = nested {
                return Class::Nested { owner: owner.to_owned(), field };
            }
            return match (unseen, unbound) {
                (Some((field, why)), _) => Class::Unknown(unseen_why(&field, owner, &why)),
                (None, Some((field, param))) => Class::Unknown(format!(
                    "the member `{field}` of `{owner}` is of its type parameter `{param}`, which the audit cannot \
                     see bound here: it may be a list"
                )),
                (None, None) => Class::NotAList(format!("`{owner}` has no collection member")),
            };
        };
        let named: Vec<(&str, &str)> = collections.iter().map(|(name, item)| (name.as_str(), item.as_str())).collect();
        // A tuple struct's collection is what it holds.
        let member =
            if matches!(fields, Fields::Unnamed(_)) { Some(field.as_str()) } else { page_member(&named, &others) };
        match member.and_then(|member| collections.iter().find(|(name, _)| name == member)) {
            Some((name, item)) => {
                // A list one level down: the response is that list.
                let shown = match pages.iter().find(|(page, _)| page == name) {
                    Some((field, inner)) => format!("{owner}.{field} ({inner})"),
                    None => owner.to_owned(),
                };
                let item = Some(item.clone()).filter(|item| !item.is_empty());
                Class::List { shown, item, owner: Some(owner.to_owned()) }
            }
            None => Class::Nested { owner: owner.to_owned(), field },
        }
    }

    /// True when a member of type `ty`, read in `scope`, may hold a list the type does not show:
    /// its type is opaque JSON (`serde_json::Value`, also in `Option`), or a generic type of
    /// another crate with a type of the audited sources among its arguments (`other::Page<Item>`).
    fn unseen_member(&self, scope: Scope<'_>, ty: &Type) -> bool {
        if self.opaque(scope, ty, 0) {
            return true;
        }
        let Type::Path(p) = scope.expand(ty) else { return false };
        let Some(last) = p.path.segments.last() else { return false };
        if WRAPPERS.contains(&last.ident.to_string().as_str()) {
            return type_args(&last.arguments).first().is_some_and(|inner| self.unseen_member(scope, inner));
        }
        self.index.find_type(scope.module, &segments(&p.path)).is_none()
            && type_args(&last.arguments).iter().any(
                |arg| matches!(arg, Type::Path(a) if self.index.find_type(scope.module, &segments(&a.path)).is_some()),
            )
    }

    /// True when a member of type `ty`, read in `scope`, is read further than its own written
    /// type: it is one of the owner's type parameters, bound where the owner is used (the payload
    /// of `ApiResponse<ThingPage>`, as `Json<ThingPage>` is a response), or a struct or enum of
    /// the audited sources, whose own members decide (`inner: T1`), through references,
    /// wrappers and aliases of the sources. What such a member leaves unknown, this one does not
    /// know either; only a member whose own written type is another crate's and names no type of
    /// the sources (a timestamp, an id) is taken for no list.
    fn read_further(&self, scope: Scope<'_>, ty: &Type) -> bool {
        self.read_further_at(scope, ty, 0)
    }

    /// [`Classifier::read_further`]; `depth` stops at aliases that name each other.
    fn read_further_at(&self, scope: Scope<'_>, ty: &Type, depth: usize) -> bool {
        if depth > 24 {
            return false;
        }
        match ty {
            Type::Reference(r) => self.read_further_at(scope, &r.elem, depth + 1),
            Type::Paren(t) => self.read_further_at(scope, &t.elem, depth + 1),
            Type::Group(t) => self.read_further_at(scope, &t.elem, depth + 1),
            Type::Path(p) if p.qself.is_none() => {
                if scope.argument(ty).is_some() {
                    return true;
                }
                let Some(last) = p.path.segments.last() else { return false };
                let args = type_args(&last.arguments);
                if WRAPPERS.contains(&last.ident.to_string().as_str()) {
                    return args.first().is_some_and(|inner| self.read_further_at(scope, inner, depth + 1));
                }
                match self.index.find_type(scope.module, &segments(&p.path)) {
                    Some(found) => match found.def {
                        TypeDef::Alias(alias) => {
                            let bound = bind(&alias.generics, &args, scope, found.module);
                            self.read_further_at(Scope { module: found.module, bound: &bound }, &alias.ty, depth + 1)
                        }
                        TypeDef::Struct(_) | TypeDef::Enum(_) => true,
                    },
                    None => false,
                }
            }
            _ => false,
        }
    }

    /// Rule 3 for one returned expression of `code`.
    fn expr(&mut self, code: &Code<'_>, expr: &Expr) -> Class {
        if self.depth > 24 {
            return Class::Unknown("the body is nested too deeply to follow".to_owned());
        }
        self.depth += 1;
        let class = self.expr_inner(code, expr);
        self.depth -= 1;
        class
    }

    fn expr_inner(&mut self, code: &Code<'_>, expr: &Expr) -> Class {
        let line = syn::spanned::Spanned::span(expr).start().line;
        let unknown = || Class::Unknown(format!("cannot see the shape of `{}` (line {line})", shorten(&text(expr))));
        match expr {
            Expr::Paren(e) => self.expr(code, &e.expr),
            Expr::Group(e) => self.expr(code, &e.expr),
            Expr::Reference(e) => self.expr(code, &e.expr),
            Expr::Await(e) => self.expr(code, &e.base),
            // What the value holds on success; its error goes back to the caller, unread.
            Expr::Try(e) => self.expr(code, &e.expr),
            Expr::Block(b) => match b.block.stmts.last() {
                Some(Stmt::Expr(e, None)) => self.expr(code, e),
                _ => unknown(),
            },
            Expr::If(e) => {
                let then = match e.then_branch.stmts.last() {
                    Some(Stmt::Expr(t, None)) => self.expr(code, t),
                    _ => unknown(),
                };
                match &e.else_branch {
                    Some((_, other)) => then.worst(self.expr(code, other)),
                    None => then,
                }
            }
            Expr::Match(m) => {
                let mut class: Option<Class> = None;
                for arm in &m.arms {
                    let next = self.expr(code, &arm.body);
                    class = Some(match class {
                        None => next,
                        Some(prev) => prev.worst(next),
                    });
                }
                class.unwrap_or_else(unknown)
            }
            // `(StatusCode::CREATED, Json(todo))`: read from the body, which axum takes last, so that
            // among parts of one rank the body's explanation is the one given.
            Expr::Tuple(t) => {
                let mut parts = t.elems.iter().rev().map(|e| self.expr(code, e));
                let body = parts.next().unwrap_or(Class::NotAList("returns `()`".to_owned()));
                parts.fold(body, Class::with_part)
            }
            Expr::Array(_) => Class::NotAList("an array literal has a fixed size".to_owned()),
            Expr::Lit(_) => Class::NotAList("a literal".to_owned()),
            Expr::Struct(s) => match self.index.find_type(code.module, &segments(&s.path)) {
                Some(found) => {
                    let last = s.path.segments.last();
                    let name = last.map(|s| s.ident.to_string()).unwrap_or_default();
                    let written: Vec<Type> =
                        last.map(|l| type_args(&l.arguments).into_iter().cloned().collect()).unwrap_or_default();
                    let args = if written.is_empty() {
                        let values: Vec<(syn::Member, &Expr)> =
                            s.fields.iter().map(|f| (f.member.clone(), &f.expr)).collect();
                        self.built_args(code, found.def, &values)
                    } else {
                        written
                    };
                    self.definition(Scope::at(code.module), found, &name, &args.iter().collect::<Vec<_>>())
                }
                None => unknown(),
            },
            Expr::Macro(m) => {
                let name = m.mac.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                match name.as_str() {
                    "vec" => Class::List { shown: "vec![..]".to_owned(), item: None, owner: None },
                    "json" => self.json(code, m.mac.tokens.clone()).unwrap_or_else(unknown),
                    "format" => Class::NotAList("a formatted string".to_owned()),
                    _ => unknown(),
                }
            }
            Expr::Path(p) => {
                let segs = segments(&p.path);
                if segs.len() == 1
                    && let Some(class) = self.local(code, &segs[0], position(p).0)
                {
                    return class;
                }
                // A constant or static of the sources is what its declared type says
                // (`static COUNTRIES: &[Country]` is a list).
                if let Some((module, ty)) = self.index.value_type(code.module, &segs) {
                    return self.ty(module, ty);
                }
                if segs.iter().any(|s| s == "StatusCode") {
                    return Class::NotAList("a status code".to_owned());
                }
                // Any other name whose declaration the sources do not show (one a macro declares,
                // `lazy_static! { static ref COUNTRIES: Vec<Country> = .. }`, or another crate's)
                // may be a list, whatever its case.
                unknown()
            }
            Expr::Call(call) => {
                let Expr::Path(func) = &*call.func else { return unknown() };
                let segs = segments(&func.path);
                // Compared by the names they have where they are defined (`use axum::Json as J;`).
                let absolute = self.index.absolute(code.module, &segs);
                let last = absolute.last().map(String::as_str).unwrap_or_default();
                if last == "Err" {
                    return Class::Error;
                }
                // `serde_json::to_value(&users)` is the JSON of its argument.
                if absolute.first().is_some_and(|krate| krate == "serde_json") && last == "to_value" {
                    return match call.args.first() {
                        Some(value) => self.expr(code, value),
                        None => unknown(),
                    };
                }
                // `Value::Array(rows)`: a JSON array, whatever it holds.
                if absolute.first().is_some_and(|krate| krate == "serde_json")
                    && absolute.ends_with(&["Value".to_owned(), "Array".to_owned()])
                {
                    return Class::List { shown: "Value::Array(..)".to_owned(), item: None, owner: None };
                }
                if BODY_WRAPPERS.contains(&last) || matches!(last, "Ok" | "Some") {
                    return match call.args.first() {
                        Some(inner) => {
                            let class = self.expr(code, inner);
                            in_json(last, class)
                        }
                        None => unknown(),
                    };
                }
                // A generic newtype of the audited sources built here (`AppJson(vec![..])`) is a
                // body wrapper like `Json(..)`: its argument is the response. Its type parameter is
                // not written, so the struct's fields cannot say what it holds.
                if let [inner] = call.args.iter().collect::<Vec<_>>().as_slice()
                    && let Some(found) = self.index.find_type(code.module, &segs)
                    && let TypeDef::Struct(s) = found.def
                    && newtype_param(s).is_some()
                {
                    return self.expr(code, inner);
                }
                // `Envelope::complete(..)` names the type before the function; `Exempt(..)` is the
                // type. Not a type of the same name that the sources define (their own `Envelope`).
                let framework = |written: &[String]| {
                    let name = self.index.resolved_name(code.module, written);
                    framework_response(&name).filter(|_| self.index.is_framework_type(code.module, written))
                };
                let owner = segs.split_last().map(|(_, owner)| owner).filter(|owner| !owner.is_empty());
                if let Some(class) = owner.and_then(framework).or_else(|| framework(&segs)) {
                    return class;
                }
                if let Some(callee) = self.index.find_fn(code.module, code.self_ty, &segs)
                    && Some(callee.id) != code.id
                {
                    return self.called(code, &callee, &call.args.iter().collect::<Vec<_>>());
                }
                // A value of a type that is never a list, built by its constructor or a function of
                // it (`Html(..)`, `Redirect::to(..)`, `HeaderMap::new()`), unless the audited sources
                // define a type of that name.
                let ends_in_no_list = |written: &[String]| {
                    written.last().is_some_and(|name| never_a_list(name))
                        && self.index.find_type(code.module, written).is_none()
                };
                if let Some(named) = [&segs[..], owner.unwrap_or_default()].into_iter().find(|w| ends_in_no_list(w)) {
                    return Class::NotAList(format!("a `{}`", named[named.len() - 1]));
                }
                // A collection built by its type's constructor (`Vec::new()`, `Vec::<Item>::new()`,
                // `HashMap::with_capacity(n)`), unless the audited sources define a type of that name.
                if let Some(owner) = owner
                    && let Some(collection) = owner.last().filter(|name| COLLECTIONS.contains(&name.as_str()))
                    && self.index.find_type(code.module, owner).is_none()
                {
                    return Class::List { shown: format!("{collection}::{last}(..)"), item: None, owner: None };
                }
                if segs.len() >= 2 {
                    let owner = &segs[..segs.len() - 1];
                    if let Some(found) = self.index.find_type(code.module, owner) {
                        return self.definition(Scope::at(code.module), found, &owner[owner.len() - 1], &[]);
                    }
                }
                if last.chars().next().is_some_and(char::is_uppercase)
                    && segs.len() == 1
                    && let Some(found) = self.index.find_type(code.module, &segs)
                {
                    let values: Vec<(syn::Member, &Expr)> =
                        call.args.iter().enumerate().map(|(i, arg)| (syn::Member::from(i), arg)).collect();
                    let args = self.built_args(code, found.def, &values);
                    return self.definition(Scope::at(code.module), found, last, &args.iter().collect::<Vec<_>>());
                }
                unknown()
            }
            Expr::MethodCall(call) => {
                let method = call.method.to_string();
                match method.as_str() {
                    "into_response" | "into" | "clone" | "to_owned" => self.expr(code, &call.receiver),
                    // What the value holds on success, as for `value?`.
                    kept if SUCCESS_KEEPING.contains(&kept) => self.expr(code, &call.receiver),
                    // What the closure returns for it (its parameter reads as that value: `Lets`).
                    mapped if SUCCESS_MAPPING.contains(&mapped) => match mapping_closure(call) {
                        Some(closure) => self.expr(code, &closure.body),
                        None => unknown(),
                    },
                    "to_vec" => Class::List { shown: ".to_vec()".to_owned(), item: None, owner: None },
                    // sqlx's `query.fetch_all(&pool)`: every row, in a `Vec`.
                    "fetch_all" => Class::List { shown: ".fetch_all(..)".to_owned(), item: None, owner: None },
                    "collect" => match call.turbofish.as_ref().and_then(|t| t.args.first()) {
                        Some(GenericArgument::Type(ty)) => self.ty(code.module, ty),
                        _ => unknown(),
                    },
                    "to_string" => Class::NotAList("a string".to_owned()),
                    // axum's `WebSocketUpgrade::on_upgrade`: `101 Switching Protocols`, no body.
                    "on_upgrade" => Class::NotAList("a WebSocket upgrade".to_owned()),
                    // `repo.list().await`: the receiver's type is not read, so the methods of that
                    // name in the target (of impl blocks and traits: `dyn Store`) are taken for
                    // the one called when every one returns a list, or every one a nested
                    // collection: a wrong pick costs a false finding, never a list let through.
                    _ => self.every_method(code, &method).unwrap_or_else(unknown),
                }
            }
            _ => unknown(),
        }
    }

    /// The JSON a `json!(..)` of `code` writes, when its tokens show it: an array is a list; an
    /// object is read as a struct's members are (`Classifier::fields`): a member whose value
    /// is a list makes it a list under a list member name (or beside pagination members only),
    /// else a nested collection; `null`, `true`, `false` and literals are no list; any other
    /// value is the Rust expression it is (`json!(users)` is what `users` holds). `None` when
    /// the tokens do not parse.
    fn json(&mut self, code: &Code<'_>, tokens: proc_macro2::TokenStream) -> Option<Class> {
        use proc_macro2::{Delimiter, TokenTree};
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        match trees.as_slice() {
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Bracket => {
                return Some(Class::List { shown: "json!([..])".to_owned(), item: None, owner: None });
            }
            [TokenTree::Group(g)] if g.delimiter() == Delimiter::Brace => return self.json_object(code, g.stream()),
            [TokenTree::Ident(i)] if matches!(i.to_string().as_str(), "null" | "true" | "false") => {
                return Some(Class::NotAList(format!("`{i}`")));
            }
            _ => {}
        }
        let expr: Expr = syn::parse2(trees.into_iter().collect()).ok()?;
        Some(self.expr(code, &expr))
    }

    /// `Classifier::json` of an object's members (`"key": value, ..`).
    fn json_object(&mut self, code: &Code<'_>, members: proc_macro2::TokenStream) -> Option<Class> {
        use proc_macro2::{Spacing, TokenTree};
        let mut collections = Vec::new();
        let mut others = Vec::new();
        let mut unseen = None;
        let trees: Vec<TokenTree> = members.into_iter().collect();
        let is_comma = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ',');
        for member in trees.split(is_comma).filter(|member| !member.is_empty()) {
            let [key, TokenTree::Punct(colon), value @ ..] = member else { return None };
            if colon.as_char() != ':' || colon.spacing() != Spacing::Alone || value.is_empty() {
                return None;
            }
            let name = match syn::parse2::<syn::LitStr>(key.clone().into()) {
                Ok(lit) => lit.value(),
                Err(_) => key.to_string(),
            };
            let unparsed = || Class::Unknown("its value does not parse".to_owned());
            match self.json(code, value.iter().cloned().collect()).unwrap_or_else(unparsed) {
                Class::List { .. } => collections.push(name),
                Class::Nested { field, .. } => collections.push(format!("{name}.{field}")),
                Class::Unknown(why) | Class::Reports(why) | Class::InJson(why) => {
                    if unseen.is_none() {
                        unseen = Some((name.clone(), why));
                    }
                    others.push(name);
                }
                _ => others.push(name),
            }
        }
        let shown = JSON_OBJECT;
        let Some(first) = collections.first().cloned() else {
            return Some(match unseen {
                Some((field, why)) => Class::Unknown(format!(
                    "the member `{field}` of `{shown}` does not show what it holds ({why}): it may be a list"
                )),
                None => Class::NotAList("a JSON object without a list member".to_owned()),
            });
        };
        // The items of a `json!` member are not known.
        let named: Vec<(&str, &str)> = collections.iter().map(|name| (name.as_str(), "")).collect();
        Some(match page_member(&named, &others) {
            Some(field) => Class::List { shown: format!("json!({{\"{field}\": ..}})"), item: None, owner: None },
            None => Class::Nested { owner: shown.to_owned(), field: first },
        })
    }

    /// A call of `f` with `args` written in `code` (`f(..)` or `Type::f(..)`): the response
    /// `f` declares, its type parameters (and its `impl`'s) bound by the arguments passed for
    /// the parameters that hold them: to `Vec<Item>` for a list, to `()` for a value that is no
    /// list. So `wrap(items)` of `fn wrap<T>(data: T) -> Json<Resp<T>>` reads as
    /// `Json<Resp<Vec<Item>>>`; a parameter no argument shows stays itself.
    fn called(&mut self, code: &Code<'_>, f: &FnItem<'s>, args: &[&Expr]) -> Class {
        // `Type::method(value, ..)` passes the receiver first.
        let args = if f.sig.receiver().is_some() { args.get(1..).unwrap_or_default() } else { args };
        let inputs: Vec<&Type> = f
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(t) => Some(&*t.ty),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let params = f.sig.generics.type_params().chain(f.impl_generics.into_iter().flat_map(|g| g.type_params()));
        let mut bound = Vec::new();
        for param in params {
            let passed = inputs.iter().zip(args).find(|(ty, _)| holds_param(ty, &param.ident));
            if let Some((_, arg)) = passed
                && let Some(ty) = bound_to(self.expr(code, arg))
            {
                bound.push((param.ident.clone(), ty));
            }
        }
        self.handler_like(f, &bound)
    }

    /// A helper function's response: its declared type, else its body. In a method's signature,
    /// `Self` is the type of its `impl` (`fn new(..) -> Self`), written in the same module;
    /// `bound` gives type parameters a call bound ([`Classifier::called`]).
    fn handler_like(&mut self, f: &FnItem<'s>, bound: &[(syn::Ident, Type)]) -> Class {
        match &f.sig.output {
            ReturnType::Default => Class::NotAList("returns `()`".to_owned()),
            ReturnType::Type(_, ty) => {
                let ty = match f.impl_ty {
                    Some(impl_ty) => substituted(ty, &[(syn::Ident::new("Self", Span::call_site()), impl_ty.clone())]),
                    None => (**ty).clone(),
                };
                let ty = substituted(&ty, bound);
                if is_bytes_body(&ty) {
                    return Class::NotAList(
                        "returns bytes, which axum sends as `application/octet-stream`, not as a JSON list".to_owned(),
                    );
                }
                match self.ty(f.module, &ty) {
                    Class::Unknown(why) if self.opaque(Scope::at(f.module), &ty, 0) => self.body(f, why, bound),
                    other => other,
                }
            }
        }
    }

    /// True for response types whose shape only the body shows: `impl IntoResponse`, `Response`,
    /// `Box<dyn ..>`, `Json<Value>`, and aliases and generic newtypes of the audited sources
    /// around one (`type ApiResult<T> = Result<T, AppError>` used as `ApiResult<impl IntoResponse>`).
    /// `depth` stops at aliases that name each other.
    fn opaque(&self, scope: Scope<'_>, ty: &Type, depth: usize) -> bool {
        if depth > 24 {
            return false;
        }
        let module = scope.module;
        match ty {
            Type::ImplTrait(_) | Type::TraitObject(_) => true,
            // `(StatusCode, Json<Value>)`: the body part decides, as it does alone.
            Type::Tuple(t) => t.elems.iter().any(|elem| self.opaque(scope, elem, depth + 1)),
            Type::Paren(t) => self.opaque(scope, &t.elem, depth + 1),
            Type::Group(t) => self.opaque(scope, &t.elem, depth + 1),
            Type::Path(p) if p.qself.is_none() => {
                if let Some((arg, read)) = scope.argument(ty) {
                    return self.opaque(read, arg, depth + 1);
                }
                let Some(last) = p.path.segments.last() else { return false };
                let name = self.index.resolved_name(module, &segments(&p.path));
                let args = type_args(&last.arguments);
                if OPAQUE_RESPONSES.contains(&name.as_str()) {
                    return true;
                }
                if WRAPPERS.contains(&name.as_str()) || BODY_WRAPPERS.contains(&name.as_str()) {
                    return args.first().is_some_and(|t| self.opaque(scope, t, depth + 1));
                }
                let Some(found) = self.index.find_type(module, &segments(&p.path)) else { return false };
                match found.def {
                    TypeDef::Alias(alias) => {
                        let bound = bind(&alias.generics, &args, scope, found.module);
                        self.opaque(Scope { module: found.module, bound: &bound }, &alias.ty, depth + 1)
                    }
                    // A generic newtype is looked through as `definition` looks through it.
                    TypeDef::Struct(s) => newtype_param(s).is_some_and(|param| {
                        bind(&s.generics, &args, scope, found.module)
                            .iter()
                            .find(|b| b.param == *param)
                            .is_some_and(|inner| self.opaque(inner.read, &inner.arg, depth + 1))
                    }),
                    TypeDef::Enum(_) => false,
                }
            }
            _ => false,
        }
    }

    /// The class of the local `name` of `code` read at `at` (a line and column): the binding in
    /// scope there, its `let` (annotated type, else its value), else its parameter type. A `let`
    /// in a block that does not hold `at`, or after it, is another variable (`let body =
    /// to_csv(&body);` in an inner block does not decide the outer `body`). Bound by a pattern
    /// (`if let`, a `match` arm, a closure's or a `for` loop's) closest to the use: unknown.
    fn local(&mut self, code: &Code<'_>, name: &str, at: (usize, usize)) -> Option<Class> {
        let mut lets = Lets { name, blocks: Vec::new(), found: Vec::new() };
        lets.visit_block(code.block?);
        let in_scope = lets
            .found
            .into_iter()
            .filter(|b| b.from <= at && b.scope.0 <= at && at <= b.scope.1)
            .max_by_key(|b| b.from);
        if let Some(binding) = in_scope {
            // `match value { Ok(x) => .., }`, `if let Some(x) = value`: what `value` holds.
            if let Some(matched) = binding.success_of {
                return Some(self.expr(code, matched));
            }
            let Some(local) = binding.local else {
                return Some(Class::Unknown(format!(
                    "`{name}` (line {}) is bound by a pattern the audit does not read",
                    at.0
                )));
            };
            if let syn::Pat::Type(t) = &local.pat {
                return Some(self.ty(code.module, &t.ty));
            }
            return local.init.as_ref().map(|init| self.expr(code, &init.expr));
        }
        for t in &code.params {
            if matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == name) {
                return Some(self.ty(code.module, &substituted(&t.ty, code.bound)));
            }
        }
        None
    }
}

/// Why a struct or enum `owner` is unknown when its member `field` (a path, `data.params`, for
/// one further down) does not say what it holds, for the reason `why`.
fn unseen_why(field: &str, owner: &str, why: &str) -> String {
    format!("the member `{field}` of `{owner}` does not say what it holds ({why}): it may be a list")
}

/// The member path and reason of a why [`unseen_why`] wrote: a member whose type is unknown for
/// that reason names the member further down, not the whole sentence again.
fn unseen_parts(why: &str) -> Option<(&str, &str)> {
    let (field, rest) = why.strip_prefix("the member `")?.split_once("` of `")?;
    let (_, rest) = rest.split_once("` does not say what it holds (")?;
    Some((field, rest.strip_suffix("): it may be a list")?))
}

/// The class of a response type of the framework, by its name: one that reports completeness,
/// or `Exempt`, whose reason is the handler's to give, not the audit's to judge.
fn framework_response(name: &str) -> Option<Class> {
    if name == EXEMPT {
        return Some(Class::Exempt(format!(
            "returns `{EXEMPT}`: declared, with its reason, to need no completeness block (not a migration)"
        )));
    }
    REPORTING.contains(&name).then(|| Class::Reports(format!("returns `{name}`")))
}

/// The name a definition is read under while its members are read: its name and its type
/// arguments as they read once expanded where they are written.
fn reading_key(name: &str, args: &[&Type], used: Scope<'_>) -> String {
    let args: Vec<String> = args.iter().map(|arg| used.text(arg)).collect();
    format!("{name}<{}>", args.join(", "))
}

/// Rule 5: the class of a route that mounts the known non-list service `name` ([`NON_LIST_SERVICES`](crate::shapes::NON_LIST_SERVICES)).
/// Exempt rather than not a list: the audit does not read the files, which may hold JSON.
pub fn non_list_service(name: &str) -> Class {
    if let Some((_, krate)) = documentation_router(name) {
        return Class::Exempt(format!(
            "merges {krate}'s `{name}`, which serves the API's documentation page and OpenAPI document: not a \
             list endpoint"
        ));
    }
    let serves = known_service(name).map_or("serves files", |(_, serves)| serves);
    Class::Exempt(format!(
        "mounts tower-http's `{name}`, which {serves}: a file service, not a list endpoint (the files are not read)"
    ))
}

/// `class` seen through the wrapper `wrapper`: a reporting response inside `Json` still carries
/// its block on the wire, but the response no longer says so to the completeness layer.
fn in_json(wrapper: &str, class: Class) -> Class {
    match class {
        Class::Reports(why) if wrapper == "Json" => Class::InJson(why),
        other => other,
    }
}

/// `class` read through the alias or generic newtype `name` used with `args`: a list is shown
/// as written (`AppResult<Json<UsersPage>>`), and its fix belongs to the list inside (the struct
/// of the sources to derive on, when it is one), never to the alias or the wrapper.
fn shown_as(name: &str, args: &[&Type], class: Class) -> Class {
    match class {
        Class::List { item, owner, .. } => {
            let shown = match args {
                [] => name.to_owned(),
                args => format!("{name}<{}>", args.iter().map(|arg| text(*arg)).collect::<Vec<_>>().join(", ")),
            };
            Class::List { shown, item, owner }
        }
        other => other,
    }
}

/// The type parameters of `generics`, defined in `module`, bound to the type arguments `args` of
/// a use in `used`, in order; a parameter without an argument takes its default, if it has one.
/// An argument is read where the use is, a default where the definition is.
fn bind<'a>(generics: &syn::Generics, args: &[&Type], used: Scope<'a>, module: ModuleId) -> Vec<Bound<'a>> {
    let mut args = args.iter();
    generics
        .type_params()
        .filter_map(|param| {
            let (arg, read) = match args.next() {
                Some(arg) => ((*arg).clone(), used),
                None => (param.default.clone()?.1, Scope::at(module)),
            };
            Some(Bound { param: param.ident.clone(), arg, read })
        })
        .collect()
}

/// The type parameter a generic newtype (`struct AppJson<T>(T)`) wraps: its only member is
/// unnamed and is of that parameter. Such a wrapper is looked through like `Json`.
fn newtype_param(s: &syn::ItemStruct) -> Option<&syn::Ident> {
    let [field] = s.fields.iter().collect::<Vec<_>>()[..] else { return None };
    if field.ident.is_some() {
        return None;
    }
    s.generics.type_params().map(|p| &p.ident).find(|param| is_param(&field.ty, param))
}

/// True when `ty` is the type parameter `param` itself.
fn is_param(ty: &Type, param: &syn::Ident) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(param))
}

/// The collection member that makes members a list page, when they are one (struct fields and
/// `json!` objects alike), of `collections` by name and item type as written: one under a list
/// member name ([`LIST_MEMBERS`]); else, when any other member is one only a page has
/// ([`PAGE_ONLY_MEMBERS`]) or every other member is a page's ([`only_pagination`]), any
/// collection. Of several, one of items that are no scalar ([`scalar_items`]) first: SCIM's
/// `schemas: Vec<String>` beside its `Resources` is the page's description, not its items, and
/// the fix names the item type of the member chosen. `None` for a resource that happens to have
/// a collection. (A page taken for a resource would be told to mark its items bounded: the one
/// wrong answer that hides a truncated list.)
fn page_member<'a>(collections: &[(&'a str, &str)], others: &[String]) -> Option<&'a str> {
    let listed: Vec<(&'a str, &str)> =
        collections.iter().filter(|(name, _)| named_in(name, &LIST_MEMBERS)).copied().collect();
    let names: Vec<&str> = collections.iter().map(|(name, _)| *name).collect();
    let paged = || others.iter().any(|o| named_in(o, &PAGE_ONLY_MEMBERS)) || only_pagination(others, &names);
    let candidates = if !listed.is_empty() {
        listed
    } else if paged() {
        collections.to_vec()
    } else {
        return None;
    };
    candidates.iter().find(|(_, item)| !scalar_items(item)).or(candidates.first()).map(|(name, _)| *name)
}

/// True when a collection's item type, as written, is a scalar or another type that is never
/// a list's item worth a page ([`never_a_list`]: `String`, `&str`, `u64`, `Uuid`). An item type
/// not known (`""`, `_`) is not.
fn scalar_items(item: &str) -> bool {
    let Ok(mut ty) = syn::parse_str::<Type>(item) else { return false };
    while let Type::Reference(r) = ty {
        ty = *r.elem;
    }
    crate::index::last_ident(&ty).is_some_and(|name| never_a_list(&name))
}

/// True when the members `others` beside the collections named `collections` are those of a
/// page: pagination members ([`PAGINATION_MEMBERS`], [`PAGE_ONLY_MEMBERS`]), or counts of one
/// of the collections (`articles_count`, `articlesCount`, `total_articles`).
fn only_pagination(others: &[String], collections: &[&str]) -> bool {
    let counts = |member: &str| {
        let member = folded(member);
        collections.iter().map(|c| folded(c)).any(|c| member == format!("{c}count") || member == format!("total{c}"))
    };
    others.iter().all(|o| named_in(o, &PAGINATION_MEMBERS) || named_in(o, &PAGE_ONLY_MEMBERS) || counts(o))
}

/// True when `member` is one of the names of `table` (written in snake case), in any case:
/// serde's `rename` and `rename_all` write `next_page_token` as `nextPageToken`,
/// `NextPageToken` or `next-page-token`, and each is the same member to a client.
fn named_in(member: &str, table: &[&str]) -> bool {
    let member = folded(member);
    table.iter().any(|name| folded(name) == member)
}

/// `name` in lower case, without `_` and `-`: its spellings in every case compare equal.
fn folded(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '_' | '-')).map(|c| c.to_ascii_lowercase()).collect()
}

/// The type a type parameter stands for when the value given for it is of `class`: `Vec<Item>`
/// for a list of `Item` (`Vec<_>` when the item type is not known), `()` for a value that is no
/// list (a member that is no collection); `None` when the value does not show which.
fn bound_to(class: Class) -> Option<Type> {
    match class {
        Class::List { item, .. } => {
            let item = item.filter(|i| !i.is_empty()).unwrap_or_else(|| "_".to_owned());
            Some(syn::parse_str::<Type>(&format!("Vec<{item}>")).unwrap_or_else(|_| syn::parse_quote!(Vec<_>)))
        }
        Class::NotAList(_) => Some(syn::parse_quote!(())),
        _ => None,
    }
}

/// True when `ty` is the type parameter `param`, or holds it through a reference or wrappers
/// (`&T`, `Option<T>`, `Box<T>`): a member `data: Option<T>` is a list when `T` is one, as
/// `data: T` is.
fn holds_param(ty: &Type, param: &syn::Ident) -> bool {
    if is_param(ty, param) {
        return true;
    }
    if let Type::Reference(r) = ty {
        return holds_param(&r.elem, param);
    }
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    WRAPPERS.contains(&last.ident.to_string().as_str())
        && matches!(type_args(&last.arguments).as_slice(), [inner] if holds_param(inner, param))
}

/// `ty` with every bound type parameter replaced by its argument (`data: T` → `data: Vec<User>`).
fn substituted(ty: &Type, bound: &[(syn::Ident, Type)]) -> Type {
    let mut ty = ty.clone();
    if !bound.is_empty() {
        substitute(&mut ty, bound);
    }
    ty
}

fn substitute(ty: &mut Type, bound: &[(syn::Ident, Type)]) {
    if let Some((_, arg)) = bound.iter().find(|(param, _)| is_param(ty, param)) {
        *ty = arg.clone();
        return;
    }
    match ty {
        Type::Path(p) => {
            for segment in &mut p.path.segments {
                if let PathArguments::AngleBracketed(a) = &mut segment.arguments {
                    for arg in &mut a.args {
                        if let GenericArgument::Type(t) = arg {
                            substitute(t, bound);
                        }
                    }
                }
            }
        }
        Type::Reference(r) => substitute(&mut r.elem, bound),
        Type::Slice(s) => substitute(&mut s.elem, bound),
        Type::Array(a) => substitute(&mut a.elem, bound),
        Type::Paren(p) => substitute(&mut p.elem, bound),
        Type::Group(g) => substitute(&mut g.elem, bound),
        Type::Tuple(t) => t.elems.iter_mut().for_each(|e| substitute(e, bound)),
        _ => {}
    }
}

/// The type arguments of a path segment.
fn type_args(args: &PathArguments) -> Vec<&Type> {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What a field's `#[serde(..)]` attributes change in the response (struct fields and enum
/// variants' alike): the members serde writes are those the audit reads.
#[derive(Default)]
struct SerdeField {
    /// `skip` or `skip_serializing`: never written.
    skipped: bool,
    /// `rename = ".."` or `rename(serialize = "..")`: its name on the wire.
    renamed: Option<String>,
    /// `flatten`: its members are written into the object holding it.
    flattened: bool,
}

impl SerdeField {
    fn of(field: &syn::Field) -> SerdeField {
        let mut found = SerdeField::default();
        for attr in field.attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            // An attribute this does not read as expected changes nothing: serde would refuse it.
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
                    found.skipped = true;
                } else if meta.path.is_ident("flatten") {
                    found.flattened = true;
                } else if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
                    found.renamed = Some(meta.value()?.parse::<syn::LitStr>()?.value());
                } else if meta.path.is_ident("rename") {
                    meta.parse_nested_meta(|inner| {
                        let value = inner.value()?.parse::<syn::LitStr>()?;
                        if inner.path.is_ident("serialize") {
                            found.renamed = Some(value.value());
                        }
                        Ok(())
                    })?;
                } else if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<Expr>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    content.parse::<proc_macro2::TokenStream>()?;
                }
                Ok(())
            });
        }
        found
    }
}

/// True for a map among [`COLLECTIONS`] (`HashMap`, `BTreeMap`, `IndexMap`): its items are its
/// values, its second type argument.
fn is_map_name(name: &str) -> bool {
    name.ends_with("Map")
}

/// For a collection type (the macros' classification), its item type as written.
fn collection_item(ty: &Type) -> Option<String> {
    collection(ty).map(|(_, item)| item)
}

/// True when `ty` is a map, found as [`collection_item`] finds a collection (through references
/// and wrappers).
fn is_map(ty: &Type) -> bool {
    collection(ty).is_some_and(|(name, _)| is_map_name(&name))
}

/// The collection type `ty` is, through references and wrappers: its name (`Slice` for `[T]`)
/// and its item type as written.
fn collection(ty: &Type) -> Option<(String, String)> {
    match ty {
        Type::Paren(t) => collection(&t.elem),
        Type::Group(t) => collection(&t.elem),
        Type::Reference(r) => collection(&r.elem),
        Type::Slice(s) => Some(("Slice".to_owned(), text(&s.elem))),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let name = last.ident.to_string();
            let args = type_args(&last.arguments);
            if COLLECTIONS.contains(&name.as_str()) {
                let item = if is_map_name(&name) { args.get(1) } else { args.first() };
                return Some((name, item.map(|t| text(*t)).unwrap_or_default()));
            }
            if WRAPPERS.contains(&name.as_str()) {
                return args.first().and_then(|t| collection(t));
            }
            None
        }
        _ => None,
    }
}

/// True for a member of bytes (`Vec<u8>`, `Box<[u8]>`, `&[u8]`, also in an `Option`): a blob
/// (an image, a cookie, a hash) written as an array of numbers or, with `serde(with = ..)`, as
/// a string; never a list of items a page could cut.
fn is_bytes_member(ty: &Type) -> bool {
    matches!(collection(ty), Some((name, item)) if matches!(name.as_str(), "Vec" | "Slice") && item == "u8")
}

/// True for a response type whose body is raw bytes (`Vec<u8>`, `Box<[u8]>`, `&'static [u8]`,
/// `Cow<'static, [u8]>`, `[u8; N]`), also as a `Result`'s success or a tuple's last part: axum
/// sends those as `application/octet-stream`. Inside `Json` the same `Vec<u8>` is a JSON list.
fn is_bytes_body(ty: &Type) -> bool {
    let is_u8 = |ty: &Type| matches!(ty, Type::Path(p) if p.path.is_ident("u8"));
    match ty {
        Type::Paren(t) => is_bytes_body(&t.elem),
        Type::Group(t) => is_bytes_body(&t.elem),
        Type::Reference(r) => matches!(&*r.elem, Type::Slice(s) if is_u8(&s.elem)),
        Type::Array(a) => is_u8(&a.elem),
        Type::Tuple(t) => t.elems.last().is_some_and(is_bytes_body),
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else { return false };
            match (last.ident.to_string().as_str(), type_args(&last.arguments).first().copied()) {
                ("Vec", Some(item)) => is_u8(item),
                ("Box" | "Cow", Some(Type::Slice(s))) => is_u8(&s.elem),
                ("Result", Some(success)) => is_bytes_body(success),
                _ => false,
            }
        }
        _ => false,
    }
}

/// True when one of `fields` is marked `#[envelope(completeness)]`: the block of a derived
/// envelope.
fn has_completeness_field(fields: &syn::Fields) -> bool {
    fields.iter().flat_map(|field| &field.attrs).filter(|a| a.path().is_ident("envelope")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= meta.path.is_ident("completeness");
            // Skip a value (`bounded = ".."`) so the rest still parses.
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        });
        found
    })
}

/// True when `attrs` hold `#[derive(.., name, ..)]`.
fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.segments.last().is_some_and(|s| s.ident == name) {
                found = true;
            }
            Ok(())
        });
        found
    })
}

fn shorten(text: &str) -> String {
    if text.chars().count() > 60 { format!("{}..", text.chars().take(57).collect::<String>()) } else { text.to_owned() }
}

/// The expressions a function body returns: its tail and every `return`, closures left out.
#[derive(Default)]
struct Returns<'a> {
    exprs: Vec<&'a Expr>,
}

impl<'a> Returns<'a> {
    fn tail(&mut self, stmt: Option<&'a Stmt>) {
        if let Some(Stmt::Expr(e, None)) = stmt {
            self.exprs.push(e);
        }
    }
}

impl<'a> Visit<'a> for Returns<'a> {
    fn visit_expr_return(&mut self, node: &'a syn::ExprReturn) {
        if let Some(e) = &node.expr {
            self.exprs.push(e);
        }
    }
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The lines and columns where `node` starts and ends.
fn position(node: &impl syn::spanned::Spanned) -> ((usize, usize), (usize, usize)) {
    let span = node.span();
    ((span.start().line, span.start().column), (span.end().line, span.end().column))
}

/// A binding of a name in a body: from where it is seen, up to the end of its scope.
struct Binding<'a> {
    /// Its `let`; `None` for a pattern's binding (`if let`, a `match` arm, a closure's or a `for`
    /// loop's parameters).
    local: Option<&'a syn::Local>,
    /// For a pattern that binds the whole value it matches, or what that value holds on success
    /// (`x`, `Ok(x)`, `Some(x)`): the matched expression, which the name reads as.
    success_of: Option<&'a Expr>,
    /// Where it starts to be seen: the end of its `let`, or the start of the code the pattern binds in.
    from: (usize, usize),
    /// The start and end of the block (or the code) it is seen in.
    scope: ((usize, usize), (usize, usize)),
}

/// Finds every binding of a name in a body, with the block each one is seen in.
struct Lets<'n, 'a> {
    name: &'n str,
    /// The starts and ends of the blocks around the node being visited, innermost last.
    blocks: Vec<((usize, usize), (usize, usize))>,
    found: Vec<Binding<'a>>,
}

impl<'a> Lets<'_, 'a> {
    /// Records a binding by a pattern, seen in `scope`, when `pat` binds the name. When it binds
    /// the whole of `matched` (or what it holds on success), the name reads as `matched`.
    fn pattern(&mut self, pat: &'a syn::Pat, matched: Option<&'a Expr>, scope: &impl syn::spanned::Spanned) {
        let mut binds = Binds { name: self.name, found: false };
        binds.visit_pat(pat);
        if binds.found {
            let scope = position(scope);
            let success_of = matched.filter(|_| success_binding(pat).is_some_and(|i| i == self.name));
            self.found.push(Binding { local: None, success_of, from: scope.0, scope });
        }
    }

    /// Records the bindings of the `let` conditions of an `if` or `while` (`if let`, let chains), seen in `body`.
    fn conditions(&mut self, cond: &'a Expr, body: &syn::Block) {
        match cond {
            Expr::Let(l) => self.pattern(&l.pat, Some(&l.expr), body),
            Expr::Binary(b) => {
                self.conditions(&b.left, body);
                self.conditions(&b.right, body);
            }
            Expr::Paren(p) => self.conditions(&p.expr, body),
            _ => {}
        }
    }
}

impl<'a> Visit<'a> for Lets<'_, 'a> {
    fn visit_block(&mut self, node: &'a syn::Block) {
        self.blocks.push(position(node));
        syn::visit::visit_block(self, node);
        self.blocks.pop();
    }
    fn visit_local(&mut self, node: &'a syn::Local) {
        let bound = match &node.pat {
            syn::Pat::Ident(i) => Some(&i.ident),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some(&i.ident),
                _ => None,
            },
            _ => None,
        };
        if let Some(&scope) = self.blocks.last() {
            let from = position(node).1;
            if bound.is_some_and(|i| i == self.name) {
                self.found.push(Binding { local: Some(node), success_of: None, from, scope });
            } else if bound.is_none() {
                // A destructuring `let` (`let (a, body) = ..;`): bound, but not read here.
                let mut binds = Binds { name: self.name, found: false };
                binds.visit_pat(&node.pat);
                if binds.found {
                    self.found.push(Binding { local: None, success_of: None, from, scope });
                }
            }
        }
        syn::visit::visit_local(self, node);
    }
    fn visit_expr_if(&mut self, node: &'a syn::ExprIf) {
        self.conditions(&node.cond, &node.then_branch);
        syn::visit::visit_expr_if(self, node);
    }
    fn visit_expr_while(&mut self, node: &'a syn::ExprWhile) {
        self.conditions(&node.cond, &node.body);
        syn::visit::visit_expr_while(self, node);
    }
    fn visit_expr_match(&mut self, node: &'a syn::ExprMatch) {
        for arm in &node.arms {
            self.pattern(&arm.pat, Some(&node.expr), arm);
        }
        syn::visit::visit_expr_match(self, node);
    }
    fn visit_expr_method_call(&mut self, node: &'a syn::ExprMethodCall) {
        // `value.map(|x| ..)`: `x` is what `value` holds on success.
        if let Some(closure) = mapping_closure(node)
            && let Some(input) = closure.inputs.first()
        {
            self.pattern(input, Some(&node.receiver), &closure.body);
            self.visit_expr(&node.receiver);
            self.visit_expr(&closure.body);
            return;
        }
        syn::visit::visit_expr_method_call(self, node);
    }
    fn visit_expr_closure(&mut self, node: &'a syn::ExprClosure) {
        for input in &node.inputs {
            self.pattern(input, None, &node.body);
        }
        syn::visit::visit_expr_closure(self, node);
    }
    fn visit_expr_for_loop(&mut self, node: &'a syn::ExprForLoop) {
        self.pattern(&node.pat, None, &node.body);
        syn::visit::visit_expr_for_loop(self, node);
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The closure of `value.map(|x| ..)` (a method of [`SUCCESS_MAPPING`] given one closure of one
/// parameter).
fn mapping_closure(call: &syn::ExprMethodCall) -> Option<&syn::ExprClosure> {
    match call.args.first() {
        Some(Expr::Closure(closure))
            if call.args.len() == 1
                && closure.inputs.len() == 1
                && SUCCESS_MAPPING.contains(&call.method.to_string().as_str()) =>
        {
            Some(closure)
        }
        _ => None,
    }
}

/// The name a pattern binds to the whole value it matches, or to what that value holds on
/// success: `x`, `Ok(x)`, `Some(x)`.
fn success_binding(pat: &syn::Pat) -> Option<&syn::Ident> {
    match pat {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(&i.ident),
        syn::Pat::TupleStruct(t) => {
            let variant = t.path.segments.last().map(|s| s.ident.to_string());
            match t.elems.iter().collect::<Vec<_>>().as_slice() {
                [inner @ syn::Pat::Ident(_)] if matches!(variant.as_deref(), Some("Ok" | "Some")) => {
                    success_binding(inner)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// True (in `found`) when a pattern binds `name`.
struct Binds<'n> {
    name: &'n str,
    found: bool,
}

impl<'a> Visit<'a> for Binds<'_> {
    fn visit_pat_ident(&mut self, node: &'a syn::PatIdent) {
        if node.ident == self.name {
            self.found = true;
        }
        syn::visit::visit_pat_ident(self, node);
    }
}
