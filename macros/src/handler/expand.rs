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
    pub(crate) reasons: Vec<TokenStream>,
    pub(crate) warnings: Vec<TokenStream>,
    /// Where a code declared twice is reported: the `reasons` key.
    pub(crate) reasons_span: Span,
    pub(crate) warnings_span: Span,
    /// The service's own types listed, as written: only with one can two names share a code
    /// (standard names have distinct codes, and validation refuses a name listed twice).
    pub(crate) custom_reasons: Vec<String>,
    pub(crate) custom_warnings: Vec<String>,
}

impl Declared {
    /// The listed names as types: a standard name becomes the runtime's type (no import
    /// needed), any other path is used as written. Names validation rejected are left out.
    pub(crate) fn from_attrs(attrs: &Attrs) -> Declared {
        let (reasons, warnings) = (names::reason_names(), names::warning_names());
        let paths = |list: &Option<(Path, Vec<Path>)>, table: &[&'static str], other: &[&'static str], module: &str| {
            let module = Ident::new(module, Span::call_site());
            // A name listed twice is reported by validation; it is listed here once so that
            // the error does not cascade into conflicting impls.
            let mut seen: Vec<String> = Vec::new();
            let mut out: Vec<TokenStream> = Vec::new();
            for path in list.iter().flat_map(|(_, names)| names) {
                let listed = names::classify(path, table, other);
                let Some(key) = listed.key() else { continue };
                let ty = match listed {
                    Listed::Standard(name) => {
                        let name = Ident::new(name, path.span_of_ident());
                        quote! { ::completeness::#module::#name }
                    }
                    _ => path.to_token_stream(),
                };
                if !seen.contains(&key) {
                    seen.push(key);
                    out.push(ty);
                }
            }
            out
        };
        let span = |list: &Option<(Path, Vec<Path>)>| {
            list.as_ref().map_or_else(Span::call_site, |(key, _)| key.span_of_ident())
        };
        let custom = |list: &Option<(Path, Vec<Path>)>, table: &[&'static str], other: &[&'static str]| {
            list.iter()
                .flat_map(|(_, names)| names)
                .filter(|path| matches!(names::classify(path, table, other), Listed::Custom(_)))
                .map(|path| format!("`{}`", names::path_key(path)))
                .collect::<Vec<_>>()
        };
        Declared {
            custom_reasons: custom(&attrs.reasons, &reasons, &warnings),
            custom_warnings: custom(&attrs.warnings, &warnings, &reasons),
            resource: attrs.resource.value.as_ref().map(syn::LitStr::value).unwrap_or_default(),
            reasons: paths(&attrs.reasons, &reasons, &warnings, "reason"),
            warnings: paths(&attrs.warnings, &warnings, &reasons, "warning"),
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
/// writes them from the declared names, and this adds the check that no code is declared twice.
pub(crate) fn reason_type(handler: &Handler, declared: &Declared) -> TokenStream {
    let name = &handler.reason_type;
    let set = format_ident!("__{}Set", name);
    let vis = &handler.function.vis;
    let fn_name = &handler.function.sig.ident;
    let Declared { resource, reasons, warnings, reasons_span, warnings_span, custom_reasons, custom_warnings } =
        declared;
    let doc = format!(
        "The incomplete reasons `{fn_name}` declares (over resource `{resource}`). Generated by `#[completeness]`; \
         its `ALL` and `WARNINGS` list the declared codes."
    );
    // The codes of a service's own types are known only to the compiler: it checks them.
    // The message is a literal (a constant's panic cannot format), naming the types that can clash.
    let reasons_distinct = (!custom_reasons.is_empty() && reasons.len() > 1).then(|| {
        let message = format!(
            "this endpoint declares one reason code twice: {} has the code of another listed reason; \
             list each code once",
            custom_reasons.join(" or ")
        );
        quote_spanned! {*reasons_span=>
            const _: () = ::core::assert!(
                ::completeness::__private::distinct_codes(
                    <#set as ::completeness::__private::ReasonSet>::DECLARED.reasons,
                ),
                #message,
            );
        }
    });
    let warnings_distinct = (!custom_warnings.is_empty() && warnings.len() > 1).then(|| {
        let message = format!(
            "this endpoint declares one warning code twice: {} has the code of another listed warning; \
             list each code once",
            custom_warnings.join(" or ")
        );
        quote_spanned! {*warnings_span=>
            const _: () = ::core::assert!(
                ::completeness::__private::distinct_warning_codes(
                    <#set as ::completeness::__private::ReasonSet>::DECLARED.warnings,
                ),
                #message,
            );
        }
    });
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

/// The handler as written, its body led by the check that its response reports completeness
/// and carries its declared reason type (spanned on the return type, so a type alias to
/// `Json<Vec<T>>` or a response over another reason type fails there).
pub(crate) fn handler(function: &HandlerFn, handler: &Handler) -> TokenStream {
    let HandlerFn { head, sig, block, .. } = function;
    let reason = &handler.reason_type;
    let output = handler.output.map_or_else(|| quote! { () }, ToTokens::to_token_stream);
    let span = handler.output.map_or_else(|| sig.ident.span(), syn::spanned::Spanned::span);
    let mut body = quote_spanned! {span=>
        ::completeness::__private::assert_declared::<#output, #reason>();
    };
    body.extend([block.stream()]);
    let mut new_block = Group::new(block.delimiter(), body);
    new_block.set_span(block.span());
    let mut function = head.clone();
    function.extend([TokenTree::Group(new_block)]);
    function
}
