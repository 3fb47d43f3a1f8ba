//! `#[derive(ResultEnvelope)]`.

mod ast;
mod attr;
mod expand;
mod fast;
mod valid;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

/// Expands one derive input: the common form read from its tokens, anything else by syn.
pub(crate) fn derive(input: TokenStream) -> TokenStream {
    if let Some(shape) = fast::read(&input) {
        return expand::envelope(&shape);
    }
    match syn::parse2::<syn::DeriveInput>(input) {
        Ok(input) => expand(&input),
        Err(error) => error.to_compile_error(),
    }
}

/// Parses, validates and expands one derive input. On error, the errors come out
/// together with a stub implementation so that uses of the type do not cascade.
fn expand(input: &syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let parsed = ast::Input::from_syn(&cx, input);
    if let Some(parsed) = &parsed {
        valid::check(&cx, parsed);
    }
    match (cx.check(), parsed) {
        (Ok(()), Some(parsed)) => expand::envelope(&expand::Shape::from_syn(&parsed)),
        (Err(errors), _) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(expand::stub(input));
            tokens
        }
        (Ok(()), None) => expand::stub(input),
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::test_tokens::tokens;

    fn by_syn(item: TokenStream) -> TokenStream {
        expand(&syn::parse2(item).unwrap())
    }

    #[test]
    fn the_token_reader_and_syn_emit_the_same_code() {
        for item in [
            quote! {
                /// A page.
                #[derive(Debug)]
                pub struct Page {
                    /// The accounts.
                    pub accounts: Vec<Account>,
                    pub(crate) by_tenant: std::collections::BTreeMap<String, Vec<u64>>,
                    #[envelope(completeness)]
                    completeness: completeness::Completeness<ListReason>,
                }
            },
            quote! { struct Hits { #[envelope(completeness)] c: Completeness, hits: Vec<(String, u32)>, } },
        ] {
            let shape = fast::read(&item).unwrap_or_else(|| panic!("not read as common: {item}"));
            assert_eq!(tokens(expand::envelope(&shape)), tokens(by_syn(item)));
        }
    }

    #[test]
    fn anything_unusual_is_left_to_syn() {
        for item in [
            quote! { struct Page<T> { items: Vec<T>, #[envelope(completeness)] c: Completeness } },
            quote! { struct Page(Vec<u32>, #[envelope(completeness)] Completeness); },
            quote! { struct Page { items: Vec<u32> } },
            quote! { struct Page { #[envelope(completeness)] a: Completeness, #[envelope(completeness)] b: Completeness } },
            quote! { struct Page { #[envelope(bounded = "three")] roles: Vec<u8>, #[envelope(completeness)] c: Completeness } },
            quote! { struct Page { #[envelope(completness)] c: Completeness, items: Vec<u8> } },
            quote! { struct Page { status: String, #[envelope(completeness)] c: Completeness } },
            quote! { struct Page { name: Field<String>, #[envelope(completeness)] c: Completeness } },
            quote! { struct Page { f: Box<dyn Fn() -> u8>, #[envelope(completeness)] c: Completeness } },
            quote! { #[envelope(completeness)] struct Page { #[envelope(completeness)] c: Completeness } },
            quote! { enum Page { A } },
            quote! { struct Page { r#type: Vec<u8>, #[envelope(completeness)] c: Completeness } },
        ] {
            assert!(fast::read(&item).is_none(), "read as common: {item}");
        }
    }
}
