//! The code the macros generate passes the clippy restriction lints that a strict service may
//! deny. The derive's `?` statements are spanned on the user's fields, and the handler's reason
//! set is an enum. Without the generated `allow`s, `question_mark_used` and `exhaustive_enums`
//! reported them in the user's code. Nor does it trip the nursery's `trait_duplication_in_bounds`
//! on a generic struct whose parameter the user bounded (`T: Debug`), which the derives bound
//! again, in the where clause: it reported the user's bound. This file denies the three: CI's
//! clippy step (`-D warnings` on all targets) fails when generated code trips one. The tests
//! check that the code the lints read is the code that runs.
#![deny(clippy::question_mark_used, clippy::exhaustive_enums, clippy::trait_duplication_in_bounds)]

use completeness::{Completeness, Field, Omission, Reason, ResultEnvelope, Scope, Warning, completeness};
use serde::{Deserialize, Serialize};

/// A service's own reason, with a detail member.
#[derive(Debug, Clone, Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold {hold} are hidden.")]
struct LegalHold {
    hold: String,
}

/// A service's own warning.
#[derive(Debug, Clone, Warning)]
#[warning(code = "SHARD_LAG", owner = "storage", review_by = "2027-06-30", message = "Shard lags {seconds} s.")]
struct ShardLag {
    seconds: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Document {
    id: String,
}

/// A derived collection: data, a serde rename, and the block.
#[derive(ResultEnvelope)]
struct Documents {
    #[serde(rename = "documents")]
    items: Vec<Document>,
    #[envelope(completeness)]
    completeness: Completeness<ListDocumentsReason>,
}

/// A derived single resource with a field that can be left out.
#[derive(ResultEnvelope)]
struct Owner {
    name: String,
    email: Field<String>,
}

#[completeness(resource = "documents", reasons(MorePagesAvailable, LegalHold), warnings(ShardLag))]
async fn list_documents() -> Documents {
    let mut completeness = Completeness::complete(Scope::new("documents", "all"));
    completeness.push_reason(LegalHold { hold: "h-17".to_owned() });
    completeness.push_warning(ShardLag { seconds: 4 });
    Documents { items: vec![Document { id: "d-1".to_owned() }], completeness }
}

#[test]
fn the_linted_code_writes_the_contract() {
    let page = block_on(list_documents());
    let wire = serde_json::to_value(&page).expect("a derived envelope serializes");
    assert_eq!(wire["complete"], false);
    assert_eq!(wire["documents"][0]["id"], "d-1");
    assert_eq!(wire["incomplete_reasons"][0]["code"], "LEGAL_HOLD");
    assert_eq!(wire["incomplete_reasons"][0]["hold"], "h-17");
    assert_eq!(wire["warnings"][0]["code"], "SHARD_LAG");
    assert_eq!(wire["page"], serde_json::Value::Null);

    let owner = Owner { name: "dana".to_owned(), email: Field::Omitted(Omission::NoAccess) };
    let wire = serde_json::to_value(&owner).expect("a single resource serializes");
    assert_eq!(wire["name"], "dana");
    assert_eq!(wire["email"], serde_json::Value::Null);
    assert_eq!(wire["omitted_fields"]["email"], "NO_ACCESS", "{wire}");
}

/// Runs a future that never waits (the handler above does not).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().expect("a runtime").block_on(future)
}

/// A generic reason whose parameter the user bounded, by a trait the derive bounds it by too.
#[derive(Debug, Clone, Reason)]
#[reason(code = "HELD_BY", kind = visibility, message = "Held by {holder:?}.")]
struct HeldBy<T: std::fmt::Debug> {
    holder: T,
}

/// A generic warning, bounded inline and in a where clause.
#[derive(Debug, Clone, Warning)]
#[warning(code = "LAGGING_BY", owner = "storage", review_by = "2027-06-30", message = "Lags {lag}.")]
struct LaggingBy<T: Clone + std::fmt::Display>
where
    T: Send,
{
    lag: T,
}

/// A generic page whose item the user bounded by `Serialize`, which the derive bounds it by too.
#[derive(ResultEnvelope)]
struct PageOf<T: Serialize, R> {
    items: Vec<T>,
    #[envelope(completeness)]
    completeness: Completeness<R>,
}

/// A generic single resource, its parameter bounded as the data field's.
#[derive(ResultEnvelope)]
struct OneOf<T: Serialize> {
    name: String,
    #[envelope(bounded = "one document")]
    data: T,
}

#[completeness(resource = "documents", reasons(HeldBy<u32>), warnings(LaggingBy<u64>))]
async fn list_held() -> PageOf<Document, ListHeldReason> {
    let mut completeness = Completeness::incomplete(Scope::new("documents", "all"), HeldBy { holder: 7_u32 });
    completeness.push_warning(LaggingBy { lag: 3_u64 });
    PageOf { items: vec![Document { id: "d-2".to_owned() }], completeness }
}

#[test]
fn generic_structs_bounded_by_their_users_write_the_contract() {
    let wire = serde_json::to_value(block_on(list_held())).expect("a generic envelope serializes");
    assert_eq!(wire["items"][0]["id"], "d-2");
    assert_eq!(wire["incomplete_reasons"][0]["message"], "Held by 7.");
    assert_eq!(wire["warnings"][0]["message"], "Lags 3.");
    let one = OneOf { name: "dana".to_owned(), data: Document { id: "d-3".to_owned() } };
    let wire = serde_json::to_value(&one).expect("a generic single resource serializes");
    assert_eq!(wire["data"]["id"], "d-3", "{wire}");
}
