//! `#[completeness(resource = "...", reasons(...), warnings(...))]` on an axum handler, and
//! `#[completeness]` on an `impl` block whose associated functions are handlers.

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemImpl};

use crate::ctxt::Ctxt;

/// Expands the attribute on a function, or on an `impl` block.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if args.is_empty()
        && let Ok(block) = syn::parse2::<ItemImpl>(item.clone())
    {
        return expand_impl(block);
    }
    let (items, function) = expand_fn(args, item, "");
    let mut tokens = items;
    tokens.extend(function);
    tokens
}

/// One annotated function: the items that go beside it (the reason type, errors) and the
/// function itself. On error, the errors come out with the original function (and the reason
/// type) so that one mistake does not cascade into "cannot find function".
fn expand_fn(args: TokenStream, item: TokenStream, owner: &str) -> (TokenStream, TokenStream) {
    let cx = Ctxt::default();
    let attrs = attr::parse(&cx, args);
    let function = match ast::HandlerFn::split(item.clone()) {
        Some(Ok(function)) => function,
        Some(Err(error)) => {
            cx.syn_error(error);
            return (cx.check().err().map(|e| e.to_compile_error()).unwrap_or_default(), item);
        }
        None => {
            cx.error_spanned_by(
                &item,
                "`#[completeness]` goes on an `async fn` axum handler: \
                 `#[completeness(resource = \"...\", reasons(...))] async fn list(...) -> Envelope<T, R>`, \
                 or, without arguments, on an `impl` block whose handlers it annotates",
            );
            return (cx.check().err().map(|e| e.to_compile_error()).unwrap_or_default(), item);
        }
    };
    let handler = ast::Handler::from_syn(&function, owner);
    valid::check(&cx, &attrs, &handler);
    let declared = expand::Declared::from_attrs(&attrs);
    let reason_type = expand::reason_type(&handler, &declared);
    match cx.check() {
        Ok(()) => (reason_type, expand::handler(&function, &handler)),
        Err(errors) => {
            let mut items = errors.to_compile_error();
            items.extend(reason_type);
            (items, item)
        }
    }
}

/// `#[completeness] impl Api { #[completeness(...)] async fn list(..) .. }`: each annotated
/// associated function is expanded in place, and its reason type goes before the block (an
/// `impl` cannot hold one), named after the type and the function: `ApiListReason` for
/// `Api::list`, so that the blocks of two types in one module may each have a `list`.
fn expand_impl(mut block: ItemImpl) -> TokenStream {
    let mut beside = TokenStream::new();
    let owner = match &*block.self_ty {
        syn::Type::Path(path) => {
            path.path.segments.last().map(|s| syn::ext::IdentExt::unraw(&s.ident).to_string()).unwrap_or_default()
        }
        _ => String::new(),
    };
    for item in &mut block.items {
        let ImplItem::Fn(function) = item else { continue };
        // `#[completeness(..)]` or `#[completeness::completeness(..)]`, as on a free function.
        let ours = |a: &syn::Attribute| a.path().segments.last().is_some_and(|s| s.ident == "completeness");
        let Some(position) = function.attrs.iter().position(ours) else { continue };
        let attribute = function.attrs.remove(position);
        let args = match attribute.meta {
            syn::Meta::List(list) => list.tokens,
            other => {
                beside.extend(
                    syn::Error::new_spanned(
                        other,
                        "write the handler's declaration: `#[completeness(resource = \"...\", reasons(...))]`",
                    )
                    .to_compile_error(),
                );
                continue;
            }
        };
        let (items, expanded) = expand_fn(args, quote! { #function }, &owner);
        beside.extend(items);
        match syn::parse2::<ImplItem>(expanded) {
            Ok(expanded) => *item = expanded,
            Err(error) => beside.extend(error.to_compile_error()),
        }
    }
    quote! { #beside #block }
}
