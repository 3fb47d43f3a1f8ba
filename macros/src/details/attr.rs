//! `#[reason(code = "...", kind = ..., message = "...", recovery = path)]` and
//! `#[warning(code = "...", owner = "...", review_by = "YYYY-MM-DD", message = "...")]`.

use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::{DeriveInput, Ident, LitStr, Path};

use super::Which;
use crate::ctxt::Ctxt;
use crate::meta::{self, Slot};

/// The keys, each as written (validation checks the values).
#[derive(Default)]
pub(crate) struct Attrs {
    /// The first attribute, for errors about a missing key.
    pub(crate) attribute: Option<Path>,
    pub(crate) code: Slot<LitStr>,
    pub(crate) kind: Slot<Ident>,
    pub(crate) message: Slot<LitStr>,
    pub(crate) recovery: Slot<Path>,
    pub(crate) owner: Slot<LitStr>,
    pub(crate) review_by: Slot<LitStr>,
}

/// Reads the helper attribute; every mistake goes to `cx`.
pub(crate) fn parse(cx: &Ctxt, which: Which, input: &DeriveInput) -> Attrs {
    let mut attrs = Attrs::default();
    let name = which.attribute();
    for attribute in input.attrs.iter().filter(|a| a.path().is_ident(name)) {
        // Keys may be spread over several attributes, as serde's may; a key given twice is
        // reported by `set`.
        attrs.attribute.get_or_insert_with(|| attribute.path().clone());
        let result = attribute.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match (which, key.as_str()) {
                (_, "code") => set(cx, &meta, &mut attrs.code, "a string", "code = \"LEGAL_HOLD\""),
                (_, "message") => set(cx, &meta, &mut attrs.message, "a string", "message = \"...\""),
                (Which::Reason, "kind") => set(cx, &meta, &mut attrs.kind, "a name", "kind = visibility"),
                (Which::Reason, "recovery") => {
                    set(cx, &meta, &mut attrs.recovery, "a path", "recovery = LegalHold::narrow")
                }
                (Which::Warning, "owner") => set(cx, &meta, &mut attrs.owner, "a string", "owner = \"storage-team\""),
                (Which::Warning, "review_by") => {
                    set(cx, &meta, &mut attrs.review_by, "a string", "review_by = \"2027-06-30\"")
                }
                _ => {
                    let expected = match which {
                        Which::Reason => "`code`, `kind`, `message` or `recovery`",
                        Which::Warning => "`code`, `owner`, `review_by` or `message`",
                    };
                    cx.error_spanned_by(
                        &meta.path,
                        format!("unknown key `{key}` in `#[{name}(...)]`: expected {expected}"),
                    );
                    meta::skip_value(&meta)
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
fn set<T: Parse>(cx: &Ctxt, meta: &ParseNestedMeta, slot: &mut Slot<T>, what: &str, example: &str) -> syn::Result<()> {
    let read = Slot::read(cx, meta, what, example)?;
    if slot.given {
        cx.error_spanned_by(&meta.path, format!("duplicate `{}` key: give it once", meta::key(meta)));
    } else {
        *slot = read;
    }
    Ok(())
}
