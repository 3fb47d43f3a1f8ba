//! A service that reaches the framework as `platform` (the dependency renamed in `Cargo.toml`)
//! and through a facade module of its own (`crate::facade::completeness`), as organisations
//! that wrap their dependencies do. There is no crate named `completeness` here: each macro is
//! told the path with `crate = "..."`, and a path the macros wrote without it would not
//! resolve. The tests check that what compiled also writes the contract.

use platform::reason::MorePagesAvailable;
use platform::{Completeness, Field, Reason, ResultEnvelope, Scope, Warning};

/// The framework re-exported under a module of the service's own, as a facade crate would.
pub mod facade {
    /// The framework, by the facade's path.
    pub mod completeness {
        pub use platform::*;
    }
}

/// A service's own reason, named by its path in `reasons(...)`.
#[derive(Debug, Clone, Reason)]
#[reason(crate = "platform", code = "LEGAL_HOLD", kind = visibility, message = "Hold {hold} hides records.")]
pub struct LegalHold {
    /// The hold's id.
    pub hold: String,
}

/// A service's own reason with a recovery, whose continuation is the renamed crate's.
#[derive(Debug, Clone, Reason)]
#[reason(crate = "platform", code = "SHARD_MOVING", kind = source, message = "Shard {shard} is moving.")]
#[reason(recovery = ShardMoving::wait)]
pub struct ShardMoving {
    /// The shard's number.
    pub shard: u32,
}

impl ShardMoving {
    /// The way on: ask again once the shard has moved.
    fn wait(&self) -> Option<platform::Continuation> {
        Some(platform::Continuation::RetryAfter { seconds: 30 })
    }
}

/// A service's own warning.
#[derive(Debug, Clone, Warning)]
#[warning(crate = "platform", code = "REPLICA_LAG", owner = "storage", review_by = "2027-06-30", stale)]
#[warning(message = "The replica lags {seconds} s.")]
pub struct ReplicaLag {
    /// How far behind.
    pub seconds: u64,
}

/// A page of names, with its JSON Schema.
#[derive(ResultEnvelope)]
#[envelope(crate = "platform", json_schema)]
pub struct Names {
    /// The names.
    pub names: Vec<String>,
    /// The completeness block.
    #[envelope(completeness)]
    pub completeness: Completeness<ListNamesReason>,
}

/// One person, whose email may be left out.
#[derive(ResultEnvelope)]
#[envelope(crate = "crate::facade::completeness")]
pub struct Person {
    /// The name.
    pub name: String,
    /// The email, when the caller may see it.
    pub email: Field<String>,
}

/// Lists names: a standard reason by its bare name and by the framework's path, a reason and a
/// warning of the service's own.
#[platform::completeness(
    crate = "platform",
    resource = "names",
    reasons(MorePagesAvailable, platform::reason::ResultLimitReached, LegalHold),
    warnings(ReplicaLag)
)]
pub async fn list_names(held: bool) -> Names {
    let scope = Scope::new("names", "all names");
    let mut completeness = Completeness::incomplete(scope, MorePagesAvailable::new("n-2"));
    if held {
        completeness.push_reason(LegalHold { hold: "h-9".into() });
    }
    completeness.push_warning(ReplicaLag { seconds: 3 });
    Names { names: vec!["ada".into(), "grace".into()], completeness }
}

/// Reads one person, through the facade's path.
#[facade::completeness::completeness(crate = "crate::facade::completeness", resource = "people", reasons())]
pub async fn get_person() -> Person {
    Person { name: "ada".into(), email: Field::Omitted(platform::Omission::NoAccess) }
}

/// Handlers as associated functions.
pub struct Api;

#[platform::completeness]
impl Api {
    /// Lists names as an envelope of the framework's.
    #[platform::completeness(crate = "platform", resource = "names", reasons(MorePagesAvailable))]
    pub async fn names() -> platform::Envelope<String, ApiNamesReason> {
        platform::Envelope::complete(vec!["ada".into()], Scope::new("names", "all names"))
    }
}

#[cfg(test)]
mod tests {
    use platform::testing::assert_envelope_invariants;
    use serde_json::{Value, json};

    use super::*;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn a_handler_under_another_name_writes_its_reasons_and_warnings() {
        let wire = serde_json::to_value(block_on(list_names(true))).unwrap();
        assert_envelope_invariants(&wire);
        assert_eq!(wire["names"], json!(["ada", "grace"]));
        assert_eq!(wire["page"], Value::Null);
        let codes: Vec<&str> =
            wire["incomplete_reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["MORE_PAGES_AVAILABLE", "LEGAL_HOLD"]);
        assert_eq!(wire["incomplete_reasons"][1]["hold"], "h-9");
        assert_eq!(wire["incomplete_reasons"][1]["kind"], "visibility");
        assert_eq!(wire["warnings"][0]["code"], "REPLICA_LAG");
        assert_eq!(wire["warnings"][0]["stale"], true);
    }

    #[test]
    fn the_declared_codes_include_the_one_named_by_the_frameworks_path() {
        let codes: Vec<&str> = ListNamesReason::ALL.iter().map(|code| code.as_str()).collect();
        assert_eq!(codes, ["MORE_PAGES_AVAILABLE", "RESULT_LIMIT_REACHED", "LEGAL_HOLD"]);
    }

    #[test]
    fn a_single_resource_through_the_facade_lists_what_it_left_out() {
        let wire = serde_json::to_value(block_on(get_person())).unwrap();
        assert_eq!(wire, json!({"name": "ada", "email": null, "omitted_fields": {"email": "NO_ACCESS"}}));
    }

    #[test]
    fn an_associated_handler_under_another_name_is_complete() {
        let wire = serde_json::to_value(block_on(Api::names())).unwrap();
        assert_envelope_invariants(&wire);
        assert_eq!(wire["complete"], true);
        assert_eq!(wire["items"], json!(["ada"]));
    }

    #[test]
    fn the_derived_schema_requires_its_members_and_names_the_declared_codes() {
        let schema = platform::schema::response_json::<Names>();
        let schema = serde_json::to_value(schema).unwrap();
        assert_eq!(schema["required"].as_array().map(|r| r.contains(&json!("names"))), Some(true), "{schema}");
        let text = schema.to_string();
        for code in ["MORE_PAGES_AVAILABLE", "RESULT_LIMIT_REACHED", "LEGAL_HOLD", "REPLICA_LAG"] {
            assert!(text.contains(code), "the schema names {code}: {schema}");
        }
    }
}
