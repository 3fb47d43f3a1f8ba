//! `#[derive(ResultEnvelope)]`.

mod ast;
mod attr;
mod expand;
mod serde;
mod valid;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

/// Expands one derive input.
pub(crate) fn derive(input: TokenStream) -> TokenStream {
    match syn::parse2::<syn::DeriveInput>(input) {
        Ok(input) => expand(&input),
        Err(error) => error.to_compile_error(),
    }
}

/// Parses, validates and expands one derive input. On error, the errors come out
/// together with a stub implementation so that uses of the type do not cascade.
fn expand(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let container = attr::container_attrs(&cx, &input.attrs);
    let krate = &container.krate;
    let private = quote::quote! { #krate::__private };
    let parsed = ast::Input::from_syn(&cx, input, &container);
    if let Some(parsed) = &parsed {
        valid::check(&cx, parsed);
    }
    match (cx.check(), parsed) {
        (Ok(()), Some(parsed)) => expand::envelope(&parsed),
        (Err(errors), _) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(expand::stub(input, &private, container.deserialize.is_some()));
            tokens
        }
        (Ok(()), None) => expand::stub(input, &private, container.deserialize.is_some()),
    }
}
