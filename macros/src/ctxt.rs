//! The error context shared by both macros: every rule reports into it, and all
//! errors come out together (one invocation with three mistakes shows three errors).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors while a macro input is read and validated.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// An error spanned on `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens>(&self, tokens: T, message: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// An error at `span`.
    pub(crate) fn error_at(&self, span: Span, message: impl Display) {
        self.errors.borrow_mut().push(syn::Error::new(span, message));
    }

    /// An error syn produced.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All errors combined into one, or `Ok` when there were none.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
