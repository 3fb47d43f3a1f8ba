//! The generics of generated impls.

use proc_macro2::Span;
use syn::{Generics, WherePredicate};

/// `generics` with each type parameter's bounds moved into the where clause, after its own
/// predicates: `<T: Debug> where T: Send` is `<T> where T: Send, T: Debug`. The derives add
/// bounds of their own there (`T: Serialize + Debug + ..`), and a trait bounded both inline and
/// in the where clause is what clippy's `trait_duplication_in_bounds` reports, on the user's
/// bound. The impl means the same either way. The moved predicate names the parameter at the
/// call site, as the derives' own predicates do: a repetition of the parameter in the where
/// clause is then theirs (clippy's `type_repetition_in_bounds` leaves generated code alone),
/// not the user's `where T: Send`.
pub(crate) fn bounds_in_where(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    let mut moved: Vec<WherePredicate> = Vec::new();
    for param in generics.type_params_mut() {
        if param.bounds.is_empty() {
            continue;
        }
        let bounds = std::mem::take(&mut param.bounds);
        param.colon_token = None;
        let mut ident = param.ident.clone();
        ident.set_span(Span::call_site());
        moved.push(syn::parse_quote!(#ident: #bounds));
    }
    if !moved.is_empty() {
        generics.make_where_clause().predicates.extend(moved);
    }
    generics
}
