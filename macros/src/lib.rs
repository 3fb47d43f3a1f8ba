//! Procedural macros of the `completeness` framework. Use them through the
//! `completeness` facade crate, which documents them.
//!
//! Each macro is split like serde_derive and thiserror: `ast` borrows the syn input,
//! `attr` reads the helper attributes into typed slots, `valid` runs every rule and
//! collects every error in one shared context (`ctxt.rs`), and `expand` (infallible) writes code
//! that names everything through `::completeness::__private`.

use proc_macro::TokenStream;

mod codes;
mod ctxt;
mod envelope;
mod handler;
#[cfg(test)]
mod test_tokens;
mod types;

/// Declares a list handler's completeness contract.
///
/// `#[completeness(resource = "service_accounts", reasons(MorePagesAvailable, ...), warnings(PageSizeReduced, ...))]`
/// on an `async fn` axum handler generates `<HandlerInCamelCase>Reason`, an alias of a
/// `completeness::DeclaredReason` that converts from exactly the declared reasons' detail
/// structs (with `ALL`, `WARNINGS` and, under their features, the OpenAPI and JSON Schema
/// impls; endpoints declaring the same reasons share the type); checks that the response reports completeness; fills `scope.resource`; and
/// applies the caller's `require_complete` demand. The handler gains a hidden first extractor
/// and returns a `completeness::CheckedFuture` of its declared response.
#[proc_macro_attribute]
pub fn completeness(args: TokenStream, item: TokenStream) -> TokenStream {
    handler::expand(args.into(), item.into()).into()
}

/// Derives the completeness envelope of a response struct: `Serialize`,
/// `ReportsCompleteness` and (with `axum`) `IntoResponse`.
#[proc_macro_derive(ResultEnvelope, attributes(envelope))]
pub fn derive_result_envelope(input: TokenStream) -> TokenStream {
    envelope::derive(input.into()).into()
}
