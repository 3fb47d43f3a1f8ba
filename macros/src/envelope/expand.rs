//! Code for a validated envelope struct. Infallible; every path is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident};

use super::ast::{Field, Input};
use crate::hygiene::{at, place, respan};
use crate::types;

/// `Serialize`, `ReportsCompleteness` and `IntoResponse` for a validated struct. The runtime's
/// `envelope_impls!` writes the impls' scaffolding; this writes what differs per struct:
/// the statements that fill the map and the report expressions, each spanned on its field's
/// type (resolved at the call site, see `hygiene::at`) so a type error points at the field.
pub(crate) fn envelope(input: &Input) -> TokenStream {
    let private = &input.private;
    let ident = input.ident;
    let generics = with_bounds(input);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let this = Ident::new("self", Span::call_site());
    let map = Ident::new("__completeness_map", Span::mixed_site());
    let omitted = Ident::new("__completeness_omitted", Span::mixed_site());

    let block = input.completeness_field();
    let block_span = block.map_or_else(Span::call_site, |field| at(field.ty.span()));
    let block_member = block.map(|field| &field.member);
    let block_place = block_member.map(|member| place(member, block_span));
    let head = block_place.as_ref().map(|place| {
        let private = respan(private, block_span);
        quote_spanned! {block_span=> #private::CompletenessField::head(&#place, &mut #map)?; }
    });
    // Fields serde skips are not written.
    let data: Vec<&Field> = input.data_fields().filter(|field| !field.serde.skip_serializing).collect();
    // The items: the first collection that is not a bounded side list. `page.returned` counts
    // them as they are written (R11), and the fault layer cuts them (a parsed body no longer
    // says which array came first).
    let items_field = data.iter().find(|field| field.is_unbounded_collection());
    let returned = match items_field {
        Some(field) if types::has_len(field.ty) => {
            let span = at(field.ty.span());
            let place = place(&field.member, span);
            quote_spanned! {span=> ::core::option::Option::Some(#place.len()) }
        }
        _ => quote!(::core::option::Option::None),
    };
    let tail = block_place.as_ref().map(|place| {
        let private = respan(private, block_span);
        quote_spanned! {block_span=> #private::CompletenessField::tail(&#place, &mut #map, #returned)?; }
    });
    let entries = data.iter().map(|field| {
        let (member, name, span) = (&field.member, &field.wire, at(field.ty.span()));
        let place = place(member, span);
        let private = respan(private, span);
        // A single resource's field that no type check can see into (a struct of the service's
        // own or a generic one, a `Value`) is asked, as it is written, whether it is a list.
        let note = (block.is_none() && field.may_hide_a_list()).then(|| {
            quote_spanned! {span=>
                #private::hidden_list::note(::core::any::type_name::<Self>(), #name, &#place);
            }
        });
        let entry = quote_spanned! {span=>
            #note
            #private::serde::ser::SerializeMap::serialize_entry(&mut #map, #name, &#place)?;
        };
        match &field.serde.skip_serializing_if {
            Some(skip) => quote! { if !#skip(&self.#member) { #entry } },
            None => entry,
        }
    });
    let omitted_fields = data.iter().any(|field| field.is_field).then(|| {
        let notes = data.iter().filter(|field| field.is_field).map(|field| note_field(input, field, &omitted));
        quote! {
            let mut #omitted = <#private::OmittedFields as ::core::default::Default>::default();
            #(#notes)*
            #private::serde::ser::SerializeMap::serialize_entry(&mut #map, "omitted_fields", &#omitted)?;
        }
    });
    let report = block_place.as_ref().map(|place| {
        let private = respan(private, block_span);
        quote_spanned! {block_span=> #private::CompletenessField::report(&#place) }
    });
    let report_mut = block_place.as_ref().map(|place| {
        let private = respan(private, block_span);
        quote_spanned! {block_span=> #private::CompletenessField::report_mut(&mut #place) }
    });
    let items = match items_field {
        Some(field) => {
            let name = &field.wire;
            quote!(::core::option::Option::Some(#name))
        }
        None => quote!(::core::option::Option::None),
    };
    let carries = match block {
        Some(field) => {
            let block_ty = field.ty;
            let private = respan(private, block_span);
            quote_spanned! {block_span=>
                #[automatically_derived]
                impl #impl_generics #private::CarriesReason<
                    <#block_ty as #private::CompletenessField>::Reason,
                > for #ident #ty_generics #where_clause {}
            }
        }
        None => {
            // A single resource reports no reason: it serves an endpoint that declares none.
            let mut any = generics.clone();
            any.params.push(syn::parse_quote!(__CompletenessSet: #private::DeclaresNoReason));
            let (any_generics, _, _) = any.split_for_impl();
            quote! {
                #[automatically_derived]
                impl #any_generics #private::CarriesReason<
                    #private::DeclaredReason<__CompletenessSet>,
                > for #ident #ty_generics #where_clause {}
            }
        }
    };
    // A `Vec<Warning>` read as a single resource's warnings must hold the runtime's `Warning`:
    // a list of a service's own type of that name is a list of items.
    let warning_lists =
        input.data_fields().filter(|field| block.is_none() && types::is_warning_list(field.ty)).map(|field| {
            let ty = field.ty;
            let private = respan(private, ty.span());
            quote_spanned! {ty.span()=> #private::assert_warning_list::<#ty>(); }
        });
    // A data field's type as written may hide what it is, behind an alias or an import under
    // another name: a list (`type Members = Vec<Account>`), a `Field`, or, in a single resource,
    // a response of the framework's. The runtime's `list_field` probes check the type (see
    // there). (Not for a generic struct, whose parameters the check's function cannot name; nor
    // for a type written as a scalar, which cannot be one.) In a struct with a block, a list
    // behind an alias would be neither counted nor always written.
    let concrete = input.generics.params.is_empty();
    let probes = input
        .data_fields()
        .filter(|field| concrete && field.may_hide_a_list() && !field.serde.skip_serializing)
        .map(|field| {
            let ty = field.ty;
            let private = respan(private, ty.span());
            let list = match block {
                None => quote_spanned! {ty.span()=> #private::list_field::ListField::<#ty>::new() },
                Some(_) => quote_spanned! {ty.span()=> #private::list_field::AliasedList::<#ty>::new() },
            };
            let probe = match (field.is_field, block) {
                (true, _) => list,
                (false, Some(_)) => {
                    quote_spanned! {ty.span()=> #private::list_field::HiddenField::<#ty, _>::new(#list) }
                }
                (false, None) => quote_spanned! {ty.span()=>
                    #private::list_field::NestedResponse::<#ty, _>::new(
                        #private::list_field::HiddenField::<#ty, _>::new(#list)
                    )
                },
            };
            quote_spanned! {ty.span()=> #probe.check(); }
        });
    let checks: Vec<TokenStream> = warning_lists.chain(probes).collect();
    // What a single resource tells operators: the fields it left out and its warnings.
    let single = block.is_none().then(|| single_report(input, &data, &omitted)).flatten();
    let field_checks =
        (!checks.is_empty()).then(|| quote! { const _: () = { fn __completeness_field_checks() { #(#checks)* } }; });
    let json_schema = input.json_schema.is_some().then(|| schema(input, &data, quote!(schemars::JsonSchema)));
    let openapi = input.openapi.is_some().then(|| schema(input, &data, quote!(utoipa::ToSchema)));
    let read_back = input.deserialize.is_some().then(|| read_back(input));
    quote! {
        #read_back
        #carries
        #field_checks
        #private::envelope_impls!(
            [#impl_generics] [#ident #ty_generics] [#where_clause] #this #map
            serialize [#head #(#entries)* #omitted_fields #tail]
            report [#report] [#report_mut] items [#items]
            single [#single]
            schema [#json_schema]
            openapi [#openapi]
        );
    }
}

/// What the runtime's `JsonSchema` or `utoipa::ToSchema` impl of the struct is made of, when
/// `#[envelope(json_schema)]` or `#[envelope(openapi)]` asks for one (nothing otherwise: a type
/// of a field may have no schema): the where clause with its bounds by `schema_trait` (a path
/// under the framework's `__private`), the name, the block's type (`()` for a single resource),
/// whether `omitted_fields` is written, and each written data member.
fn schema(input: &Input, data: &[&Field], schema_trait: TokenStream) -> TokenStream {
    let private = &input.private;
    let block = input.completeness_field().map_or_else(|| quote!(()), |field| field.ty.to_token_stream());
    // (With the type parameters' bounds in the where clause, as the impl's generics have them:
    // see `with_bounds`.)
    let mut generics = crate::generics::bounds_in_where(input.generics);
    if generics.type_params().next().is_some() {
        let where_clause = generics.make_where_clause();
        for field in data {
            let ty = field.ty;
            where_clause.predicates.push(syn::parse_quote!(#ty: #private::#schema_trait));
        }
        where_clause.predicates.push(syn::parse_quote!(#block: #private::DerivedBlock));
    }
    let where_clause = &generics.where_clause;
    let name = input.ident.to_string();
    let omitted = data.iter().any(|field| field.is_field);
    let members = data.iter().map(|field| {
        let (wire, ty) = (&field.wire, field.ty);
        let (required, declared) = (field.serde.skip_serializing_if.is_none(), field.is_field);
        quote! { (#wire, #ty, #required, #declared) }
    });
    // A generic struct's component is one per block (utoipa appends the type arguments' names,
    // and a reason type's name leaves out its warnings): its name says the block's.
    let generic = input.generics.type_params().next().is_some();
    quote! { [#where_clause] #name generic #generic block [#block] omitted #omitted members [#(#members)*] }
}

/// `serde::Deserialize` for a single resource (`#[envelope(deserialize)]`): serde's own derive
/// reads a copy of the struct whose `Field<T>` members are `Option<T>`, each under the name it
/// is written and listed by, beside `omitted_fields`; each `Field` is then restored from that
/// list, so a field left out reads as left out, never as a genuine `null` (contract §2.7). The
/// other members, and the struct's serde attributes, are copied as written: they read as they
/// would under a `Deserialize` derive beside this one (validation refuses what would not).
fn read_back(input: &Input) -> TokenStream {
    let private = &input.private;
    let ident = input.ident;
    let serde_path = quote!(#private::serde).to_string();
    let wire = Ident::new("__CompletenessWire", Span::call_site());
    let omitted = Ident::new("__completeness_omitted", Span::call_site());
    let de = syn::Lifetime::new("'__completeness_de", Span::call_site());
    let deserializer = Ident::new("__CompletenessDeserializer", Span::call_site());
    let serde_attrs = |attrs: &[syn::Attribute]| -> Vec<syn::Attribute> {
        attrs.iter().filter(|attr| attr.path().is_ident("serde")).cloned().collect()
    };
    let container = serde_attrs(input.attrs);
    // Errors name the struct, not its copy ("expected struct Account"), unless it says what it
    // expects itself.
    let expects = super::serde::keys_again(input.attrs).iter().any(|(_, key, _)| key == "expecting");
    let name = (!expects).then(|| {
        let expecting = format!("struct {ident}");
        quote! { #[serde(expecting = #expecting)] }
    });
    // A `Field` is always written: missing, it is refused, never read as a genuine null.
    let present = format!("{}::present_field", quote!(#private));
    let generic = input.generics.type_params().next().is_some();
    let members = input.fields.iter().map(|field| {
        let member = &field.member;
        match (field.is_field, types::last_segment(field.ty)) {
            (true, Some((_, args))) if args.len() == 1 => {
                let (name, value) = (&field.wire, args[0]);
                // serde infers no bound for a member it reads with a function of ours.
                let bound = generic.then(|| {
                    let bound = quote!(#value: #private::serde::Deserialize<'de>).to_string();
                    quote! { #[serde(bound(deserialize = #bound))] }
                });
                quote! {
                    #[serde(rename = #name, deserialize_with = #present)]
                    #bound
                    #member: ::core::option::Option<#value>,
                }
            }
            _ => {
                let (attrs, ty) = (serde_attrs(&field.original.attrs), field.ty);
                quote! { #(#attrs)* #member: #ty, }
            }
        }
    });
    let any_field = input.fields.iter().any(|field| field.is_field);
    let omitted_member =
        any_field.then(|| quote! { #[serde(rename = "omitted_fields")] #omitted: #private::OmittedFields, });
    let restored = input.fields.iter().map(|field| {
        let member = &field.member;
        if field.is_field {
            let (name, ty, span) = (&field.wire, field.ty, at(field.ty.span()));
            let private = respan(private, span);
            quote_spanned! {span=> #member: #private::restore_field::<#ty>(&__wire.#omitted, #name, __wire.#member), }
        } else {
            quote! { #member: __wire.#member, }
        }
    });
    let (generics, where_clause) = (input.generics, &input.generics.where_clause);
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let mut with_de = input.generics.clone();
    with_de.params.insert(0, syn::parse_quote!(#de));
    let bound: syn::WherePredicate = syn::parse_quote!(#wire #ty_generics: #private::serde::Deserialize<#de>);
    with_de.make_where_clause().predicates.push(bound);
    let (impl_generics, _, impl_where) = with_de.split_for_impl();
    quote! {
        const _: () = {
            #[derive(#private::serde::Deserialize)]
            #[serde(crate = #serde_path)]
            #name
            #(#container)*
            struct #wire #generics #where_clause {
                #(#members)*
                #omitted_member
            }

            #[automatically_derived]
            impl #impl_generics #private::serde::Deserialize<#de> for #ident #ty_generics #impl_where {
                fn deserialize<#deserializer: #private::serde::Deserializer<#de>>(
                    deserializer: #deserializer,
                ) -> ::core::result::Result<Self, #deserializer::Error> {
                    let __wire = <#wire #ty_generics as #private::serde::Deserialize<#de>>::deserialize(deserializer)?;
                    ::core::result::Result::Ok(#ident { #(#restored)* })
                }
            }
        };
    }
}

/// The body of a single resource's `single_report`: its `Field`s left out, the codes of its
/// `Vec<Warning>` fields, and the wire names of its `Field`s. `None` when it has neither, so that the trait's default (`None`) stays.
fn single_report(input: &Input, data: &[&Field], omitted: &Ident) -> Option<TokenStream> {
    let private = &input.private;
    let fields: Vec<&&Field> = data.iter().filter(|field| field.is_field).collect();
    let warning_lists: Vec<&&Field> = data.iter().filter(|field| types::is_warning_list(field.ty)).collect();
    if fields.is_empty() && warning_lists.is_empty() {
        return None;
    }
    let notes = fields.iter().map(|field| note_field(input, field, omitted));
    let names = fields.iter().map(|field| &field.wire);
    let lists = warning_lists.iter().map(|field| &field.member);
    Some(quote! {
        let mut #omitted = <#private::OmittedFields as ::core::default::Default>::default();
        #(#notes)*
        let mut warnings = ::std::vec::Vec::new();
        #(::core::iter::Extend::extend(&mut warnings, {
            use #private::NoWarningCodes as _;
            #private::WarningCodes(&self.#lists).codes()
        });)*
        ::core::option::Option::Some(#private::SingleReport { omitted: #omitted, warnings, fields: &[#(#names),*] })
    })
}

/// The statement that records a `Field<T>` in `omitted` when it was left out, spanned on its
/// type: a type of the service's own named `Field` is reported there.
fn note_field(input: &Input, field: &Field, omitted: &Ident) -> TokenStream {
    let (name, span) = (&field.wire, at(field.ty.span()));
    let (place, private) = (place(&field.member, span), respan(&input.private, span));
    quote_spanned! {span=> #private::note_field(&mut #omitted, #name, &#place); }
}

/// For a generic struct: every data field serializes, and the block is a completeness block.
fn with_bounds(input: &Input) -> Generics {
    let private = &input.private;
    // The struct's own bounds go in the where clause, before these (`generics::bounds_in_where`).
    let mut generics = crate::generics::bounds_in_where(input.generics);
    if generics.type_params().next().is_none() {
        return generics;
    }
    let where_clause = generics.make_where_clause();
    for field in input.data_fields() {
        let ty = field.ty;
        where_clause.predicates.push(syn::parse_quote!(#ty: #private::serde::Serialize));
    }
    if let Some(field) = input.completeness_field() {
        let ty = field.ty;
        where_clause.predicates.push(syn::parse_quote!(#ty: #private::CompletenessField));
    }
    generics
}

/// What the derive emits after an error: impls with the right shape and no behaviour,
/// so the type's other uses compile and only the real mistakes are reported.
pub(crate) fn stub(input: &DeriveInput, private: &TokenStream, read_back: bool) -> TokenStream {
    let ident = &input.ident;
    // (Its body never runs: the errors beside it keep the crate from compiling.)
    let deserialize = read_back.then(|| {
        let mut with_de = input.generics.clone();
        with_de.params.insert(0, syn::parse_quote!('__completeness_de));
        let (impl_generics, ty_generics, where_clause) =
            (with_de.split_for_impl().0, input.generics.split_for_impl().1, &input.generics.where_clause);
        quote! {
            #[automatically_derived]
            impl #impl_generics #private::serde::Deserialize<'__completeness_de> for #ident #ty_generics #where_clause {
                fn deserialize<__CompletenessDeserializer: #private::serde::Deserializer<'__completeness_de>>(
                    _: __CompletenessDeserializer,
                ) -> ::core::result::Result<Self, __CompletenessDeserializer::Error> {
                    ::core::unreachable!()
                }
            }
        }
    });
    let serializer = Ident::new("__CompletenessSerializer", Span::mixed_site());
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // It carries any reason type, so that a handler returning it reports only the derive's errors.
    let mut any = input.generics.clone();
    any.params.push(syn::parse_quote!(__CompletenessReason));
    let (any_generics, _, _) = any.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #any_generics #private::CarriesReason<__CompletenessReason> for #ident #ty_generics #where_clause {}

        #[automatically_derived]
        impl #impl_generics #private::serde::Serialize for #ident #ty_generics #where_clause {
            fn serialize<#serializer: #private::serde::Serializer>(
                &self,
                serializer: #serializer,
            ) -> ::core::result::Result<#serializer::Ok, #serializer::Error> {
                #serializer::serialize_unit(serializer)
            }
        }

        #private::envelope_report!(
            [#impl_generics] [#ident #ty_generics] [#where_clause] self []
        );

        #deserialize
    }
}
