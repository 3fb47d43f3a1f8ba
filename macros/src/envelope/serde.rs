//! The `#[serde(...)]` attributes of a derived envelope: the ones that change what is written
//! are honoured, those that only change reading are accepted (this derive only writes), and
//! every other one is refused with a spanned error. None is ignored silently.
//!
//! Honoured: on the struct `rename_all = "..."` (data members only: the completeness members
//! keep their contract names, contract §2.1) and `rename` (a struct's name is not on the
//! wire); on a field `rename = "..."`, `skip_serializing_if = "path"`, `skip_serializing` and
//! `skip` (which also skips reading). `rename` and `rename_all` also in serde's long form,
//! `rename(serialize = "..", deserialize = "..")`, of which the writing half is honoured.
//! Accepted as reading-only (they change only what a `Deserialize` derive beside this one
//! reads): on the struct `deny_unknown_fields`, `default`, `bound`, `expecting`, `from`,
//! `try_from` and `crate`; on a field `default`, `alias`, `deserialize_with`,
//! `skip_deserializing`, `borrow` and `bound`, also on the completeness field, which takes
//! `flatten` besides and nothing that changes how it is written (its members keep their
//! contract names, and it is always written).

use syn::meta::ParseNestedMeta;
use syn::{Attribute, ExprPath, LitStr};

use crate::ctxt::Ctxt;
use crate::meta;

/// How `rename_all` spells a field name.
#[derive(Clone, Copy)]
pub(crate) enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Case {
    const ALL: [(&'static str, Case); 8] = [
        ("lowercase", Case::Lower),
        ("UPPERCASE", Case::Upper),
        ("PascalCase", Case::Pascal),
        ("camelCase", Case::Camel),
        ("snake_case", Case::Snake),
        ("SCREAMING_SNAKE_CASE", Case::ScreamingSnake),
        ("kebab-case", Case::Kebab),
        ("SCREAMING-KEBAB-CASE", Case::ScreamingKebab),
    ];

    /// A field name in this case, spelled exactly as serde spells a field's (the name is read
    /// as snake_case words: `lowercase` leaves it as it is, an underscore only ever separates,
    /// and letters other than a word's first keep their case), so that a struct deriving
    /// `Deserialize` beside this derive reads back what it writes: `_links` is `Links` in
    /// PascalCase and `-links` in kebab-case, as serde has it.
    pub(crate) fn apply(self, field: &str) -> String {
        let pascal = || {
            let mut out = String::with_capacity(field.len());
            let mut starts_word = true;
            for c in field.chars() {
                match c {
                    '_' => starts_word = true,
                    c if starts_word => {
                        out.push(c.to_ascii_uppercase());
                        starts_word = false;
                    }
                    c => out.push(c),
                }
            }
            out
        };
        match self {
            Case::Lower | Case::Snake => field.to_owned(),
            Case::Upper | Case::ScreamingSnake => field.to_ascii_uppercase(),
            Case::Pascal => pascal(),
            Case::Camel => {
                let pascal = pascal();
                let mut chars = pascal.chars();
                chars.next().map(|first| first.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
            }
            Case::Kebab => field.replace('_', "-"),
            Case::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// The struct's serde attributes that change the wire.
#[derive(Default)]
pub(crate) struct ContainerSerde {
    pub(crate) rename_all: Option<Case>,
}

/// A field's serde attributes that change the wire.
#[derive(Default)]
pub(crate) struct FieldSerde {
    pub(crate) rename: Option<LitStr>,
    pub(crate) skip_serializing_if: Option<ExprPath>,
    pub(crate) skip_serializing: bool,
    /// The key of a `skip_serializing_if` or `skip_serializing`, where a rule refusing it points.
    pub(crate) skip_key: Option<syn::Path>,
}

/// The struct's keys that only change how it is read (or the `Deserialize` derive beside this
/// one: `crate`, the path it names serde by), which this derive, writing only, accepts.
const READING_ONLY_CONTAINER: [&str; 7] =
    ["deny_unknown_fields", "default", "bound", "expecting", "from", "try_from", "crate"];
/// A field's keys that only change how it is read.
pub(crate) const READING_ONLY_FIELD: [&str; 6] =
    ["default", "alias", "deserialize_with", "skip_deserializing", "borrow", "bound"];

/// Reads the struct's `#[serde(...)]`.
pub(crate) fn container(cx: &Ctxt, attrs: &[Attribute]) -> ContainerSerde {
    let mut out = ContainerSerde::default();
    each(cx, attrs, |meta, key| {
        match key {
            "rename_all" => {
                let Some(value) = written::<LitStr>(cx, meta, "a string", "rename_all = \"camelCase\"")? else {
                    return Ok(());
                };
                match Case::ALL.iter().find(|(name, _)| *name == value.value()) {
                    Some((_, case)) => out.rename_all = Some(*case),
                    None => cx.error_spanned_by(
                        &value,
                        format!(
                            "unknown `rename_all` case `{}`: expected one of {}",
                            value.value(),
                            Case::ALL.map(|(name, _)| name).join(", ")
                        ),
                    ),
                }
            }
            "rename" => {
                written::<LitStr>(cx, meta, "a string", "rename = \"Page\"")?;
            }
            key if READING_ONLY_CONTAINER.contains(&key) => meta::skip_value(meta)?,
            _ => {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "`#[serde({key})]` cannot be honoured on a `ResultEnvelope`: its members are the data \
                         fields and the completeness block; use `rename_all`, or a field's `rename` / \
                         `skip_serializing_if`"
                    ),
                );
                meta::skip_value(meta)?;
            }
        }
        Ok(())
    });
    out
}

/// Reads a field's `#[serde(...)]`.
pub(crate) fn field(cx: &Ctxt, attrs: &[Attribute]) -> FieldSerde {
    let mut out = FieldSerde::default();
    each(cx, attrs, |meta, key| {
        match key {
            "rename" => out.rename = written(cx, meta, "a string", "rename = \"name\"")?,
            "skip_serializing_if" => {
                out.skip_key = Some(meta.path.clone());
                let example = "skip_serializing_if = \"Option::is_none\"";
                let Some(path) = meta::value::<LitStr>(cx, meta, "a string", example)? else { return Ok(()) };
                match path.parse::<ExprPath>() {
                    Ok(parsed) => out.skip_serializing_if = Some(parsed),
                    Err(_) => cx
                        .error_spanned_by(&path, "`skip_serializing_if` names a function: write `\"Option::is_none\"`"),
                }
            }
            "skip_serializing" | "skip" => {
                out.skip_key = Some(meta.path.clone());
                out.skip_serializing = true;
            }
            key if READING_ONLY_FIELD.contains(&key) => meta::skip_value(meta)?,
            _ => {
                let why = if key == "flatten" {
                    "its members would mix with the completeness members; nest the struct as a named field instead"
                } else {
                    "only `rename`, `skip_serializing_if`, `skip_serializing` and `skip` change how a data field is written"
                };
                cx.error_spanned_by(
                    &meta.path,
                    format!("`#[serde({key})]` cannot be honoured on a `ResultEnvelope` field: {why}"),
                );
                meta::skip_value(meta)?;
            }
        }
        Ok(())
    });
    out
}

/// The value of `key = value`, or the writing half of serde's long form
/// `key(serialize = value, deserialize = ..)` (`None` when it names none); as [`meta::value`].
fn written<T: syn::parse::Parse>(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    what: &str,
    example: &str,
) -> syn::Result<Option<T>> {
    if !meta.input.peek(syn::token::Paren) {
        return meta::value(cx, meta, what, example);
    }
    let mut written = None;
    meta.parse_nested_meta(|half| {
        if half.path.is_ident("serialize") {
            written = meta::value(cx, &half, what, example)?;
        } else if half.path.is_ident("deserialize") {
            meta::skip_value(&half)?;
        } else {
            cx.error_spanned_by(
                &half.path,
                format!("expected `serialize` or `deserialize` in serde's long form, as in `{}`", long_form(example)),
            );
            meta::skip_value(&half)?;
        }
        Ok(())
    })?;
    Ok(written)
}

/// `key(serialize = value)` for the example `key = value`.
fn long_form(example: &str) -> String {
    match example.split_once(" = ") {
        Some((key, value)) => format!("{key}(serialize = {value})"),
        None => example.to_owned(),
    }
}

/// Each key of every `#[serde(...)]` in `attrs`, its value skipped, and whether it is in serde's
/// long form (`rename(serialize = .., deserialize = ..)`): what validation checks on the
/// completeness field, and on a struct read back with `deserialize`. What cannot be read goes
/// to `cx` (a throwaway one where the same attributes were read, and reported, before).
pub(crate) fn keys(cx: &Ctxt, attrs: &[Attribute]) -> Vec<(syn::Path, String, bool)> {
    let mut keys = Vec::new();
    each(cx, attrs, |meta, key| {
        keys.push((meta.path.clone(), key.to_owned(), meta.input.peek(syn::token::Paren)));
        meta::skip_value(meta)
    });
    keys
}

/// [`keys`] of attributes read, and reported on, before.
pub(crate) fn keys_again(attrs: &[Attribute]) -> Vec<(syn::Path, String, bool)> {
    keys(&Ctxt::default(), attrs)
}

/// Calls `f` with each key of every `#[serde(...)]` in `attrs`.
fn each(cx: &Ctxt, attrs: &[Attribute], mut f: impl FnMut(&ParseNestedMeta, &str) -> syn::Result<()>) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            f(&meta, &key)
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
}
