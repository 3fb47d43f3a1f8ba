//! Every rule of `#[completeness]`; all violations are reported together.

use proc_macro2::Span;
use syn::{FnArg, Ident, Type};

use super::ast::Handler;
use super::attr::Attrs;
use crate::codes;
use crate::ctxt::Ctxt;
use crate::types;

/// Runs every rule.
pub(crate) fn check(cx: &Ctxt, attrs: &Attrs, handler: &Handler) {
    check_resource(cx, attrs);
    check_names(cx, attrs.reasons.as_ref().map(|(_, names)| names), &codes::REASONS, "reason");
    check_names(cx, attrs.warnings.as_ref().map(|(_, names)| names), &codes::WARNINGS, "warning");
    if attrs.reasons.is_none() {
        cx.error_at(
            Span::call_site(),
            "missing `reasons(...)`: declare every reason this endpoint can report, \
             e.g. `reasons(MorePagesAvailable, VisibilityRestricted)`",
        );
    }
    check_signature(cx, handler);
    check_return_type(cx, handler);
    check_page_request(cx, attrs, handler);
}

fn check_resource(cx: &Ctxt, attrs: &Attrs) {
    match &attrs.resource {
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

/// Names must be known codes in CamelCase, each listed once.
fn check_names(cx: &Ctxt, names: Option<&Vec<Ident>>, table: &[(&'static str, &'static str)], what: &str) {
    let Some(names) = names else { return };
    let mut seen: Vec<String> = Vec::new();
    for name in names {
        let written = name.to_string();
        if !table.iter().any(|(known, _)| *known == written) {
            let expected = table.iter().map(|(known, _)| *known).collect::<Vec<_>>().join(", ");
            let message = match codes::suggestion(table, &written) {
                Some(suggested) => format!("unknown {what} `{written}`: write it as `{suggested}`"),
                None => format!("unknown {what} `{written}`: expected one of {expected}"),
            };
            cx.error_spanned_by(name, message);
        } else if seen.contains(&written) {
            cx.error_spanned_by(name, format!("duplicate {what} `{written}`: list each {what} once"));
        } else {
            seen.push(written);
        }
    }
}

fn check_signature(cx: &Ctxt, handler: &Handler) {
    let sig = &handler.function.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(sig.fn_token, "a `#[completeness]` handler must be an `async fn`: add `async`");
    }
    for arg in &sig.inputs {
        if let FnArg::Receiver(receiver) = arg {
            cx.error_spanned_by(receiver, "a `#[completeness]` handler is a free function: remove the `self` argument");
        }
    }
}

/// What is wrong with a return type, if anything.
enum Rejection<'a> {
    /// A list without completeness metadata.
    BareList(&'a Type),
    /// `impl Trait`: the type cannot be checked.
    Opaque,
}

fn rejection(ty: &Type) -> Option<Rejection<'_>> {
    match ty {
        Type::Paren(inner) => rejection(&inner.elem),
        Type::Group(inner) => rejection(&inner.elem),
        Type::ImplTrait(_) => Some(Rejection::Opaque),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(rejection),
        _ if types::is_collection(ty) => Some(Rejection::BareList(ty)),
        _ => match types::last_segment(ty) {
            Some((name, args)) if name == "Json" => {
                args.first().filter(|inner| types::is_collection(inner)).map(|_| Rejection::BareList(ty))
            }
            Some((name, args)) if name == "Result" => args.iter().find_map(|arg| rejection(arg)),
            _ => None,
        },
    }
}

fn check_return_type(cx: &Ctxt, handler: &Handler) {
    let Some(output) = handler.output else { return };
    let reason = &handler.reason_enum;
    match rejection(output) {
        Some(Rejection::BareList(list)) => cx.error_spanned_by(
            output,
            format!(
                "`{}` is a list without completeness metadata: return `completeness::Envelope<T, {reason}>` \
                 or a `#[derive(ResultEnvelope)]` struct instead",
                types::pretty(list)
            ),
        ),
        Some(Rejection::Opaque) => cx.error_spanned_by(
            output,
            format!(
                "an opaque `impl` return type hides whether the response reports completeness: \
                 name the type, e.g. `completeness::Envelope<T, {reason}>`"
            ),
        ),
        None => {}
    }
}

/// A paginated handler can return a page that is not the last.
fn check_page_request(cx: &Ctxt, attrs: &Attrs, handler: &Handler) {
    let declares_more_pages =
        attrs.reasons.as_ref().is_some_and(|(_, names)| names.iter().any(|name| name == "MorePagesAvailable"));
    if declares_more_pages {
        return;
    }
    for arg in &handler.args {
        if matches!(types::last_segment(&arg.ty), Some((name, _)) if name == "PageRequest") {
            cx.error_spanned_by(
                &arg.ty,
                "this handler takes `PageRequest`, so it can return a page that is not the last: \
                 add `MorePagesAvailable` to `reasons(...)`",
            );
        }
    }
}
