//! Route registrations: every `Router` built in the audited sources, followed through local
//! bindings, helper functions, `nest` (prefixes joined) and `merge`, down to `(method, path, handler)`.
//!
//! Each function is evaluated once into a `Value`, and again for each call that hands it a path
//! or a method router (a helper that adds one route per call). A router that no other router takes in
//! (`nest`, `merge`, a call whose result is used) is a root; the registrations of every root are
//! the service's routes.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use proc_macro2::TokenTree;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Block, Expr, Lit, Pat, Stmt};

use crate::index::{FnItem, Index, TypeDef, segments};
use crate::shapes::{
    API_ROUTE, API_ROUTE_WITH, API_ROUTER, FRAMEWORK_CRATES, MERGE, METHOD_ROUTER, NEST, NEST_API_SERVICE,
    NEST_SERVICE, OPENAPI_ROUTER, PATH_ROUTES, ROUTE, ROUTE_SERVICE, ROUTE_WITH_TSR, ROUTER, ROUTER_PASS_THROUGH,
    ROUTER_TYPES, ROUTING_METHODS, SERVICE_FALLBACKS, SERVICE_SETTINGS, SPLIT_FOR_PARTS, documentation_router,
    documented_method_of, known_service, method_of, service_method_of,
};
use crate::source::{ModuleId, test_only};

/// The handler of one registration, as written and as resolved.
#[derive(Clone)]
pub struct HandlerRef<'s> {
    /// The handler as written (`inventory::list`, `Self::list`, `|| async { .. }`).
    pub text: String,
    /// The function it names, when the audited sources define it.
    pub target: Option<FnItem<'s>>,
    /// A closure handler's body.
    pub closure: Option<&'s Expr>,
    /// Why the handler could not be resolved, and what would let the audit see it, when it could not.
    pub unresolved: Option<Unseen>,
    /// Why the audit cannot read the method or path of a handler it found (utoipa-axum's
    /// `routes!`): the registration is then at method `*` or an unread path, or at the path of
    /// its attribute where a document the audit does not read may serve it elsewhere, and the
    /// handler is classified as any other.
    pub route_unread: Option<String>,
    /// The known non-list service mounted in place of a handler ([`NON_LIST_SERVICES`](crate::shapes::NON_LIST_SERVICES)), when it is one.
    pub service: Option<&'static str>,
    /// True when registered through `completeness::routing`, which checks the response at compile time.
    pub checked: bool,
    /// The module the registration is written in.
    pub module: ModuleId,
    /// The type `Self` stands for where the registration is written.
    pub self_ty: Option<String>,
    /// The file and line of the registration.
    pub file: PathBuf,
    /// The line of the registration.
    pub line: usize,
}

/// One route and method.
#[derive(Clone)]
pub struct Registration<'s> {
    /// `GET`, `POST`, ...; `*` when the method router was built outside the audited code.
    pub method: String,
    /// The full path.
    pub path: String,
    /// The handler.
    pub handler: HandlerRef<'s>,
}

/// Why a registration's handler cannot be classified, and the change that lets the audit see it.
#[derive(Clone)]
pub struct Unseen {
    /// What stopped the audit.
    pub why: String,
    /// What to change, one of the `*_FIX` texts of this module.
    pub fix: &'static str,
}

/// The fix for a handler named by a path that leads out of the audited sources.
pub const NOT_OURS_FIX: &str = "audit the crate that defines it too (the workspace that holds both), or register it with \
                                `completeness::routing`, which checks the response at compile time";

/// The fix for a handler the audit cannot resolve: a function a macro defines, or a variable.
pub const UNRESOLVED_FIX: &str = "register a function the audited sources define by its name, not through a macro or \
                                  a variable, or register it with `completeness::routing`, which checks the response \
                                  at compile time";

/// The fix for a handler written as an expression the audit does not follow.
pub const EXPRESSION_FIX: &str =
    "register a function of the audited sources by its name, or a closure, in place of the expression";

/// The fix for a router (nested or merged) or method router the audit cannot follow.
pub const BUILT_ELSEWHERE_FIX: &str = "audit the crate that builds it too; if the audited sources build it, build it \
                                       in a function that returns it (`fn routes() -> Router`) and use that function's result";

/// The fix for a tower service mounted in place of a handler.
pub const SERVICE_FIX: &str = "check what the service answers; a handler of the audited sources mounted as one \
                               (`list.into_service()`) is audited";

/// The fix for routes a macro registers.
pub const MACRO_FIX: &str = "register its routes without the macro, or check what it registers";

/// The fix for `routes!(..)` whose handlers are not paths.
pub const ROUTES_MACRO_FIX: &str = "name the handlers of `routes!(..)` by their paths (`routes!(list, create)`)";

/// The path of a registration whose path is an expression the audit does not evaluate (a loop's
/// variable, a field, a macro): the expression in angle brackets (`<p>`, `<self.prefix>/users`,
/// `<name!>`). Not axum's syntax, where `{p}` is a path parameter.
pub fn unread_path(expr: &str) -> String {
    format!("<{expr}>")
}

/// The path of the unknown route that stands for the routes of a merged router the audit cannot
/// follow: they can be anywhere (`nest` joins its prefix to it, `/api/*`).
pub const MERGED_UNSEEN: &str = "/*";

/// The path a router's fallback is reported at: it answers the requests no route matches.
pub const FALLBACK_PATH: &str = "(fallback)";

/// What an expression evaluates to, as far as routing goes.
#[derive(Clone)]
enum Value<'s> {
    Router(Vec<Registration<'s>>),
    /// A method router: its methods, and whether one chained on it is checked (true for
    /// `completeness::routing::CheckedMethods`, false once it is axum's own `MethodRouter`).
    Methods(Vec<(String, HandlerRef<'s>)>, bool),
    /// A known non-list service ([`NON_LIST_SERVICES`](crate::shapes::NON_LIST_SERVICES)), bound to a local to be mounted.
    Service(&'static str),
    /// A string literal or constant: a path handed to a helper.
    Text(String),
    /// A closure, to be called (its body then read with its parameters bound) or registered as
    /// a handler by the name it is bound to.
    Closure(Rc<ClosureDef<'s>>),
    /// A handler handed to a helper's parameter (`list_route(list_orders)` into
    /// `fn list_route<H>(h: H) -> MethodRouter { get(h) }`), registered by the parameter's name.
    Handler(Box<HandlerRef<'s>>),
    /// utoipa-axum's `routes!(list, create)` bound to a local or returned by a function, before
    /// `OpenApiRouter::routes` takes it: its routes, each at its handler's `#[utoipa::path]`.
    Attributed(Vec<Registration<'s>>),
    Other,
}

/// A closure as written: its code, and the locals it sees, as they were where it was written
/// (it captures them there: a name bound again after it is another binding, and a closure that
/// calls one of the same name calls the one before it).
struct ClosureDef<'s> {
    expr: &'s syn::ExprClosure,
    captured: HashMap<String, (Value<'s>, bool)>,
}

/// The bindings of one function body (or of one call of a closure).
struct Frame<'s> {
    /// The function whose body this is: names its body declares or imports come first.
    fn_id: usize,
    module: ModuleId,
    self_ty: Option<String>,
    locals: HashMap<String, (Value<'s>, bool)>,
    returned: Option<Value<'s>>,
    /// True when the function's declared return type is a router: the value of a macro at the
    /// tail of its body is then used as one.
    returns_router: bool,
    /// The closures bound to its locals: one never called where the audit follows it (handed
    /// to a function it does not read) is read once at the end, for the routers it builds.
    closures: Vec<Rc<ClosureDef<'s>>>,
    /// In a closure's call, the locals that are still the caller's (captured, not bound again
    /// in the body): a router among them the body leaves is the caller's to serve, not its own.
    outer: HashSet<String>,
    /// Captured locals the body took in and then bound again: taken from the caller.
    taken_outer: HashSet<String>,
}

struct Eval<'i, 's> {
    index: &'i Index<'s>,
    memo: HashMap<usize, Value<'s>>,
    in_progress: HashSet<usize>,
    called: HashSet<usize>,
    /// The closures read so far (by their code), called or read at the end of their frame.
    closures_read: HashSet<*const syn::ExprClosure>,
    roots: Vec<Vec<Registration<'s>>>,
}

/// Every route registration reachable from a root router, deduplicated, in source order.
pub fn registrations<'s>(index: &Index<'s>) -> Vec<Registration<'s>> {
    let mut eval = Eval {
        index,
        memo: HashMap::new(),
        in_progress: HashSet::new(),
        called: HashSet::new(),
        closures_read: HashSet::new(),
        roots: Vec::new(),
    };
    for id in 0..index.fns().len() {
        eval.eval_fn(id);
    }
    let mut returned: Vec<(usize, Vec<Registration<'s>>)> = eval
        .memo
        .iter()
        .filter(|(id, _)| !eval.called.contains(id))
        .filter_map(|(id, value)| match value {
            Value::Router(routes) => Some((*id, routes.clone())),
            _ => None,
        })
        .collect();
    returned.sort_by_key(|(id, _)| *id);
    let mut all = eval.roots;
    all.extend(returned.into_iter().map(|(_, routes)| routes));
    let mut seen = HashSet::new();
    all.into_iter()
        .flatten()
        .filter(|r| {
            seen.insert((r.method.clone(), r.path.clone(), r.handler.text.clone(), handler_identity(&r.handler)))
        })
        .collect()
}

/// What tells apart two registrations of one method and path by handlers written alike (the
/// baseline key of a finding): the function a handler is, a closure by where its body is
/// written, and the module it is registered in. The same handler registered in both branches
/// of an `if` (`/metrics` served either way) is one route, listed once.
fn handler_identity(handler: &HandlerRef<'_>) -> (Option<usize>, Option<(usize, usize)>, ModuleId) {
    let closure = handler.closure.map(|body| {
        let start = body.span().start();
        (start.line, start.column)
    });
    (handler.target.as_ref().map(|f| f.id), closure, handler.module)
}

impl<'i, 's> Eval<'i, 's> {
    /// The value of function `id`, evaluated once without its arguments.
    fn eval_fn(&mut self, id: usize) -> Value<'s> {
        self.eval_fn_with(id, Vec::new())
    }

    /// The value of function `id` with `bound` parameters read as the values a call hands them
    /// (not kept: another call hands others); with none, evaluated once and kept.
    fn eval_fn_with(&mut self, id: usize, bound: Vec<(String, Value<'s>)>) -> Value<'s> {
        if bound.is_empty()
            && let Some(value) = self.memo.get(&id)
        {
            return value.clone();
        }
        let item = self.index.fns()[id].clone();
        // A trait method declared without a body builds nothing.
        let Some(block) = item.block else { return Value::Other };
        if !self.in_progress.insert(id) {
            return Value::Other;
        }
        let returns_router = self.returns_router(&item);
        let mut frame = Frame {
            fn_id: id,
            module: item.module,
            self_ty: item.self_ty.clone(),
            locals: bound.iter().map(|(name, value)| (name.clone(), (value.clone(), false))).collect(),
            returned: None,
            returns_router,
            closures: Vec::new(),
            outer: HashSet::new(),
            taken_outer: HashSet::new(),
        };
        let mut value = self.eval_block(block, &mut frame);
        self.read_uncalled_closures(&mut frame);
        // What any `return` hands back is served as well as the tail's value (`if admin {
        // return r.route(..); } r` serves either).
        if let Some(returned) = frame.returned.take() {
            value = union(returned, value);
        }
        let mut unconsumed: Vec<(String, Vec<Registration<'s>>)> = frame
            .locals
            .into_iter()
            .filter_map(|(name, (value, consumed))| match value {
                Value::Router(routes) if !consumed => Some((name, routes)),
                _ => None,
            })
            .collect();
        unconsumed.sort_by(|a, b| a.0.cmp(&b.0));
        self.roots.extend(unconsumed.into_iter().map(|(_, routes)| routes));
        self.in_progress.remove(&id);
        if bound.is_empty() {
            self.memo.insert(id, value.clone());
        }
        value
    }

    fn eval_block(&mut self, block: &'s Block, frame: &mut Frame<'s>) -> Value<'s> {
        let mut tail = Value::Other;
        let last = block.stmts.len().saturating_sub(1);
        for (i, stmt) in block.stmts.iter().enumerate() {
            // A statement only tests compile (`#[cfg(test)] let r = r.route(..);`) is not audited,
            // as a function or module only tests compile is not.
            if test_only(stmt_attrs(stmt)) {
                continue;
            }
            match stmt {
                Stmt::Local(local) => {
                    let Some(init) = &local.init else { continue };
                    match binding_name(&local.pat) {
                        // `let (router, api) = OpenApiRouter::new()..split_for_parts();`: the router
                        // comes first.
                        None if splits_for_parts(&init.expr)
                            && let Pat::Tuple(tuple) = &local.pat
                            && let Some(name) = tuple.elems.first().and_then(binding_name) =>
                        {
                            let value = self.eval(&init.expr, frame, true);
                            self.bind(frame, name, value);
                        }
                        Some(name) => {
                            let value = match self.non_list_service(&init.expr, frame) {
                                Some(service) => Value::Service(service),
                                None => self.eval(&init.expr, frame, true),
                            };
                            self.bind(frame, name, value);
                        }
                        None => match (self.eval(&init.expr, frame, false), method_router_binding(&local.pat)) {
                            // `let (schemas, paths, methods) = routes!(list);`: the third is the
                            // method router of its handlers, each at its attribute's method
                            // (placed at its attribute's path when handed back to `.routes(..)`).
                            (Value::Attributed(routes), Some(name)) => {
                                let methods = routes.into_iter().map(|r| (r.method, r.handler)).collect();
                                self.bind(frame, name, Value::Methods(methods, false));
                            }
                            // As [`Eval::eval_free`]: a router built here is served.
                            (Value::Router(routes), _) if !is_local(&init.expr, frame) => self.roots.push(routes),
                            _ => {}
                        },
                    }
                }
                Stmt::Expr(expr, semi) => {
                    if i == last && semi.is_none() {
                        tail = self.eval(expr, frame, true);
                    } else {
                        self.eval_free(expr, frame);
                    }
                }
                Stmt::Macro(m) => {
                    let tail_position = i == last && m.semi_token.is_none();
                    // A statement's value is dropped; a tail's is the router only where the
                    // function returns one (the tail of `main` is not).
                    let used_as_router = tail_position && frame.returns_router;
                    match self.eval_macro(&m.mac, frame, used_as_router) {
                        value if tail_position => tail = value,
                        Value::Router(routes) => self.roots.push(routes),
                        _ => {}
                    }
                }
                Stmt::Item(_) => {}
            }
        }
        tail
    }

    /// Binds the local `name` to `value`. A router the name held before and nothing took in
    /// is still served: handed to something the audit does not follow through
    /// (`let app = SomeLayer::new().layer(app);`), it is a root rather than lost to the new binding.
    fn bind(&mut self, frame: &mut Frame<'s>, name: String, value: Value<'s>) {
        if let Value::Closure(closure) = &value {
            frame.closures.push(closure.clone());
        }
        let outer = frame.outer.remove(&name);
        match frame.locals.insert(name.clone(), (value, false)) {
            // A captured local bound again in a closure's body: the caller's, taken or not.
            Some((_, true)) if outer => {
                frame.taken_outer.insert(name);
            }
            Some((Value::Router(routes), false)) if !outer => self.roots.push(routes),
            _ => {}
        }
    }

    /// True when `f` is declared to return a router (also through aliases of the sources).
    fn returns_router(&self, f: &FnItem<'s>) -> bool {
        matches!(&f.sig.output, syn::ReturnType::Type(_, ty) if self.names_router(f.module, ty, 0))
    }

    /// Evaluates an expression whose value is not kept: a router built there is a root.
    fn eval_free(&mut self, expr: &'s Expr, frame: &mut Frame<'s>) {
        let value = self.eval(expr, frame, false);
        match value {
            Value::Router(routes) if !is_local(expr, frame) => self.roots.push(routes),
            // A closure written here and handed on (to `tokio::spawn`, a builder the audit does
            // not read): a router its body builds is served.
            Value::Closure(closure) if matches!(underneath(expr), Expr::Closure(_)) => {
                if let Value::Router(routes) = self.call_closure(&closure, &[], frame, false) {
                    self.roots.push(routes);
                }
            }
            _ => {}
        }
    }

    /// `consuming`: the value moves into another router or binding, so a local read here is used up.
    fn eval(&mut self, expr: &'s Expr, frame: &mut Frame<'s>, consuming: bool) -> Value<'s> {
        match expr {
            Expr::Paren(e) => self.eval(&e.expr, frame, consuming),
            Expr::Group(e) => self.eval(&e.expr, frame, consuming),
            Expr::Reference(e) => self.eval(&e.expr, frame, consuming),
            Expr::Await(e) => self.eval(&e.base, frame, consuming),
            Expr::Try(e) => self.eval(&e.expr, frame, consuming),
            Expr::Path(p) => {
                let local = p.path.get_ident().and_then(|name| frame.locals.get_mut(&name.to_string()));
                match local {
                    Some((value, consumed)) => {
                        if consuming {
                            *consumed = true;
                        }
                        value.clone()
                    }
                    None => match self.index.string_const(frame.module, &segments(&p.path)) {
                        Some(text) => Value::Text(text.to_owned()),
                        None => Value::Other,
                    },
                }
            }
            Expr::Lit(syn::ExprLit { lit: Lit::Str(text), .. }) => Value::Text(text.value()),
            Expr::Call(call) => {
                let Expr::Path(func) = &*call.func else {
                    for arg in &call.args {
                        self.eval_free(arg, frame);
                    }
                    return Value::Other;
                };
                // A closure bound to a local, called (`let mount = |r: Router| r.route(..);
                // mount(Router::new()).merge(..)`): its body, with its parameters bound to the
                // arguments, as a function's is.
                if let Some(name) = func.path.get_ident()
                    && let Some((Value::Closure(closure), _)) = frame.locals.get(&name.to_string())
                {
                    let closure = closure.clone();
                    let args: Vec<&'s Expr> = call.args.iter().collect();
                    return self.call_closure(&closure, &args, frame, consuming);
                }
                let segs = self.index.written_in(frame.fn_id, segments(&func.path));
                // Compared by the names they have where they are defined (`use completeness::routing::get as cget;`).
                let absolute = self.index.absolute(frame.module, &segs);
                let last = absolute.last().map(String::as_str).unwrap_or_default();
                let owner = absolute.len().checked_sub(2).map(|i| absolute[i].as_str());
                if (last == "new" && matches!(owner, Some(ROUTER | API_ROUTER)))
                    || (matches!(last, "new" | "with_openapi") && owner == Some(OPENAPI_ROUTER))
                {
                    return Value::Router(Vec::new());
                }
                if last == "new" && owner == Some(METHOD_ROUTER) {
                    return Value::Methods(Vec::new(), false);
                }
                // A method of a router written as a function of its type, the router first
                // (`Router::route(router, "/x", get(x))`, `Router::<()>::nest(router, ..)`): the
                // method call it is.
                if matches!(owner, Some(ROUTER | API_ROUTER | OPENAPI_ROUTER | METHOD_ROUTER))
                    && last != "from"
                    && let Some((on, args)) = call.args.iter().collect::<Vec<_>>().split_first()
                {
                    return self.eval_method_of(on, last, args, frame, consuming);
                }
                // `Ok(router)` (a function returning `Result<Router, E>`, taken with `?`) and
                // `Some(router)` hold the router itself.
                if matches!(segs.as_slice(), [name] if name == "Ok" || name == "Some") && call.args.len() == 1 {
                    return self.eval(&call.args[0], frame, consuming);
                }
                // `MethodRouter::from(get(list))`: axum's own from here on.
                if last == "from" && owner == Some(METHOD_ROUTER) && call.args.len() == 1 {
                    return match self.eval(&call.args[0], frame, true) {
                        Value::Methods(list, _) => Value::Methods(list, false),
                        other => other,
                    };
                }
                let ours = self.index.is_ours(frame.module, &segs) || owner == Some("Self");
                if ours
                    && let Some(f) = self.index.find_fn_from(frame.fn_id, frame.module, frame.self_ty.as_deref(), &segs)
                {
                    // A router handed to a function declared to return one flows through it
                    // (`with_cors(app)`, `with_more(Router::new().route(..))`): its routes are part
                    // of the result, under the prefix of a `nest` the result goes to. A router
                    // handed to any other function is served, so it is a root rather than lost
                    // (its routes keep their own paths). A path or a method router handed to it is
                    // what its parameter holds for this call (`add_route(router, "/x", get(x))`);
                    // without one, the function is evaluated once, without its arguments.
                    let returns_router = self.returns_router(&f);
                    let params = param_names(f.sig);
                    let mut handed = Vec::new();
                    let mut bound = Vec::new();
                    for (i, arg) in call.args.iter().enumerate() {
                        match self.eval(arg, frame, returns_router) {
                            Value::Router(routes) if returns_router => handed.extend(routes),
                            Value::Router(routes) if !is_local(arg, frame) => self.roots.push(routes),
                            value @ (Value::Text(_) | Value::Methods(..)) => {
                                if let Some(Some(name)) = params.get(i) {
                                    bound.push((name.clone(), value));
                                }
                            }
                            // A function or closure handed to a parameter may be registered
                            // there as a handler.
                            _ => {
                                if let Some(Some(name)) = params.get(i)
                                    && matches!(arg, Expr::Path(_) | Expr::Closure(_))
                                {
                                    let handler = self.handler(arg, frame, false);
                                    if handler.target.is_some() || handler.closure.is_some() {
                                        bound.push((name.clone(), Value::Handler(Box::new(handler))));
                                    }
                                }
                            }
                        }
                    }
                    self.called.insert(f.id);
                    let value = self.eval_fn_with(f.id, bound);
                    return if handed.is_empty() { value } else { union(Value::Router(handed), value) };
                }
                let checked = absolute.first().is_some_and(|s| FRAMEWORK_CRATES.contains(&s.as_str()));
                if let Some(method) = method_of(last)
                    && call.args.len() == 1
                {
                    let handler = self.handler(&call.args[0], frame, checked);
                    return Value::Methods(vec![(method.to_owned(), handler)], checked);
                }
                // aide's `get_with(list, |op| ..)`: the handler, and its documentation.
                if let Some(method) = documented_method_of(last)
                    && call.args.len() == 2
                {
                    let handler = self.handler(&call.args[0], frame, false);
                    return Value::Methods(vec![(method.to_owned(), handler)], false);
                }
                // `get_service(ServeFile::new(..))`: a tower service for one method.
                if let Some(method) = service_method_of(last)
                    && call.args.len() == 1
                {
                    let handler = self.service(last, &call.args[0], frame);
                    return Value::Methods(vec![(method.to_owned(), handler)], false);
                }
                if last == "on" && call.args.len() == 2 {
                    let handler = self.handler(&call.args[1], frame, checked);
                    let methods = filter_methods(&call.args[0]).into_iter().map(|m| (m, handler.clone())).collect();
                    return Value::Methods(methods, false);
                }
                for arg in &call.args {
                    self.eval_free(arg, frame);
                }
                Value::Other
            }
            Expr::MethodCall(call) => self.eval_method(call, frame, consuming),
            Expr::Macro(m) => self.eval_macro(&m.mac, frame, consuming),
            Expr::Block(b) => self.eval_block(&b.block, frame),
            Expr::Async(b) => self.eval_block(&b.block, frame),
            Expr::Unsafe(b) => self.eval_block(&b.block, frame),
            // Read when it is called, or else at the end of its frame (bound to a local), or
            // where it is handed on ([`Eval::eval_free`]); bound to a local, it may be a handler.
            Expr::Closure(c) => {
                let read = names_read(c);
                let captured = frame.locals.iter().filter(|(name, _)| read.contains(*name));
                let captured = captured.map(|(name, binding)| (name.clone(), binding.clone())).collect();
                Value::Closure(Rc::new(ClosureDef { expr: c, captured }))
            }
            Expr::Assign(assign) => {
                if let Expr::Path(left) = &*assign.left
                    && let Some(name) = left.path.get_ident()
                {
                    let value = self.eval(&assign.right, frame, true);
                    self.bind(frame, name.to_string(), value);
                } else {
                    self.eval_free(&assign.right, frame);
                }
                Value::Other
            }
            Expr::Return(r) => {
                if let Some(e) = &r.expr {
                    let value = self.eval(e, frame, true);
                    if matches!(value, Value::Router(_)) {
                        frame.returned = Some(union(frame.returned.take().unwrap_or(Value::Other), value));
                    }
                }
                Value::Other
            }
            Expr::If(e) => {
                // A router a branch binds again (`app = Router::new().nest(&prefix, app)`) is
                // served as it was or as the branch left it: the condition is not known here.
                let routers_before: Vec<(String, Value<'s>)> = frame
                    .locals
                    .iter()
                    .filter(|(_, (value, _))| matches!(value, Value::Router(_)))
                    .map(|(name, (value, _))| (name.clone(), value.clone()))
                    .collect();
                let mut value = self.eval_block(&e.then_branch, frame);
                if let Some((_, other)) = &e.else_branch {
                    value = union(value, self.eval(other, frame, consuming));
                }
                for (name, before) in routers_before {
                    if let Some((after @ Value::Router(_), consumed)) = frame.locals.get_mut(&name)
                        && !same_routes(after, &before)
                    {
                        *after = union(before, std::mem::replace(after, Value::Other));
                        *consumed = false;
                    }
                }
                value
            }
            Expr::Match(m) => {
                let mut value = Value::Other;
                for arm in &m.arms {
                    value = union(value, self.eval(&arm.body, frame, consuming));
                }
                value
            }
            Expr::ForLoop(l) => {
                // `for r in routers { api = api.merge(r); }`: the loop's variable holds every
                // router of the collection, served where the body puts it (under the prefix of
                // the `nest` it goes to), and where nothing takes it in, at its own paths.
                let iterated = self.eval(&l.expr, frame, false);
                match (iterated, binding_name(&l.pat)) {
                    (routers @ Value::Router(_), Some(name)) => {
                        consume_local(&l.expr, frame);
                        self.bind(frame, name, routers);
                    }
                    (Value::Router(routes), None) if !is_local(&l.expr, frame) => self.roots.push(routes),
                    _ => {}
                }
                self.eval_block(&l.body, frame);
                Value::Other
            }
            Expr::While(l) => {
                self.eval_block(&l.body, frame);
                Value::Other
            }
            Expr::Loop(l) => {
                self.eval_block(&l.body, frame);
                Value::Other
            }
            // A router built inside a tuple, an array or a struct literal is held to be served
            // (`App { router: Router::new().route(..) }`), so it is a root rather than lost.
            Expr::Tuple(t) => {
                for e in &t.elems {
                    self.eval_free(e, frame);
                }
                Value::Other
            }
            Expr::Array(a) => self.routers_array(a, frame),
            Expr::Struct(s) => {
                for field in &s.fields {
                    self.eval_free(&field.expr, frame);
                }
                if let Some(rest) = &s.rest {
                    self.eval_free(rest, frame);
                }
                Value::Other
            }
            // `OpenApiRouter::new()..split_for_parts().0`: the router.
            Expr::Field(f)
                if splits_for_parts(&f.base) && matches!(&f.member, syn::Member::Unnamed(i) if i.index == 0) =>
            {
                self.eval(&f.base, frame, consuming)
            }
            _ => Value::Other,
        }
    }

    /// The value of a call to `closure` with `args` (evaluated first, all of them, in the
    /// caller's `frame`): its body read in a frame of its own, of the locals it captured and its
    /// parameters bound to the arguments. A router the body builds and nothing takes in (its own
    /// local, or a parameter it drops) is served; a captured router the body takes in is taken
    /// from the caller too (`move |r: Router| r.merge(api)`), so it is not served twice.
    fn call_closure(
        &mut self,
        closure: &ClosureDef<'s>,
        args: &[&'s Expr],
        frame: &mut Frame<'s>,
        consuming: bool,
    ) -> Value<'s> {
        self.closures_read.insert(std::ptr::from_ref(closure.expr));
        let values: Vec<Value<'s>> = args.iter().map(|arg| self.eval(arg, frame, true)).collect();
        let mut body = Frame {
            fn_id: frame.fn_id,
            module: frame.module,
            self_ty: frame.self_ty.clone(),
            locals: closure.captured.clone(),
            returned: None,
            returns_router: false,
            closures: Vec::new(),
            outer: closure.captured.keys().cloned().collect(),
            taken_outer: HashSet::new(),
        };
        for (param, value) in closure.expr.inputs.iter().zip(values) {
            match binding_name(param) {
                Some(name) => {
                    body.outer.remove(&name);
                    body.locals.insert(name, (value, false));
                }
                // A pattern the audit does not read (`|(a, b)|`): what it was handed is served.
                None => {
                    if let Value::Router(routes) = value {
                        self.roots.push(routes);
                    }
                }
            }
        }
        let mut value = self.eval(&closure.expr.body, &mut body, consuming);
        if let Some(returned) = body.returned.take() {
            value = union(returned, value);
        }
        self.read_uncalled_closures(&mut body);
        // What the body took in of the caller's, the caller no longer holds; what the body built
        // and left, nothing else serves.
        let mut names: Vec<&String> = body.locals.keys().collect();
        names.sort();
        for name in names {
            let (after, consumed) = &body.locals[name];
            if !body.outer.contains(name) {
                if let (Value::Router(routes), false) = (after, consumed) {
                    self.roots.push(routes.clone());
                }
            } else if *consumed {
                take_from_caller(frame, closure, name);
            }
        }
        for name in &body.taken_outer {
            take_from_caller(frame, closure, name);
        }
        value
    }

    /// Reads the closures bound in `frame` that no call read, for the routers they build
    /// (served at their own paths: where the closure goes is not followed).
    fn read_uncalled_closures(&mut self, frame: &mut Frame<'s>) {
        for closure in std::mem::take(&mut frame.closures) {
            if !self.closures_read.contains(&std::ptr::from_ref(closure.expr))
                && let Value::Router(routes) = self.call_closure(&closure, &[], frame, false)
            {
                self.roots.push(routes);
            }
        }
    }

    /// An array: one router of all the routes of its elements when each is a router
    /// (`[users::routes(), orders::routes()]`), served where the collection goes (merged by
    /// `fold` or a `for` loop, nested under a prefix) rather than at paths without that prefix.
    /// An array of other values holds its routers to be served, each a root at its own paths, as
    /// a tuple's are.
    fn routers_array(&mut self, array: &'s syn::ExprArray, frame: &mut Frame<'s>) -> Value<'s> {
        let values: Vec<Value<'s>> = array.elems.iter().map(|e| self.eval(e, frame, false)).collect();
        if !values.is_empty() && values.iter().all(|value| matches!(value, Value::Router(_))) {
            for e in &array.elems {
                consume_local(e, frame);
            }
            return values.into_iter().fold(Value::Other, union);
        }
        for (e, value) in array.elems.iter().zip(values) {
            if let Value::Router(routes) = value
                && !is_local(e, frame)
            {
                self.roots.push(routes);
            }
        }
        Value::Other
    }

    /// `vec![users::routes(), orders::routes()]`, as [`Eval::routers_array`] reads an array:
    /// one router of all their routes, when every element is a local router or a call without
    /// arguments of a function of the audited sources declared to return one. `None` for any
    /// other `vec!` (its tokens are read as any macro's, nothing evaluated).
    fn routers_vec(&mut self, mac: &syn::Macro, frame: &mut Frame<'s>) -> Option<Value<'s>> {
        if !mac.path.is_ident("vec") {
            return None;
        }
        let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
        let elems = syn::parse::Parser::parse2(parser, mac.tokens.clone()).ok()?;
        let mut locals = Vec::new();
        let mut fns = Vec::new();
        for e in &elems {
            match e {
                Expr::Path(p) => {
                    let name = p.path.get_ident()?.to_string();
                    if !matches!(frame.locals.get(&name), Some((Value::Router(_), _))) {
                        return None;
                    }
                    locals.push(name);
                }
                Expr::Call(call) if call.args.is_empty() => {
                    let Expr::Path(func) = &*call.func else { return None };
                    let segs = self.index.written_in(frame.fn_id, segments(&func.path));
                    let f = self.index.find_fn_from(frame.fn_id, frame.module, frame.self_ty.as_deref(), &segs)?;
                    if !self.returns_router(&f) {
                        return None;
                    }
                    fns.push(f.id);
                }
                _ => return None,
            }
        }
        if elems.is_empty() {
            return None;
        }
        let mut routes = Vec::new();
        for name in locals {
            if let Some((Value::Router(held), consumed)) = frame.locals.get_mut(&name) {
                routes.extend(held.iter().cloned());
                *consumed = true;
            }
        }
        for id in fns {
            self.called.insert(id);
            if let Value::Router(built) = self.eval_fn(id) {
                routes.extend(built);
            }
        }
        Some(Value::Router(routes))
    }

    /// The value of a method call. Its routing arms match on the constants of
    /// [`ROUTING_METHODS`], one arm for each, so a new routing method is added there.
    fn eval_method(&mut self, call: &'s syn::ExprMethodCall, frame: &mut Frame<'s>, consuming: bool) -> Value<'s> {
        let args: Vec<&'s Expr> = call.args.iter().collect();
        self.eval_method_of(&call.receiver, &call.method.to_string(), &args, frame, consuming)
    }

    /// Method `name` of the value `on` called with `args`, written as a method call
    /// (`router.route(..)`) or as a function of its type (`Router::route(router, ..)`).
    fn eval_method_of(
        &mut self,
        on: &'s Expr,
        name: &str,
        args: &[&'s Expr],
        frame: &mut Frame<'s>,
        consuming: bool,
    ) -> Value<'s> {
        match (name, args) {
            (ROUTE | ROUTE_WITH_TSR | API_ROUTE, [path, methods]) | (API_ROUTE_WITH, [path, methods, _]) => {
                let mut routes = self.router(on, frame);
                let path = self.path_text(path, frame);
                match self.eval(methods, frame, true) {
                    Value::Methods(list, _) => routes.extend(list.into_iter().map(|(method, handler)| Registration {
                        method,
                        path: path.clone(),
                        handler,
                    })),
                    _ => {
                        let handler = self.opaque_handler(
                            methods,
                            frame,
                            "the method router is built outside the audited code",
                            BUILT_ELSEWHERE_FIX,
                        );
                        routes.push(Registration { method: "*".to_owned(), path, handler });
                    }
                }
                Value::Router(routes)
            }
            // utoipa-axum's `.routes(routes!(list, create))`.
            (PATH_ROUTES, [Expr::Macro(m)]) => {
                let mut routes = self.router(on, frame);
                routes.extend(self.path_attributed(&m.mac, frame));
                Value::Router(routes)
            }
            // `.routes((schemas, paths, get(list).into()))`, `.routes(items)`: on a router, or
            // handed what only utoipa-axum's `routes` takes, whatever the audit reads of it
            // ([`Eval::handed_routes`]); any other type's `routes(..)` is any other method.
            (PATH_ROUTES, [routed]) => {
                let receiver = self.eval(on, frame, true);
                if matches!(receiver, Value::Router(_))
                    || self.router_param(on, frame)
                    || self.utoipa_shaped(routed, frame)
                {
                    let mut routes = match receiver {
                        Value::Router(routes) => routes,
                        _ => Vec::new(),
                    };
                    routes.extend(self.handed_routes(routed, frame));
                    return Value::Router(routes);
                }
                // Handed a `routes!(..)` a function returns (`returned_routes()`): its routes are
                // served whatever the receiver (another crate's `OpenApiRouter`), as a router the
                // audit cannot follow with one it can nested in it is. Anything else is handed
                // to any other method: a router built here is served at its own paths.
                match self.eval(routed, frame, false) {
                    Value::Attributed(routes) => return Value::Router(routes),
                    Value::Router(routes) if !is_local(routed, frame) => self.roots.push(routes),
                    _ => {}
                }
                self.other_method(receiver, on, name, &[], frame)
            }
            (NEST | NEST_API_SERVICE, [prefix, inner]) => {
                let receiver = self.eval(on, frame, true);
                let nested = self.eval(inner, frame, true);
                let mut routes = match receiver {
                    Value::Router(routes) => routes,
                    // Neither side is a router the audit knows: another type's `nest` (utoipa's
                    // `OpenApi::nest(path, api)` merges documents), not a route; unless the
                    // receiver is a parameter declared a router (`fn mount(r: Router) -> Router`).
                    _ if !matches!(nested, Value::Router(_)) && !self.router_param(on, frame) => {
                        return Value::Other;
                    }
                    // A router the audit cannot follow, with one it can nested in it.
                    _ => Vec::new(),
                };
                let prefix = self.path_text(prefix, frame);
                match nested {
                    Value::Router(nested) => {
                        routes.extend(nested.into_iter().map(|r| Registration { path: join(&prefix, &r.path), ..r }))
                    }
                    // Its routes are served under the prefix, whatever they are: say so, rather than
                    // leave the prefix out.
                    _ => {
                        let why =
                            format!("the router `{}` nested here is built where the audit cannot follow", text(*inner));
                        let handler = self.opaque_handler(inner, frame, &why, BUILT_ELSEWHERE_FIX);
                        routes.push(Registration { method: "*".to_owned(), path: prefix, handler });
                    }
                }
                Value::Router(routes)
            }
            (MERGE, [merged]) => {
                let receiver = self.eval(on, frame, true);
                let other = self.eval(merged, frame, true);
                match (receiver, other) {
                    (Value::Methods(mut a, chain), Value::Methods(b, _)) => {
                        a.extend(b);
                        Value::Methods(a, chain)
                    }
                    // Its methods are served at the route's path, whatever they are: say so.
                    (Value::Methods(mut a, chain), _) => {
                        let why = format!(
                            "the method router `{}` merged here is built where the audit cannot follow",
                            text(*merged)
                        );
                        a.push(("*".to_owned(), self.opaque_handler(merged, frame, &why, BUILT_ELSEWHERE_FIX)));
                        Value::Methods(a, chain)
                    }
                    (Value::Router(mut a), Value::Router(b)) => {
                        a.extend(b);
                        Value::Router(a)
                    }
                    // Its routes are served beside the others, at paths the audit cannot see: one
                    // unknown route at `/*` (under the prefix of a `nest`) says so, rather than
                    // leaving them out.
                    (Value::Router(mut a), _) => {
                        let why = format!(
                            "the router `{}` merged here is built where the audit cannot follow",
                            text(*merged)
                        );
                        let handler = match self.documentation(merged, frame) {
                            Some(router) => HandlerRef {
                                unresolved: None,
                                service: Some(router),
                                ..self.opaque_handler(merged, frame, "", BUILT_ELSEWHERE_FIX)
                            },
                            None => self.opaque_handler(merged, frame, &why, BUILT_ELSEWHERE_FIX),
                        };
                        a.push(Registration { method: "*".to_owned(), path: MERGED_UNSEEN.to_owned(), handler });
                        Value::Router(a)
                    }
                    (Value::Other, Value::Router(b)) => Value::Router(b),
                    (a, _) => a,
                }
            }
            ("on", [filter, handler]) => match self.eval(on, frame, true) {
                Value::Methods(mut list, chain) => {
                    let handler = self.handler(handler, frame, false);
                    list.extend(filter_methods(filter).into_iter().map(|m| (m, handler.clone())));
                    Value::Methods(list, chain)
                }
                other => other,
            },
            // Chained on `completeness::routing`'s `CheckedMethods`, the method is checked like
            // the first; on axum's own `MethodRouter` nothing about it is.
            (method, [handler]) if method_of(method).is_some() => {
                self.chained(on, method_of(method), frame, |eval, frame, chain| eval.handler(handler, frame, chain))
            }
            // aide's `.post_with(create, |op| ..)`: one more method, with its documentation.
            (method, [handler, _]) if documented_method_of(method).is_some() => {
                self.chained(on, documented_method_of(method), frame, |eval, frame, _| {
                    eval.handler(handler, frame, false)
                })
            }
            // `.post_service(..)`: a tower service for one more method.
            (method, [service]) if service_method_of(method).is_some() => {
                self.chained(on, service_method_of(method), frame, |eval, frame, _| {
                    eval.service(method, service, frame)
                })
            }
            // `.into()` hands a `CheckedMethods` to `Router::route` as axum's own method router.
            ("into", []) => match self.eval(on, frame, consuming) {
                Value::Methods(list, _) => Value::Methods(list, false),
                other => other,
            },
            // A fallback answers the requests no route matches: its handler is reported as a route
            // of its own, at [`FALLBACK_PATH`] (under the prefix of a `nest`).
            ("fallback", [handler]) => {
                let receiver = self.eval(on, frame, consuming);
                let handler = self.handler(handler, frame, false);
                match receiver {
                    Value::Router(mut routes) => {
                        routes.push(fallback_route(handler));
                        Value::Router(routes)
                    }
                    // A method router's fallback answers the methods it has no handler for.
                    Value::Methods(mut list, chain) => {
                        list.push(("*".to_owned(), handler));
                        Value::Methods(list, chain)
                    }
                    other => other,
                }
            }
            // A router as the fallback service serves its routes as they are; any other service
            // is reported at [`FALLBACK_PATH`], as a service mounted with `route_service` is.
            ("fallback_service", [service]) => match self.eval(on, frame, consuming) {
                Value::Router(mut routes) => {
                    match self.eval(service, frame, true) {
                        Value::Router(served) => routes.extend(served),
                        _ => routes.push(fallback_route(self.service(name, service, frame))),
                    }
                    Value::Router(routes)
                }
                other => {
                    self.eval_free(service, frame);
                    other
                }
            },
            (method, _) if ROUTER_PASS_THROUGH.contains(&method) || method == "clone" => {
                for arg in args {
                    self.eval(arg, frame, false);
                }
                self.eval(on, frame, consuming)
            }
            // `routers.into_iter().fold(Router::new(), |acc, r| acc.merge(r))` over a collection
            // of routers: its routers and the first value's, merged.
            ("fold", [init, merge]) => match self.eval(on, frame, consuming) {
                routers @ Value::Router(_) => {
                    let init = self.eval(init, frame, true);
                    self.eval_free(merge, frame);
                    union(routers, init)
                }
                other => self.other_method(other, on, name, args, frame),
            },
            // `routers.push(users::routes())` on a local: the router is one more of the
            // collection, served where it goes.
            ("push", [pushed]) if is_local(on, frame) => {
                let Value::Router(routes) = self.eval(pushed, frame, true) else { return Value::Other };
                let name = match on {
                    Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                    _ => None,
                };
                if let Some((value, consumed)) = name.and_then(|name| frame.locals.get_mut(&name)) {
                    match value {
                        Value::Router(held) => held.extend(routes),
                        // A collection built empty (`Vec::new()`) holds routers from here on.
                        _ => *value = Value::Router(routes),
                    }
                    *consumed = false;
                }
                Value::Other
            }
            // A tower service mounted on the router: its responses are not a handler's to read,
            // unless it is a handler turned into a service (`list.into_service()`).
            (ROUTE_SERVICE | NEST_SERVICE, [path, service]) => {
                let mut routes = self.router(on, frame);
                let path = self.path_text(path, frame);
                let handler = self.service(name, service, frame);
                routes.push(Registration { method: "*".to_owned(), path, handler });
                Value::Router(routes)
            }
            _ => {
                let receiver = self.eval(on, frame, consuming);
                self.other_method(receiver, on, name, args, frame)
            }
        }
    }

    /// Method `name`, which the audit does not know, called with `args` on `on`, whose value is
    /// `receiver`. On a router or method router (an extension trait's `.with_tracing()`,
    /// `.boxed()`), the routes it was given are still served. A handler handed to it
    /// (axum-extra's `.typed_get(list)`) is served somewhere: it keeps its verdict, at a method
    /// and path the audit does not read, rather than being left out.
    fn other_method(
        &mut self,
        mut receiver: Value<'s>,
        on: &'s Expr,
        name: &str,
        args: &[&'s Expr],
        frame: &mut Frame<'s>,
    ) -> Value<'s> {
        for arg in args {
            if let Value::Router(routes) = &mut receiver
                && self.is_handler(arg, frame)
            {
                let handler = HandlerRef {
                    route_unread: Some(format!("handed to `.{name}(..)`, which the audit does not read")),
                    ..self.handler(arg, frame, false)
                };
                routes.push(Registration { method: "*".to_owned(), path: MERGED_UNSEEN.to_owned(), handler });
                continue;
            }
            self.eval_free(arg, frame);
        }
        match receiver {
            kept @ (Value::Router(_) | Value::Methods(..)) => kept,
            // A method of the audited sources that builds a router (`orders.routes()`).
            Value::Other
            | Value::Service(_)
            | Value::Text(_)
            | Value::Closure(_)
            | Value::Handler(_)
            | Value::Attributed(_) => self.method_router(on, name, frame),
        }
    }

    /// True when `routed`, handed to `.routes(..)`, is what only utoipa-axum's
    /// `OpenApiRouter::routes` takes: a tuple of three (schemas, paths and a method router), or
    /// a local bound to a `routes!(..)`.
    fn utoipa_shaped(&self, routed: &Expr, frame: &Frame<'s>) -> bool {
        match routed {
            Expr::Paren(e) => self.utoipa_shaped(&e.expr, frame),
            Expr::Tuple(t) => t.elems.len() == 3,
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|name| matches!(frame.locals.get(&name.to_string()), Some((Value::Attributed(_), _)))),
            _ => false,
        }
    }

    /// The routes of `routed`, handed to utoipa-axum's `OpenApiRouter::routes` as something
    /// other than a literal `routes!(..)` (rules 4 to 6 of [`Eval::path_attributed`]).
    fn handed_routes(&mut self, routed: &'s Expr, frame: &mut Frame<'s>) -> Vec<Registration<'s>> {
        match routed {
            Expr::Paren(e) => return self.handed_routes(&e.expr, frame),
            Expr::Group(e) => return self.handed_routes(&e.expr, frame),
            Expr::Macro(m) => return self.path_attributed(&m.mac, frame),
            // Rule 4: the method router is the third; its document, the first two, is not read.
            Expr::Tuple(t) if t.elems.len() == 3 => {
                if let Value::Methods(list, _) = self.eval(&t.elems[2], frame, true) {
                    return self.at_documented_paths(list);
                }
            }
            // Rule 5; a router handed in (another crate's extension method) is served, as it
            // was when the audit did not read `.routes(..)`.
            _ => match self.eval(routed, frame, true) {
                Value::Attributed(routes) | Value::Router(routes) => return routes,
                _ => {}
            },
        }
        // Rule 6.
        let why =
            format!("the routes `{}` handed to `.routes(..)` are built where the audit cannot follow", text(routed));
        let handler = self.opaque_handler(routed, frame, &why, BUILT_ELSEWHERE_FIX);
        vec![Registration { method: "*".to_owned(), path: MERGED_UNSEEN.to_owned(), handler }]
    }

    /// The registrations of the method router `list`, handed to `OpenApiRouter::routes` beside
    /// a document (rule 4 of [`Eval::path_attributed`]): each handler at the path of its
    /// `#[utoipa::path(..)]` ([`Eval::at_documented_path`]). utoipa-axum serves every handler of
    /// the method router at every path of that document, which the audit does not read: it is
    /// taken to be their attributes' only when they agree with it. When the handlers' attributes
    /// name different paths, or one names a method other than the one the router gives it
    /// (`get(list)` beside `#[utoipa::path(post, ..)]`), each handler keeps its verdict, its route
    /// not read.
    fn at_documented_paths(&self, list: Vec<(String, HandlerRef<'s>)>) -> Vec<Registration<'s>> {
        let routed: Vec<(String, HandlerRef<'s>, Option<AttributedRoute>)> = list
            .into_iter()
            .map(|(method, handler)| {
                let route = self.attributed_route(&handler);
                (method, handler, route)
            })
            .collect();
        let paths: HashSet<&str> =
            routed.iter().filter_map(|(_, _, route)| route.as_ref()).map(|r| r.path.as_str()).collect();
        let other_method = routed.iter().find(|(method, _, route)| {
            let concrete = |m: &str| m != "*" && m != "ANY";
            concrete(method) && route.as_ref().is_some_and(|r| r.methods.iter().all(|m| concrete(m) && m != method))
        });
        let disagreement = if paths.len() > 1 {
            Some("their `#[utoipa::path(..)]` attributes name different paths".to_owned())
        } else {
            other_method.map(|(method, handler, _)| {
                format!(
                    "the `#[utoipa::path(..)]` attribute of `{}` names a method other than `{method}`, which the \
                     method router gives it",
                    handler.text
                )
            })
        };
        routed
            .into_iter()
            .map(|(method, handler, route)| {
                let mut registration = self.at_documented_path(method, handler, route);
                let handler = &mut registration.handler;
                if let Some(disagreement) = &disagreement
                    && handler.unresolved.is_none()
                    && handler.route_unread.is_none()
                {
                    handler.route_unread = Some(format!(
                        "the method router's handlers are served at the paths of the document handed with them to \
                         `.routes(..)`, which the audit does not read, and {disagreement}"
                    ));
                }
                registration
            })
            .collect()
    }

    /// The route the `#[utoipa::path(..)]` of `handler` gives it, when it is a function of the
    /// audited sources with that attribute.
    fn attributed_route(&self, handler: &HandlerRef<'s>) -> Option<AttributedRoute> {
        let f = handler.target.as_ref()?;
        utoipa_path_attr(f.attrs)?;
        Some(utoipa_route(f.attrs, |value| self.string_value(f.module, value)))
    }

    /// The registration of `handler` for `method`, from a method router handed to
    /// `OpenApiRouter::routes` beside the handler's document: served at the path of the
    /// handler's `#[utoipa::path(..)]` (the document's), its `route`, at the method the router
    /// gives it.
    fn at_documented_path(
        &self,
        method: String,
        mut handler: HandlerRef<'s>,
        route: Option<AttributedRoute>,
    ) -> Registration<'s> {
        let path = match route {
            Some(route) if route.path_read => route.path,
            Some(route) => {
                handler.route_unread = Some(format!(
                    "`{}` is routed by `.routes(..)` at the path of its `#[utoipa::path(..)]` attribute, which \
                     the audit cannot read",
                    handler.text
                ));
                route.path
            }
            // No attribute, or no function of the audited sources (unknown already).
            None => {
                if handler.unresolved.is_none() {
                    handler.route_unread = Some(
                        "routed by `.routes(..)` at the path of its OpenAPI document, which the audit reads only \
                         from a handler's `#[utoipa::path(..)]` attribute"
                            .to_owned(),
                    );
                }
                MERGED_UNSEEN.to_owned()
            }
        };
        Registration { method, path, handler }
    }

    /// The method router `receiver` with one more `method`, whose handler `handler` makes, told
    /// whether the chain is checked; any other value as it is.
    fn chained(
        &mut self,
        receiver: &'s Expr,
        method: Option<&str>,
        frame: &mut Frame<'s>,
        handler: impl FnOnce(&mut Self, &Frame<'s>, bool) -> HandlerRef<'s>,
    ) -> Value<'s> {
        match self.eval(receiver, frame, true) {
            Value::Methods(mut list, chain) => {
                let handler = handler(self, frame, chain);
                list.push((method.unwrap_or("*").to_owned(), handler));
                Value::Methods(list, chain)
            }
            other => other,
        }
    }

    /// A macro invocation. The audit does not expand macros, so one that calls a routing method
    /// in its tokens (`.route(`, `Router::`), or is handed a router and gives a value `used` as a
    /// router (`list_route!(r, "/widgets", list)` as the value of a function returning a router),
    /// is an unknown route that says so, with the routes of the routers it was handed. Any other
    /// macro is no router, also one that only mentions a router (`tracing::info!(?app)`,
    /// `tokio::select! { _ = axum::serve(listener, app) => {} }`): the router keeps its routes.
    fn eval_macro(&mut self, mac: &'s syn::Macro, frame: &mut Frame<'s>, used: bool) -> Value<'s> {
        if let Some(routers) = self.routers_vec(mac, frame) {
            return routers;
        }
        let mut tokens = MacroTokens::default();
        tokens.read(mac.tokens.clone());
        // utoipa-axum's `routes!(list, create)` bound or returned before `.routes(..)` takes it:
        // handlers by their paths, none of them a local (a router handed to a macro of that name).
        if mac.path.segments.last().is_some_and(|s| s.ident == PATH_ROUTES)
            && !tokens.builds_routes
            && !tokens.idents.iter().any(|ident| frame.locals.contains_key(ident))
            && !routes_macro_handlers(mac).is_empty()
        {
            return Value::Attributed(self.path_attributed(mac, frame));
        }
        let routers: Vec<String> = tokens
            .idents
            .iter()
            .filter(|i| matches!(frame.locals.get(*i), Some((Value::Router(_), _))))
            .cloned()
            .collect();
        if !tokens.builds_routes && (routers.is_empty() || !used) {
            return Value::Other;
        }
        let mut routes = Vec::new();
        for name in routers {
            if let Some((Value::Router(handed), consumed)) = frame.locals.get_mut(&name) {
                routes.extend(handed.iter().cloned());
                *consumed |= used;
            }
        }
        let name = text(&mac.path);
        let why = format!(
            "routes built by the macro `{name}!` are not expanded by the audit: check what it registers, or register \
             its routes without the macro"
        );
        let module = &self.index.sources.modules[frame.module];
        let handler = HandlerRef {
            text: format!("{name}!(..)"),
            target: None,
            closure: None,
            unresolved: Some(Unseen { why, fix: MACRO_FIX }),
            route_unread: None,
            service: None,
            checked: false,
            module: frame.module,
            self_ty: frame.self_ty.clone(),
            file: module.file.clone(),
            line: mac.path.span().start().line,
        };
        let path =
            tokens.strings.into_iter().find(|p| p.starts_with('/')).unwrap_or_else(|| unread_path(&format!("{name}!")));
        routes.push(Registration { method: "*".to_owned(), path, handler });
        Value::Router(routes)
    }

    /// True when the type `ty`, written in `module`, names a router (`Router<S>`, `MethodRouter`,
    /// `Result<Router, E>`), also through aliases of the audited sources; `depth` stops at
    /// aliases that name each other.
    fn names_router(&self, module: ModuleId, ty: &syn::Type, depth: usize) -> bool {
        if depth > 8 {
            return false;
        }
        let mut tokens = MacroTokens::default();
        tokens.read(ty.to_token_stream());
        tokens.idents.iter().any(|ident| {
            ROUTER_TYPES.contains(&ident.as_str())
                || matches!(self.index.find_type(module, std::slice::from_ref(ident)),
                    Some(found) if matches!(found.def, TypeDef::Alias(alias) if self.names_router(found.module, &alias.ty, depth + 1)))
        })
    }

    /// The router the method `name` of the audited sources returns, called on `receiver`: a
    /// method of `Self` for `self.name()`, otherwise the one method of that name in the target.
    fn method_router(&mut self, receiver: &Expr, name: &str, frame: &Frame<'s>) -> Value<'s> {
        let on_self = matches!(receiver, Expr::Path(p) if p.path.is_ident("self"));
        let self_ty = if on_self { frame.self_ty.as_deref() } else { None };
        let Some(method) = self.index.find_method(frame.module, self_ty, name) else { return Value::Other };
        match self.eval_fn(method.id) {
            Value::Router(routes) => {
                self.called.insert(method.id);
                Value::Router(routes)
            }
            _ => Value::Other,
        }
    }

    /// True when `expr` is a parameter of the function `frame` evaluates whose declared type
    /// names a router.
    fn router_param(&self, expr: &Expr, frame: &Frame<'s>) -> bool {
        let Expr::Path(p) = expr else { return false };
        let Some(name) = p.path.get_ident() else { return false };
        let f = &self.index.fns()[frame.fn_id];
        f.sig.inputs.iter().any(|input| match input {
            syn::FnArg::Typed(typed) => {
                binding_name(&typed.pat).as_deref() == Some(name.to_string().as_str())
                    && self.names_router(f.module, &typed.ty, 0)
            }
            syn::FnArg::Receiver(_) => false,
        })
    }

    /// The receiver of `.route`/`.nest` as a router; an expression the audit cannot follow starts empty.
    fn router(&mut self, receiver: &'s Expr, frame: &mut Frame<'s>) -> Vec<Registration<'s>> {
        match self.eval(receiver, frame, true) {
            Value::Router(routes) => routes,
            _ => Vec::new(),
        }
    }

    /// The path `expr` gives a registration: a local holding a path handed to a helper, a
    /// string literal or constant ([`string_value`](Self::string_value)), or else the
    /// expression as an [`unread_path`].
    fn path_text(&self, expr: &Expr, frame: &Frame<'s>) -> String {
        if let Expr::Path(p) = expr
            && let Some(name) = p.path.get_ident()
            && let Some((Value::Text(path), _)) = frame.locals.get(&name.to_string())
        {
            return path.clone();
        }
        if let Expr::Reference(r) = expr {
            return self.path_text(&r.expr, frame);
        }
        self.string_value(frame.module, expr).unwrap_or_else(|| unread_path(&text(expr)))
    }

    /// The text of `expr`, written in `module`, when it is a string literal or names a string
    /// constant of the audited sources (`const ORDERS: &str = "/orders";`).
    fn string_value(&self, module: ModuleId, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
            Expr::Path(p) => self.index.string_const(module, &segments(&p.path)).map(str::to_owned),
            Expr::Reference(r) => self.string_value(module, &r.expr),
            Expr::Paren(e) => self.string_value(module, &e.expr),
            Expr::Group(e) => self.string_value(module, &e.expr),
            _ => None,
        }
    }

    /// True when `expr` is a handler: a closure whose body is async (`|..| async move {..}`), one
    /// bound to a local or handed to a parameter, or an `async fn` of the audited sources by its
    /// path (with `.layer(..)` and the like). A plain closure is no handler (aide's
    /// `.with_path_items(|item| item.tag(..))` documents routes).
    fn is_handler(&self, expr: &'s Expr, frame: &Frame<'s>) -> bool {
        match underneath(expr) {
            Expr::Closure(closure) => closure.asyncness.is_some() || matches!(&*closure.body, Expr::Async(_)),
            Expr::Path(p) => {
                let local = p.path.get_ident().and_then(|name| frame.locals.get(&name.to_string()));
                match local {
                    Some((value, _)) => matches!(value, Value::Closure(_) | Value::Handler(_)),
                    None => self.fn_named(&p.path, frame).is_some_and(|f| f.sig.asyncness.is_some()),
                }
            }
            _ => false,
        }
    }

    /// Why the handler `path` (written `text` in `frame`'s function) is not found: a path into
    /// another crate names a function the audit does not read ([`not_ours`]); any other name is
    /// one the audited sources hold but the audit cannot resolve ([`unresolved`]).
    fn unfound(&self, path: &syn::Path, text: &str, frame: &Frame<'s>) -> Unseen {
        let segs = self.index.written_in(frame.fn_id, segments(path));
        if self.index.is_external(frame.module, &segs) { not_ours(text) } else { unresolved(text) }
    }

    /// The function of the audited sources `path`, written in `frame`'s function, names.
    fn fn_named(&self, path: &syn::Path, frame: &Frame<'s>) -> Option<FnItem<'s>> {
        let segs = self.index.written_in(frame.fn_id, segments(path));
        self.index.find_fn_from(frame.fn_id, frame.module, frame.self_ty.as_deref(), &segs)
    }

    fn handler(&mut self, expr: &'s Expr, frame: &Frame<'s>, checked: bool) -> HandlerRef<'s> {
        let module = &self.index.sources.modules[frame.module];
        let mut handler = HandlerRef {
            text: text(expr),
            target: None,
            closure: None,
            unresolved: None,
            route_unread: None,
            service: None,
            checked,
            module: frame.module,
            self_ty: frame.self_ty.clone(),
            file: module.file.clone(),
            line: expr.span().start().line,
        };
        let written = underneath(expr);
        // A parameter a handler was handed to: that handler, registered here.
        if let Expr::Path(p) = written
            && let Some(name) = p.path.get_ident()
            && let Some((Value::Handler(handed), _)) = frame.locals.get(&name.to_string())
        {
            return HandlerRef { checked, ..(**handed).clone() };
        }
        // A closure bound to a local: the closure itself.
        let local_closure = match written {
            Expr::Path(p) => p.path.get_ident().and_then(|name| match frame.locals.get(&name.to_string()) {
                Some((Value::Closure(closure), _)) => Some(closure.expr),
                _ => None,
            }),
            _ => None,
        };
        match written {
            Expr::Path(_) if let Some(closure) = local_closure => {
                handler.text = text(written);
                handler.closure = Some(&closure.body);
            }
            Expr::Path(p) => {
                handler.text = text(written);
                handler.target = self.fn_named(&p.path, frame);
                if handler.target.is_none() {
                    handler.unresolved = Some(self.unfound(&p.path, &handler.text, frame));
                }
            }
            Expr::Closure(c) => {
                // Named without its line: the text is part of the finding's baseline key, and
                // the line is in the finding already.
                handler.text = "closure".to_owned();
                handler.closure = Some(&c.body);
            }
            _ => {
                handler.unresolved = Some(Unseen {
                    why: format!("the handler `{}` is an expression the audit does not follow", handler.text),
                    fix: EXPRESSION_FIX,
                })
            }
        }
        handler
    }

    /// The handler of a `route_service`/`nest_service` registration: a handler of the audited
    /// sources turned into a service, a known non-list service, or a service whose responses
    /// the audit cannot see.
    fn service(&mut self, registered_with: &str, expr: &'s Expr, frame: &Frame<'s>) -> HandlerRef<'s> {
        let handler = self.handler(expr, frame, false);
        if handler.target.is_some() {
            return handler;
        }
        if let Some(service) = self.non_list_service(expr, frame) {
            return HandlerRef { unresolved: None, service: Some(service), ..handler };
        }
        let why = format!(
            "`{registered_with}` mounts the tower service `{}`, not a handler: the audit cannot see its responses",
            text(expr)
        );
        self.opaque_handler(expr, frame, &why, SERVICE_FIX)
    }

    /// The known non-list service ([`NON_LIST_SERVICES`](crate::shapes::NON_LIST_SERVICES)) `expr` is: built by a function of the
    /// type (`ServeDir::new("assets")`), named by its path or as imported but not a type of the
    /// audited sources; returned by a function of the audited sources declared to return one;
    /// a local bound to one; or one with methods chained on it that keep it
    /// one ([`SERVICE_SETTINGS`], `clone`, and [`SERVICE_FALLBACKS`] handed a known one too).
    fn non_list_service(&self, expr: &Expr, frame: &Frame<'s>) -> Option<&'static str> {
        match expr {
            Expr::Paren(e) => self.non_list_service(&e.expr, frame),
            Expr::Group(e) => self.non_list_service(&e.expr, frame),
            Expr::Path(p) => match frame.locals.get(&p.path.get_ident()?.to_string()) {
                Some((Value::Service(service), _)) => Some(service),
                _ => None,
            },
            Expr::Call(call) => {
                let Expr::Path(func) = &*call.func else { return None };
                let segs = self.index.written_in(frame.fn_id, segments(&func.path));
                let (_, owner) = segs.split_last()?;
                // A function of the audited sources declared to return one (`fn assets() -> ServeDir`).
                if (self.index.is_ours(frame.module, &segs) || owner.first().is_some_and(|s| s == "Self"))
                    && let Some(f) = self.index.find_fn_from(frame.fn_id, frame.module, frame.self_ty.as_deref(), &segs)
                {
                    let syn::ReturnType::Type(_, returned) = &f.sig.output else { return None };
                    let syn::Type::Path(returned) = &**returned else { return None };
                    let returned = segments(&returned.path);
                    if self.index.is_ours(f.module, &returned) {
                        return None;
                    }
                    let name = self.index.resolved_name(f.module, &returned);
                    return known_service(&name).map(|(service, _)| service);
                }
                if owner.is_empty() || self.index.is_ours(frame.module, owner) {
                    return None;
                }
                // Compared by the name it has where it is defined (`use tower_http::services::ServeDir as Dir;`).
                let name = self.index.resolved_name(frame.module, owner);
                known_service(&name).map(|(service, _)| service)
            }
            Expr::MethodCall(call) => {
                let service = self.non_list_service(&call.receiver, frame)?;
                let method = call.method.to_string();
                let kept = if SERVICE_FALLBACKS.contains(&method.as_str()) {
                    call.args.iter().all(|fallback| self.non_list_service(fallback, frame).is_some())
                } else {
                    SERVICE_SETTINGS.contains(&method.as_str()) || method == "clone"
                };
                kept.then_some(service)
            }
            _ => None,
        }
    }

    /// The routes of utoipa-axum's `routes!(list, create)`, by these rules:
    /// 1. A handler the audit finds is at the methods and path of its
    ///    `#[utoipa::path(get, path = "/items", ..)]` attribute ([`utoipa_route`]); a `path` or
    ///    `context_path` that names a string constant is read as `.route(ORDERS, ..)` reads it.
    /// 2. A handler the audit finds but whose method or path it cannot read is classified as any
    ///    other, at method `*` when its method is not read and at [`MERGED_UNSEEN`] (or the
    ///    [`unread_path`] of the expression) when its path is not: a list is still a list. Its
    ///    finding says what was not read.
    /// 3. A handler the audit does not find is an unknown route at [`MERGED_UNSEEN`]: its path
    ///    could be any.
    ///
    /// `OpenApiRouter::routes` takes other forms too ([`Eval::handed_routes`]):
    /// 4. A tuple of the schemas, the paths and a method router (`(schemas, paths,
    ///    completeness::routing::get(list).into())`, or the method router `let (schemas, paths,
    ///    methods) = routes!(list);` binds): each handler of the method router, at the method it
    ///    gives it and the path of the handler's attribute, read as in rules 1 and 2; its route
    ///    not read when the handlers' attributes disagree with the method router
    ///    ([`Eval::at_documented_paths`]).
    /// 5. A `routes!(..)` bound to a local or returned by a function: its routes, as here,
    ///    whatever router it is handed to.
    /// 6. Anything else is one unknown route at [`MERGED_UNSEEN`]: routes the audit cannot read
    ///    are reported, never dropped.
    fn path_attributed(&mut self, mac: &syn::Macro, frame: &Frame<'s>) -> Vec<Registration<'s>> {
        let handlers = routes_macro_handlers(mac);
        let mut routes = Vec::new();
        for written in &handlers {
            let target = self.index.find_fn_from(
                frame.fn_id,
                frame.module,
                frame.self_ty.as_deref(),
                &self.index.written_in(frame.fn_id, segments(written)),
            );
            let mut handler = HandlerRef { unresolved: None, ..self.opaque_handler(written, frame, "", NOT_OURS_FIX) };
            // Rule 3.
            let Some(target) = target else {
                handler.unresolved = Some(self.unfound(written, &handler.text, frame));
                routes.push(Registration { method: "*".to_owned(), path: MERGED_UNSEEN.to_owned(), handler });
                continue;
            };
            // Rules 1 and 2.
            let route = utoipa_route(target.attrs, |value| self.string_value(target.module, value));
            if !route.read {
                handler.route_unread = Some(format!(
                    "`{}` is registered by `routes!`, but the audit finds no `#[utoipa::path(..)]` attribute on it \
                     naming its method and a path it reads (a string literal or constant)",
                    handler.text
                ));
            }
            handler.target = Some(target);
            routes.extend(route.methods.into_iter().map(|method| Registration {
                method,
                path: route.path.clone(),
                handler: handler.clone(),
            }));
        }
        if handlers.is_empty() {
            let why = "the handlers of this `routes!(..)` are not paths the audit reads";
            let handler = self.opaque_handler(mac, frame, why, ROUTES_MACRO_FIX);
            routes.push(Registration { method: "*".to_owned(), path: MERGED_UNSEEN.to_owned(), handler });
        }
        routes
    }

    /// The documentation router ([`DOCUMENTATION_ROUTERS`](crate::shapes::DOCUMENTATION_ROUTERS))
    /// `expr` builds: a function of the type (`SwaggerUi::new(..)`), not a type of the audited
    /// sources, with any builder methods chained on it.
    fn documentation(&self, expr: &Expr, frame: &Frame<'s>) -> Option<&'static str> {
        match expr {
            Expr::MethodCall(call) => self.documentation(&call.receiver, frame),
            Expr::Paren(e) => self.documentation(&e.expr, frame),
            Expr::Call(call) => {
                let Expr::Path(func) = &*call.func else { return None };
                let segs = self.index.written_in(frame.fn_id, segments(&func.path));
                let (_, owner) = segs.split_last()?;
                if owner.is_empty() || self.index.is_ours(frame.module, owner) {
                    return None;
                }
                documentation_router(&self.index.resolved_name(frame.module, owner)).map(|(router, _)| router)
            }
            _ => None,
        }
    }

    /// A handler the audit cannot follow, written as `node`, and why.
    fn opaque_handler(&self, node: &impl ToTokens, frame: &Frame<'s>, why: &str, fix: &'static str) -> HandlerRef<'s> {
        let module = &self.index.sources.modules[frame.module];
        HandlerRef {
            text: text(node),
            target: None,
            closure: None,
            unresolved: Some(Unseen { why: why.to_owned(), fix }),
            route_unread: None,
            service: None,
            checked: false,
            module: frame.module,
            self_ty: frame.self_ty.clone(),
            file: module.file.clone(),
            line: node.span().start().line,
        }
    }
}

/// The outer attributes of a statement (`#[cfg(test)] let ..;`, `#[cfg(test)] { .. }`).
fn stmt_attrs(stmt: &Stmt) -> &[syn::Attribute] {
    match stmt {
        Stmt::Local(local) => &local.attrs,
        Stmt::Macro(m) => &m.attrs,
        Stmt::Expr(expr, _) => expr_attrs(expr),
        Stmt::Item(_) => &[],
    }
}

/// The outer attributes of an expression statement. syn gives a statement's attributes to the
/// leftmost operand of an assignment, a binary operation or a cast (`#[cfg(test)] r = r.route(..);`
/// holds them on `r`), and to the expression itself otherwise.
fn expr_attrs(expr: &Expr) -> &[syn::Attribute] {
    match expr {
        Expr::Assign(e) => expr_attrs(&e.left),
        Expr::Binary(e) => expr_attrs(&e.left),
        Expr::Cast(e) => expr_attrs(&e.expr),
        Expr::Array(e) => &e.attrs,
        Expr::Async(e) => &e.attrs,
        Expr::Await(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::Break(e) => &e.attrs,
        Expr::Call(e) => &e.attrs,
        Expr::Closure(e) => &e.attrs,
        Expr::Const(e) => &e.attrs,
        Expr::Continue(e) => &e.attrs,
        Expr::Field(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::Group(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::Index(e) => &e.attrs,
        Expr::Infer(e) => &e.attrs,
        Expr::Let(e) => &e.attrs,
        Expr::Lit(e) => &e.attrs,
        Expr::Loop(e) => &e.attrs,
        Expr::Macro(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::Paren(e) => &e.attrs,
        Expr::Path(e) => &e.attrs,
        Expr::Range(e) => &e.attrs,
        Expr::RawAddr(e) => &e.attrs,
        Expr::Reference(e) => &e.attrs,
        Expr::Repeat(e) => &e.attrs,
        Expr::Return(e) => &e.attrs,
        Expr::Struct(e) => &e.attrs,
        Expr::Try(e) => &e.attrs,
        Expr::TryBlock(e) => &e.attrs,
        Expr::Tuple(e) => &e.attrs,
        Expr::Unary(e) => &e.attrs,
        Expr::Unsafe(e) => &e.attrs,
        Expr::While(e) => &e.attrs,
        Expr::Yield(e) => &e.attrs,
        _ => &[],
    }
}

/// The handlers of utoipa-axum's `routes!(list, create)`, by their paths; none when its tokens
/// are not paths.
fn routes_macro_handlers(mac: &syn::Macro) -> syn::punctuated::Punctuated<syn::Path, syn::Token![,]> {
    let parser = syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
    syn::parse::Parser::parse2(parser, mac.tokens.clone()).unwrap_or_default()
}

/// True for `..split_for_parts()`, whose value is a tuple with the router first.
fn splits_for_parts(expr: &Expr) -> bool {
    matches!(expr, Expr::MethodCall(call) if call.method == SPLIT_FOR_PARTS)
}

/// A handler named by a path that leads out of the audited sources.
fn not_ours(handler: &str) -> Unseen {
    Unseen { why: format!("`{handler}` is not a function of the audited sources"), fix: NOT_OURS_FIX }
}

/// A handler named by a name the audited sources hold but no function of theirs has: a function
/// a macro defines (`list_handler!(list, Item)`), or a variable (a loop's `for (path, h) in ..`).
fn unresolved(handler: &str) -> Unseen {
    Unseen {
        why: format!(
            "`{handler}` is a handler the audit cannot resolve: defined by a macro, or a variable (the audit does \
             not expand macros or follow values)"
        ),
        fix: UNRESOLVED_FIX,
    }
}

/// The route `#[utoipa::path(..)]` gives a handler.
struct AttributedRoute {
    /// `GET`, `HEAD`, ...; `*` alone when the attribute names none the audit reads.
    methods: Vec<String>,
    /// The path, its `context_path` joined before it.
    path: String,
    /// False when the attribute, its methods or its path were not read.
    read: bool,
    /// False when the attribute or its path (or `context_path`) was not read: a method router
    /// handed to `.routes(..)` beside the handler's document has its methods, not its path.
    path_read: bool,
}

/// The `#[utoipa::path(..)]` attribute among `attrs`.
fn utoipa_path_attr(attrs: &[syn::Attribute]) -> Option<&syn::Attribute> {
    attrs.iter().find(|attr| matches!(segments(attr.path()).as_slice(), [u, p] if u == "utoipa" && p == "path"))
}

/// The methods and path of utoipa's `#[utoipa::path(get, path = "/items", ..)]` on a handler
/// (methods also as `method(get, head)`), its `context_path` joined before the path; `value`
/// reads a path that is not a literal (a constant). Only these arguments are read
/// ([`attribute_args`]): the others (`request_body = PageParams<String>`, `responses(..)`) are
/// types and expressions the audit has no use for. What is not read is `*` for the methods,
/// [`MERGED_UNSEEN`] for a missing path and the [`unread_path`] of a path expression, and the
/// route is not `read`.
fn utoipa_route(attrs: &[syn::Attribute], value: impl Fn(&Expr) -> Option<String>) -> AttributedRoute {
    let unread = || AttributedRoute {
        methods: vec!["*".to_owned()],
        path: MERGED_UNSEEN.to_owned(),
        read: false,
        path_read: false,
    };
    let Some(attr) = utoipa_path_attr(attrs) else { return unread() };
    let Ok(list) = attr.meta.require_list() else { return unread() };
    let (mut methods, mut path, mut context, mut read) = (Vec::new(), None, None, true);
    for arg in attribute_args(list.tokens.clone()) {
        match arg.as_slice() {
            [TokenTree::Ident(name)] => methods.extend(method_of(&name.to_string())),
            [TokenTree::Ident(name), TokenTree::Group(names)]
                if name == "method" && names.delimiter() == proc_macro2::Delimiter::Parenthesis =>
            {
                for named in attribute_args(names.stream()) {
                    match named.as_slice() {
                        [TokenTree::Ident(method)] => methods.extend(method_of(&method.to_string())),
                        _ => read = false,
                    }
                }
            }
            [TokenTree::Ident(name), TokenTree::Punct(eq), written @ ..] if eq.as_char() == '=' => {
                let written: proc_macro2::TokenStream = written.iter().cloned().collect();
                let parsed = syn::parse2::<Expr>(written.clone()).map_err(|_| text(&written));
                if name == "path" {
                    path = Some(parsed);
                } else if name == "context_path" {
                    context = Some(parsed);
                }
            }
            _ => {}
        }
    }
    let text_of = |parsed: Result<Expr, String>| match parsed {
        Ok(expr) => value(&expr).ok_or_else(|| unread_path(&text(&expr))),
        Err(written) => Err(unread_path(&written)),
    };
    let mut path_read = true;
    let path = match path.map(text_of) {
        Some(Ok(path)) => path,
        Some(Err(unread)) => {
            path_read = false;
            unread
        }
        None => {
            path_read = false;
            MERGED_UNSEEN.to_owned()
        }
    };
    let path = match context.map(text_of) {
        None => path,
        Some(Ok(context)) if context.is_empty() => path,
        Some(Ok(context)) => join(&context, &path),
        Some(Err(unread)) => {
            path_read = false;
            join(&unread, &path)
        }
    };
    let read = read && path_read;
    if methods.is_empty() {
        return AttributedRoute { methods: vec!["*".to_owned()], path, read: false, path_read };
    }
    AttributedRoute { methods: methods.into_iter().map(str::to_owned).collect(), path, read, path_read }
}

/// The arguments of an attribute, as its tokens: split at the commas outside any group and
/// outside a type's `<..>` (`request_body = PageParams<String, u32>` is one argument). utoipa's
/// arguments hold types and expressions that are no `syn::Meta`: read as one, a single such
/// argument would hide the method and path beside it.
fn attribute_args(tokens: proc_macro2::TokenStream) -> Vec<Vec<TokenTree>> {
    let mut args = vec![Vec::new()];
    let mut angles = 0usize;
    let mut joined_before = false;
    for token in tokens {
        if let TokenTree::Punct(punct) = &token {
            match punct.as_char() {
                ',' if angles == 0 => {
                    args.push(Vec::new());
                    joined_before = false;
                    continue;
                }
                '<' => angles += 1,
                // Not the end of `<..>` when it ends `->` or `=>`.
                '>' if !joined_before => angles = angles.saturating_sub(1),
                _ => {}
            }
        }
        joined_before = matches!(&token, TokenTree::Punct(p) if p.spacing() == proc_macro2::Spacing::Joint && matches!(p.as_char(), '-' | '='));
        if let Some(arg) = args.last_mut() {
            arg.push(token);
        }
    }
    args.retain(|arg| !arg.is_empty());
    args
}

/// A router's fallback, reported as a route of its own at [`FALLBACK_PATH`].
fn fallback_route(handler: HandlerRef<'_>) -> Registration<'_> {
    Registration { method: "*".to_owned(), path: FALLBACK_PATH.to_owned(), handler }
}

/// Two possible values of a branch: routers are combined, anything else keeps the router.
/// The handler under `handler.layer(..)`, `handler.with_state(..)` and the like.
fn underneath(mut expr: &Expr) -> &Expr {
    while let Expr::MethodCall(call) = expr {
        expr = &call.receiver;
    }
    expr
}

/// The names `closure`'s body may read of the locals around it: every name written alone in it,
/// in its code or in a macro's tokens (`vec![api, admin]`). A closure captures only those, so
/// only those are kept with it (a router of thousands of routes is not copied for every
/// `.map(|x| ..)` of the function).
fn names_read(closure: &syn::ExprClosure) -> HashSet<String> {
    struct Names(HashSet<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_expr_path(&mut self, path: &'a syn::ExprPath) {
            if let Some(name) = path.path.get_ident() {
                self.0.insert(name.to_string());
            }
            syn::visit::visit_expr_path(self, path);
        }
        fn visit_macro(&mut self, mac: &'a syn::Macro) {
            let mut tokens = MacroTokens::default();
            tokens.read(mac.tokens.clone());
            self.0.extend(tokens.idents);
        }
    }
    let mut names = Names(HashSet::new());
    syn::visit::Visit::visit_expr(&mut names, &closure.body);
    names.0
}

/// Marks the caller's local `name` taken, when it still holds what `closure` captured of it.
fn take_from_caller(frame: &mut Frame<'_>, closure: &ClosureDef<'_>, name: &str) {
    if let Some((before, _)) = closure.captured.get(name)
        && let Some((now, taken)) = frame.locals.get_mut(name)
        && same_binding(now, before)
    {
        *taken = true;
    }
}

/// True when a local holds the binding it held before: the same routes, or (for a value that is
/// no router, whose use the audit does not track) any value.
fn same_binding(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Router(_), _) | (_, Value::Router(_)) => same_routes(a, b),
        _ => true,
    }
}

/// True when `a` and `b` are routers of the same registrations (method and path).
fn same_routes(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::Router(a), Value::Router(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.method == b.method && a.path == b.path)
        }
        _ => false,
    }
}

fn union<'s>(a: Value<'s>, b: Value<'s>) -> Value<'s> {
    match (a, b) {
        (Value::Router(mut x), Value::Router(y)) => {
            x.extend(y);
            Value::Router(x)
        }
        (Value::Methods(mut x, chain), Value::Methods(y, other)) => {
            x.extend(y);
            Value::Methods(x, chain && other)
        }
        (Value::Other, b) => b,
        (a, _) => a,
    }
}

/// `prefix` and `path` joined as `Router::nest` joins them (a nested `/` is the prefix itself).
pub fn join(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    if path == "/" || path.is_empty() {
        if prefix.is_empty() { "/".to_owned() } else { prefix.to_owned() }
    } else if path.starts_with('/') {
        format!("{prefix}{path}")
    } else {
        format!("{prefix}/{path}")
    }
}

/// What the audit reads in a macro's tokens, groups included.
#[derive(Default)]
struct MacroTokens {
    /// Every identifier (a router handed in is one).
    idents: Vec<String>,
    /// Every string literal (a route's path is one).
    strings: Vec<String>,
    /// True when the tokens call a routing method (`.route(`) or name `Router::`.
    builds_routes: bool,
}

impl MacroTokens {
    fn read(&mut self, tokens: proc_macro2::TokenStream) {
        let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
        for (i, token) in tokens.iter().enumerate() {
            let after_dot = i > 0 && matches!(&tokens[i - 1], proc_macro2::TokenTree::Punct(p) if p.as_char() == '.');
            let next = tokens.get(i + 1);
            match token {
                proc_macro2::TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    let called = matches!(next, Some(proc_macro2::TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    let path = matches!(next, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':');
                    if (after_dot && called && ROUTING_METHODS.contains(&name.as_str())) || (name == ROUTER && path) {
                        self.builds_routes = true;
                    }
                    self.idents.push(name);
                }
                proc_macro2::TokenTree::Literal(literal) => {
                    if let Ok(Lit::Str(s)) = syn::parse_str::<Lit>(&literal.to_string()) {
                        self.strings.push(s.value());
                    }
                }
                proc_macro2::TokenTree::Group(group) => self.read(group.stream()),
                proc_macro2::TokenTree::Punct(_) => {}
            }
        }
    }
}

/// `MethodFilter::GET` → `GET`; `MethodFilter::GET.or(MethodFilter::POST)` → `GET`, `POST`;
/// `*` for a filter built elsewhere.
fn filter_methods(expr: &Expr) -> Vec<String> {
    match expr {
        Expr::Path(p) => match p.path.segments.last() {
            Some(s) => vec![s.ident.to_string().to_uppercase()],
            None => vec!["*".to_owned()],
        },
        Expr::MethodCall(call) if call.method == "or" && call.args.len() == 1 => {
            let mut methods = filter_methods(&call.receiver);
            methods.extend(filter_methods(&call.args[0]));
            methods
        }
        Expr::Paren(p) => filter_methods(&p.expr),
        _ => vec!["*".to_owned()],
    }
}

/// The name a `let` binds, for a plain (possibly `mut`, possibly typed) identifier pattern.
fn binding_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) => Some(p.ident.to_string()),
        Pat::Type(t) => binding_name(&t.pat),
        _ => None,
    }
}

/// The name a `let` binds to the third of three (`let (schemas, paths, methods) = ..;`): the
/// method router of utoipa-axum's `routes!(..)`.
fn method_router_binding(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Tuple(t) if t.elems.len() == 3 => binding_name(&t.elems[2]),
        Pat::Type(t) => method_router_binding(&t.pat),
        Pat::Paren(p) => method_router_binding(&p.pat),
        _ => None,
    }
}

/// The names of `sig`'s parameters, in order (`None` for a pattern or `self`), as a call's
/// arguments bind them.
fn param_names(sig: &syn::Signature) -> Vec<Option<String>> {
    sig.inputs
        .iter()
        .map(|input| match input {
            syn::FnArg::Typed(typed) => binding_name(&typed.pat),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Marks the local `expr` names (through references and the methods that iterate it, `&v`,
/// `v.iter()`) used up: the routers it holds moved into a collection or a loop's variable.
fn consume_local(expr: &Expr, frame: &mut Frame) {
    match expr {
        Expr::Path(p) => {
            if let Some(name) = p.path.get_ident()
                && let Some((_, consumed)) = frame.locals.get_mut(&name.to_string())
            {
                *consumed = true;
            }
        }
        Expr::Reference(r) => consume_local(&r.expr, frame),
        Expr::Paren(e) => consume_local(&e.expr, frame),
        Expr::Group(e) => consume_local(&e.expr, frame),
        Expr::MethodCall(call) => consume_local(&call.receiver, frame),
        _ => {}
    }
}

fn is_local(expr: &Expr, frame: &Frame) -> bool {
    matches!(expr, Expr::Path(p) if p.path.get_ident().is_some_and(|i| frame.locals.contains_key(&i.to_string())))
}

/// Source text of a syntax node, spaced as a user writes it.
pub fn text(node: &impl ToTokens) -> String {
    let raw = node.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let next = chars.peek().copied();
            let prev = out.chars().last();
            let tight_next = matches!(next, Some('<' | '>' | ',' | ':' | ')' | ']' | '(' | '.' | '?'));
            let tight_prev = matches!(prev, Some('<' | ':' | '(' | '[' | '&' | '.' | '!'));
            if tight_next || tight_prev {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn nest_prefixes_join_as_axum_joins_them() {
        assert_eq!(join("/api", "/users"), "/api/users");
        assert_eq!(join("/api/", "/users"), "/api/users");
        assert_eq!(join("/api", "/"), "/api");
        assert_eq!(join("/", "/users"), "/users");
        assert_eq!(join("", "/"), "/");
    }
}
