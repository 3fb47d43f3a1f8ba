//! Names: how the macros spell generated items, and how they read the names a user lists.

use syn::Path;

/// `snake_case` → `CamelCase`.
pub(crate) fn camel_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// What a name listed in `reasons(...)` or `warnings(...)` stands for.
pub(crate) enum Listed<'a> {
    /// A standard code, by its type name in the runtime (`MorePagesAvailable`).
    Standard(&'static str),
    /// Almost a standard name: the one it was probably meant to be.
    Misspelled(&'static str),
    /// A standard name of the other table (a warning listed as a reason, or the reverse).
    OtherTable(&'static str),
    /// A service's own type, by the path the user wrote.
    Custom(&'a Path),
}

/// Classifies `path` against the standard `names` (and the `other` table's).
pub(crate) fn classify<'a>(path: &'a Path, names: &[&'static str], other: &[&'static str]) -> Listed<'a> {
    let Some(ident) = path.get_ident() else { return Listed::Custom(path) };
    let written = ident.to_string();
    if let Some(name) = names.iter().find(|name| **name == written) {
        return Listed::Standard(name);
    }
    if let Some(name) = other.iter().find(|name| **name == written) {
        return Listed::OtherTable(name);
    }
    match names.iter().find(|name| completeness_codes::same_name_loosely(name, &written)) {
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
            key.push_str(&quote::ToTokens::to_token_stream(&segment.arguments).to_string());
        }
    }
    key
}

/// The standard reasons' type names.
pub(crate) fn reason_names() -> Vec<&'static str> {
    completeness_codes::REASONS.iter().map(|entry| entry.name).collect()
}

/// The standard warnings' type names.
pub(crate) fn warning_names() -> Vec<&'static str> {
    completeness_codes::WARNINGS.iter().map(|entry| entry.name).collect()
}
