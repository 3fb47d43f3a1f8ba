//! Code for a validated envelope struct. Infallible; every path is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident};

use super::ast::Input;

/// `Serialize`, `ReportsCompleteness` and `IntoResponse` for `input`. The runtime's
/// `envelope_impls!` writes the impls' scaffolding; this writes what differs per struct:
/// the statements that fill the map and the report expressions, each spanned on its field's
/// type (`self` too) so a type error points at the field.
pub(crate) fn envelope(input: &Input) -> TokenStream {
    let ident = input.ident;
    let this = Ident::new("self", Span::call_site());
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
    let report = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::report(&self.#member) }
    });
    let report_mut = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::report_mut(&mut self.#member) }
    });
    quote! {
        ::completeness::__private::envelope_impls!(
            [#impl_generics] [#ident #ty_generics] [#where_clause] #this #map
            serialize [#head #(#data)* #omitted_fields #tail]
            report [#report] [#report_mut]
        );
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
