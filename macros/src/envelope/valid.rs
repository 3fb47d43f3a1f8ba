//! Every rule of `#[derive(ResultEnvelope)]`; all violations are reported together.

use super::ast::{Field, Input};
use super::serde;
use crate::ctxt::Ctxt;
use crate::types;
use completeness_codes::RESOURCE_WARNINGS;

/// Runs every rule.
pub(crate) fn check(cx: &Ctxt, input: &Input) {
    check_not_empty(cx, input);
    check_completeness_fields(cx, input);
    check_bounded(cx, input);
    check_collections_covered(cx, input);
    check_tuple_data(cx, input);
    check_reserved_names(cx, input);
    check_names_unique(cx, input);
    check_block_serde(cx, input);
    check_always_written(cx, input);
    check_lists_not_optional(cx, input);
    check_warnings_named(cx, input);
    check_read_back(cx, input);
}

/// `#[envelope(deserialize)]` reads a single resource back as it was written: each `Field`
/// member under the name `omitted_fields` lists it by, restored from that list, since a plain
/// `null` read as a genuine one is the "never used" a left-out `last_used_at` is not (contract
/// §2.7). What would read it otherwise is refused, never passed over:
/// - a struct with a completeness block, or a tuple struct (whose data is a list), has no
///   `Field` to restore: serde's own `Deserialize` beside this derive reads it;
/// - the struct's `from`, `try_from` and `default` would read another type or fill what is
///   missing, and `crate` names a serde the impl does not use;
/// - on a `Field` member, any key but `rename = ".."` reads another name, another way, or not
///   at all (`alias`, `deserialize_with`, `default`, the long form of `rename`, ...).
fn check_read_back(cx: &Ctxt, input: &Input) {
    let Some(key) = &input.deserialize else { return };
    if input.tuple || input.completeness_field().is_some() {
        let what = if input.tuple {
            "a tuple struct writes a list as `items`"
        } else {
            "this struct has a completeness block"
        };
        cx.error_spanned_by(
            key,
            format!(
                "`deserialize` reads a single resource back, restoring its `Field` members from `omitted_fields`, \
                 but {what}: remove `deserialize` and derive `serde::Deserialize` beside `ResultEnvelope`"
            ),
        );
        return;
    }
    for (path, name, long) in serde::keys_again(input.attrs) {
        let why = match name.as_str() {
            "from" | "try_from" => "the struct would be read through another type: read that type instead",
            "default" => {
                "a missing member would be filled; give the other members that may be missing `#[serde(default)]` \
                 (a `Field` is always written)"
            }
            "crate" => "the impl names serde through the framework: remove it",
            "rename_all" if long => {
                "its `Field` members are read under the names they are written by, and the others would be read \
                 under others: give it one case, `rename_all = \"..\"`"
            }
            _ => continue,
        };
        let name = if long { format!("{name}(..)") } else { name };
        cx.error_spanned_by(
            &path,
            format!("`#[serde({name})]` cannot be honoured with `#[envelope(deserialize)]`: {why}"),
        );
    }
    for field in input.data_fields().filter(|field| field.is_field) {
        for (path, name, long) in serde::keys_again(&field.original.attrs) {
            if name == "rename" && !long {
                continue;
            }
            let (name, fix) = match (name.as_str(), long) {
                ("rename", true) => ("rename(..)".to_owned(), "give it one name, `rename = \"..\"`"),
                _ => (name, "remove it, or write the `Deserialize` by hand"),
            };
            cx.error_spanned_by(
                &path,
                format!(
                    "`#[serde({name})]` cannot be honoured on a `Field` read back by `#[envelope(deserialize)]`: it \
                     is read under the name `omitted_fields` lists it by, as an `Option` of its value; {fix}"
                ),
            );
        }
    }
}

/// A single resource carries its warnings in `warnings` (contract §2.7), where every client
/// looks for them: its `warnings` field renamed (a `rename`, or a `rename_all` that changes it,
/// `WARNINGS`) would send them where no reader reads them, and the resource would look free of
/// warnings. Only the field named `warnings` is held to it: a `Vec` of some `Warning` named
/// otherwise may be a list of the service's own records, which the type check refuses with its
/// own advice (the derive cannot tell the two apart by their written types).
fn check_warnings_named(cx: &Ctxt, input: &Input) {
    if input.tuple || input.completeness_field().is_some() {
        return;
    }
    let warnings = input.data_fields().filter(|f| types::is_warning_list(f.ty) && !f.serde.skip_serializing);
    for field in warnings.filter(|f| member_name(f) == RESOURCE_WARNINGS && f.wire_name() != RESOURCE_WARNINGS) {
        let message = |fix: &str| {
            format!(
                "a single resource carries its warnings in `warnings` (contract §2.7), where clients read them, but \
                 this field is written as `{}`: {fix}",
                field.wire_name()
            )
        };
        // On the `rename` that renames it; else on the field, which the struct's `rename_all` renames.
        match (&field.serde.rename, &field.original.ident) {
            (Some(rename), _) => cx.error_spanned_by(rename, message("remove the rename")),
            (None, Some(ident)) => {
                cx.error_spanned_by(ident, message("keep its name with a serde `rename` of the field to `warnings`"))
            }
            (None, None) => {}
        }
    }
}

/// A collection and a declared `Field<T>` are always written (contract §2.1, §2.7): an empty
/// list is `[]` and an unfilled field is `null` listed in `omitted_fields`. Skipping one would
/// make "complete and empty", the one answer that proves absence, a response no reader accepts.
fn check_always_written(cx: &Ctxt, input: &Input) {
    for field in input.data_fields().filter(|f| f.is_collection || f.is_field) {
        let Some(key) = &field.serde.skip_key else { continue };
        let key_name = key.get_ident().map(ToString::to_string).unwrap_or_default();
        let why = if field.is_field {
            "a field the server did not fill is written as `null` and listed in `omitted_fields`"
        } else {
            "an empty collection is written as `[]`, never left out"
        };
        cx.error_spanned_by(key, format!("`{}` is always written: {why}; remove `{key_name}`", member_name(field)));
    }
}

/// A list is always written (contract §2.1): `None` in an `Option<Vec<T>>` would go out as `null`,
/// beside a block that may say complete, and a reader could take it for "nothing exists" or
/// fail on it. A list that could not be read is `[]` with a reason saying why.
fn check_lists_not_optional(cx: &Ctxt, input: &Input) {
    for field in input.data_fields().filter(|f| f.is_unbounded_collection()) {
        let Some((option, inner)) = types::optional_collection(field.ty) else { continue };
        cx.error_spanned_by(
            option,
            format!(
                "`{}` is a list and is always written, but `{}` would write `null` for `None`: \
                 use `{}` (an empty list is `[]`) and report why it is empty in the completeness block",
                member_name(field),
                types::pretty(option),
                types::pretty(inner)
            ),
        );
    }
}

/// serde attributes on the completeness block that change how it is written would change
/// contract members (its names, whether it is written): refused. `flatten` says what the derive
/// does anyway (and lets a `Deserialize` derive read the block back), and those that only change
/// reading (`skip_deserializing`, `default`, ...) concern that derive alone: accepted.
fn check_block_serde(cx: &Ctxt, input: &Input) {
    let Some(field) = input.completeness_field() else { return };
    for (path, key, _) in serde::keys(cx, &field.original.attrs) {
        if key == "flatten" || serde::READING_ONLY_FIELD.contains(&key.as_str()) {
            continue;
        }
        cx.error_spanned_by(
            path,
            format!(
                "`#[serde({key})]` cannot be honoured on the completeness block, which is always written, its members \
                 under their contract names: remove it; this field takes `flatten` and the attributes that only \
                 affect reading (`skip_deserializing`, `default`, `alias`, `deserialize_with`, `borrow`, `bound`)"
            ),
        );
    }
}

fn check_not_empty(cx: &Ctxt, input: &Input) {
    if input.fields.is_empty() {
        cx.error_at(
            input.span,
            "`ResultEnvelope` needs a struct with fields: the data and, for a list, its completeness",
        );
    }
}

/// At most one `#[envelope(completeness)]`; it is not also `bounded`.
fn check_completeness_fields(cx: &Ctxt, input: &Input) {
    let mut first: Option<&Field> = None;
    for field in &input.fields {
        let Some(path) = &field.attrs.completeness else { continue };
        match first {
            None => first = Some(field),
            Some(earlier) => cx.error_spanned_by(
                path,
                format!(
                    "only one field can be `#[envelope(completeness)]`; `{}` already is: remove this one",
                    member_name(earlier)
                ),
            ),
        }
        if let Some((bounded, _)) = &field.attrs.bounded {
            cx.error_spanned_by(
                bounded,
                "the completeness block is not a data collection: remove `bounded` from this field",
            );
        }
    }
}

/// `bounded` needs a non-empty justification and a field that can hold a collection: one
/// written as a collection, or a type that may hide one (an alias, a struct of the service's
/// own, a generic parameter, a `Value`), which the runtime would otherwise report when it goes
/// out as a list. A scalar cannot.
fn check_bounded(cx: &Ctxt, input: &Input) {
    for field in &input.fields {
        let Some((path, why)) = &field.attrs.bounded else { continue };
        if why.value().trim().is_empty() {
            cx.error_spanned_by(
                why,
                "`bounded` needs a justification: say why this collection cannot grow, \
                 e.g. `bounded = \"a user has at most three roles\"`",
            );
        }
        if types::is_scalar(field.ty) && field.attrs.completeness.is_none() {
            cx.error_spanned_by(
                path,
                format!("`bounded` marks a collection, but `{}` is not one: remove it", member_name(field)),
            );
        }
    }
}

/// Every unbounded collection needs a completeness block next to it.
fn check_collections_covered(cx: &Ctxt, input: &Input) {
    if input.completeness_field().is_some() {
        return;
    }
    // A block left unmarked reports nothing: the struct goes out as a single resource, its
    // `complete: false` nested where no reader of the response, `require_complete` or the
    // endpoint's declaration looks. Its error says the fix for the collections too.
    let unmarked: Vec<&Field> =
        input.data_fields().filter(|f| types::is_block(f.ty) && !f.serde.skip_serializing).collect();
    for field in &unmarked {
        cx.error_spanned_by(
            field.ty,
            format!(
                "field `{}` is a completeness block, but `{}` does not report through it (its reasons would go out \
                 unseen by the endpoint's declaration and by `require_complete`): mark it `#[envelope(completeness)]`{}",
                member_name(field),
                input.ident,
                types::namesake_hint(field.ty, &input.framework)
            ),
        );
    }
    if !unmarked.is_empty() {
        return;
    }
    for field in input.data_fields().filter(|f| f.is_unbounded_collection()) {
        cx.error_spanned_by(
            field.ty,
            format!(
                "collection field `{}` has no completeness metadata: add a field \
                 `#[envelope(completeness)] completeness: Completeness<R>` to `{}`, \
                 or mark a deliberately small collection `#[envelope(bounded = \"why it cannot grow\")]`",
                member_name(field),
                input.ident
            ),
        );
    }
    // A response nested in a single resource reports to no one: the endpoint's declared reasons
    // and a caller's demand for a complete answer see the outer struct only.
    for field in input.data_fields().filter(|f| !f.serde.skip_serializing) {
        let Some(name) = types::reporting(field.ty) else { continue };
        cx.error_spanned_by(
            field.ty,
            format!(
                "field `{}` holds a response of its own, `{name}`, whose completeness `{}` would not report (its reasons go out unseen \
                 by the endpoint's declaration and by `require_complete`): return the `{name}` itself, or give \
                 `{}` a field `#[envelope(completeness)] completeness: Completeness<R>` that reports its reasons{}",
                member_name(field),
                input.ident,
                input.ident,
                types::namesake_hint(field.ty, &input.framework)
            ),
        );
    }
    // A field of a type parameter is a list when the parameter is one (`ApiResponse<Vec<Account>>`),
    // and the derive cannot see the uses: it needs the block, or a reason why it never is a list.
    // (A field serde never writes is not on the wire, whatever its type.)
    for field in
        input.data_fields().filter(|f| !f.is_collection && f.attrs.bounded.is_none() && !f.serde.skip_serializing)
    {
        let Some(param) = &field.generic else { continue };
        let shown = types::pretty(field.ty);
        // The parameter itself (`data: T`) can be a list; a type built on it (`S::Items`,
        // `Option<T>`, `(T, u64)`) can be or hold one, depending on it: the message names that type.
        let message = if *param == shown {
            format!(
                "field `{}` has the type parameter `{param}`, which can be a list (`{}<Vec<..>>`): add a field \
                 `#[envelope(completeness)] completeness: Completeness<R>` to `{}`, or, when `{param}` is never a \
                 list, say why with `#[envelope(bounded = \"why {param} is one resource\")]`",
                member_name(field),
                input.ident,
                input.ident
            )
        } else {
            format!(
                "field `{}` has the type `{shown}`, which can be or hold a list, depending on the type parameter \
                 `{param}`: add a field `#[envelope(completeness)] completeness: Completeness<R>` to `{}`, or, when \
                 `{shown}` never is one, say why with `#[envelope(bounded = \"why {shown} is one resource\")]`",
                member_name(field),
                input.ident
            )
        };
        cx.error_spanned_by(field.ty, message);
    }
}

/// A tuple struct has one data field (written as `items`); more need names.
fn check_tuple_data(cx: &Ctxt, input: &Input) {
    if !input.tuple {
        return;
    }
    for field in input.data_fields().skip(1) {
        cx.error_spanned_by(
            field.original,
            "a tuple envelope has one data field, written as `items`: use a struct with named fields for more",
        );
    }
}

/// Data field names must not clash with the members the envelope writes itself.
fn check_reserved_names(cx: &Ctxt, input: &Input) {
    if input.tuple {
        return;
    }
    let envelope_writes_block = input.completeness_field().is_some();
    let envelope_writes_omitted = input.fields.iter().any(|f| f.is_field);
    for field in input.data_fields() {
        let name = field.wire_name();
        let clash = (name == completeness_codes::OMITTED_FIELDS && envelope_writes_omitted)
            || (completeness_codes::COLLECTION_MEMBERS.contains(&name.as_str()) && envelope_writes_block);
        if clash && let Some(ident) = &field.original.ident {
            // On the `rename` that names the member, when one does.
            let message = format!("field `{name}` clashes with the envelope member of the same name: rename it");
            match &field.serde.rename {
                Some(rename) => cx.error_spanned_by(rename, message),
                None => cx.error_spanned_by(ident, message),
            }
        }
    }
}

/// Two data fields written under one name would put the member twice in the object (contract
/// R1): a strict reader refuses the answer, and a lenient one keeps the last, while
/// `page.returned` counts the first. A skipped field is not written and takes no name.
fn check_names_unique(cx: &Ctxt, input: &Input) {
    if input.tuple {
        return;
    }
    let written: Vec<&Field> = input.data_fields().filter(|f| !f.serde.skip_serializing).collect();
    for (i, field) in written.iter().enumerate() {
        let name = field.wire_name();
        let Some(first) = written[..i].iter().find(|earlier| earlier.wire_name() == name) else { continue };
        if let Some(ident) = &field.original.ident {
            cx.error_spanned_by(
                ident,
                format!(
                    "field `{}` is written as `{name}`, as field `{}` is: an object names a member once; \
                     rename one of them",
                    member_name(field),
                    member_name(first)
                ),
            );
        }
    }
}

fn member_name(field: &Field) -> String {
    match &field.member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}
