//! The path generated code names the framework by: `::completeness`, or the one a service gives
//! with `crate = "..."` when it reaches the framework under another name (a dependency renamed in
//! `Cargo.toml`) or through a facade crate of its own, as serde's `#[serde(crate = "...")]`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{LitStr, Path};

use crate::ctxt::Ctxt;
use crate::meta::Slot;

/// The framework's path in generated code.
pub(crate) struct Krate(Path);

impl Default for Krate {
    fn default() -> Self {
        Krate(syn::parse_quote!(::completeness))
    }
}

impl Krate {
    /// Reads `crate = "path"` into `slot`, once.
    pub(crate) fn read(cx: &Ctxt, meta: &ParseNestedMeta, slot: &mut Slot<LitStr>) -> syn::Result<()> {
        let duplicate = "duplicate `crate` key: the framework has one path";
        slot.fill(cx, meta, "a path in a string", "crate = \"platform::completeness\"", duplicate)
    }

    /// The path `slot` gives, or `::completeness`. A string that is no path is reported on it.
    pub(crate) fn from_slot(cx: &Ctxt, slot: &Slot<LitStr>) -> Krate {
        let Some(written) = &slot.value else { return Krate::default() };
        match written.parse_with(Path::parse_mod_style) {
            Ok(path) => Krate(path),
            Err(_) => {
                cx.error_spanned_by(
                    written,
                    format!(
                        "`{}` is not a path: write the path the framework is reached by, like \
                         `crate = \"platform::completeness\"`",
                        written.value()
                    ),
                );
                Krate::default()
            }
        }
    }

    /// The names of its segments (`["completeness"]`), for a standard name written by the
    /// framework's path (`completeness::reason::MorePagesAvailable`).
    pub(crate) fn names(&self) -> Vec<String> {
        self.0.segments.iter().map(|segment| segment.ident.to_string()).collect()
    }
}

impl ToTokens for Krate {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}
