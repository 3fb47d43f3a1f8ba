//! The derive input as this macro sees it, borrowing the syn tree.

use proc_macro2::{Span, TokenStream};
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use super::attr::{self, ContainerAttrs, FieldAttrs};
use super::serde::{self, FieldSerde};
use crate::ctxt::Ctxt;
use crate::types;

/// A struct deriving `ResultEnvelope`.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a Ident,
    /// `#[envelope(json_schema)]` on the struct: it asks for a `JsonSchema` impl.
    pub(crate) json_schema: Option<syn::Path>,
    /// `#[envelope(openapi)]` on the struct: it asks for a `utoipa::ToSchema` impl.
    pub(crate) openapi: Option<syn::Path>,
    /// `#[envelope(deserialize)]` on the struct: it asks for a `serde::Deserialize` impl.
    pub(crate) deserialize: Option<syn::Path>,
    /// The struct's own attributes (its `#[serde(...)]` ones are read again by that impl).
    pub(crate) attrs: &'a [syn::Attribute],
    /// The framework's `__private` module, by the path `#[envelope(crate = "...")]` gives.
    pub(crate) private: TokenStream,
    /// The segments of that path, for hints that tell the framework's types from namesakes.
    pub(crate) framework: Vec<String>,
    pub(crate) generics: &'a Generics,
    pub(crate) fields: Vec<Field<'a>>,
    /// True for a tuple struct.
    pub(crate) tuple: bool,
    /// Where to point errors about the struct as a whole.
    pub(crate) span: Span,
}

/// One field with its attributes and what its type is.
pub(crate) struct Field<'a> {
    pub(crate) member: Member,
    pub(crate) ty: &'a Type,
    pub(crate) original: &'a syn::Field,
    pub(crate) attrs: FieldAttrs,
    /// The field's serde attributes that change the wire.
    pub(crate) serde: FieldSerde,
    /// The member name on the wire (after serde's `rename` / `rename_all`).
    pub(crate) wire: String,
    pub(crate) is_collection: bool,
    pub(crate) is_field: bool,
    /// The struct's type parameter this field's type is (`data: T`): it may be a list.
    pub(crate) generic: Option<syn::Ident>,
}

impl Field<'_> {
    /// The wire name: the field's name as serde renames it, or `items` for the data of a
    /// tuple struct.
    pub(crate) fn wire_name(&self) -> String {
        self.wire.clone()
    }

    /// A collection that is not a bounded side list: it needs a completeness block beside it,
    /// and the first one holds the items.
    pub(crate) fn is_unbounded_collection(&self) -> bool {
        self.is_collection && self.attrs.bounded.is_none()
    }

    /// A data field of a single resource whose type, as written, is no list, but may be one
    /// underneath (an alias, a struct of the service's own or a generic one, a `Value`): not
    /// declared bounded, not a single resource's `Vec<Warning>`, not a scalar.
    pub(crate) fn may_hide_a_list(&self) -> bool {
        !self.is_collection
            && self.attrs.bounded.is_none()
            && !types::is_warning_list(self.ty)
            && !types::is_scalar(self.ty)
    }
}

impl<'a> Input<'a> {
    /// Reads a derive input, whose struct attributes are `container`; enums and unions are
    /// reported and give `None`.
    pub(crate) fn from_syn(cx: &Ctxt, input: &'a DeriveInput, container: &ContainerAttrs) -> Option<Input<'a>> {
        let (json_schema, openapi, deserialize, krate) =
            (container.json_schema.clone(), container.openapi.clone(), container.deserialize.clone(), &container.krate);
        let fields = match &input.data {
            Data::Struct(data) => &data.fields,
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "`ResultEnvelope` derives on a struct, not an enum: put the variants' data in one struct \
                     with a `#[envelope(completeness)]` field",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(data.union_token, "`ResultEnvelope` derives on a struct, not a union");
                return None;
            }
        };
        let (tuple, list): (bool, Vec<&syn::Field>) = match fields {
            Fields::Named(named) => (false, named.named.iter().collect()),
            Fields::Unnamed(unnamed) => (true, unnamed.unnamed.iter().collect()),
            Fields::Unit => (false, Vec::new()),
        };
        let serde_container = serde::container(cx, &input.attrs);
        let params: Vec<syn::Ident> = input.generics.type_params().map(|param| param.ident.clone()).collect();
        let mut fields: Vec<Field<'a>> = list
            .into_iter()
            .enumerate()
            .map(|(index, field)| {
                let attrs = attr::field_attrs(cx, &field.attrs);
                // The block's serde attributes are checked by validation, not honoured here.
                let field_serde =
                    if attrs.completeness.is_some() { FieldSerde::default() } else { serde::field(cx, &field.attrs) };
                let wire = match (&field.ident, &field_serde.rename) {
                    (_, Some(rename)) => rename.value(),
                    (Some(ident), None) => {
                        let name = crate::names::unraw(ident);
                        serde_container.rename_all.map_or(name.clone(), |case| case.apply(&name))
                    }
                    (None, None) => "items".to_owned(),
                };
                (index, field, attrs, field_serde, wire)
            })
            .map(|(index, field, attrs, field_serde, wire)| Field {
                member: field.ident.clone().map_or_else(|| Member::from(index), Member::Named),
                ty: &field.ty,
                original: field,
                attrs,
                serde: field_serde,
                wire,
                is_collection: types::is_collection(&field.ty),
                is_field: types::is_field(&field.ty),
                generic: types::generic_param(&field.ty, &params).cloned(),
            })
            .collect();
        // A `Vec<Warning>` is a single resource's warnings (contract §3.5), not a list of items.
        // In a struct with a completeness block, whose warnings are the block's, it is a list
        // like any other, and the first unbounded list holds the items, whatever its item type
        // is named (`items: Vec<lint::Warning>`, a service's own type of that name).
        if !fields.iter().any(|field| field.attrs.completeness.is_some()) {
            for field in fields.iter_mut().filter(|field| types::is_warning_list(field.ty)) {
                field.is_collection = false;
            }
        }
        Some(Input {
            ident: &input.ident,
            json_schema,
            openapi,
            deserialize,
            attrs: &input.attrs,
            private: quote::quote! { #krate::__private },
            framework: krate.names(),
            generics: &input.generics,
            fields,
            tuple,
            span: input.ident.span(),
        })
    }

    /// The completeness field, when there is exactly one (validation guarantees it for expansion).
    pub(crate) fn completeness_field(&self) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.attrs.completeness.is_some())
    }

    /// The fields written as data members.
    pub(crate) fn data_fields(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields.iter().filter(|f| f.attrs.completeness.is_none())
    }
}
