//! `#[reason(code = "...", kind = ..., message = "...", recovery = path)]` and
//! `#[warning(code = "...", owner = "...", review_by = "YYYY-MM-DD", message = "...")]`.

use syn::meta::ParseNestedMeta;
use syn::{DeriveInput, Ident, LitStr, Path, Token};

use super::Which;
use crate::ctxt::Ctxt;

/// The keys, each as written (validation checks the values).
#[derive(Default)]
pub(crate) struct Attrs {
    /// The attribute itself, for errors about a missing key.
    pub(crate) attribute: Option<Path>,
    pub(crate) code: Option<LitStr>,
    pub(crate) kind: Option<Ident>,
    pub(crate) message: Option<LitStr>,
    pub(crate) recovery: Option<Path>,
    pub(crate) owner: Option<LitStr>,
    pub(crate) review_by: Option<LitStr>,
}

/// Reads the helper attribute; every mistake goes to `cx`.
pub(crate) fn parse(cx: &Ctxt, which: Which, input: &DeriveInput) -> Attrs {
    let mut attrs = Attrs::default();
    let name = which.attribute();
    for attribute in input.attrs.iter().filter(|a| a.path().is_ident(name)) {
        if attrs.attribute.is_some() {
            cx.error_spanned_by(attribute, format!("duplicate `#[{name}(...)]`: write every key in one attribute"));
            continue;
        }
        attrs.attribute = Some(attribute.path().clone());
        let result = attribute.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match (which, key.as_str()) {
                (_, "code") => set(cx, &meta, &mut attrs.code, |m| m.value()?.parse()),
                (_, "message") => set(cx, &meta, &mut attrs.message, |m| m.value()?.parse()),
                (Which::Reason, "kind") => set(cx, &meta, &mut attrs.kind, |m| m.value()?.parse()),
                (Which::Reason, "recovery") => set(cx, &meta, &mut attrs.recovery, |m| m.value()?.parse()),
                (Which::Warning, "owner") => set(cx, &meta, &mut attrs.owner, |m| m.value()?.parse()),
                (Which::Warning, "review_by") => set(cx, &meta, &mut attrs.review_by, |m| m.value()?.parse()),
                _ => {
                    let expected = match which {
                        Which::Reason => "`code`, `kind`, `message` or `recovery`",
                        Which::Warning => "`code`, `owner`, `review_by` or `message`",
                    };
                    cx.error_spanned_by(
                        &meta.path,
                        format!("unknown key `{key}` in `#[{name}(...)]`: expected {expected}"),
                    );
                    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                        meta.input.parse::<proc_macro2::TokenTree>()?;
                    }
                    Ok(())
                }
            }
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    attrs
}

/// Reads a key's value into its slot, once.
fn set<T>(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    slot: &mut Option<T>,
    read: impl FnOnce(&ParseNestedMeta) -> syn::Result<T>,
) -> syn::Result<()> {
    let value = read(meta)?;
    if slot.is_some() {
        let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
        cx.error_spanned_by(&meta.path, format!("duplicate `{key}` key"));
    } else {
        *slot = Some(value);
    }
    Ok(())
}
