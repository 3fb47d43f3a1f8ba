//! Procedural macros of the `completeness` framework. Use them through the
//! `completeness` facade crate, which documents them.
//!
//! Each macro is split like serde_derive and thiserror: `ast` borrows the syn input (the
//! `Reason` and `Warning` derives, whose input is one struct, read syn's `DeriveInput` as it is),
//! `attr` reads the helper attributes into typed slots, `valid` runs every rule and
//! collects every error in one shared context (`ctxt.rs`), and `expand` (infallible) writes code
//! that names everything through `::completeness::__private` (or the path a `crate = "..."` key
//! gives, `krate.rs`).

use proc_macro::TokenStream;

mod ctxt;
mod details;
mod envelope;
mod generics;
mod handler;
mod hygiene;
mod krate;
mod meta;
mod names;
mod types;

/// Declares a list handler's completeness contract. Documented in the `completeness` crate.
///
/// `#[completeness(resource = "service_accounts", reasons(MorePagesAvailable, ...), warnings(PageSizeReduced, ...))]`
/// on an `async fn` axum handler generates `<HandlerInCamelCase>Reason`, the endpoint's reason
/// type (a name that would start with a digit, or another character no name starts with, keeps
/// one leading underscore: `_2fa_devices` gives `_2faDevicesReason`), and checks that the handler's response reports
/// completeness over that type. The handler itself is left as written. Without arguments on an
/// `impl` block, it does the same for each associated function annotated inside, the type's
/// name first (`Api::list` gives `ApiListReason`). Two handlers of one module whose names give
/// one reason type (`api_list` and `Api::list`; `list_items_2` and `list_items2`) clash, and
/// rustc says the name is defined twice: `reason_type = ListItemsV2Reason` names one otherwise.
#[proc_macro_attribute]
pub fn completeness(args: TokenStream, item: TokenStream) -> TokenStream {
    handler::expand(args.into(), item.into()).into()
}

/// Derives the completeness envelope of a response struct: `Serialize` (so the struct derives
/// this in place of serde's `Serialize`, never beside it), `ReportsCompleteness` and (with
/// `axum`) `IntoResponse`. Documented in the `completeness` crate.
#[proc_macro_derive(ResultEnvelope, attributes(envelope, serde))]
pub fn derive_result_envelope(input: TokenStream) -> TokenStream {
    envelope::derive(input.into()).into()
}

/// Derives `ReasonDetails` for a service's own incomplete reason:
/// `#[reason(code = "LEGAL_HOLD", kind = visibility, message = "...")]`. Documented in the
/// `completeness` crate.
#[proc_macro_derive(Reason, attributes(reason, serde))]
pub fn derive_reason(input: TokenStream) -> TokenStream {
    details::derive(details::Which::Reason, input.into()).into()
}

/// Derives `WarningDetails` for a service's own warning:
/// `#[warning(code = "REPLICA_LAG", owner = "storage-team", review_by = "2027-06-30", message = "...")]`,
/// and `stale` when it means the answer was not read from current state. Documented in the `completeness` crate.
#[proc_macro_derive(Warning, attributes(warning, serde))]
pub fn derive_warning(input: TokenStream) -> TokenStream {
    details::derive(details::Which::Warning, input.into()).into()
}
