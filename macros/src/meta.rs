//! Reading the `key = value` pairs of the helper attributes, for every macro. A value of the
//! wrong form is reported in our words and skipped, and reading goes on with the next key:
//! one mistake is one error, not a syn error followed by "missing key" errors for the keys
//! after it.

use proc_macro2::{TokenStream, TokenTree};
use syn::Token;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;

use crate::ctxt::Ctxt;

/// The key being read, as written.
pub(crate) fn key(meta: &ParseNestedMeta) -> String {
    let segments: Vec<String> = meta.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
    segments.join("::")
}

/// The value of `key = value`, parsed as `T`. A missing or unreadable value is reported,
/// saying that the key takes `what` and to write `example`, and skipped: `None`.
pub(crate) fn value<T: Parse>(cx: &Ctxt, meta: &ParseNestedMeta, what: &str, example: &str) -> syn::Result<Option<T>> {
    let key = key(meta);
    if meta.input.parse::<Option<Token![=]>>()?.is_none() {
        cx.error_spanned_by(&meta.path, format!("`{key}` needs a value: write `{example}`"));
        skip_value(meta)?;
        return Ok(None);
    }
    let mut tokens = TokenStream::new();
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        tokens.extend([meta.input.parse::<TokenTree>()?]);
    }
    match syn::parse2::<T>(tokens.clone()) {
        Ok(value) => Ok(Some(value)),
        Err(_) if tokens.is_empty() => {
            cx.error_spanned_by(&meta.path, format!("`{key}` needs a value: write `{example}`"));
            Ok(None)
        }
        Err(_) => {
            cx.error_spanned_by(tokens, format!("`{key}` takes {what}: write `{example}`"));
            Ok(None)
        }
    }
}

/// Consumes the value of a key that was rejected (`= ...` or `(...)`), up to the next comma.
pub(crate) fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}
