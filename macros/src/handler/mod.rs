//! `#[completeness(resource = "...", reasons(...), warnings(...))]` on an axum handler.

mod ast;
mod attr;
mod expand;
mod fast;
mod valid;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

/// Parses, validates and expands one annotated handler. On error, the errors come out
/// with the original function (and the reason type, when it can be named) so that one
/// mistake does not cascade into "cannot find function".
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match fast::read(&args, &item) {
        Some(parts) => emit(&parts),
        None => expand_with_syn(args, item),
    }
}

/// The reason type and the handler.
fn emit(parts: &expand::Parts) -> TokenStream {
    let mut tokens = expand::reason_type(parts);
    tokens.extend(expand::handler(parts));
    tokens
}

/// Reads the handler with syn, reporting every mistake.
fn expand_with_syn(args: TokenStream, item: TokenStream) -> TokenStream {
    let cx = Ctxt::default();
    let attrs = attr::parse(&cx, args);
    let function = match ast::HandlerFn::split(item.clone()) {
        Some(Ok(function)) => function,
        Some(Err(error)) => {
            cx.syn_error(error);
            let mut tokens = cx.check().err().map(|e| e.to_compile_error()).unwrap_or_default();
            tokens.extend(item);
            return tokens;
        }
        None => {
            cx.error_spanned_by(
                &item,
                "`#[completeness]` goes on an `async fn` axum handler: \
                 `#[completeness(resource = \"...\", reasons(...))] async fn list(...) -> Envelope<T, R>`",
            );
            let mut tokens = cx.check().err().map(|e| e.to_compile_error()).unwrap_or_default();
            tokens.extend(item);
            return tokens;
        }
    };
    let handler = ast::Handler::from_syn(&function);
    valid::check(&cx, &attrs, &handler);
    let parts = expand::Parts::from_syn(&attrs, &handler);
    match cx.check() {
        Ok(()) => emit(&parts),
        Err(errors) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(expand::reason_type(&parts));
            tokens.extend(item);
            tokens
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;
    use crate::test_tokens::tokens;

    /// Handlers of the common shape, and the attributes over them.
    fn common_cases() -> Vec<(TokenStream, TokenStream)> {
        vec![
            (
                quote! { resource = "service_accounts", reasons(MorePagesAvailable, VisibilityRestricted) },
                quote! {
                    /// Lists accounts.
                    #[allow(unused)]
                    pub async fn list_service_accounts(page: PageRequest, Query(q): Query<Vec<(String, String)>>)
                        -> completeness::Envelope<Account, ListServiceAccountsReason> { todo!() }
                },
            ),
            (
                quote! { reasons(SourceUnavailable), resource = "hits", warnings(StaleIndex, PageSizeReduced), },
                quote! { pub(crate) async fn search() -> Result<SearchPage, Problem> { SearchPage::default() } },
            ),
            (quote! { resource = "r", reasons(QuotaExhausted,) }, quote! { async fn nothing() {} }),
        ]
    }

    #[test]
    fn the_token_reader_and_syn_emit_the_same_code() {
        for (args, item) in common_cases() {
            let parts = fast::read(&args, &item).unwrap_or_else(|| panic!("not read as common: {item}"));
            assert_eq!(tokens(emit(&parts)), tokens(expand_with_syn(args, item)));
        }
    }

    #[test]
    fn anything_unusual_is_left_to_syn() {
        let args = quote! { resource = "r", reasons(MorePagesAvailable) };
        for item in [
            quote! { async fn generic<T>() -> Page {} },
            quote! { async fn bounded() -> Page where Page: Send {} },
            quote! { fn not_async() -> Page {} },
            quote! { async unsafe fn qualified() -> Page {} },
            quote! { async fn method(&self) -> Page {} },
            quote! { async fn list() -> Json<Vec<u32>> {} },
            quote! { async fn list() -> Result<Vec<u32>, Problem> {} },
            quote! { async fn list() -> impl IntoResponse {} },
            quote! { async fn list() -> (StatusCode, Page) {} },
            quote! { async fn list() -> &'static [u32] {} },
            quote! { async fn r#type() -> Page {} },
        ] {
            assert!(fast::read(&args, &item).is_none(), "read as common: {item}");
        }
        let item = quote! { async fn list(page: PageRequest) -> Page {} };
        for args in [
            quote! { resource = "r", reasons(VisibilityRestricted) },
            quote! { resource = "", reasons(MorePagesAvailable) },
            quote! { reasons(MorePagesAvailable) },
            quote! { resource = "r" },
            quote! { resource = "r", reasons() },
            quote! { resource = "r", reasons(MorePagesAvailable, MorePagesAvailable) },
            quote! { resource = "r", reasons(MorePagesAvaliable) },
            quote! { resource = "r", reasons(MorePagesAvailable), warnings(StaleIndex), warnings(StaleIndex) },
            quote! { resource = "r", reasons(MorePagesAvailable), colour = "red" },
            quote! { resource = r, reasons(MorePagesAvailable) },
        ] {
            assert!(fast::read(&args, &item).is_none(), "read as common: {args}");
        }
    }
}
