//! `cargo completeness audit`: the inventory of an axum service's endpoints that can return
//! partial results, read from source with syn (the audited code is never compiled).
//!
//! [`audit`] loads every target under a path ([`source`]), indexes its names ([`index`]),
//! follows every `Router` it builds ([`routes`]) and gives each route and method a
//! [`Verdict`](model::Verdict) ([`classify`]). [`report`] renders the result.

pub mod classify;
pub mod index;
pub mod model;
pub mod report;
pub mod routes;
pub mod shapes;
pub mod source;

use std::fs;
use std::path::Path;

use classify::{Class, Classifier};
use model::{Finding, Report};
use source::Sources;

/// Audits the crate, workspace or directory at `path`. `progress` receives the number of files
/// parsed so far. Files that do not parse are listed in [`Report::skipped`]; when no file parses
/// (or there is none), the audit fails.
pub fn audit(path: &Path, progress: &mut dyn FnMut(usize)) -> Result<Report, String> {
    let sources = Sources::load(path, progress)?;
    // An audit of nothing would pass every gate: it is an error, not a clean report.
    if sources.files == 0 {
        return Err(match sources.skipped.first() {
            Some(s) => format!(
                "{}: nothing audited, every file was skipped ({}:{}: {})",
                path.display(),
                s.file,
                s.line,
                s.error
            ),
            None => {
                // Crates one level down (`backend/`, a directory of examples) are not searched for:
                // name them, so the next command is obvious.
                let mut below: Vec<String> = fs::read_dir(path)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|entry| entry.path().join("Cargo.toml").is_file())
                    .map(|entry| format!("{}/", entry.file_name().to_string_lossy()))
                    .collect();
                below.sort();
                let hint = match below.as_slice() {
                    [] => String::new(),
                    crates => format!("; crates below it: {}; audit one of them", crates.join(", ")),
                };
                format!(
                    "{}: nothing audited, no Rust sources found (no Cargo.toml, main.rs, lib.rs or .rs file){hint}",
                    path.display()
                )
            }
        });
    }
    let index = index::Index::new(&sources);
    let mut classifier = Classifier::new(&index);
    let mut findings = Vec::new();
    for registration in routes::registrations(&index) {
        let handler = &registration.handler;
        let (class, file, line) = match (&handler.target, handler.closure, handler.service) {
            (Some(f), _, _) => {
                let line = f.sig.ident.span().start().line;
                (classifier.handler(f), sources.modules[f.module].file.clone(), line)
            }
            (None, Some(body), _) => (
                classifier.closure(handler.module, handler.self_ty.as_deref(), body),
                handler.file.clone(),
                handler.line,
            ),
            (None, None, Some(service)) => (classify::non_list_service(service), handler.file.clone(), handler.line),
            (None, None, None) => (
                Class::Unknown(
                    handler.unresolved.as_ref().map_or("the handler was not found".to_owned(), |u| u.why.clone()),
                ),
                handler.file.clone(),
                handler.line,
            ),
        };
        let mut found = finding(
            &registration.method,
            &registration.path,
            &handler.text,
            sources.display(&file),
            line,
            class,
            handler.checked,
        );
        // A route unknown because the audit cannot see its handler is fixed by letting it see
        // the handler, not by naming a type in a signature it has not read.
        if found.verdict == model::Verdict::Unknown
            && handler.target.is_none()
            && let Some(unseen) = &handler.unresolved
        {
            found.fix = Some(unseen.fix.to_owned());
        }
        // A handler found, at a method or path the audit could not read: its verdict stands,
        // and the finding says why its route is `*` or an unread path.
        if let Some(unread) = &handler.route_unread {
            found.why = format!("{}; its route is not read: {unread}", found.why);
        }
        found.krate = sources.modules[handler.module].package.clone();
        findings.push(found);
    }
    findings.sort_by(|a, b| (&a.path, &a.method, &a.handler).cmp(&(&b.path, &b.method, &b.handler)));
    Ok(Report { findings, skipped: sources.skipped.clone(), files: sources.files, stale_baseline: Vec::new() })
}

/// A finding with its explanation and suggested fix; `checked` when the route is registered
/// with `completeness::routing`, the two rules that depend on it sit together here.
fn finding(method: &str, path: &str, handler: &str, file: String, line: usize, class: Class, checked: bool) -> Finding {
    let routing = match method {
        "*" | "ANY" => "completeness::routing".to_owned(),
        m => format!("completeness::routing::{}", m.to_lowercase()),
    };
    // Rule 4 of `classify`: `completeness::routing` refuses what does not report completeness.
    let class = match class {
        Class::Unknown(_) if checked => {
            Class::Reports("registered with `completeness::routing`, which checks the response".to_owned())
        }
        other => other,
    };
    let verdict = class.verdict();
    let (why, fix) = match class {
        // The body carries the block, but only the checked routes act on it.
        Class::Reports(why) if !checked => (
            format!(
                "{why}, registered with `axum::routing`: the body carries the completeness block, but \
                 `require_complete` and `Prefer: handling=strict` are not enforced and no events or counters are kept"
            ),
            Some(format!("register it with `{routing}`")),
        ),
        Class::Reports(why) => (why, None),
        Class::InJson(why) => (
            format!(
                "{why}, inside `Json`: the body carries the completeness block, but the response hides it from the \
                 completeness layer (`require_complete`, the events and counters)"
            ),
            Some("return the response itself instead of `Json(..)` around it: it is its own `IntoResponse`".to_owned()),
        ),
        Class::NotAList(why) | Class::Exempt(why) => (why, None),
        Class::Error => ("returns only errors (`Err(..)`)".to_owned(), None),
        Class::List { shown, item, owner, through } => {
            // `_`: a collection built in a body whose item type the audit did not see.
            let item = item.filter(|i| !i.is_empty() && i != "_").unwrap_or_else(|| "T".to_owned());
            (
                format!("returns `{shown}`, a list without a completeness block"),
                Some(list_fix(&item, owner, through, &routing)),
            )
        }
        Class::Nested { owner, field, holder, through } => (
            format!("`{owner}` is a single resource whose `{field}` member is a collection"),
            Some(nested_fix(&owner, &field, holder, through)),
        ),
        // `Router::fallback` has no checked counterpart to register it with.
        Class::Unknown(why) if path.ends_with(routes::FALLBACK_PATH) => (
            why,
            Some(
                "return the fallback's response inside `Exempt::new(.., why)` when it is not a list: a fallback is \
                 registered with `Router::fallback`, which `completeness::routing` does not check"
                    .to_owned(),
            ),
        ),
        // A type of another crate is named already: the audit needs to read it.
        Class::Unknown(why) if why.contains(classify::DEFINED_ELSEWHERE) => (
            why,
            Some(format!(
                "audit the crate that defines the type too (the workspace that holds both), or register the handler \
                 with `{routing}` so the compiler checks it"
            )),
        ),
        // Not found, and no path leads out of the sources: a macro may generate it.
        Class::Unknown(why) if why.contains(classify::NOT_FOUND) => (
            why,
            Some(format!(
                "if a macro generates the type, name in the signature a type the audited sources define (the one \
                 an alias stands for); if another crate defines it, audit that crate too (the workspace that holds \
                 both); or register the handler with `{routing}` so the compiler checks it"
            )),
        ),
        Class::Unknown(why) => (
            why,
            Some(format!(
                "name the response type in the signature, or register the handler with `{routing}` so the compiler checks it \
                 (wrap a response that is not a list in `Exempt<_>`)"
            )),
        ),
    };
    Finding {
        method: method.to_owned(),
        path: path.to_owned(),
        handler: handler.to_owned(),
        file,
        line,
        verdict,
        why,
        fix,
        krate: String::new(),
        baselined: false,
    }
}

/// The fix of a list of `item` without completeness, routed with `routing`: a completeness block
/// on `owner`, the innermost struct whose own member is the list, or an `Envelope` in its place.
/// A generic wrapper it is reached `through` is left as it is ([`leave_wrapper`]); when no struct
/// of the sources holds the list as written (`CommonResult<Vec<User>>`), the block goes on the
/// type given for the wrapper's parameter.
fn list_fix(item: &str, owner: Option<String>, through: Option<classify::Through>, routing: &str) -> String {
    // The attribute as it compiles: `reasons(..)` is required (`reasons()` for an endpoint that
    // is always complete).
    let annotate = "annotate the handler with `#[completeness(resource = \"..\", reasons(..))]`, listing every \
                    reason it can report";
    let block = "with an `#[envelope(completeness)] completeness: Completeness` member";
    let leave = through.as_ref().map(leave_wrapper).unwrap_or_default();
    match (owner, through) {
        (Some(owner), _) => format!(
            "{leave}derive `ResultEnvelope` on `{owner}` {block}, or return `Envelope<{item}>` in place of the list; \
             {annotate}, and register it with `{routing}`"
        ),
        (None, Some(through)) => format!(
            "{leave}in place of `{}` as its `{}` here, use a struct of the items that derives `ResultEnvelope` \
             {block}, or return `Envelope<{item}>` in place of the response; {annotate}, and register it with \
             `{routing}`",
            through.arg, through.param
        ),
        (None, None) => {
            format!("return `Envelope<{item}>` in place of the list, {annotate}, and register it with `{routing}`")
        }
    }
}

/// The fix of the collection `field` of the single resource `owner`: `bounded` on the member of
/// `holder`, the innermost struct whose own member it is. A generic wrapper it is reached
/// `through` is left as it is ([`leave_wrapper`]): `bounded` on the wrapper's member would
/// declare that member bounded for every endpoint it wraps, paginated lists included.
fn nested_fix(
    owner: &str,
    field: &str,
    holder: Option<(String, String)>,
    through: Option<classify::Through>,
) -> String {
    let bounded = "`#[envelope(bounded = \"why it stays small\")]`";
    let leave = through.as_ref().map(leave_wrapper).unwrap_or_default();
    let (holder, member) = match (holder, through) {
        (Some(held), _) => held,
        (None, Some(through)) => {
            return format!(
                "{leave}in place of `{}` as its `{}` here, use a struct that derives `ResultEnvelope` and holds \
                 the collection, marked {bounded}",
                through.arg, through.param
            );
        }
        // Not built by the classifier; the member of `owner` that holds the collection.
        (None, None) => (owner.to_owned(), field.split('.').next().unwrap_or(field).to_owned()),
    };
    // A `json!` object has no type to derive on: a struct of its members takes its place.
    let target = if holder == classify::JSON_OBJECT {
        format!("a struct of its members, returned in place of `{holder}`,")
    } else {
        format!("`{holder}`")
    };
    format!("{leave}derive `ResultEnvelope` on {target} and mark `{member}` with {bounded}")
}

/// What a fix says of the generic wrapper a collection is reached `through`: it stays as it is,
/// as every endpoint it wraps gives its parameter a type of its own.
fn leave_wrapper(through: &classify::Through) -> String {
    format!(
        "leave `{}` as it is: it is generic, and its `{}` is of its type parameter `{}`, which every endpoint it \
         wraps gives a type of its own, so a completeness block or `bounded` there would change them all; ",
        through.wrapper, through.member, through.param
    )
}
