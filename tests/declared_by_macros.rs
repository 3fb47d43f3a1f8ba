//! Types the derives see through a `macro_rules!` macro, as services declare families of them:
//! the attributes from the caller and the fields from the macro (or the reverse), a message
//! naming a field the macro wrote, a reason generic over a parameter named like the derive's
//! own, a module without the implicit prelude, and one whose own `macro_rules!` shadow the
//! standard macros. Each compiles and writes the contract.

use completeness::testing::assert_envelope_invariants;
use completeness::{Completeness, Reason, Scope, Warning, completeness};
use serde_json::json;

/// Writes a struct from attributes and fields the caller passes through, the common way to
/// declare a family of similar types.
macro_rules! item {
    ($(#[$meta:meta])* struct $name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        pub struct $name {
            $(pub $field: $ty),*
        }
    };
}

item! {
    #[derive(Debug, Clone, Reason)]
    #[reason(code = "SHARD_DOWN", kind = source, message = "Shard {shard} is down.")]
    struct ShardDown { shard: u32 }
}

item! {
    #[derive(Debug, Clone, Warning)]
    #[warning(code = "SHARD_LAG", owner = "storage", review_by = "2027-06-30", message = "Shard lags {seconds} s.")]
    struct ShardLag { seconds: u64 }
}

/// A reason whose field's name the caller gives, and whose message the macro writes.
macro_rules! held {
    ($name:ident, $field:ident) => {
        #[derive(Debug, Clone, Reason)]
        #[reason(code = "HELD", kind = visibility, message = "Hold {hold} hides records.")]
        pub struct $name {
            pub $field: String,
        }
    };
}

held!(Held, hold);

/// A reason generic over `M`, the name the derive's own map parameter once had.
#[derive(Debug, Clone, Reason)]
#[reason(code = "META_HOLD", kind = visibility, message = "Hold {meta:?}.")]
pub struct MetaHold<M: std::fmt::Debug + Clone + serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static>
{
    pub meta: M,
}

#[completeness(resource = "shards", reasons(ShardDown, Held, MetaHold<u32>), warnings(ShardLag))]
async fn list_shards() -> completeness::Envelope<u32, ListShardsReason> {
    let mut page = completeness::Envelope::incomplete(vec![1], Scope::new("shards", "all"), ShardDown { shard: 7 });
    page.completeness.push_reason(Held { hold: "h-2".into() });
    page.completeness.push_reason(MetaHold { meta: 4_u32 });
    page.completeness.push_warning(ShardLag { seconds: 9 });
    page
}

/// A module without the implicit prelude: the derive's code names everything by its path.
#[no_implicit_prelude]
mod bare {
    /// A single resource with a field left out and warnings of its own.
    #[derive(::completeness::ResultEnvelope)]
    pub struct Profile {
        pub name: ::std::string::String,
        pub email: ::completeness::Field<::std::string::String>,
        pub warnings: ::std::vec::Vec<::completeness::Warning>,
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
}

#[test]
fn reasons_and_warnings_declared_through_macros_write_their_details_and_messages() {
    let wire = serde_json::to_value(block_on(list_shards())).unwrap();
    assert_envelope_invariants(&wire);
    let reasons = &wire["incomplete_reasons"];
    assert_eq!(reasons[0]["code"], "SHARD_DOWN");
    assert_eq!(reasons[0]["shard"], 7);
    assert_eq!(reasons[0]["message"], "Shard 7 is down.");
    assert_eq!(reasons[1]["code"], "HELD");
    assert_eq!(reasons[1]["message"], "Hold h-2 hides records.");
    assert_eq!(reasons[2]["code"], "META_HOLD");
    assert_eq!(reasons[2]["meta"], 4);
    assert_eq!(reasons[2]["message"], "Hold 4.");
    assert_eq!(wire["warnings"][0]["code"], "SHARD_LAG");
    assert_eq!(wire["warnings"][0]["message"], "Shard lags 9 s.");
}

#[test]
fn reasons_declared_through_macros_read_back_typed() {
    let wire = serde_json::to_value(block_on(list_shards())).unwrap();
    let read: Completeness<ListShardsReason> = serde_json::from_value(wire).unwrap();
    assert_eq!(read.reasons().len(), 3);
}

#[test]
fn a_single_resource_without_the_prelude_lists_what_it_left_out() {
    let profile = bare::Profile {
        name: "ada".into(),
        email: completeness::Field::Omitted(completeness::Omission::NoAccess),
        warnings: Vec::new(),
    };
    let wire = serde_json::to_value(&profile).unwrap();
    assert_eq!(wire, json!({"name": "ada", "email": null, "warnings": [], "omitted_fields": {"email": "NO_ACCESS"}}));
}

/// A module whose own macros shadow the standard ones by name: the generated code calls
/// `::core::panic!` and `::std::format!` by their paths, so these are never called.
mod shadowed {
    #![allow(unused_macros)]

    macro_rules! panic {
        () => {};
    }
    macro_rules! assert {
        () => {};
    }
    macro_rules! format {
        () => {};
    }

    use completeness::{Reason, Scope, Warning, completeness};

    #[derive(Debug, Clone, Reason)]
    #[reason(code = "HELD_HERE", kind = visibility, message = "Hold {hold} hides records.")]
    pub struct HeldHere {
        pub hold: String,
    }

    #[derive(Debug, Clone, Reason)]
    #[reason(code = "DOWN_HERE", kind = source, message = "A source is down.")]
    pub struct DownHere;

    #[derive(Debug, Clone, Warning)]
    #[warning(code = "LAG_HERE", owner = "storage", review_by = "2027-06-30", message = "Lags {seconds} s.")]
    pub struct LagHere {
        pub seconds: u64,
    }

    #[completeness(resource = "records", reasons(HeldHere, DownHere), warnings(LagHere))]
    pub async fn list_records() -> completeness::Envelope<u32, ListRecordsReason> {
        let scope = Scope::new("records", "all");
        let mut page = completeness::Envelope::incomplete(vec![], scope, HeldHere { hold: "h-9".into() });
        page.completeness.push_warning(LagHere { seconds: 2 });
        page
    }
}

#[test]
fn standard_macros_shadowed_where_the_types_are_declared_are_not_called() {
    let wire = serde_json::to_value(block_on(shadowed::list_records())).unwrap();
    assert_eq!(wire["incomplete_reasons"][0]["message"], "Hold h-9 hides records.");
    assert_eq!(wire["warnings"][0]["message"], "Lags 2 s.");
}

/// Generated code calls each macro by its absolute path (`::core::panic!`, `::std::format!`,
/// the framework's own through its path), never by a bare name that a service's own
/// `macro_rules!` shadows, and never `assert!` at all: in a crate of edition 2015 or 2018,
/// `assert!(c, "..")` calls whatever `panic!` is in scope there, and a service's own
/// `macro_rules! panic` broke `#[completeness]` ("no rules expected ..."). This suite builds in
/// one edition, so the macros' source is read: each macro call inside a `quote!`,
/// `quote_spanned!` or `parse_quote!`.
#[test]
fn generated_code_calls_macros_by_their_paths_and_never_assert() {
    use proc_macro2::{TokenStream, TokenTree};

    /// The macro calls inside the quoted code of `tokens`: each name with what precedes it.
    fn calls(tokens: TokenStream, quoted: bool, out: &mut Vec<(String, bool, usize)>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            let bang = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
            let args = matches!(trees.get(i + 2), Some(TokenTree::Group(_)));
            match tree {
                TokenTree::Ident(name) if bang && args => {
                    let name = name.to_string();
                    let quoting = ["quote", "quote_spanned", "parse_quote"].contains(&name.as_str());
                    if quoted && !quoting {
                        let by_path = i >= 2
                            && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                            && matches!(&trees[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
                        out.push((name, by_path, tree.span().start().line));
                    }
                    if let Some(TokenTree::Group(group)) = trees.get(i + 2) {
                        calls(group.stream(), quoted || quoting, out);
                    }
                }
                // (A macro call's arguments were read with its name.)
                TokenTree::Group(group) if !is_call_arguments(&trees, i) => calls(group.stream(), quoted, out),
                _ => {}
            }
        }
    }

    /// True when `trees[at]` follows `name!`.
    fn is_call_arguments(trees: &[TokenTree], at: usize) -> bool {
        at >= 2
            && matches!(&trees[at - 1], TokenTree::Punct(p) if p.as_char() == '!')
            && matches!(&trees[at - 2], TokenTree::Ident(_))
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                out.push(path);
            }
        }
    }

    let mut files = Vec::new();
    rust_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("macros/src"), &mut files);
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in files {
        let tokens: TokenStream = std::fs::read_to_string(&file).unwrap().parse().expect("the file tokenizes");
        let mut found = Vec::new();
        calls(tokens, false, &mut found);
        seen += found.len();
        for (name, by_path, line) in found {
            if name == "assert" || !by_path {
                wrong.push(format!("{}:{line}: `{name}!`", file.display()));
            }
        }
    }
    assert!(seen >= 3, "the generated code's macro calls are found ({seen})");
    assert!(wrong.is_empty(), "generated code calls these by a bare name, or `assert!`:\n{}", wrong.join("\n"));
}
