//! Syntactic classification of field and return types.

use syn::{GenericArgument, PathArguments, Type};

use completeness_codes::{COLLECTIONS, COMPLETENESS_BLOCK, REPORTING_TYPES, WRAPPERS};

/// The type inside parentheses or invisible groups.
fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Paren(inner) => peel(&inner.elem),
        Type::Group(inner) => peel(&inner.elem),
        other => other,
    }
}

/// The last path segment's name and its type arguments, for a plain path type.
pub(crate) fn last_segment(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = peel(ty) else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), args))
}

/// True for a type written as a number, `bool`, `char`, `String` or `str`: never a list.
pub(crate) fn is_scalar(ty: &Type) -> bool {
    matches!(last_segment(ty), Some((name, args)) if args.is_empty() && completeness_codes::SCALARS.contains(&name.as_str()))
}

/// The error type of `Result<T, E>` as written (not of an alias of `Result`).
pub(crate) fn error_side(ty: &Type) -> Option<&Type> {
    match last_segment(ty) {
        Some((name, args)) if name == "Result" => args.get(1).copied(),
        _ => None,
    }
}

/// True for a collection of unbounded size: one of `COLLECTIONS` (`Vec`, `VecDeque`,
/// `LinkedList`, `BinaryHeap`, the maps and sets, `IndexMap`, `IndexSet`), slices, `Box<[T]>`,
/// also inside one of `WRAPPERS` (`Option`, `Box`, `Rc`, `Arc`, `Cow`, `Field`), a reference or
/// a tuple. Arrays have a fixed size and are not collections.
pub(crate) fn is_collection(ty: &Type) -> bool {
    match peel(ty) {
        Type::Slice(_) => true,
        Type::Reference(reference) => is_collection(&reference.elem),
        // `(Vec<T>, u64)` holds a list.
        Type::Tuple(tuple) => tuple.elems.iter().any(is_collection),
        other => match last_segment(other) {
            Some((name, _)) if COLLECTIONS.contains(&name.as_str()) => true,
            Some((name, args)) if WRAPPERS.contains(&name.as_str()) => args.first().is_some_and(|t| is_collection(t)),
            _ => false,
        },
    }
}

/// True for a collection whose items `.len()` counts: one of `COLLECTIONS`, a slice, or one
/// behind a reference, `Box`, `Rc`, `Arc` or `Cow` (not `Option`, `Field` or a tuple).
pub(crate) fn has_len(ty: &Type) -> bool {
    match peel(ty) {
        Type::Slice(_) => true,
        Type::Reference(reference) => has_len(&reference.elem),
        other => match last_segment(other) {
            Some((name, _)) if COLLECTIONS.contains(&name.as_str()) => true,
            Some((name, args)) if WRAPPERS.contains(&name.as_str()) && !matches!(name.as_str(), "Option" | "Field") => {
                args.first().is_some_and(|t| has_len(t))
            }
            _ => false,
        },
    }
}

/// What `found` finds in `ty`, or in the type a reference or one of `WRAPPERS` holds, outermost
/// first.
fn through_wrappers<'t, T>(ty: &'t Type, found: &impl Fn(&'t Type) -> Option<T>) -> Option<T> {
    let ty = peel(ty);
    if let Some(hit) = found(ty) {
        return Some(hit);
    }
    match ty {
        Type::Reference(reference) => through_wrappers(&reference.elem, found),
        other => match last_segment(other) {
            Some((name, args)) if WRAPPERS.contains(&name.as_str()) => {
                args.first().and_then(|t| through_wrappers(t, found))
            }
            _ => None,
        },
    }
}

/// The type parameter among `params` that `ty` is or holds: directly or through a wrapper or
/// reference (`T`, `Option<T>`, `Box<T>`), in a tuple or an array (`(T, u64)`, `[T; 1]`), or
/// as the owner of an associated type (`S::Items`, `<S as Source>::Items`): a field of that
/// type may be a list, whatever it is here.
pub(crate) fn generic_param<'p>(ty: &Type, params: &'p [syn::Ident]) -> Option<&'p syn::Ident> {
    let param = |ident: &syn::Ident| params.iter().find(|param| *param == ident);
    through_wrappers(ty, &|ty| match ty {
        Type::Path(path) => match &path.qself {
            Some(qself) => generic_param(&qself.ty, params),
            None => path.path.segments.first().and_then(|first| param(&first.ident)),
        },
        Type::Tuple(tuple) => tuple.elems.iter().find_map(|elem| generic_param(elem, params)),
        Type::Array(array) => generic_param(&array.elem, params),
        _ => None,
    })
}

/// The `Option` a collection is reached through (`Option<Vec<T>>`, `Box<Option<Vec<T>>>`) and the
/// type it holds, when there is one.
pub(crate) fn optional_collection(ty: &Type) -> Option<(&Type, &Type)> {
    through_wrappers(ty, &|ty| match last_segment(ty) {
        Some((name, args)) if name == "Option" => args.first().filter(|t| is_collection(t)).map(|t| (ty, *t)),
        _ => None,
    })
}

/// The response type of the runtime that reports completeness (`Envelope`, `Aggregate`,
/// `Collected`) that `ty` is or holds through a wrapper or reference, by name.
pub(crate) fn reporting(ty: &Type) -> Option<String> {
    // (`Problem` is among them as a refusal, never an answer.)
    through_wrappers(ty, &|ty| {
        last_segment(ty)
            .map(|(name, _)| name)
            .filter(|name| REPORTING_TYPES.contains(&name.as_str()) && name != "Problem")
    })
}

/// A hint for a response type of the runtime recognised by its name (`Envelope`) inside `ty`
/// but written under a path other than the framework's (`completeness::`, or the path its
/// `crate` key gives, whose segments are `framework`), as in `mail::Envelope`: it may be a type
/// of the service's own that only shares the name. Empty when there is no such path.
pub(crate) fn namesake_hint(ty: &Type, framework: &[String]) -> String {
    fn find(ty: &Type, framework: &[String]) -> Option<String> {
        let Type::Path(path) = peel(ty) else { return None };
        let segments = &path.path.segments;
        let last = segments.last()?;
        let name = last.ident.to_string();
        let module: Vec<String> = segments.iter().take(segments.len() - 1).map(|s| s.ident.to_string()).collect();
        let framework_path =
            module.first().is_some_and(|first| first == "completeness") || module.starts_with(framework);
        let foreign = !module.is_empty() && !framework_path;
        let known = REPORTING_TYPES.contains(&name.as_str()) || name == COMPLETENESS_BLOCK;
        if foreign && name != "Problem" && known {
            let shown: Vec<String> = segments.iter().map(|segment| segment.ident.to_string()).collect();
            return Some(format!(
                " (if `{}` is a type of your own, not the framework's `{name}`, which the check knows by its \
                 name, import it under another name where it is used: `use {} as Own{name};`)",
                shown.join("::"),
                shown.join("::")
            ));
        }
        match &last.arguments {
            PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                GenericArgument::Type(ty) => find(ty, framework),
                _ => None,
            }),
            _ => None,
        }
    }
    find(ty, framework).unwrap_or_default()
}

/// True when `ty` is or holds, through a wrapper or reference, a completeness block
/// (`Completeness<R>`, `Option<Completeness>`), by name.
pub(crate) fn is_block(ty: &Type) -> bool {
    through_wrappers(ty, &|ty| last_segment(ty).filter(|(name, _)| name == COMPLETENESS_BLOCK)).is_some()
}

/// True for `Field<T>` (contract §2.7).
pub(crate) fn is_field(ty: &Type) -> bool {
    matches!(last_segment(ty), Some((name, args)) if name == "Field" && args.len() == 1)
}

/// True for `Vec<Warning>`: the warnings of a single resource (contract §3.5) are metadata, not data.
pub(crate) fn is_warning_list(ty: &Type) -> bool {
    matches!(last_segment(ty), Some((name, args))
        if name == "Vec" && args.first().and_then(|t| last_segment(t)).is_some_and(|(inner, _)| inner == "Warning"))
}

/// A type as a user writes it: `Json<Vec<u32>>`, not `Json < Vec < u32 > >`.
pub(crate) fn pretty(ty: &Type) -> String {
    pretty_tokens(&quote::ToTokens::to_token_stream(ty))
}

/// Tokens as a user writes them (see [`pretty`]).
pub(crate) fn pretty_tokens(tokens: &proc_macro2::TokenStream) -> String {
    let text = tokens.to_string();
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let next = chars.peek().copied();
            let prev = out.chars().last();
            let tight_next = matches!(next, Some('<' | '>' | ',' | ':' | ')' | ']'));
            let tight_prev = matches!(prev, Some('<' | ':' | '(' | '[' | '&'));
            if tight_next || tight_prev {
                continue;
            }
        }
        out.push(c);
    }
    out
}
