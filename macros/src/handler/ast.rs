//! The annotated handler as this macro sees it, borrowing the syn tree.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, FnArg, Ident, PatType, ReturnType, Signature, Type, Visibility};

use crate::names;

/// A function item read only as far as the macro needs: the body stays an opaque
/// token group (parsing every statement would cost compile time for nothing), and the tokens
/// before it are kept as written, to be emitted again unchanged.
pub(crate) struct HandlerFn {
    /// The attributes, visibility and signature, as written.
    pub(crate) head: TokenStream,
    /// The attributes, parsed.
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) sig: Signature,
    pub(crate) block: Group,
}

impl HandlerFn {
    /// Splits off the body without looking inside it, then parses attributes, visibility
    /// and signature. `None` when the item is not a function with a body.
    pub(crate) fn split(item: TokenStream) -> Option<syn::Result<HandlerFn>> {
        let mut trees: Vec<TokenTree> = item.into_iter().collect();
        let block = match trees.pop()? {
            TokenTree::Group(group) => brace_group(group)?,
            _ => return None,
        };
        let head: TokenStream = trees.into_iter().collect();
        if !head.clone().into_iter().any(|tree| matches!(&tree, TokenTree::Ident(ident) if ident == "fn")) {
            return None;
        }
        let parser = |input: ParseStream| {
            let attrs = input.call(Attribute::parse_outer)?;
            let vis = input.parse()?;
            let sig = input.parse()?;
            Ok((attrs, vis, sig))
        };
        Some(parser.parse2(head.clone()).map(|(attrs, vis, sig)| HandlerFn { head, attrs, vis, sig, block }))
    }
}

/// The body: a brace group, also as a `macro_rules!` fragment (`$body:block`) hands it over,
/// wrapped in an invisible group.
fn brace_group(group: Group) -> Option<Group> {
    match group.delimiter() {
        Delimiter::Brace => Some(group),
        Delimiter::None => {
            let mut inner = group.stream().into_iter();
            match (inner.next(), inner.next()) {
                (Some(TokenTree::Group(group)), None) => brace_group(group),
                _ => None,
            }
        }
        _ => None,
    }
}

impl HandlerFn {
    /// The function's `#[cfg(..)]` attributes: what is generated beside it exists when it does
    /// (two handlers of one name under opposite `cfg`s in an `impl` block, where the compiler
    /// has not yet removed the one left out when this macro reads the block).
    pub(crate) fn cfgs(&self) -> impl Iterator<Item = &Attribute> {
        self.attrs.iter().filter(|attr| attr.path().is_ident("cfg"))
    }

    /// The function's other `#[completeness(..)]` attributes, after the one being expanded.
    pub(crate) fn declarations(&self) -> impl Iterator<Item = &Attribute> {
        self.attrs.iter().filter(|attr| is_declaration(attr))
    }

    /// The function as written, without its other `#[completeness(..)]` attributes: what the
    /// expansion leaves after reporting them, expanded once.
    pub(crate) fn without_declarations(&self) -> TokenStream {
        let attrs = self.attrs.iter().filter(|attr| !is_declaration(attr));
        let (vis, sig, block) = (&self.vis, &self.sig, &self.block);
        quote::quote! { #(#attrs)* #vis #sig #block }
    }
}

/// `#[completeness(..)]`, also by a path (`#[completeness::completeness(..)]`).
pub(crate) fn is_declaration(attr: &Attribute) -> bool {
    attr.path().segments.last().is_some_and(|segment| segment.ident == "completeness")
}

/// An annotated handler function.
pub(crate) struct Handler<'a> {
    pub(crate) function: &'a HandlerFn,
    /// `<HandlerInCamelCase>Reason`, after the `impl`'s type for an associated function
    /// (`ApiListReason` for `Api::list`), or the name `reason_type = Name` gives.
    pub(crate) reason_type: Ident,
    /// The typed arguments (receivers are reported by validation).
    pub(crate) args: Vec<&'a PatType>,
    /// The declared return type; `None` for `()`.
    pub(crate) output: Option<&'a Type>,
}

impl<'a> Handler<'a> {
    pub(crate) fn from_syn(function: &'a HandlerFn, owner: &str, named: Option<&Ident>) -> Handler<'a> {
        let name = names::unraw(&function.sig.ident);
        let reason_type = named.cloned().unwrap_or_else(|| {
            names::generated(&format!("{owner}{}Reason", names::camel_case(&name)), function.sig.ident.span())
        });
        let args = function
            .sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                FnArg::Typed(typed) => Some(typed),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let output = match &function.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(&**ty),
        };
        Handler { function, reason_type, args, output }
    }
}
