//! `#[envelope(...)]` field attributes, read into typed slots.

use syn::{Attribute, LitStr, Path};

use crate::ctxt::Ctxt;
use crate::krate::Krate;
use crate::meta::{self, Slot};

/// The keys of one field's `#[envelope(...)]` attributes.
#[derive(Default)]
pub(crate) struct FieldAttrs {
    /// `completeness`: this field is the completeness block.
    pub(crate) completeness: Option<Path>,
    /// `bounded = "why"`: a deliberately small collection, with the reason.
    pub(crate) bounded: Option<(Path, LitStr)>,
}

/// Reads every `#[envelope(...)]` attribute of a field; errors go to `cx`.
pub(crate) fn field_attrs(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut slots = FieldAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("envelope")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("completeness") {
                let duplicate = "duplicate `completeness` key: write it once";
                meta::flag(cx, &meta, &mut slots.completeness, "write `#[envelope(completeness)]`", duplicate)?;
            } else if meta.path.is_ident("bounded") {
                if slots.bounded.is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `bounded` key: give one justification");
                }
                if meta.input.peek(syn::Token![=]) {
                    let example = "bounded = \"a user has at most three roles\"";
                    if let Some(why) = meta::value(cx, &meta, "a string", example)? {
                        slots.bounded = Some((meta.path.clone(), why));
                    }
                } else {
                    // Validation reports the missing justification like an empty one.
                    let span = syn::spanned::Spanned::span(&meta.path);
                    slots.bounded = Some((meta.path.clone(), LitStr::new("", span)));
                    meta::skip_value(&meta)?;
                }
            } else {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "unknown envelope key `{}`: expected `completeness` or `bounded = \"why\"`",
                        meta::key(&meta)
                    ),
                );
                meta::skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    slots
}

/// The struct's own `#[envelope(...)]` keys.
pub(crate) struct ContainerAttrs {
    /// `json_schema`: asks for a `JsonSchema` impl (with the runtime's `json-schema` feature).
    pub(crate) json_schema: Option<Path>,
    /// `openapi`: asks for a `utoipa::ToSchema` impl (with the runtime's `openapi` feature).
    pub(crate) openapi: Option<Path>,
    /// `deserialize`: asks for a `serde::Deserialize` impl that restores a single resource's
    /// `Field` members from `omitted_fields`.
    pub(crate) deserialize: Option<Path>,
    /// `crate = "..."`: the framework's path, `::completeness` when not given.
    pub(crate) krate: Krate,
}

/// Reads the struct's own `#[envelope(...)]` keys. Any other key belongs on a field.
pub(crate) fn container_attrs(cx: &Ctxt, attrs: &[Attribute]) -> ContainerAttrs {
    let mut json_schema = None;
    let mut openapi = None;
    let mut deserialize = None;
    let mut krate = Slot::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("envelope")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("json_schema") {
                let duplicate = "duplicate `json_schema` key: write it once";
                meta::flag(cx, &meta, &mut json_schema, "write `#[envelope(json_schema)]`", duplicate)
            } else if meta.path.is_ident("openapi") {
                let duplicate = "duplicate `openapi` key: write it once";
                meta::flag(cx, &meta, &mut openapi, "write `#[envelope(openapi)]`", duplicate)
            } else if meta.path.is_ident("deserialize") {
                let duplicate = "duplicate `deserialize` key: write it once";
                meta::flag(cx, &meta, &mut deserialize, "write `#[envelope(deserialize)]`", duplicate)
            } else if meta.path.is_ident("crate") {
                Krate::read(cx, &meta, &mut krate)
            } else {
                cx.error_spanned_by(
                    &meta.path,
                    format!(
                        "unknown envelope key `{}` on the struct: expected `json_schema`, `openapi`, `deserialize` or \
                         `crate = \"...\"`; \
                         `completeness` and `bounded = \"why\"` go on a field",
                        meta::key(&meta)
                    ),
                );
                meta::skip_value(&meta)
            }
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    ContainerAttrs { json_schema, openapi, deserialize, krate: Krate::from_slot(cx, &krate) }
}
