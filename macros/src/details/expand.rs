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
    let (fields, types): (Vec<&Ident>, Vec<&Type>) = fields.iter().copied().unzip();
    // Members are named as the fields are, without a raw identifier's `r#` (`r#type` is `type`).
    let names: Vec<String> = fields.iter().map(|field| crate::names::unraw(field)).collect();
    let message_fn = message_body(attrs.message.value.as_ref(), &fields, &names);
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
    let mut generics = crate::generics::bounds_in_where(generics);
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

/// The body of `default_message` / `message`: `format!` of the message, which may name fields
/// (`"{hold_id}"`, `"{count:>width$}"`). Each field it names is passed as a named argument,
/// `hold_id = self.hold_id`: a named argument is no pattern and no variable, so a field named
/// like a constant in scope (`LIMIT`) is still the field, and one not in snake_case
/// (`partnerID`, a wire member's name) is no variable that should be. Only the fields the
/// message names are passed (an argument never used is an error), each located at its field:
/// a type that cannot be formatted is reported there, and on the placeholder that formats it.
///
/// A message the compiler refuses keeps the compiler's words, on the placeholder itself:
/// - a name that is a slip of a field's (`{authorty}` for `authority`): that field is bound as a
///   variable, at the message, among which the compiler finds the name it may mean;
/// - a positional `{}`, which has no argument: nothing is passed (a positional placeholder would
///   take an argument passed by name, with a mere warning), and the fields named are bound as
///   variables, so that the one error is the placeholder's.
///
/// (A field bound so is not one named like a constant, `LIMIT`, which a constant of that name in
/// scope would turn into a pattern: its name has a lower-case letter.)
fn message_body(message: Option<&LitStr>, fields: &[&Ident], names: &[String]) -> TokenStream {
    let Some(message) = message else { return quote! { ::std::string::String::new() } };
    let span = message.span();
    let used = used_names(&message.value());
    let field = |name: &str| fields.iter().zip(names).find(|(_, field_name)| *field_name == name).map(|(f, _)| *f);
    let named: Vec<&Ident> = used.names.iter().filter_map(|name| field(name)).collect();
    let candidates: Vec<&str> = names.iter().map(String::as_str).collect();
    let slips = used
        .names
        .iter()
        .filter(|name| field(name).is_none())
        .filter_map(|name| crate::names::near_miss(name, &candidates))
        .filter_map(field);
    let mut bound: Vec<&Ident> = Vec::new();
    for candidate in slips.chain(named.iter().copied().filter(|_| used.positional)) {
        if !bound.contains(&candidate) && crate::names::unraw(candidate).chars().any(char::is_lowercase) {
            bound.push(candidate);
        }
    }
    let bindings = bound.iter().map(|field| {
        let mut binding = (*field).clone();
        binding.set_span(span);
        quote! {
            #[allow(unused_variables, non_snake_case)]
            let #binding = &self.#field;
        }
    });
    let arguments = named.iter().filter(|_| !used.positional).map(|field| {
        let place = place(&Member::Named((*field).clone()), at(field.span()));
        quote! { #field = #place }
    });
    quote! {
        #(#bindings)*
        ::std::format!(#message #(, #arguments)*)
    }
}

/// What a `format!` string uses.
#[derive(Default)]
struct Used {
    /// The names, each once, in order: the arguments of its placeholders (`hold` in `"{hold}"`,
    /// `"{hold:?}"`) and the names its widths and precisions take (`width` and `prec` in
    /// `"{n:>width$.prec$}"`).
    names: Vec<String>,
    /// A placeholder takes an argument by position: `{}`, `{0}`, `{:.*}`, `{:1$}`.
    positional: bool,
}

/// What `message`, a `format!` string, uses. Escaped braces (`{{`, `}}`) are text.
fn used_names(message: &str) -> Used {
    let mut used = Used::default();
    let mut add = |name: &str| {
        let name = name.trim();
        let is_name = name.chars().next().is_some_and(|first| first == '_' || first.is_alphabetic())
            && name.chars().all(|c| c == '_' || c.is_alphanumeric());
        if is_name {
            if !used.names.iter().any(|known| known == name) {
                used.names.push(name.to_owned());
            }
        } else {
            used.positional |= name.is_empty() || name.chars().all(|c| c.is_ascii_digit());
        }
    };
    let mut rest = message;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let Some(close) = rest.find('}') else { break };
        let placeholder = &rest[..close];
        rest = &rest[close + 1..];
        let (argument, spec) = placeholder.split_once(':').unwrap_or((placeholder, ""));
        add(argument);
        // `name$` or `1$` in the spec: a width or precision taken from an argument; `.*` one
        // taken from the next positional argument.
        for (at, _) in spec.match_indices('$') {
            let before = &spec[..at];
            let start = before
                .char_indices()
                .rev()
                .take_while(|&(_, c)| c == '_' || c.is_alphanumeric())
                .last()
                .map_or(before.len(), |(i, _)| i);
            if start < before.len() {
                add(&before[start..]);
            }
        }
        if spec.contains(".*") {
            add("");
        }
    }
    used
}
