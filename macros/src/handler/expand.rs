//! Code for a validated handler. Infallible; every path is absolute.
//!
//! For `#[completeness(resource = "r", reasons(A, B), warnings(W))] async fn list_things(..)`:
//! - through the runtime's `reason_set!`, the reason type `ListThingsReason`, an alias of
//!   `DeclaredReason<__ListThingsReasonSet>`, and the uninhabited set `__ListThingsReasonSet`, with
//!   the declared resource, codes and kinds as one constant and one `Declares`/`DeclaresWarning`
//!   impl per name;
//! - for each service's own type listed, a compile-time check that its code is not a standard
//!   one, and with several, that no two share a code;
//! - the handler as written, its body led by a type-level check that its response reports
//!   completeness and carries `ListThingsReason`, and one of a `Result`'s error side (the
//!   runtime's `__private::error_side`).

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Path;

use super::ast::{Handler, HandlerFn};
use super::attr::Attrs;
use crate::hygiene::respan;
use crate::names::{self, Listed};
use crate::types;

/// What the attribute declares, as absolute type paths.
pub(crate) struct Declared {
    pub(crate) resource: String,
    pub(crate) reasons: Vec<DeclaredType>,
    pub(crate) warnings: Vec<DeclaredType>,
    /// Where a code declared twice is reported: the `reasons` key.
    pub(crate) reasons_span: Span,
    pub(crate) warnings_span: Span,
    /// The framework's `__private` module, by the path the attribute gives.
    pub(crate) private: TokenStream,
}

/// One listed name, in the order written.
pub(crate) struct DeclaredType {
    /// The type: a standard name as the runtime's type (no import needed), any other path as written.
    pub(crate) ty: TokenStream,
    /// The name as written, for a message.
    pub(crate) path: Path,
    /// A service's own type: only with one can two listed names share a code (standard names
    /// have distinct codes, and validation refuses a name listed twice).
    pub(crate) custom: bool,
}

impl Declared {
    /// The listed names, less those validation rejected.
    pub(crate) fn from_attrs(attrs: &Attrs) -> Declared {
        let (reasons, warnings) = (names::reason_names(), names::warning_names());
        let (krate, framework) = (&attrs.krate, attrs.krate.names());
        let types = |list: &Option<(Path, Vec<Path>)>, table: &[&'static str], other: &[&'static str], module: &str| {
            let module_ident = Ident::new(module, Span::call_site());
            // A name listed twice is reported by validation; it is listed here once so that
            // the error does not cascade into conflicting impls.
            let mut seen: Vec<String> = Vec::new();
            let mut out: Vec<DeclaredType> = Vec::new();
            for path in list.iter().flat_map(|(_, names)| names) {
                let listed = names::classify(path, table, module, other, &framework);
                let Some(key) = listed.key() else { continue };
                if seen.contains(&key) {
                    continue;
                }
                let (ty, custom) = match listed {
                    // Written by a path (`reason::MorePagesAvailable`): as written, so that the
                    // import it goes through is used.
                    Listed::Standard(_) if path.segments.len() > 1 => (path.to_token_stream(), false),
                    Listed::Standard(name) => {
                        let name = Ident::new(name, path.span_of_ident());
                        (quote! { #krate::#module_ident::#name }, false)
                    }
                    _ => (path.to_token_stream(), true),
                };
                out.push(DeclaredType { ty, path: path.clone(), custom });
                seen.push(key);
            }
            out
        };
        let span = |list: &Option<(Path, Vec<Path>)>| {
            list.as_ref().map_or_else(Span::call_site, |(key, _)| key.span_of_ident())
        };
        Declared {
            resource: attrs.resource.value.as_ref().map(syn::LitStr::value).unwrap_or_default(),
            reasons: types(&attrs.reasons, &reasons, &warnings, "reason"),
            warnings: types(&attrs.warnings, &warnings, &reasons, "warning"),
            reasons_span: span(&attrs.reasons),
            warnings_span: span(&attrs.warnings),
            private: quote! { #krate::__private },
        }
    }
}

/// The span of a path's first identifier (the whole path cannot be one span on stable).
trait SpanOfIdent {
    fn span_of_ident(&self) -> Span;
}

impl SpanOfIdent for Path {
    fn span_of_ident(&self) -> Span {
        self.segments.first().map_or_else(Span::call_site, |segment| segment.ident.span())
    }
}

/// The reason type and its set, at the visibility of `handler`: the runtime's `reason_set!`
/// writes them from the declared names, and this adds the checks that no code is declared twice.
pub(crate) fn reason_type(handler: &Handler, declared: &Declared) -> TokenStream {
    let name = &handler.reason_type;
    let set = format_ident!("__{}Set", name);
    let vis = &handler.function.vis;
    let fn_name = &handler.function.sig.ident;
    let Declared { resource, reasons, warnings, reasons_span, warnings_span, private } = declared;
    let doc = format!(
        "The incomplete reasons `{fn_name}` declares (over resource `{resource}`). Generated by `#[completeness]`; \
         its `ALL` and `WARNINGS` list the declared codes."
    );
    let declared_set = quote! { <#set as #private::ReasonSet>::DECLARED };
    let cfgs: Vec<_> = handler.function.cfgs().collect();
    let reasons_distinct =
        distinct(declared, reasons, *reasons_span, "reason", quote! { #declared_set.reasons }, &cfgs);
    let warnings_distinct =
        distinct(declared, warnings, *warnings_span, "warning", quote! { #declared_set.warnings }, &cfgs);
    let reason_warning_distinct = reason_and_warning(declared, &declared_set, &cfgs);
    let (reasons, warnings) = (reasons.iter().map(|r| &r.ty), warnings.iter().map(|w| &w.ty));
    // Only a set that declares no reason accepts a response that reports none.
    let no_reason = declared.reasons.is_empty().then(|| {
        quote! { #(#cfgs)* impl #private::DeclaresNoReason for #set {} }
    });
    quote! {
        #(#cfgs)*
        #private::reason_set! {
            #[doc = #doc]
            #vis type #name = #set;
            resource #resource;
            reasons [#(#reasons),*] warnings [#(#warnings),*]
        }
        #no_reason
        #reasons_distinct
        #warnings_distinct
        #reason_warning_distinct
    }
}

/// The check that no own reason and own warning of the declaration share a code, through the
/// runtime's `reason_and_warning_code`, with a message per pair naming the two, spanned on the
/// warning. (Only own types can: the standard tables are distinct, and each derive refuses a
/// code of the other's table.)
fn reason_and_warning(declared: &Declared, set: &TokenStream, cfgs: &[&syn::Attribute]) -> Option<TokenStream> {
    fn own(listed: &[DeclaredType]) -> Vec<(usize, &DeclaredType)> {
        listed.iter().enumerate().filter(|(_, listed)| listed.custom).collect()
    }
    let (reasons, warnings) = (own(&declared.reasons), own(&declared.warnings));
    if reasons.is_empty() || warnings.is_empty() {
        return None;
    }
    let arms = reasons.iter().flat_map(|&(i, reason)| {
        warnings.iter().map(move |&(j, warning)| {
            let message = format!(
                "the reason {} and the warning {} have the same code: a client that reads it as the warning takes \
                 the answer for complete; give one of them a code of its own",
                shown(reason),
                shown(warning)
            );
            quote_spanned! {name_span(warning, declared.warnings_span)=>
                ::core::option::Option::Some((#i, #j)) => ::core::panic!("{}", #message),
            }
        })
    });
    let private = respan(&declared.private, declared.warnings_span);
    Some(quote_spanned! {declared.warnings_span=>
        #(#cfgs)*
        const _: () = match #private::reason_and_warning_code(#set.reasons, #set.warnings) {
            ::core::option::Option::None => {}
            #(#arms)*
            ::core::option::Option::Some(_) => {}
        };
    })
}

/// The checks that no two of `listed` share a code, where a service's own type is listed (only
/// the compiler knows its code; standard names have distinct codes):
/// - each own type, through the runtime's `standard_reason_code` (or `_warning_`): it does
///   not have a standard code, which only a hand-written implementation can give it. Such a
///   type would report a code whose promises (`MORE_PAGES_AVAILABLE` always has its cursor) the
///   standard type keeps by construction and it does not, listed alone or beside that name;
/// - with several own types, `same_reason_code` (or `same_warning_code`) finds the first pair
///   sharing a code of their own, and each pair has its message naming the two, spanned on the
///   second. (A constant's panic cannot format, so each message is a literal; one per pair
///   costs compile time, which a declaration with one own type, the usual one, does not pay.)
///
/// Each message quotes a listed path as written, which may hold braces (`Capped<{ 2 + 1 }>`): it
/// is the argument of `panic!("{}", ..)`, never its format string. And no check goes through
/// `assert!`, which in a crate of edition 2015 or 2018 calls whatever `panic!` is in scope there
/// (a service's own `macro_rules! panic`): `if .. { ::core::panic!(..) }` names core's.
fn distinct(
    declared: &Declared,
    listed: &[DeclaredType],
    span: Span,
    kind: &str,
    codes: TokenStream,
    cfgs: &[&syn::Attribute],
) -> TokenStream {
    // Each own type with its position among the listed ones, which the set's codes follow.
    let private = &declared.private;
    let own: Vec<(usize, &DeclaredType)> = listed.iter().enumerate().filter(|(_, listed)| listed.custom).collect();
    let standard = format_ident!("standard_{kind}_code");
    let not_standard = own.iter().map(|&(at, own)| {
        let message = format!(
            "{} has the code of a standard {kind}, which only the standard type may report; list the standard \
             {kind} by its own name instead (the macro knows it by that name: imported under another, it reads as \
             a type of your own), or give this type a code of its own",
            shown(own)
        );
        let private = respan(private, name_span(own, span));
        quote_spanned! {name_span(own, span)=>
            #(#cfgs)*
            const _: () = if #private::#standard(#codes, #at) {
                ::core::panic!("{}", #message)
            };
        }
    });
    let not_shared = (own.len() >= 2).then(|| {
        let same = format_ident!("same_{kind}_code");
        let arms = own.iter().enumerate().flat_map(|(n, &(i, first))| {
            own[n + 1..].iter().map(move |&(j, second)| {
                let message = format!(
                    "this endpoint declares one {kind} code twice: {} and {} have the same code; list only one of them",
                    shown(first),
                    shown(second)
                );
                quote_spanned! {name_span(second, span)=>
                    ::core::option::Option::Some((#i, #j)) => ::core::panic!("{}", #message),
                }
            })
        });
        let private = respan(private, span);
        quote_spanned! {span=>
            #(#cfgs)*
            const _: () = match #private::#same(#codes) {
                ::core::option::Option::None => {}
                #(#arms)*
                // A pair with a standard name shares a standard code, which `same` leaves to
                // the check of each own type.
                ::core::option::Option::Some(_) => {}
            };
        }
    });
    quote! { #(#not_standard)* #not_shared }
}

/// The span of a listed name's last segment, or `fallback`.
fn name_span(listed: &DeclaredType, fallback: Span) -> Span {
    listed.path.segments.last().map_or(fallback, |segment| segment.ident.span())
}

/// A listed name as a message quotes it.
fn shown(listed: &DeclaredType) -> String {
    format!("`{}`", names::path_key(&listed.path))
}

/// The handler as written, its body led by the check that its response reports completeness
/// and carries its declared reason type, spanned on the return type, and the check of a
/// `Result`'s error side, spanned on the error type when it is written: a type alias to
/// `Json<Vec<T>>` or a response over another reason type fails there, on either side.
pub(crate) fn handler(function: &HandlerFn, handler: &Handler, declared: &Declared) -> TokenStream {
    let HandlerFn { head, sig, block, .. } = function;
    let private = &declared.private;
    let reason = &handler.reason_type;
    let output = handler.output.map_or_else(|| quote! { () }, ToTokens::to_token_stream);
    let span = handler.output.map_or_else(|| sig.ident.span(), syn::spanned::Spanned::span);
    // The error side's check is spanned on the error type when it is written (`Result<T, E>`).
    let error_span = handler.output.and_then(types::error_side).map_or(span, syn::spanned::Spanned::span);
    let (at_output, at_error) = (respan(private, span), respan(private, error_span));
    let check = quote_spanned! {span=>
        #at_output::assert_declared::<#output, #reason>();
    };
    let error_check = quote_spanned! {error_span=>
        #at_error::error_side::ErrorSide::<#output, #reason>::new().check();
    };
    let check = quote! { #check #error_check };
    let stream = block.stream();
    let mut body = TokenStream::new();
    if starts_with_pound(&stream) {
        // The body's inner attributes (`#![allow(..)]`) stay first, where Rust requires them.
        let mut rest = stream.into_iter();
        while let Some(inner) = inner_attribute(&mut rest) {
            body.extend(inner);
        }
        body.extend(check);
        body.extend(rest);
    } else {
        body.extend(check);
        body.extend([stream]);
    }
    let mut new_block = Group::new(block.delimiter(), body);
    new_block.set_span(block.span());
    let mut function = head.clone();
    function.extend([TokenTree::Group(new_block)]);
    function
}

/// The next inner attribute (`#![..]`) at the front of `tokens`, taken off it, if there is one.
fn inner_attribute(tokens: &mut (impl Iterator<Item = TokenTree> + Clone)) -> Option<Vec<TokenTree>> {
    let mut ahead = tokens.clone();
    let pound = ahead.next().filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '#'))?;
    let bang = ahead.next().filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '!'))?;
    let brackets = ahead
        .next()
        .filter(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Bracket))?;
    *tokens = ahead;
    Some(vec![pound, bang, brackets])
}

/// True when `stream` begins with `#`, as a body led by an inner attribute does: the body is
/// split into tokens only then, since splitting every handler's body costs compile time.
fn starts_with_pound(stream: &TokenStream) -> bool {
    matches!(stream.clone().into_iter().next(), Some(TokenTree::Punct(p)) if p.as_char() == '#')
}
