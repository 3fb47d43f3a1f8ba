//! The arguments of `#[completeness(...)]`, read into typed slots.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{LitStr, Path, Token};

use crate::ctxt::Ctxt;
use crate::krate::Krate;
use crate::meta::{self, Slot};
use crate::names;

/// The attribute's keys (`crate = "..."` too, for a framework reached by another path). Names
/// inside `reasons(...)` / `warnings(...)` are kept as written (paths); validation classifies them.
#[derive(Default)]
pub(crate) struct Attrs {
    /// `resource = "..."`.
    pub(crate) resource: Slot<LitStr>,
    /// `reasons(...)`: the key and the names (possibly none: an always-complete endpoint).
    pub(crate) reasons: Option<(Path, Vec<Path>)>,
    /// `warnings(...)`: the key and the names.
    pub(crate) warnings: Option<(Path, Vec<Path>)>,
    /// `reason_type = Name`: the reason type's name, in place of the one made from the handler's.
    pub(crate) reason_type: Slot<syn::Ident>,
    /// `crate = "..."`: the framework's path, `::completeness` when not given.
    pub(crate) krate: Krate,
    /// The keys an unknown key was reported as a near miss of (`reason` for `reasons`): such a
    /// key is then not also reported missing. An unknown key unlike any leaves the missing ones
    /// reported, so that one build shows every mistake.
    pub(crate) misspelled: Vec<&'static str>,
    /// The arguments did not parse to their end: the keys after the mistake were not read, so
    /// none is reported missing (one mistake, one error).
    pub(crate) unread: bool,
}

/// The attribute's keys, for a "did you mean" when another is written.
const KEYS: [&str; 5] = ["resource", "reasons", "warnings", "reason_type", "crate"];

/// Reads the attribute arguments; every mistake goes to `cx`.
pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Attrs {
    let mut attrs = Attrs::default();
    let mut krate = Slot::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            Krate::read(cx, &meta, &mut krate)?;
        } else if meta.path.is_ident("resource") {
            let duplicate = "duplicate `resource` key: an endpoint lists one resource";
            attrs.resource.fill(cx, &meta, "a string", "resource = \"service_accounts\"", duplicate)?;
        } else if meta.path.is_ident("reason_type") {
            let duplicate = "duplicate `reason_type` key: an endpoint has one reason type; name it once";
            attrs.reason_type.fill(cx, &meta, "a type name", "reason_type = ListItemsV2Reason", duplicate)?;
        } else if meta.path.is_ident("reasons") || meta.path.is_ident("warnings") {
            let names = name_list(cx, &meta)?;
            let slot = if meta.path.is_ident("reasons") { &mut attrs.reasons } else { &mut attrs.warnings };
            if slot.is_some() {
                let key = meta::key(&meta);
                cx.error_spanned_by(&meta.path, format!("duplicate `{key}` key: list every name in one `{key}(...)`"));
            }
            *slot = Some((meta.path.clone(), names));
        } else {
            let key = meta::key(&meta);
            let near = names::near_miss(&key, &KEYS);
            let hint = near.map(|near| format!(" (did you mean `{near}`?)")).unwrap_or_default();
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "unknown key `{key}`{hint}: expected `resource = \"...\"`, `reasons(...)`, `warnings(...)` or \
                     `reason_type = Name`"
                ),
            );
            attrs.misspelled.extend(near);
            meta::skip_value(&meta)?;
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(args) {
        cx.syn_error(error);
        attrs.unread = true;
    }
    attrs.krate = Krate::from_slot(cx, &krate);
    attrs
}

/// The paths inside `key(...)`; `key()` is an empty list.
fn name_list(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<Vec<Path>> {
    let key = meta::key(meta);
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(&meta.path, format!("`{key}` takes a list: write `{key}(Name, OtherName)`"));
        meta::skip_value(meta)?;
        return Ok(Vec::new());
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let mut names = Vec::new();
    while !content.is_empty() {
        if content.peek(LitStr) {
            // A wire code where a type name goes: say which name it is.
            let code: LitStr = content.parse()?;
            let wire = code.value();
            let named = completeness_codes::standard_reason(&wire)
                .map(|entry| entry.name)
                .or_else(|| completeness_codes::standard_warning(&wire).map(|entry| entry.name))
                .unwrap_or("TheTypeName");
            cx.error_spanned_by(&code, format!("`{key}` takes type names, not codes: write `{named}`"));
        } else {
            names.push(content.parse::<Path>()?);
        }
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            return Err(meta::missing_comma(&content.fork().parse()?, "names"));
        }
        content.parse::<Token![,]>()?;
    }
    Ok(names)
}
