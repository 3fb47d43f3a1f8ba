//! `#[derive(Reason)]` and `#[derive(Warning)]`: a service's own reasons and warnings.
//!
//! Both read a struct with named fields (its detail members) or a unit struct, and one helper
//! attribute (`#[reason(...)]` or `#[warning(...)]`); `attr.rs` reads the attribute, `valid.rs`
//! checks it against the contract's tables, `expand.rs` writes the details impl.

mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::ctxt::Ctxt;
use crate::names::capitalized;

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    Reason,
    Warning,
}

impl Which {
    /// The helper attribute's name.
    pub(crate) fn attribute(self) -> &'static str {
        match self {
            Which::Reason => "reason",
            Which::Warning => "warning",
        }
    }
}

/// Expands one derive input; on error, the errors and a stand-in impl, so that the type's uses
/// (in `reasons(...)`, `push_reason`) do not add errors of their own.
pub(crate) fn derive(which: Which, input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<DeriveInput>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::default();
    let fields = fields(&cx, which, &input);
    let attrs = attr::parse(&cx, which, &input);
    valid::check(&cx, which, &attrs, &fields);
    valid::check_no_serde(&cx, which, &input);
    match cx.check() {
        Ok(()) => expand::details(which, &input, &attrs, &fields),
        Err(errors) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(expand::stub(which, &input, &attrs));
            tokens
        }
    }
}

/// The named fields with their types (none for a unit struct); anything else is reported.
fn fields<'a>(cx: &Ctxt, which: Which, input: &'a DeriveInput) -> Vec<(&'a Ident, &'a Type)> {
    let what = which.attribute();
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named.named.iter().filter_map(|f| Some((f.ident.as_ref()?, &f.ty))).collect(),
            Fields::Unit => Vec::new(),
            Fields::Unnamed(unnamed) => {
                cx.error_spanned_by(
                    unnamed,
                    format!("a {what} needs named fields: they are its wire members (or no fields at all)"),
                );
                Vec::new()
            }
        },
        _ => {
            cx.error_spanned_by(
                &input.ident,
                format!(
                    "`#[derive({})]` goes on a struct: its named fields are the {what}'s wire members",
                    capitalized(what)
                ),
            );
            Vec::new()
        }
    }
}
