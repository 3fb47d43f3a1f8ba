//! Procedural macros of the `completeness` framework. Use them through the
//! `completeness` facade crate.

use proc_macro::TokenStream;

/// Declares a list handler's completeness contract (not implemented yet: passes the item through).
#[proc_macro_attribute]
pub fn completeness(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Derives the completeness envelope of a response struct (not implemented yet).
#[proc_macro_derive(ResultEnvelope, attributes(envelope))]
pub fn derive_result_envelope(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
