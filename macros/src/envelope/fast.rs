//! The common envelope, read from its token trees without syn.
//!
//! Like the handler's token reader (see `handler/fast.rs`): a plain struct with named
//! fields, no generics, exactly one `#[envelope(completeness)]` field and no other
//! `envelope` attribute, no `Field<T>` and no field named like an envelope member is
//! recognized here. Everything else goes through syn and the validation, which reports
//! every mistake. Both readers produce the same [`Shape`].

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

use super::expand::{DataField, Shape};
use super::valid::RESERVED;

/// The shape of an envelope of the common form, or `None` to read it with syn.
pub(crate) fn read(input: &TokenStream) -> Option<Shape> {
    let mut trees = input.clone().into_iter().peekable();
    while matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '#') {
        trees.next();
        let attribute = bracket(trees.next())?;
        if names_envelope(&attribute) {
            return None;
        }
    }
    if matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "pub") {
        trees.next();
        if matches!(trees.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) {
            trees.next();
        }
    }
    match trees.next() {
        Some(TokenTree::Ident(keyword)) if keyword == "struct" => {}
        _ => return None,
    }
    let ident = match trees.next() {
        Some(TokenTree::Ident(ident)) if !ident.to_string().starts_with("r#") => ident,
        _ => return None,
    };
    let body = match trees.next() {
        Some(TokenTree::Group(body)) if body.delimiter() == Delimiter::Brace => body,
        _ => return None,
    };
    if trees.next().is_some() {
        return None;
    }

    let mut block: Option<(TokenStream, Span)> = None;
    let mut data = Vec::new();
    for field in fields(&body)? {
        let Field { is_block, name, ty } = field;
        let span = ty.span();
        if is_block {
            if block.is_some() {
                return None;
            }
            block = Some((name.to_token_stream(), span));
            continue;
        }
        let wire = name.to_string();
        if RESERVED.contains(&wire.as_str()) || mentions_field(&ty) {
            return None;
        }
        data.push(DataField { member: name.to_token_stream(), name: wire, span, is_field: false });
    }
    // Without a completeness block the collection rules apply: syn's reader checks them.
    block.as_ref()?;
    Some(Shape {
        ident,
        impl_generics: TokenStream::new(),
        ty_generics: TokenStream::new(),
        where_clause: TokenStream::new(),
        block,
        data,
    })
}

/// One named field.
struct Field {
    is_block: bool,
    name: Ident,
    ty: TokenStream,
}

/// The named fields of `body`: `#[attr]* vis? name: Type,` each.
fn fields(body: &Group) -> Option<Vec<Field>> {
    let mut out = Vec::new();
    let mut trees = body.stream().into_iter().peekable();
    while trees.peek().is_some() {
        let mut is_block = false;
        while matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '#') {
            trees.next();
            let attribute = bracket(trees.next())?;
            if names_envelope(&attribute) {
                if is_block || !is_completeness_marker(&attribute) {
                    return None;
                }
                is_block = true;
            }
        }
        if matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "pub") {
            trees.next();
            if matches!(trees.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) {
                trees.next();
            }
        }
        let name = match trees.next() {
            Some(TokenTree::Ident(name)) if !name.to_string().starts_with("r#") => name,
            _ => return None,
        };
        match trees.next() {
            Some(TokenTree::Punct(colon)) if colon.as_char() == ':' => {}
            _ => return None,
        }
        // The type runs to the next comma outside angle brackets.
        let mut ty = TokenStream::new();
        let mut depth = 0_i32;
        for tree in trees.by_ref() {
            if let TokenTree::Punct(punct) = &tree {
                match punct.as_char() {
                    ',' if depth == 0 => break,
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    // `->` (a function type) would throw the angle count off.
                    '-' => return None,
                    _ => {}
                }
            }
            ty.extend([tree]);
        }
        if ty.is_empty() || depth != 0 {
            return None;
        }
        out.push(Field { is_block, name, ty });
    }
    Some(out)
}

/// The contents of `[...]`.
fn bracket(tree: Option<TokenTree>) -> Option<TokenStream> {
    match tree {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => Some(group.stream()),
        _ => None,
    }
}

/// True for an attribute whose path starts with `envelope`.
fn names_envelope(attribute: &TokenStream) -> bool {
    matches!(attribute.clone().into_iter().next(), Some(TokenTree::Ident(i)) if i == "envelope")
}

/// True for exactly `envelope(completeness)`.
fn is_completeness_marker(attribute: &TokenStream) -> bool {
    let trees: Vec<TokenTree> = attribute.clone().into_iter().collect();
    match trees.as_slice() {
        [TokenTree::Ident(_), TokenTree::Group(keys)] if keys.delimiter() == Delimiter::Parenthesis => {
            let keys: Vec<TokenTree> = keys.stream().into_iter().collect();
            matches!(keys.as_slice(), [TokenTree::Ident(key)] if key == "completeness")
        }
        _ => false,
    }
}

/// True when the type names `Field` anywhere (a `Field<T>` writes `omitted_fields`).
fn mentions_field(ty: &TokenStream) -> bool {
    ty.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "Field",
        TokenTree::Group(group) => mentions_field(&group.stream()),
        _ => false,
    })
}
