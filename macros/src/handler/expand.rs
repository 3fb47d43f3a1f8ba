//! Code for a validated handler. Infallible; every path is absolute.
//!
//! For `#[completeness(resource = "r", reasons(A, B), warnings(W))] async fn list_things(..)`:
//! - through the runtime's `reason_set!`, the reason type `ListThingsReason`, an alias of
//!   `DeclaredReason<__ListThingsReasonSet>`, and the uninhabited set `__ListThingsReasonSet`, with
//!   the declared resource, codes and kinds as one constant and one `Declares`/`DeclaresWarning`
//!   impl per name;
//! - when a service's own type is listed beside others, a compile-time check that no code is
//!   declared twice;
//! - the handler as written, its body led by a type-level check that its response reports
//!   completeness and carries `ListThingsReason`.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::Path;

use super::ast::{Handler, HandlerFn};
use super::attr::Attrs;
use crate::names::{self, Listed};

/// What the attribute declares, as absolute type paths.
pub(crate) struct Declared {
    pub(crate) resource: String,
    pub(crate) reasons: Vec<DeclaredType>,
    pub(crate) warnings: Vec<DeclaredType>,
    /// Where a code declared twice is reported: the `reasons` key.
    pub(crate) reasons_span: Span,
    pub(crate) warnings_span: Span,
}

/// One listed name, in the order written.
pub(crate) struct DeclaredType {
    /// The type: a standard name as the runtime's type (no import needed), any other path as written.
    pub(crate) ty: TokenStream,
    /// How a message names it: as written.
    pub(crate) shown: String,
    /// Where it is written: its last segment, the type's own name.
    pub(crate) span: Span,
    /// A service's own type: only with one can two listed names share a code (standard names
    /// have distinct codes, and validation refuses a name listed twice).
    pub(crate) custom: bool,
}

impl Declared {
    /// The listed names, less those validation rejected.
    pub(crate) fn from_attrs(attrs: &Attrs) -> Declared {
        let (reasons, warnings) = (names::reason_names(), names::warning_names());
        let types = |list: &Option<(Path, Vec<Path>)>, table: &[&'static str], other: &[&'static str], module: &str| {
            let module_ident = Ident::new(module, Span::call_site());
            // A name listed twice is reported by validation; it is listed here once so that
            // the error does not cascade into conflicting impls.
            let mut seen: Vec<String> = Vec::new();
            let mut out: Vec<DeclaredType> = Vec::new();
            for path in list.iter().flat_map(|(_, names)| names) {
                let listed = names::classify(path, table, module, other);
                let Some(key) = listed.key() else { continue };
                if seen.contains(&key) {
                    continue;
                }
                let (ty, custom) = match listed {
                    Listed::Standard(name) => {
                        let name = Ident::new(name, path.span_of_ident());
                        (quote! { ::completeness::#module_ident::#name }, false)
                    }
                    _ => (path.to_token_stream(), true),
                };
                out.push(DeclaredType {
                    ty,
                    shown: format!("`{}`", names::path_key(path)),
                    span: path.segments.last().map_or_else(Span::call_site, |segment| segment.ident.span()),
                    custom,
                });
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
    let Declared { resource, reasons, warnings, reasons_span, warnings_span } = declared;
    let doc = format!(
        "The incomplete reasons `{fn_name}` declares (over resource `{resource}`). Generated by `#[completeness]`; \
         its `ALL` and `WARNINGS` list the declared codes."
    );
    let declared_set = quote! { <#set as ::completeness::__private::ReasonSet>::DECLARED };
    let reasons_distinct = distinct(reasons, *reasons_span, "reason", quote! { #declared_set.reasons });
    let warnings_distinct = distinct(warnings, *warnings_span, "warning", quote! { #declared_set.warnings });
    let (reasons, warnings) = (reasons.iter().map(|r| &r.ty), warnings.iter().map(|w| &w.ty));
    quote! {
        ::completeness::__private::reason_set! {
            #[doc = #doc]
            #vis type #name = #set;
            resource #resource;
            reasons [#(#reasons),*] warnings [#(#warnings),*]
        }
        #reasons_distinct
        #warnings_distinct
    }
}

/// The check that no two of `listed` share a code, when one of them is a service's own type
/// (only the compiler knows its code). The runtime's `same_reason_code` (or `same_warning_code`)
/// finds the first pair sharing
/// one; each pair that can share one has its message, a literal naming the two (a constant's
/// panic cannot format), spanned on the second.
fn distinct(listed: &[DeclaredType], span: Span, kind: &str, codes: TokenStream) -> Option<TokenStream> {
    if !listed.iter().any(|listed| listed.custom) || listed.len() < 2 {
        return None;
    }
    let same_code = format_ident!("same_{kind}_code");
    let arms = listed.iter().enumerate().flat_map(|(i, first)| {
        listed.iter().enumerate().skip(i + 1).filter(move |(_, second)| first.custom || second.custom).map(
            move |(j, second)| {
                let message = format!(
                    "this endpoint declares one {kind} code twice: {} and {} have the same code; list only one of them",
                    first.shown, second.shown
                );
                let span = second.span;
                quote_spanned! {span=> ::core::option::Option::Some((#i, #j)) => ::core::panic!(#message), }
            },
        )
    });
    Some(quote_spanned! {span=>
        const _: () = match ::completeness::__private::#same_code(#codes) {
            ::core::option::Option::None => {}
            #(#arms)*
            // Two standard names never share a code.
            ::core::option::Option::Some(_) => ::core::unreachable!(),
        };
    })
}

/// The handler as written, its body led by the check that its response reports completeness
/// and carries its declared reason type (spanned on the return type, so a type alias to
/// `Json<Vec<T>>` or a response over another reason type fails there).
pub(crate) fn handler(function: &HandlerFn, handler: &Handler) -> TokenStream {
    let HandlerFn { head, sig, block, .. } = function;
    let reason = &handler.reason_type;
    let output = handler.output.map_or_else(|| quote! { () }, ToTokens::to_token_stream);
    let span = handler.output.map_or_else(|| sig.ident.span(), syn::spanned::Spanned::span);
    // The body's inner attributes (`#![allow(..)]`) stay first, where Rust requires them.
    let mut rest = block.stream().into_iter();
    let mut body = TokenStream::new();
    while let Some(inner) = inner_attribute(&mut rest) {
        body.extend(inner);
    }
    body.extend(quote_spanned! {span=>
        ::completeness::__private::assert_declared::<#output, #reason>();
    });
    body.extend(rest);
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
