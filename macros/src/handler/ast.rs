//! The annotated handler as this macro sees it, borrowing the syn tree.

use syn::{FnArg, Ident, ItemFn, PatType, ReturnType, Type};

use crate::codes;

/// An annotated handler function.
pub(crate) struct Handler<'a> {
    pub(crate) function: &'a ItemFn,
    /// `<HandlerInCamelCase>Reason`.
    pub(crate) reason_enum: Ident,
    /// The typed arguments (receivers are reported by validation).
    pub(crate) args: Vec<&'a PatType>,
    /// The declared return type; `None` for `()`.
    pub(crate) output: Option<&'a Type>,
}

impl<'a> Handler<'a> {
    pub(crate) fn from_syn(function: &'a ItemFn) -> Handler<'a> {
        let name = syn::ext::IdentExt::unraw(&function.sig.ident).to_string();
        let reason_enum = Ident::new(&format!("{}Reason", codes::camel_case(&name)), function.sig.ident.span());
        let args = function
            .sig
            .inputs
            .iter()
            .filter_map(|arg| match arg {
                FnArg::Typed(typed) => Some(typed),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let output = match &function.sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some(&**ty),
        };
        Handler { function, reason_enum, args, output }
    }
}
