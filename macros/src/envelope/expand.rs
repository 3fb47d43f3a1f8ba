//! Code for a validated envelope struct. Infallible; every path is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident};

use super::ast::Input;

/// What the emitted impls are made of, whichever reader read the struct.
pub(crate) struct Shape {
    pub(crate) ident: Ident,
    /// `impl<..>`'s generics, the type's arguments and the where clause (empty when none).
    pub(crate) impl_generics: TokenStream,
    pub(crate) ty_generics: TokenStream,
    pub(crate) where_clause: TokenStream,
    /// The completeness block: its member and the span of its type.
    pub(crate) block: Option<(TokenStream, Span)>,
    /// The completeness block's type.
    pub(crate) block_ty: Option<TokenStream>,
    /// The impl generics with one more type parameter, for a single resource's `CarriesReason`.
    pub(crate) any_reason_generics: TokenStream,
    /// The data fields in order: member, wire name, span of the type, and whether it is a `Field<T>`.
    pub(crate) data: Vec<DataField>,
}

/// A data member of the envelope.
pub(crate) struct DataField {
    pub(crate) member: TokenStream,
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) is_field: bool,
    /// serde's `skip_serializing_if` function, when the field has one.
    pub(crate) skip_if: Option<syn::ExprPath>,
}

impl Shape {
    /// The shape of a struct read by syn (and validated).
    pub(crate) fn from_syn(input: &Input) -> Shape {
        let generics = with_bounds(input);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        Shape {
            ident: input.ident.clone(),
            impl_generics: impl_generics.to_token_stream(),
            ty_generics: ty_generics.to_token_stream(),
            where_clause: where_clause.to_token_stream(),
            block: input.completeness_field().map(|f| (f.member.to_token_stream(), f.ty.span())),
            block_ty: input.completeness_field().map(|f| f.ty.to_token_stream()),
            any_reason_generics: {
                let mut extended = generics.clone();
                extended.params.push(syn::parse_quote!(__CompletenessReason));
                extended.split_for_impl().0.to_token_stream()
            },
            data: input
                .data_fields()
                .filter(|f| !f.serde.skip_serializing)
                .map(|f| DataField {
                    skip_if: f.serde.skip_serializing_if.clone(),
                    member: f.member.to_token_stream(),
                    name: f.wire_name(),
                    span: f.ty.span(),
                    is_field: f.is_field,
                })
                .collect(),
        }
    }
}

/// `Serialize`, `ReportsCompleteness` and `IntoResponse` for `shape`. The runtime's
/// `envelope_impls!` writes the impls' scaffolding; this writes what differs per struct:
/// the statements that fill the map and the report expressions, each spanned on its field's
/// type (`self` too) so a type error points at the field.
pub(crate) fn envelope(shape: &Shape) -> TokenStream {
    let Shape { ident, impl_generics, ty_generics, where_clause, .. } = shape;
    let this = Ident::new("self", Span::call_site());
    let map = Ident::new("__completeness_map", Span::mixed_site());
    let omitted = Ident::new("__completeness_omitted", Span::mixed_site());

    let block = shape.block.as_ref().map(|(member, _)| member);
    let block_span = shape.block.as_ref().map_or_else(Span::call_site, |(_, span)| *span);
    let head = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::head(&self.#member, &mut #map)?; }
    });
    let tail = block.map(|member| {
        quote_spanned! {block_span=> ::completeness::__private::CompletenessField::tail(&self.#member, &mut #map)?; }
    });
    let data = shape.data.iter().map(|field| {
        let DataField { member, name, span, skip_if, .. } = field;
        let entry = quote_spanned! {*span=>
            ::completeness::__private::serde::ser::SerializeMap::serialize_entry(&mut #map, #name, &self.#member)?;
        };
        match skip_if {
            Some(skip) => quote! { if !#skip(&self.#member) { #entry } },
            None => entry,
        }
    });
    let omitted_fields = shape.data.iter().any(|f| f.is_field).then(|| {
        let notes = shape.data.iter().filter(|f| f.is_field).map(|field| {
            let DataField { member, name, .. } = field;
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
    let carries = match &shape.block_ty {
        Some(block_ty) => quote_spanned! {block_span=>
            #[automatically_derived]
            impl #impl_generics ::completeness::__private::CarriesReason<
                <#block_ty as ::completeness::__private::CompletenessField>::Reason,
            > for #ident #ty_generics #where_clause {}
        },
        None => {
            let any = &shape.any_reason_generics;
            quote! {
                #[automatically_derived]
                impl #any ::completeness::__private::CarriesReason<__CompletenessReason> for #ident #ty_generics #where_clause {}
            }
        }
    };
    quote! {
        #carries
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
