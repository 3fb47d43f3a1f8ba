//! For the readers' tests: code compared token by token.

use proc_macro2::{TokenStream, TokenTree};

/// The tokens, one string each, groups opened and closed, punctuation spacing ignored (syn
/// writes `>>` as two separate `>`).
pub(crate) fn tokens(stream: TokenStream) -> Vec<String> {
    stream
        .into_iter()
        .flat_map(|tree| match tree {
            TokenTree::Group(group) => {
                let mut out = vec![format!("{:?}(", group.delimiter())];
                out.extend(tokens(group.stream()));
                out.push(")".to_owned());
                out
            }
            TokenTree::Punct(punct) => vec![punct.as_char().to_string()],
            other => vec![other.to_string()],
        })
        .collect()
}
