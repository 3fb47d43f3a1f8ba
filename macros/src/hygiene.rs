//! Where generated code points, and how its names resolve.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote_spanned;
use syn::Member;

/// A span located at `span` (a field's type, so that a type error points at the field) but
/// resolved at the call site, like the impl's own `self`: code carrying the field's tokens'
/// hygiene would not name the receiver when the struct comes out of a `macro_rules!` macro.
pub(crate) fn at(span: Span) -> Span {
    Span::call_site().located_at(span)
}

/// `self.member`, every token at `span` (from [`at`]): an expression whose tokens come from
/// two places has no span of its own, and its error would point at the derive.
pub(crate) fn place(member: &Member, span: Span) -> TokenStream {
    let mut member = member.clone();
    match &mut member {
        Member::Named(ident) => ident.set_span(span),
        Member::Unnamed(index) => index.span = span,
    }
    quote_spanned! {span=> self.#member }
}

/// `tokens` with every token at `span`: the framework's path (`::completeness::__private`, or the
/// one `crate = "..."` gives) in a call spanned on the user's code, so that the call's error
/// points there, as if the path had been written in it.
pub(crate) fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(&group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
        })
        .collect()
}
