//! Code for a validated envelope struct. Infallible; every path is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident};

use super::ast::Input;

/// `Serialize`, `ReportsCompleteness` and `IntoResponse` for `input`.
pub(crate) fn envelope(input: &Input) -> TokenStream {
    let ident = input.ident;
    let serializer = Ident::new("__CompletenessSerializer", Span::mixed_site());
    let map = Ident::new("__completeness_map", Span::mixed_site());
    let omitted = Ident::new("__completeness_omitted", Span::mixed_site());
    let generics = with_bounds(input);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    let block = input.completeness_field().map(|f| &f.member);
    let block_span = input.completeness_field().map_or_else(Span::call_site, |f| f.ty.span());
    let head = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::head(&self.#member, &mut #map)?; }
    });
    let tail = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::tail(&self.#member, &mut #map)?; }
    });
    let data = input.data_fields().map(|field| {
        let member = &field.member;
        let name = field.wire_name();
        quote_spanned! {field.ty.span()=>
            ::completeness::__private::serde::ser::SerializeMap::serialize_entry(&mut #map, #name, &self.#member)?;
        }
    });
    let omitted_fields = input.fields.iter().any(|f| f.is_field).then(|| {
        let notes = input.data_fields().filter(|f| f.is_field).map(|field| {
            let member = &field.member;
            let name = field.wire_name();
            quote! { #omitted.note(#name, &self.#member); }
        });
        quote! {
            let mut #omitted = ::completeness::__private::OmittedFields::default();
            #(#notes)*
            ::completeness::__private::serde::ser::SerializeMap::serialize_entry(&mut #map, "omitted_fields", &#omitted)?;
        }
    });
    // With a completeness block the impl is written here, its calls spanned on the block's
    // type (a wrong type is reported once, there); without one the runtime macro writes it.
    let report = match block {
        Some(member) => quote_spanned! {block_span=>
            #[automatically_derived]
            impl #impl_generics ::completeness::__private::ReportsCompleteness for #ident #ty_generics #where_clause {
                fn completeness_report(
                    &self,
                ) -> ::core::option::Option<&dyn ::completeness::__private::CompletenessReport> {
                    ::core::option::Option::Some(::completeness::__private::CompletenessField::report(&self.#member))
                }
                fn completeness_report_mut(
                    &mut self,
                ) -> ::core::option::Option<&mut dyn ::completeness::__private::CompletenessReport> {
                    ::core::option::Option::Some(::completeness::__private::CompletenessField::report_mut(
                        &mut self.#member,
                    ))
                }
            }
            ::completeness::__private::impl_envelope_into_response!(
                [#impl_generics] [#ident #ty_generics] [#where_clause]
            );
        },
        None => quote! {
            ::completeness::__private::envelope_report!([#impl_generics] [#ident #ty_generics] [#where_clause] []);
        },
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics ::completeness::__private::serde::Serialize for #ident #ty_generics #where_clause {
            fn serialize<#serializer: ::completeness::__private::serde::Serializer>(
                &self,
                serializer: #serializer,
            ) -> ::core::result::Result<#serializer::Ok, #serializer::Error> {
                let mut #map = #serializer::serialize_map(serializer, ::core::option::Option::None)?;
                #head
                #(#data)*
                #omitted_fields
                #tail
                ::completeness::__private::serde::ser::SerializeMap::end(#map)
            }
        }

        #report
    }
}

/// For a generic struct: every data field serializes, and the block is a completeness block.
fn with_bounds(input: &Input) -> Generics {
    let mut generics = input.generics.clone();
    if generics.type_params().next().is_none() {
        return generics;
    }
    let where_clause = generics.make_where_clause();
    for field in input.data_fields() {
        let ty = field.ty;
        where_clause.predicates.push(syn::parse_quote!(#ty: ::completeness::__private::serde::Serialize));
    }
    if let Some(field) = input.completeness_field() {
        let ty = field.ty;
        where_clause.predicates.push(syn::parse_quote!(#ty: ::completeness::__private::CompletenessField));
    }
    generics
}

/// What the derive emits after an error: impls with the right shape and no behaviour,
/// so the type's other uses compile and only the real mistakes are reported.
pub(crate) fn stub(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let serializer = Ident::new("__CompletenessSerializer", Span::mixed_site());
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::completeness::__private::serde::Serialize for #ident #ty_generics #where_clause {
            fn serialize<#serializer: ::completeness::__private::serde::Serializer>(
                &self,
                serializer: #serializer,
            ) -> ::core::result::Result<#serializer::Ok, #serializer::Error> {
                #serializer::serialize_unit(serializer)
            }
        }

        ::completeness::__private::envelope_report!(
            [#impl_generics] [#ident #ty_generics] [#where_clause] []
        );
    }
}
