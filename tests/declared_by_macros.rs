//! Types the derives see through a `macro_rules!` macro, as services declare families of them:
//! the attributes from the caller and the fields from the macro (or the reverse), a message
//! naming a field the macro wrote, a reason generic over a parameter named like the derive's
//! own, and a module without the implicit prelude. Each compiles and writes the contract.

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
