//! `#[completeness(resource = "...", reasons(...), warnings(...))]` on an axum handler, and
//! `#[completeness]` on an `impl` block whose associated functions are handlers.

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;
use syn::{ImplItem, ItemImpl};

use crate::ctxt::Ctxt;
use crate::names;

/// Expands the attribute on a function, or on an `impl` block.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if args.is_empty() {
        match syn::parse2::<ItemImpl>(item.clone()) {
            Ok(block) => return expand_impl(block),
            Err(_) if is_impl_block(&item) => return expand_unparsed_impl(item),
            Err(_) => {}
        }
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
    let handler = ast::Handler::from_syn(&function, owner, attrs.reason_type.value.as_ref());
    valid::check(&cx, &attrs, &handler);
    let declared = expand::Declared::from_attrs(&attrs);
    let reason_type = expand::reason_type(&handler, &declared);
    match cx.check() {
        Ok(()) => (reason_type, expand::handler(&function, &handler, &declared)),
        Err(errors) => {
            let mut items = errors.to_compile_error();
            items.extend(reason_type);
            let function =
                if function.declarations().next().is_some() { function.without_declarations() } else { item };
            (items, function)
        }
    }
}

/// `#[completeness] impl Api { #[completeness(...)] async fn list(..) .. }`: each annotated
/// associated function is expanded in place, and its reason type goes before the block (an
/// `impl` cannot hold one), named after the type and the function: `ApiListReason` for
/// `Api::list`, so that the blocks of two types in one module may each have a `list`.
fn expand_impl(mut block: ItemImpl) -> TokenStream {
    let beside = expand_handlers(&mut block);
    quote! { #beside #block }
}

/// Expands the annotated functions of `block` in place, and returns what goes before it.
fn expand_handlers(block: &mut ItemImpl) -> TokenStream {
    let mut beside = TokenStream::new();
    block.items = block.items.drain(..).flat_map(under_cfg_attr).collect();
    let owner = match &*block.self_ty {
        // Capitalized, as the generated names are CamelCase: `impl r#dyn` gives `DynListReason`.
        syn::Type::Path(path) => {
            path.path.segments.last().map(|s| names::capitalized(&names::unraw(&s.ident))).unwrap_or_default()
        }
        _ => String::new(),
    };
    for item in &mut block.items {
        let ImplItem::Fn(function) = item else { continue };
        // `#[completeness(..)]` or `#[completeness::completeness(..)]`, as on a free function.
        let Some(position) = function.attrs.iter().position(ast::is_declaration) else { continue };
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
    beside
}

/// A function whose `#[completeness(..)]` is inside `#[cfg_attr(pred, ..)]`, which the compiler
/// expands only after this macro has read the block: as two, `#[cfg(pred)]` with the attribute
/// and `#[cfg(not(pred))]` without, so that what is generated beside the first exists when it
/// does (see `HandlerFn::cfgs`), as for a free function. Any other item, as it is.
fn under_cfg_attr(item: ImplItem) -> Vec<ImplItem> {
    let ImplItem::Fn(function) = &item else { return vec![item] };
    let found = function.attrs.iter().enumerate().find_map(|(at, attr)| {
        if !attr.path().is_ident("cfg_attr") {
            return None;
        }
        let parser = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
        let metas = attr.parse_args_with(parser).ok()?;
        let mut metas = metas.into_iter();
        let predicate = metas.next()?;
        let (ours, rest): (Vec<syn::Meta>, Vec<syn::Meta>) =
            metas.partition(|meta| meta.path().segments.last().is_some_and(|s| s.ident == "completeness"));
        let ours = ours.into_iter().next()?;
        Some((at, predicate, ours, rest))
    });
    let Some((at, predicate, ours, rest)) = found else { return vec![item] };
    let mut with = function.clone();
    let mut without = function.clone();
    for copy in [&mut with, &mut without] {
        copy.attrs.remove(at);
        if !rest.is_empty() {
            copy.attrs.insert(at, syn::parse_quote!(#[cfg_attr(#predicate, #(#rest),*)]));
        }
    }
    with.attrs.push(syn::parse_quote!(#[cfg(#predicate)]));
    with.attrs.push(syn::parse_quote!(#[#ours]));
    without.attrs.push(syn::parse_quote!(#[cfg(not(#predicate))]));
    vec![ImplItem::Fn(with), ImplItem::Fn(without)]
}

/// An `impl` block that does not parse: a slip in one of its bodies, which rustc reports when
/// it reads the block again. Nothing else is said: the handlers' reason types are written from
/// their signatures (the block read with its bodies left empty), and their attributes are taken
/// out, so that they are not expanded as free functions inside the block.
fn expand_unparsed_impl(item: TokenStream) -> TokenStream {
    let signatures = in_braces(item.clone(), &|body| in_braces(body, &|_| TokenStream::new()));
    let beside = match syn::parse2::<ItemImpl>(signatures) {
        Ok(mut signatures) => expand_handlers(&mut signatures),
        Err(_) => TokenStream::new(),
    };
    let block = in_braces(item, &without_ours);
    quote! { #beside #block }
}

/// True for the tokens of an `impl` block: attributes, then `impl` (after `unsafe` or
/// `default`).
fn is_impl_block(item: &TokenStream) -> bool {
    let mut trees = item.clone().into_iter().peekable();
    while matches!(trees.peek(), Some(TokenTree::Punct(pound)) if pound.as_char() == '#') {
        trees.next();
        trees.next();
    }
    trees.find_map(|tree| match tree {
        TokenTree::Ident(ident) if ident == "unsafe" || ident == "default" => None,
        TokenTree::Ident(ident) => Some(ident == "impl"),
        _ => Some(false),
    }) == Some(true)
}

/// `tokens` with `change` made inside each `{ .. }` at their top level: the body of an `impl`
/// block, or the bodies of its items.
fn in_braces(tokens: TokenStream, change: &dyn Fn(TokenStream) -> TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(braces) if braces.delimiter() == Delimiter::Brace => {
                let mut changed = Group::new(Delimiter::Brace, change(braces.stream()));
                changed.set_span(braces.span());
                TokenTree::Group(changed)
            }
            other => other,
        })
        .collect()
}

/// The items of an `impl` body without `#[completeness(..)]` / `#[completeness::completeness(..)]`.
fn without_ours(items: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut trees = items.into_iter().peekable();
    while let Some(tree) = trees.next() {
        if matches!(&tree, TokenTree::Punct(pound) if pound.as_char() == '#')
            && let Some(TokenTree::Group(attribute)) = trees.peek()
            && attribute.delimiter() == Delimiter::Bracket
            && names_ours(attribute.stream())
        {
            trees.next();
            continue;
        }
        out.push(tree);
    }
    out.into_iter().collect()
}

/// True for the inside of `#[completeness(..)]` or `#[completeness::completeness(..)]`: the
/// path before the arguments ends in `completeness`.
fn names_ours(attribute: TokenStream) -> bool {
    let path: Vec<TokenTree> = attribute.into_iter().take_while(|tree| !matches!(tree, TokenTree::Group(_))).collect();
    matches!(path.last(), Some(TokenTree::Ident(name)) if name == "completeness")
}
