//! Reading the `key = value` pairs of the helper attributes, for every macro. A value of the
//! wrong form is reported in our words and skipped, and reading goes on with the next key:
//! one mistake is one error, not a syn error followed by "missing key" errors for the keys
//! after it. A mistake that stops the parse (a comma missing between keys) is one error too:
//! the keys after it were not read, and the macros report none of them missing.

use proc_macro2::{TokenStream, TokenTree};
use syn::Token;
use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream, Parser};

use crate::ctxt::Ctxt;

/// The key being read, as written.
pub(crate) fn key(meta: &ParseNestedMeta) -> String {
    let segments: Vec<String> = meta.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    segments.join("::")
}

/// One key of an attribute: whether it was given, and its value when that could be read. A
/// given key whose value could not be read was reported where it was read, so validation
/// never also calls it missing.
pub(crate) struct Slot<T> {
    pub(crate) given: bool,
    pub(crate) value: Option<T>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot { given: false, value: None }
    }
}

impl<T: Parse> Slot<T> {
    /// Reads `key = value` (see [`value`]) into this slot, once: a key given again is reported
    /// with `duplicate`, and the first value is kept.
    pub(crate) fn fill(
        &mut self,
        cx: &Ctxt,
        meta: &ParseNestedMeta,
        what: &str,
        example: &str,
        duplicate: &str,
    ) -> syn::Result<()> {
        let read = value(cx, meta, what, example)?;
        if self.given {
            cx.error_spanned_by(&meta.path, duplicate);
        } else {
            *self = Slot { given: true, value: read };
        }
        Ok(())
    }
}

/// The value of `key = value`, parsed as `T`. A missing or unreadable value is reported,
/// saying that the key takes `what` and to write `example`, and skipped: `None`.
pub(crate) fn value<T: Parse>(cx: &Ctxt, meta: &ParseNestedMeta, what: &str, example: &str) -> syn::Result<Option<T>> {
    let equals = meta.input.parse::<Option<Token![=]>>()?;
    let tokens = rest_of_key(meta)?;
    if equals.is_some()
        && let Ok(value) = syn::parse2::<T>(tokens.clone())
    {
        return Ok(Some(value));
    }
    // A value followed by more (`resource = "accounts" reasons(..)`): a comma is missing, and
    // the keys after it were not read (the parse stops here, so none is reported missing).
    let value_then_more = |input: ParseStream| -> syn::Result<TokenStream> {
        input.parse::<T>()?;
        input.parse()
    };
    if equals.is_some()
        && let Ok(more) = value_then_more.parse2(tokens.clone())
        && let Some(next) = more.into_iter().next()
    {
        return Err(missing_comma(&next, "keys"));
    }
    let key = key(meta);
    if equals.is_none() || tokens.is_empty() {
        cx.error_spanned_by(&meta.path, format!("`{key}` needs a value: write `{example}`"));
    } else {
        cx.error_spanned_by(tokens, format!("`{key}` takes {what}: write `{example}`"));
    }
    Ok(None)
}

/// The error for a comma missing before `next`, between two `what` (keys, names): it stops the
/// parse, so the keys after it are not read.
pub(crate) fn missing_comma(next: &TokenTree, what: &str) -> syn::Error {
    syn::Error::new_spanned(next, format!("expected `,` before `{next}`: separate the {what} with commas"))
}

/// Reads a key that takes no value (`completeness`, `stale`) into `slot`, once: a key given
/// again is reported with `duplicate`, a value after it is reported (saying `how`, e.g.
/// "write `#[envelope(completeness)]`") and skipped.
pub(crate) fn flag(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    slot: &mut Option<syn::Path>,
    how: &str,
    duplicate: &str,
) -> syn::Result<()> {
    if slot.is_some() {
        cx.error_spanned_by(&meta.path, duplicate);
    }
    slot.get_or_insert_with(|| meta.path.clone());
    if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        cx.error_spanned_by(&meta.path, format!("`{}` takes no value: {how}", key(meta)));
        skip_value(meta)?;
    }
    Ok(())
}

/// Consumes the value of a key that was rejected (`= ...` or `(...)`), up to the next comma.
pub(crate) fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    rest_of_key(meta).map(drop)
}

/// Consumes what follows the key up to the next comma, and returns it.
fn rest_of_key(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        tokens.extend([meta.input.parse::<TokenTree>()?]);
    }
    Ok(tokens)
}
