//! Every rule of `#[completeness]`; all violations are reported together.
//!
//! The rules, and why each exists:
//! 1. `resource` is named and not empty: it is what `scope.resource` says, and what evidence binds.
//! 2. `reasons(...)` is present, possibly empty: an endpoint states what it can report, and an
//!    empty list states that it is always complete.
//! 3. Each listed name is a standard one spelled exactly, or a path to a service's own type; a
//!    near miss of a standard name, or a warning listed as a reason (and the reverse), is a
//!    mistake, said with the fix. Each name is listed once. (Two types with one code are caught
//!    when the code is compiled: `standard_reason_code` or `same_reason_code` in the expansion;
//!    so is a service's own reason and own warning with one code, `reason_and_warning_code`,
//!    since a reason read as a warning leaves the answer complete.)
//! 4. The handler is an `async fn` without a receiver: axum handlers are.
//! 5. The answer is not a bare list, `Json` of a list, or an opaque `impl Trait`: those say
//!    nothing about completeness. Nor is it `Json` of anything else: an envelope is a JSON
//!    response itself, and wrapped in `Json` its block would go out unseen by the layers that
//!    enforce `require_complete` and observe answers. A `Result`'s error side is not checked as
//!    an answer, so any named error type is fine there, a list of field errors with a status
//!    too (`(StatusCode, Json<Vec<E>>)`); but not a bare list or `Json` of one, which goes out
//!    as a 200 and reads as an answer, nor `Json` of an envelope (there or inside `Exempt`),
//!    whose block goes out unseen, nor an opaque type, since the type-level check names the
//!    whole type. (Type aliases are caught by the type-level checks, on either side; so is a
//!    list after response parts, `(HeaderMap, Json<Vec<E>>)`, which sets no status.)
//! 6. A handler taking `PageRequest` declares `MorePagesAvailable` and `PageSizeReduced`: paging
//!    can end a page early and clamp its size.
//! 7. A handler has one `#[completeness(..)]`: a second would declare the endpoint again, and
//!    generate its reason type twice.
//! 8. The answer does not leave out its reason type (`Envelope<T>`): that is the standard one,
//!    which no declaring handler reports over; said here with the alias to write, which the
//!    type-level check cannot name.

use proc_macro2::Span;
use syn::{FnArg, Path, Type};

use super::ast::Handler;
use super::attr::Attrs;
use crate::ctxt::Ctxt;
use crate::names::{self, Listed};
use crate::types;

/// Runs every rule.
pub(crate) fn check(cx: &Ctxt, attrs: &Attrs, handler: &Handler) {
    check_resource(cx, attrs);
    // (A key after a mistake that stopped the arguments' parse was not read: not reported missing.)
    if attrs.reasons.is_none() && !attrs.misspelled.contains(&"reasons") && !attrs.unread {
        cx.error_at(
            Span::call_site(),
            "missing `reasons(...)`: declare every reason this endpoint can report, \
             e.g. `reasons(MorePagesAvailable, VisibilityRestricted)`, or `reasons()` for an endpoint \
             that is always complete",
        );
    }
    let (reasons, warnings) = (names::reason_names(), names::warning_names());
    let framework = attrs.krate.names();
    let reason_names = attrs.reasons.as_ref().map(|(_, names)| names);
    check_names(cx, reason_names, (&reasons, &warnings, &framework), Kind::Reason);
    let warning_names = attrs.warnings.as_ref().map(|(_, names)| names);
    check_names(cx, warning_names, (&warnings, &reasons, &framework), Kind::Warning);
    check_signature(cx, handler);
    check_return_type(cx, attrs, handler);
    check_page_request(cx, attrs, handler, &reasons, &warnings);
    check_one_declaration(cx, handler);
}

/// Rule 7.
fn check_one_declaration(cx: &Ctxt, handler: &Handler) {
    for again in handler.function.declarations() {
        cx.error_spanned_by(
            again,
            "a second `#[completeness]` on this handler: an endpoint is declared once; \
             merge the two into one `#[completeness(resource = \"...\", reasons(...))]`",
        );
    }
}

/// Rule 1.
fn check_resource(cx: &Ctxt, attrs: &Attrs) {
    match &attrs.resource.value {
        None if attrs.resource.given || attrs.misspelled.contains(&"resource") || attrs.unread => {}
        None => cx.error_at(
            Span::call_site(),
            "missing `resource = \"...\"`: name the resource this endpoint lists, e.g. `resource = \"service_accounts\"`",
        ),
        Some(resource) if resource.value().trim().is_empty() => cx.error_spanned_by(
            resource,
            "`resource` must not be empty: name the resource this endpoint lists, e.g. \"service_accounts\"",
        ),
        Some(_) => {}
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Reason,
    Warning,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Reason => "reason",
            Kind::Warning => "warning",
        }
    }
    fn other_key(self) -> &'static str {
        match self {
            Kind::Reason => "warnings",
            Kind::Warning => "reasons",
        }
    }
}

/// Rule 3. `tables`: the standard names of this list, of the other list, and the framework's
/// path (see `names::classify`).
fn check_names(
    cx: &Ctxt,
    names: Option<&Vec<Path>>,
    tables: (&[&'static str], &[&'static str], &[String]),
    kind: Kind,
) {
    let Some(names) = names else { return };
    let (table, other, framework) = tables;
    let what = kind.word();
    let mut seen: Vec<String> = Vec::new();
    for path in names {
        let listed = names::classify(path, table, what, other, framework);
        match listed {
            Listed::Misspelled(suggested) => {
                let written = names::path_key(path);
                // Letters that differ may also be a service's own type, meant as such: named
                // bare, it is told from the standard one by a path.
                let bare = path.leading_colon.is_none() && path.segments.len() == 1;
                let own = if !bare || completeness_codes::same_name_loosely(suggested, &written) {
                    String::new()
                } else {
                    format!(", or, for a service's own type of that name, write `self::{written}`")
                };
                cx.error_spanned_by(path, format!("unknown {what} `{written}`: write it as `{suggested}`{own}"));
            }
            Listed::OtherTable(name) => cx.error_spanned_by(
                path,
                format!(
                    "`{name}` is a {}: list it in `{}(...)`",
                    if what == "reason" { "warning" } else { "reason" },
                    kind.other_key()
                ),
            ),
            Listed::WrongModule(name) => {
                let written = names::path_key(path);
                cx.error_spanned_by(
                    path,
                    format!("`{written}` does not exist: `{name}` is a {what}, write `{name}` or `completeness::{what}::{name}`"),
                );
            }
            Listed::Standard(_) | Listed::Custom(_) => {
                let key = listed.key().unwrap_or_default();
                if seen.contains(&key) {
                    let written = names::path_key(path);
                    cx.error_spanned_by(path, format!("duplicate {what} `{written}`: list each {what} once"));
                } else {
                    seen.push(key);
                }
            }
        }
    }
}

/// Rule 4.
fn check_signature(cx: &Ctxt, handler: &Handler) {
    let sig = &handler.function.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(sig.fn_token, "a `#[completeness]` handler must be an `async fn`: add `async`");
    }
    for arg in &sig.inputs {
        if let FnArg::Receiver(receiver) = arg {
            cx.error_spanned_by(
                receiver,
                "a `#[completeness]` handler takes no `self`: axum handlers are free or associated functions",
            );
        }
    }
}

/// What is wrong with a return type, if anything.
enum Rejection<'a> {
    /// A list without completeness metadata.
    BareList(&'a Type),
    /// `impl Trait` as the answer: the type cannot be checked.
    Opaque(&'a Type),
    /// `impl Trait` in a `Result`'s error side: the check names the whole type, so it cannot
    /// be written.
    OpaqueError(&'a Type),
    /// `Json<T>` of something that is not a list: the envelope wrapped in a plain body.
    Wrapped(&'a Type),
    /// A list as the error side, which goes out as a 200 like an answer.
    ListError(&'a Type),
    /// `impl Trait` inside a type argument (`Envelope<impl Serialize, R>`): the check writes the
    /// type out, where `impl` is not allowed.
    OpaqueInside(&'a Type),
}

/// What is wrong with the answer `ty`, if anything; of a `Result`'s error side, only what goes
/// out as a 200 answer (a list, `Json` of a list or of an envelope) and an opaque type.
fn rejection(ty: &Type) -> Option<Rejection<'_>> {
    direct_rejection(ty).or_else(|| opaque_inside(ty).map(Rejection::OpaqueInside))
}

/// [`rejection`], but for an `impl` inside a type argument.
fn direct_rejection(ty: &Type) -> Option<Rejection<'_>> {
    match ty {
        Type::Paren(inner) => rejection(&inner.elem),
        Type::Group(inner) => rejection(&inner.elem),
        Type::ImplTrait(_) => Some(Rejection::Opaque(ty)),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(rejection),
        _ if types::is_collection(ty) => Some(Rejection::BareList(ty)),
        _ => match types::last_segment(ty) {
            Some((name, args)) if completeness_codes::BODY_WRAPPERS.contains(&name.as_str()) => match args.first() {
                Some(inner) if types::is_collection(inner) => Some(Rejection::BareList(ty)),
                _ => Some(Rejection::Wrapped(ty)),
            },
            // The error side is not checked as an answer, but the check names the whole type, and
            // a bare list there goes out as a 200 like one.
            Some((name, args)) if name == "Result" => args.first().and_then(|answer| rejection(answer)).or_else(|| {
                let error = args.get(1)?;
                opaque_part(error)
                    .map(Rejection::OpaqueError)
                    .or_else(|| list_error(error).map(Rejection::ListError))
                    .or_else(|| json_of_response(error).map(Rejection::Wrapped))
            }),
            // `Exempt` lets a value through unchecked, but an envelope in `Json` inside it still
            // goes out unseen by the layers (an `Exempt<Envelope>` carries its report along).
            Some((name, args)) if name == "Exempt" => {
                args.first().and_then(|inner| json_of_response(inner)).map(Rejection::Wrapped)
            }
            _ => None,
        },
    }
}

/// The error type `ty` when it answers a list with axum's default status, 200: a collection, or
/// `Json` of one (a tuple naming a status, `(StatusCode, Json<Vec<E>>)`, is an error response).
fn list_error(ty: &Type) -> Option<&Type> {
    let listed = match types::last_segment(ty) {
        Some((name, args)) if completeness_codes::BODY_WRAPPERS.contains(&name.as_str()) => {
            args.first().is_some_and(|inner| types::is_collection(inner))
        }
        _ => !matches!(ty, Type::Tuple(_)) && types::is_collection(ty),
    };
    listed.then_some(ty)
}

/// The `Json` of a response that reports completeness (`Json<Envelope<..>>`, by name) that `ty`
/// is or holds in a tuple: its block would go out unseen by the layers.
fn json_of_response(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Paren(inner) => json_of_response(&inner.elem),
        Type::Group(inner) => json_of_response(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(json_of_response),
        _ => match types::last_segment(ty) {
            Some((name, args)) if completeness_codes::BODY_WRAPPERS.contains(&name.as_str()) => {
                args.first().and_then(|inner| types::reporting(inner)).map(|_| ty)
            }
            _ => None,
        },
    }
}

/// The `impl Trait` that `ty` holds anywhere inside: in a type argument, a reference, a slice,
/// an array or a tuple.
fn opaque_inside(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Paren(inner) => opaque_inside(&inner.elem),
        Type::Group(inner) => opaque_inside(&inner.elem),
        Type::Reference(inner) => opaque_inside(&inner.elem),
        Type::Slice(inner) => opaque_inside(&inner.elem),
        Type::Array(inner) => opaque_inside(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(opaque_inside),
        Type::Path(path) => path.path.segments.iter().find_map(|segment| match &segment.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                syn::GenericArgument::Type(ty) => opaque_inside(ty),
                _ => None,
            }),
            _ => None,
        }),
        _ => None,
    }
}

/// The `impl Trait` that `ty` is, or holds as a part of a tuple: not a type the check can name.
fn opaque_part(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        Type::Paren(inner) => opaque_part(&inner.elem),
        Type::Group(inner) => opaque_part(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(opaque_part),
        _ => None,
    }
}

/// Rule 5.
fn check_return_type(cx: &Ctxt, attrs: &Attrs, handler: &Handler) {
    let Some(output) = handler.output else { return };
    let reason = &handler.reason_type;
    match rejection(output) {
        Some(Rejection::BareList(list)) => cx.error_spanned_by(
            list,
            format!(
                "`{}` is a list without completeness metadata: return `completeness::Envelope<T, {reason}>` \
                 or a `#[derive(ResultEnvelope)]` struct instead",
                types::pretty(list)
            ),
        ),
        Some(Rejection::Opaque(opaque)) => cx.error_spanned_by(
            opaque,
            format!(
                "an opaque `impl` return type hides whether the response reports completeness: \
                 name the type, e.g. `completeness::Envelope<T, {reason}>`"
            ),
        ),
        Some(Rejection::OpaqueError(opaque)) => cx.error_spanned_by(
            opaque,
            "an opaque `impl` error type cannot be named by the completeness check: name the error type, \
             e.g. `completeness::Problem`, `(StatusCode, String)` or the service's own error enum",
        ),
        Some(Rejection::ListError(list)) => {
            let shown = types::pretty(list);
            let body = if types::is_collection(list) { format!("Json<{shown}>") } else { shown.clone() };
            cx.error_spanned_by(
                list,
                format!(
                    "the error side `{shown}` is a list, which goes out as a 200 like an answer, without \
                     completeness metadata: return an error with an error status, e.g. `completeness::Problem` or \
                     `(StatusCode::BAD_REQUEST, {body})`"
                ),
            );
        }
        Some(Rejection::OpaqueInside(opaque)) => cx.error_spanned_by(
            opaque,
            format!(
                "`{}` inside the return type cannot be named by the completeness check, which writes the \
                 response type out: name the type, e.g. `completeness::Envelope<Account, {reason}>`",
                types::pretty(opaque)
            ),
        ),
        Some(Rejection::Wrapped(wrapped)) => cx.error_spanned_by(
            wrapped,
            format!(
                "`{}` hides the completeness block from the framework: return the envelope itself, \
                 `completeness::Envelope<T, {reason}>` or a `#[derive(ResultEnvelope)]` struct (each is a \
                 JSON response), without `Json`{}",
                types::pretty(wrapped),
                types::namesake_hint(wrapped, &attrs.krate.names())
            ),
        ),
        // Rule 8. (Not for a function under `cfg`, which may not be compiled: an error here
        // would stand where the condition leaves it out. The type-level check, compiled with
        // the function, says it there.)
        None if handler.function.cfgs().next().is_some() => {}
        None => {
            if let Some((written, name, item)) = standard_reasons_answer(output) {
                cx.error_spanned_by(
                    written,
                    format!(
                        "`{}` reports over the standard reasons, not the ones this handler declares: write \
                         `{name}<{}, {reason}>`",
                        types::pretty(written),
                        types::pretty(item)
                    ),
                );
            }
        }
    }
}

/// The `Envelope<T>` or `Aggregate<T>` written with its item type alone where the answer goes
/// (the return type, a `Result`'s answer, a tuple after response parts), with its name and item
/// type: its reason type is then the standard one, which no `#[completeness]` handler reports
/// over (the type-level check would say so naming the hidden type the alias stands for).
fn standard_reasons_answer(ty: &Type) -> Option<(&Type, String, &Type)> {
    match ty {
        Type::Paren(inner) => standard_reasons_answer(&inner.elem),
        Type::Group(inner) => standard_reasons_answer(&inner.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(standard_reasons_answer),
        _ => match types::last_segment(ty) {
            Some((name, args)) if name == "Result" => args.first().and_then(|answer| standard_reasons_answer(answer)),
            Some((name, args)) if (name == "Envelope" || name == "Aggregate") && args.len() == 1 => {
                Some((ty, name, args[0]))
            }
            _ => None,
        },
    }
}

/// Rule 6.
fn check_page_request(
    cx: &Ctxt,
    attrs: &Attrs,
    handler: &Handler,
    reasons: &[&'static str],
    warnings: &[&'static str],
) {
    // A standard name counts however it is written: `MorePagesAvailable` or its full path.
    let framework = attrs.krate.names();
    let declares =
        |list: &Option<(Path, Vec<Path>)>, name: &str, table: &[&'static str], module: &str, other: &[&'static str]| {
            list.as_ref().is_some_and(|(_, names)| {
                names.iter().any(|path| {
                    matches!(names::classify(path, table, module, other, &framework), Listed::Standard(n) if n == name)
                })
            })
        };
    let more_pages = declares(&attrs.reasons, "MorePagesAvailable", reasons, "reason", warnings);
    let reduced = declares(&attrs.warnings, "PageSizeReduced", warnings, "warning", reasons);
    if more_pages && reduced {
        return;
    }
    for arg in &handler.args {
        // Known by its name; by a path other than the framework's (`paging::PageRequest`), a
        // type of the service's own.
        if let syn::Type::Path(path) = &*arg.ty {
            let written: Vec<String> = path.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
            if let [prefix @ .., _] = written.as_slice()
                && !prefix.is_empty()
                && prefix != framework.as_slice()
            {
                continue;
            }
        }
        if matches!(types::last_segment(&arg.ty), Some((name, _)) if name == "PageRequest") {
            let missing = match (more_pages, reduced) {
                (false, false) => "add `MorePagesAvailable` to `reasons(...)` and `PageSizeReduced` to `warnings(...)`",
                (false, true) => "add `MorePagesAvailable` to `reasons(...)`",
                _ => "add `PageSizeReduced` to `warnings(...)`",
            };
            cx.error_spanned_by(
                &arg.ty,
                format!(
                    "this handler takes `PageRequest`, so it can end a page early and clamp its size: {missing} \
                     (a type of your own of that name: import it under another, as the macro knows the framework's \
                     by its name)"
                ),
            );
        }
    }
}
