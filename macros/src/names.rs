//! Names: how the macros spell generated items, and how they read the names a user lists.

use syn::Path;

/// `snake_case` → `CamelCase`.
pub(crate) fn camel_case(snake: &str) -> String {
    snake.split('_').filter(|part| !part.is_empty()).map(capitalized).collect()
}

/// `word` with its first letter in upper case.
pub(crate) fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The identifier `name`, a generated item's, spelled from an identifier the user wrote. A name
/// that cannot start an identifier once its underscores are gone (`_2fa_devices`, `_١_list`,
/// or one that starts with a combining mark) keeps one underscore: `_2faDevicesReason`. Every
/// other character came from an identifier, so the name with the underscore is one.
pub(crate) fn generated(name: &str, span: proc_macro2::Span) -> syn::Ident {
    let mut ident = syn::parse_str::<syn::Ident>(name)
        .or_else(|_| syn::parse_str::<syn::Ident>(&format!("_{name}")))
        .unwrap_or_else(|_| syn::Ident::new("_", span));
    ident.set_span(span);
    ident
}

/// An identifier as its name is written out (a member, a generated name): without a raw
/// identifier's `r#` (`r#type` is `type`).
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// What a name listed in `reasons(...)` or `warnings(...)` stands for.
pub(crate) enum Listed<'a> {
    /// A standard code, by its type name in the runtime (`MorePagesAvailable`).
    Standard(&'static str),
    /// Almost a standard name (its case or underscores, or a letter or two, differ): the one it
    /// was probably meant to be.
    Misspelled(&'static str),
    /// A standard name of the other table (a warning listed as a reason, or the reverse).
    OtherTable(&'static str),
    /// A standard name by the framework's path through the other table's module
    /// (`completeness::warning::MorePagesAvailable`): no such item.
    WrongModule(&'static str),
    /// A service's own type, by the path the user wrote.
    Custom(&'a Path),
}

impl Listed<'_> {
    /// What tells two listed names apart: a standard name by its type name, however it was
    /// written (bare or by the facade's path), a service's own type by the path as written.
    /// `None` for a name validation refuses.
    pub(crate) fn key(&self) -> Option<String> {
        match self {
            Listed::Standard(name) => Some((*name).to_owned()),
            Listed::Custom(path) => Some(path_key(path)),
            Listed::Misspelled(_) | Listed::OtherTable(_) | Listed::WrongModule(_) => None,
        }
    }
}

/// Classifies `path` against the standard `names`, whose module in the framework is `module`
/// (`reason` or `warning`), and the `other` table's. A standard name counts bare
/// (`MorePagesAvailable`), by the framework's path, `framework`
/// (`completeness::reason::MorePagesAvailable`), or through its module imported on its own
/// (`reason::MorePagesAvailable`, after `use completeness::reason`; any path ending in the
/// module and a standard name, exactly).
pub(crate) fn classify<'a>(
    path: &'a Path,
    names: &[&'static str],
    module: &str,
    other: &[&'static str],
    framework: &[String],
) -> Listed<'a> {
    let segments: Vec<String> = path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    let (written, right_module) = match segments.as_slice() {
        [name] if path.leading_colon.is_none() => (name.clone(), true),
        [prefix @ .., written_module, name]
            if prefix == framework && (written_module == "reason" || written_module == "warning") =>
        {
            (name.clone(), written_module == module)
        }
        // The module by another path: only a standard name, exactly, is read as one (a
        // service's own `crate::reason::LegalHold` is its own).
        [.., written_module, name] if written_module == module && names.contains(&name.as_str()) => {
            (name.clone(), true)
        }
        _ => return Listed::Custom(path),
    };
    if let Some(name) = names.iter().find(|name| **name == written) {
        return if right_module { Listed::Standard(name) } else { Listed::WrongModule(name) };
    }
    if let Some(name) = other.iter().find(|name| **name == written) {
        return Listed::OtherTable(name);
    }
    // A slip of case or underscores (`MORE_PAGES_AVAILABLE`), or of a letter or two
    // (`MorePageAvailable`), as the keys' "did you mean" counts them.
    let slip = names.iter().copied().find(|name| completeness_codes::same_name_loosely(name, &written));
    match slip.or_else(|| near_miss(&written, names)) {
        Some(name) => Listed::Misspelled(name),
        None => Listed::Custom(path),
    }
}

/// A listed path as written (`own::LegalHold`), to tell whether two listed names are the same
/// and to quote it in a message.
pub(crate) fn path_key(path: &Path) -> String {
    let mut key = String::new();
    if path.leading_colon.is_some() {
        key.push_str("::");
    }
    for (i, segment) in path.segments.iter().enumerate() {
        if i > 0 {
            key.push_str("::");
        }
        key.push_str(&segment.ident.to_string());
        if !segment.arguments.is_none() {
            key.push_str(&crate::types::pretty_tokens(&quote::ToTokens::to_token_stream(&segment.arguments)));
        }
    }
    key
}

/// The candidate `written` is most likely a slip of: at most two letters added, dropped or
/// changed (`reason` for `reasons`), for a "did you mean" in a message; the nearest (of as
/// near, the first in alphabetical order).
pub(crate) fn near_miss<'c>(written: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let distance = |c: &str| (0..=2).find(|&most| completeness_codes::within_edits(written, c, most));
    candidates.iter().copied().filter_map(|c| Some((distance(c)?, c))).min().map(|(_, c)| c)
}

/// The standard reasons' type names.
pub(crate) fn reason_names() -> Vec<&'static str> {
    completeness_codes::REASONS.iter().map(|entry| entry.name).collect()
}

/// The standard warnings' type names.
pub(crate) fn warning_names() -> Vec<&'static str> {
    completeness_codes::WARNINGS.iter().map(|entry| entry.name).collect()
}
