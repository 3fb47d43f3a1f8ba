//! The details impl of a validated reason or warning. Infallible; every path is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident, LitStr, Member, Type};

use super::Which;
use super::attr::Attrs;
use crate::hygiene::{at, place, respan};

/// `ReasonDetails` or `WarningDetails` for the struct.
pub(crate) fn details(which: Which, input: &DeriveInput, attrs: &Attrs, fields: &[(&Ident, &Type)]) -> TokenStream {
    let krate = &attrs.krate;
    let private = quote! { #krate::__private };
    let ident = &input.ident;
    let generics = with_detail_bounds(&input.generics, &private);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let code = attrs.code.value.as_ref().map(syn::LitStr::value).unwrap_or_default();
    let message = &attrs.message.value;
    let (fields, types): (Vec<&Ident>, Vec<&Type>) = fields.iter().copied().unzip();
    // Members are named as the fields are, without a raw identifier's `r#` (`r#type` is `type`).
    let names: Vec<String> = fields.iter().map(|field| crate::names::unraw(field)).collect();
    // The message may name fields (`"{hold_id}"`): they are bound first, each under a name that
    // resolves where the message was written, as `format!` looks its names up there (the fields
    // and the message may come from different `macro_rules!` expansions).
    let message_span = message.as_ref().map_or_else(Span::call_site, LitStr::span);
    let bindings = fields.iter().map(|field| {
        let mut binding = (*field).clone();
        binding.set_span(message_span);
        quote! { #field: #binding }
    });
    let message_fn = quote! {
        #[allow(unused_variables, non_shorthand_field_patterns)]
        let Self { #(#bindings,)* .. } = self;
        ::std::format!(#message)
    };
    // Each member is written and read through a call located at its field's type, so that a type
    // that does not serialize or deserialize is reported there (and resolved at the call site,
    // so that `self`, `map` and `object` are the function's own when the struct comes out of a
    // `macro_rules!` macro).
    let writes = fields.iter().zip(&names).zip(&types).map(|((field, name), ty)| {
        let span = at(ty.span());
        let (place, private) = (place(&Member::Named((*field).clone()), span), respan(&private, span));
        quote_spanned! {span=> #private::serde::ser::SerializeMap::serialize_entry(map, #name, &#place)?; }
    });
    let reads = fields.iter().zip(&names).zip(&types).map(|((field, name), ty)| {
        let span = at(ty.span());
        let private = respan(&private, span);
        quote_spanned! {span=> #field: #private::read_member::<#ty>(object, #code, #name)?, }
    });
    let write = quote! {
        #(#writes)*
        ::core::result::Result::Ok(())
    };
    let read = quote! {
        ::core::result::Result::Ok(Self { #(#reads)* })
    };
    // The detail members are written and read the same way for reasons and warnings.
    let members = detail_members(&private, &write, &read);
    match which {
        Which::Reason => {
            let kind = attrs
                .kind
                .value
                .as_ref()
                .map(|kind| Ident::new(&super::super::names::camel_case(&kind.to_string()), kind.span()));
            // Only a reason that says `next_cursor` offers a cursor: an endpoint whose reasons
            // all leave it out never pages, and refuses a cursor sent to it (contract §2.5). A
            // recovery of such a reason that returns one anyway is left out, as its schema says,
            // and the log says so.
            let may_offer_a_cursor = attrs.next_cursor.is_some();
            let recovery = match &attrs.recovery.value {
                // Through a typed binding spanned on the path, so that a function of another
                // signature is reported there, with the signature it must have.
                Some(path) if may_offer_a_cursor => quote_spanned! {at(path.span())=>
                    {
                        let recovery: fn(&Self) -> ::core::option::Option<#private::Continuation> = #path;
                        recovery(self)
                    }
                },
                Some(path) => quote_spanned! {at(path.span())=>
                    {
                        let recovery: fn(&Self) -> ::core::option::Option<#private::Continuation> = #path;
                        #private::without_a_cursor(#code, recovery(self))
                    }
                },
                None => quote! { ::core::option::Option::None },
            };
            quote! {
                #[automatically_derived]
                impl #impl_generics #private::ReasonDetails for #ident #ty_generics #where_clause {
                    const CODE: #private::ReasonCode = #private::ReasonCode::custom(#code);
                    const KIND: #private::ReasonKind = #private::ReasonKind::#kind;
                    const MAY_OFFER_A_CURSOR: bool = #may_offer_a_cursor;
                    const DETAIL_MEMBERS: &'static [&'static str] = &[#(#names),*];
                    fn default_message(&self) -> ::std::string::String {
                        #message_fn
                    }
                    #members
                    fn recovery(&self) -> ::core::option::Option<#private::Continuation> {
                        #recovery
                    }
                    fn into_reason(self) -> #private::StandardReason {
                        #private::StandardReason::Custom(#private::CustomReason::from_details(&self))
                    }
                }
            }
        }
        Which::Warning => {
            let owner = &attrs.owner.value;
            let review_by = &attrs.review_by.value;
            let stale = attrs.stale.is_some();
            quote! {
                #[automatically_derived]
                impl #impl_generics #private::WarningDetails for #ident #ty_generics #where_clause {
                    const CODE: #private::WarningCode = #private::WarningCode::custom(#code);
                    const OWNER: ::core::option::Option<&'static str> = ::core::option::Option::Some(#owner);
                    const REVIEW_BY: ::core::option::Option<&'static str> = ::core::option::Option::Some(#review_by);
                    const STALE: bool = #stale;
                    const DETAIL_MEMBERS: &'static [&'static str] = &[#(#names),*];
                    fn message(&self) -> ::std::string::String {
                        #message_fn
                    }
                    #members
                }
            }
        }
    }
}

/// The struct's generics, each type parameter bounded as the details impl needs it, as serde's
/// derive bounds them for its own impls: the fields are written and read with serde, and
/// details are `Clone + Debug + Send + Sync + 'static`. Without these, a generic reason that
/// leaves its parameter unbounded gets one error per missing trait, none saying what to write.
fn with_detail_bounds(generics: &syn::Generics, private: &TokenStream) -> syn::Generics {
    let mut generics = generics.clone();
    let params: Vec<Ident> = generics.type_params().map(|param| param.ident.clone()).collect();
    let where_clause = generics.make_where_clause();
    for param in params {
        where_clause.predicates.push(syn::parse_quote! {
            #param: #private::serde::Serialize
                + #private::serde::de::DeserializeOwned
                + ::core::clone::Clone
                + ::core::fmt::Debug
                + ::core::marker::Send
                + ::core::marker::Sync
                + 'static
        });
    }
    generics
}

/// What the derive emits after an error: the impl with the right shape and no behaviour, under a
/// code made from the type's name and a number no other stub of this build has
/// (`INVALID_LEGALHOLD_0`: of the right form, and no other type's, even one of the same name in
/// another module), so that the type's uses compile and only the real mistakes are reported: an
/// endpoint that lists two such types is not told it declares one code twice.
pub(crate) fn stub(which: Which, input: &DeriveInput, attrs: &Attrs) -> TokenStream {
    static STUBS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let krate = &attrs.krate;
    let private = quote! { #krate::__private };
    let ident = &input.ident;
    let generics = with_detail_bounds(&input.generics, &private);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let name: String = crate::names::unraw(ident)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let number = STUBS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let code = if name.is_empty() { format!("INVALID_{number}") } else { format!("INVALID_{name}_{number}") };
    let write = quote! { ::core::result::Result::Ok(()) };
    let read = quote! { ::core::result::Result::Err(::std::string::String::new()) };
    let members = detail_members(&private, &write, &read);
    match which {
        Which::Reason => quote! {
            #[automatically_derived]
            impl #impl_generics #private::ReasonDetails for #ident #ty_generics #where_clause {
                const CODE: #private::ReasonCode = #private::ReasonCode::custom(#code);
                const KIND: #private::ReasonKind = #private::ReasonKind::Unknown;
                fn default_message(&self) -> ::std::string::String {
                    ::std::string::String::new()
                }
                #members
                fn recovery(&self) -> ::core::option::Option<#private::Continuation> {
                    ::core::option::Option::None
                }
                fn into_reason(self) -> #private::StandardReason {
                    #private::StandardReason::Custom(#private::CustomReason::from_details(&self))
                }
            }
        },
        Which::Warning => quote! {
            #[automatically_derived]
            impl #impl_generics #private::WarningDetails for #ident #ty_generics #where_clause {
                const CODE: #private::WarningCode = #private::WarningCode::custom(#code);
                fn message(&self) -> ::std::string::String {
                    ::std::string::String::new()
                }
                #members
            }
        },
    }
}

/// `write_details` and `read_details` with the bodies `write` and `read`. The map's type
/// parameter has a name no struct's own parameter takes (a reason may be generic over `M`).
fn detail_members(private: &TokenStream, write: &TokenStream, read: &TokenStream) -> TokenStream {
    let map_type = Ident::new("__CompletenessMap", Span::mixed_site());
    quote! {
        fn write_details<#map_type: #private::serde::ser::SerializeMap>(
            &self,
            map: &mut #map_type,
        ) -> ::core::result::Result<(), #map_type::Error> {
            #write
        }
        fn read_details(
            object: &#private::serde_json::Map<::std::string::String, #private::serde_json::Value>,
        ) -> ::core::result::Result<Self, ::std::string::String> {
            #read
        }
    }
}
