//! The common handler, read from its token trees without syn.
//!
//! Proc macros are built without optimization unless the user's workspace asks
//! otherwise, and there most of this macro's time went into syn reading the attribute
//! and the signature: about 0.2 ms a handler, paid again on every `cargo check`. Most
//! handlers have one shape (a well-formed attribute over a plain `async fn` whose
//! return type names its envelope), so that shape is recognized here from the tokens.
//! Anything else (generics, a where clause, qualifiers, a receiver, a `PageRequest`
//! argument, a return type that mentions a collection or a wrapper, any unknown,
//! repeated or malformed argument) is left to the syn reader, which validates it and
//! reports every mistake. Both readers produce the same [`Parts`].
//!
//! An identifier compared with several strings is turned into text once: each comparison of
//! a compiler identifier with a string goes through the compiler.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use syn::spanned::Spanned;

use super::expand::{Declared, Parts};
use crate::codes;

/// Identifiers that make a return type worth syn's closer look: every collection and
/// wrapper of `types.rs`, `Json`, and `impl`.
const LOOK_CLOSER: [&str; 13] = [
    "Vec", "VecDeque", "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Option", "Box", "Rc", "Arc", "Cow", "Json",
    "impl",
];

/// The parts of a handler of the common shape, or `None` to read it with syn.
pub(crate) fn read(args: &TokenStream, item: &TokenStream) -> Option<Parts> {
    let declared = declared(args.clone())?;
    let declares_more_pages = declared.reasons.iter().any(|(_, code)| *code == "MORE_PAGES_AVAILABLE");
    let mut trees = item.clone().into_iter().peekable();

    let mut attrs = TokenStream::new();
    while matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '#') {
        attrs.extend(trees.next());
        match trees.next() {
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => {
                attrs.extend([TokenTree::Group(group)]);
            }
            _ => return None,
        }
    }
    let mut vis = TokenStream::new();
    if matches!(trees.peek(), Some(TokenTree::Ident(i)) if i == "pub") {
        vis.extend(trees.next());
        if matches!(trees.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) {
            vis.extend(trees.next());
        }
    }
    keyword(trees.next(), "async")?;
    keyword(trees.next(), "fn")?;
    let name = match trees.next() {
        Some(TokenTree::Ident(name)) if !name.to_string().starts_with("r#") => name,
        _ => return None,
    };
    let inputs = match trees.next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => group.stream(),
        _ => return None,
    };
    if has_receiver(&inputs) || (!declares_more_pages && mentions(&inputs, "PageRequest")) {
        return None;
    }
    let mut output = None;
    if matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '-') {
        trees.next();
        match trees.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == '>' => {}
            _ => return None,
        }
        let mut ty = TokenStream::new();
        while let Some(tree) = trees.next_if(|t| !matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        {
            ty.extend([tree]);
        }
        if ty.is_empty() || !plain_type(&ty) {
            return None;
        }
        output = Some(ty);
    }
    let block = match trees.next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => group,
        _ => return None,
    };
    if trees.next().is_some() {
        return None;
    }
    let output_span = output.as_ref().map_or_else(|| name.span(), Spanned::span);
    let reason_type = Ident::new(&format!("{}Reason", codes::camel_case(&name.to_string())), name.span());
    Some(Parts {
        attrs,
        vis,
        name,
        generics: TokenStream::new(),
        where_clause: TokenStream::new(),
        inputs,
        output,
        output_span,
        block,
        reason_type,
        declared,
    })
}

/// `resource = "..."`, `reasons(...)` and optionally `warnings(...)`, each once, with known
/// names each listed once.
fn declared(args: TokenStream) -> Option<Declared> {
    let (mut resource, mut reasons, mut warnings) = (None, None, None);
    let mut trees = args.into_iter();
    while let Some(key) = trees.next() {
        let TokenTree::Ident(key) = key else { return None };
        let key = key.to_string();
        match (key.as_str(), trees.next()?) {
            ("resource", TokenTree::Punct(eq)) if eq.as_char() == '=' && resource.is_none() => {
                let TokenTree::Literal(literal) = trees.next()? else { return None };
                let syn::Lit::Str(text) = syn::Lit::new(literal) else { return None };
                let value = text.value();
                if value.trim().is_empty() || !text.suffix().is_empty() {
                    return None;
                }
                resource = Some(value);
            }
            ("reasons", TokenTree::Group(list)) if reasons.is_none() => reasons = Some(names(&list, &codes::REASONS)?),
            ("warnings", TokenTree::Group(list)) if warnings.is_none() => {
                warnings = Some(names(&list, &codes::WARNINGS)?);
            }
            _ => return None,
        }
        match trees.next() {
            None => break,
            Some(TokenTree::Punct(comma)) if comma.as_char() == ',' => {}
            Some(_) => return None,
        }
    }
    Some(Declared { resource: resource?, reasons: reasons?, warnings: warnings.unwrap_or_default() })
}

/// `(Name, Other)`: at least one known name of `table`, each once, separated by commas.
fn names(list: &Group, table: &[(&str, &'static str)]) -> Option<Vec<(Ident, &'static str)>> {
    if list.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let mut out: Vec<(Ident, &'static str)> = Vec::new();
    let mut trees = list.stream().into_iter();
    while let Some(name) = trees.next() {
        let TokenTree::Ident(name) = name else { return None };
        let text = name.to_string();
        let (_, code) = table.iter().find(|(known, _)| *known == text)?;
        if out.iter().any(|(_, seen)| seen == code) {
            return None;
        }
        out.push((name, code));
        match trees.next() {
            None => break,
            Some(TokenTree::Punct(comma)) if comma.as_char() == ',' => {}
            Some(_) => return None,
        }
    }
    // An empty list is a mistake syn reports.
    (!out.is_empty()).then_some(out)
}

/// True when `tree` is the identifier `word`.
fn keyword(tree: Option<TokenTree>, word: &str) -> Option<()> {
    matches!(tree, Some(TokenTree::Ident(ident)) if ident == word).then_some(())
}

/// True when the arguments may start with a receiver: `self` anywhere at their top level.
fn has_receiver(inputs: &TokenStream) -> bool {
    inputs.clone().into_iter().any(|tree| matches!(&tree, TokenTree::Ident(ident) if ident == "self"))
}

/// True when the identifier `word` appears in `tokens`, at any depth.
fn mentions(tokens: &TokenStream, word: &str) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == word,
        TokenTree::Group(group) => mentions(&group.stream(), word),
        _ => false,
    })
}

/// A return type that cannot be a bare list: no collection or wrapper named, no `Json`,
/// no `impl`, no reference, slice, array, tuple or parentheses (no group at all, so
/// nothing is nested), and no `where` after it.
fn plain_type(ty: &TokenStream) -> bool {
    ty.clone().into_iter().all(|tree| match tree {
        TokenTree::Ident(ident) => {
            let text = ident.to_string();
            text != "where" && !LOOK_CLOSER.contains(&text.as_str())
        }
        TokenTree::Punct(punct) => punct.as_char() != '&',
        TokenTree::Group(_) => false,
        TokenTree::Literal(_) => true,
    })
}
