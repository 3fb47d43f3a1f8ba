//! The arguments of `#[completeness(...)]`, read into typed slots.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{LitStr, Path, Token};

use crate::ctxt::Ctxt;

/// The attribute's keys. Names inside `reasons(...)` / `warnings(...)` are kept as written
/// (paths); validation classifies them.
#[derive(Default)]
pub(crate) struct Attrs {
    /// `resource = "..."`.
    pub(crate) resource: Option<LitStr>,
    /// `reasons(...)`: the key and the names (possibly none: an always-complete endpoint).
    pub(crate) reasons: Option<(Path, Vec<Path>)>,
    /// `warnings(...)`: the key and the names.
    pub(crate) warnings: Option<(Path, Vec<Path>)>,
}

/// Reads the attribute arguments; every mistake goes to `cx`.
pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Attrs {
    let mut attrs = Attrs::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("resource") {
            if attrs.resource.is_some() {
                cx.error_spanned_by(&meta.path, "duplicate `resource` key: an endpoint lists one resource");
            }
            if meta.input.peek(Token![=]) {
                attrs.resource = Some(meta.value()?.parse()?);
            } else {
                cx.error_spanned_by(&meta.path, "`resource` needs a name: write `resource = \"service_accounts\"`");
                skip_value(&meta)?;
            }
        } else if meta.path.is_ident("reasons") || meta.path.is_ident("warnings") {
            let names = name_list(cx, &meta)?;
            let slot = if meta.path.is_ident("reasons") { &mut attrs.reasons } else { &mut attrs.warnings };
            if slot.is_some() {
                let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                cx.error_spanned_by(&meta.path, format!("duplicate `{key}` key: list every name in one `{key}(...)`"));
            }
            *slot = Some((meta.path.clone(), names));
        } else {
            let key = meta.path.get_ident().map_or_else(|| "this key".to_owned(), |i| format!("`{i}`"));
            cx.error_spanned_by(
                &meta.path,
                format!("unknown key {key}: expected `resource = \"...\"`, `reasons(...)` or `warnings(...)`"),
            );
            skip_value(&meta)?;
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
    }
    attrs
}

/// The paths inside `key(...)`; `key()` is an empty list.
fn name_list(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Vec<Path>> {
    let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(&meta.path, format!("`{key}` takes a list: write `{key}(Name, OtherName)`"));
        skip_value(meta)?;
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let names = Punctuated::<Path, Token![,]>::parse_terminated(&content)?;
    Ok(names.into_iter().collect())
}

/// Consumes the value of a key that was rejected, up to the next comma.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}
