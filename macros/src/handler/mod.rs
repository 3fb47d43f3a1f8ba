//! `#[completeness(resource = "...", reasons(...), warnings(...))]` on an axum handler.

mod ast;
mod attr;
mod expand;
mod valid;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

/// Parses, validates and expands one annotated handler. On error, the errors come out
/// with the original function (and the reason enum, when it can be named) so that one
/// mistake does not cascade into "cannot find function".
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
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
    let reason_enum = expand::reason_type(&attrs, &handler);
    match cx.check() {
        Ok(()) => {
            let mut tokens = reason_enum;
            tokens.extend(expand::handler(&attrs, &handler));
            tokens
        }
        Err(errors) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(reason_enum);
            tokens.extend(item);
            tokens
        }
    }
}
