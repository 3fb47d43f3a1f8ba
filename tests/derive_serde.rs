//! A derived envelope honours serde's attributes that change the wire, and a camelCase envelope
//! round-trips through a `Deserialize` derive that reads its completeness block strictly.

use completeness::reason::MorePagesAvailable;
use completeness::testing::assert_envelope_invariants;
use completeness::{Completeness, ResultEnvelope, Scope, StandardReason, completeness};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Ticket {
    ticket_id: String,
}

#[derive(ResultEnvelope, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TicketPage<R: completeness::Reason = StandardReason> {
    ticket_list: Vec<Ticket>,
    #[serde(rename = "queueName")]
    queue: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    next_hint: Option<String>,
    #[serde(flatten)]
    #[envelope(completeness)]
    completeness: Completeness<R>,
}

impl serde::Serialize for Ticket {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json!({"ticketId": self.ticket_id}).serialize(serializer)
    }
}

#[completeness(resource = "tickets", reasons(MorePagesAvailable))]
async fn list_tickets() -> TicketPage<ListTicketsReason> {
    let completeness = Completeness::incomplete(Scope::new("tickets", "open tickets"), MorePagesAvailable::new("c2"));
    TicketPage {
        ticket_list: vec![Ticket { ticket_id: "t-1".into() }],
        queue: "support".into(),
        next_hint: None,
        completeness,
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
}

#[test]
fn data_members_are_renamed_and_completeness_members_keep_their_names() {
    let json = serde_json::to_value(block_on(list_tickets())).unwrap();
    assert_eq!(json["ticketList"], json!([{"ticketId": "t-1"}]));
    assert_eq!(json["queueName"], "support");
    assert!(json.get("nextHint").is_none(), "skip_serializing_if is honoured");
    for member in ["complete", "incomplete_reasons", "next_cursor", "page", "scope", "warnings", "evidence"] {
        assert!(json.get(member).is_some(), "{member} keeps its contract name");
    }
    assert_envelope_invariants(&json);
}

#[test]
fn a_camel_case_envelope_round_trips_through_the_strict_deserializer() {
    let json = serde_json::to_value(block_on(list_tickets())).unwrap();
    let back: TicketPage<ListTicketsReason> = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.ticket_list, vec![Ticket { ticket_id: "t-1".into() }]);
    assert_eq!(back.queue, "support");
    assert!(!back.completeness.is_complete());
    assert_eq!(back.completeness.next_cursor(), Some("c2"));
    assert_eq!(serde_json::to_value(&back).unwrap(), json, "written again exactly");

    let mut broken = json;
    broken.as_object_mut().unwrap().remove("complete");
    let error = serde_json::from_value::<TicketPage>(broken).err().expect("strict").to_string();
    assert!(error.contains("missing `complete`"), "{error}");
}

/// serde's long forms, whose writing half the derive honours, and `skip`, which writes nothing
/// (as `skip_serializing` does) and reads the default.
#[derive(ResultEnvelope, Deserialize)]
#[serde(rename_all(serialize = "camelCase", deserialize = "camelCase"))]
struct QueuePage {
    ticket_list: Vec<Ticket>,
    #[serde(rename(serialize = "queueTitle", deserialize = "queueTitle"))]
    queue: String,
    #[serde(skip)]
    cached_at: Option<u64>,
    #[serde(flatten)]
    #[envelope(completeness)]
    completeness: Completeness,
}

#[test]
fn long_forms_are_honoured_and_a_skipped_field_is_not_written() {
    let page = QueuePage {
        ticket_list: vec![Ticket { ticket_id: "t-2".into() }],
        queue: "billing".into(),
        cached_at: Some(7),
        completeness: Completeness::complete(Scope::new("tickets", "billing tickets")),
    };
    let json = serde_json::to_value(&page).unwrap();
    assert_eq!(json["ticketList"], json!([{"ticketId": "t-2"}]));
    assert_eq!(json["queueTitle"], "billing");
    assert!(json.get("cachedAt").is_none() && json.get("cached_at").is_none(), "{json}");
    assert_envelope_invariants(&json);
    let read: QueuePage = serde_json::from_value(json).unwrap();
    assert_eq!((read.queue.as_str(), read.cached_at), ("billing", None));
}

/// A block read through `#[serde(flatten)]` does not see the items beside it: R11 is the
/// reading struct's to check, with `check_returned`.
#[test]
fn a_flattened_block_checks_its_page_count_when_asked() {
    let facts = completeness::PageInfo::new(1, None, 5, "id ascending").with_resumed(false);
    let sent = TicketPage::<StandardReason> {
        ticket_list: vec![Ticket { ticket_id: "t-1".into() }],
        queue: "support".into(),
        next_hint: None,
        completeness: Completeness::complete(Scope::new("tickets", "open tickets")).with_page(facts),
    };
    let mut json = serde_json::to_value(&sent).unwrap();
    json["page"]["returned"] = json!(5);
    let page: TicketPage = serde_json::from_value(json).expect("flatten reads the block without the items");
    let error = page.completeness.check_returned("ticketList", page.ticket_list.len()).unwrap_err();
    assert!(error.contains("`page.returned` is 5 but `ticketList` holds 1"), "{error}");
    let consistent = TicketPage::<StandardReason> {
        ticket_list: vec![],
        queue: "support".into(),
        next_hint: None,
        completeness: Completeness::complete(Scope::new("tickets", "open tickets")),
    };
    assert_eq!(consistent.completeness.check_returned("ticketList", 0), Ok(()));
}

/// A struct whose field names serde spells in its own way (a leading underscore, two in a row, a
/// capital inside, a raw identifier, a digit), declared with the given attributes. The derive
/// must work on a struct that comes out of a `macro_rules!` macro, as this one does.
macro_rules! awkward_fields {
    ($(#[$attr:meta])* $name:ident) => {
        #[allow(non_snake_case)]
        $(#[$attr])*
        struct $name {
            _links: String,
            item_list_id: u32,
            a__b: u32,
            itemCount: u32,
            r#type: u32,
            shard_2_state: u32,
        }

        impl $name {
            fn example() -> Self {
                $name { _links: "/self".into(), item_list_id: 1, a__b: 2, itemCount: 3, r#type: 4, shard_2_state: 5 }
            }
        }
    };
}

/// Declares, for one `rename_all` case, a derived single resource and a plain serde struct of
/// the same awkward fields, and checks that both write the same member names.
macro_rules! same_names_as_serde {
    ($($case:literal => $derived:ident, $plain:ident;)*) => {$(
        awkward_fields!(#[derive(ResultEnvelope)] #[serde(rename_all = $case)] $derived);
        awkward_fields!(#[derive(serde::Serialize)] #[serde(rename_all = $case)] $plain);
    )*

    #[test]
    fn rename_all_spells_every_field_as_serde_does() {
        $(
            let derived = serde_json::to_value(&$derived::example()).unwrap();
            let plain = serde_json::to_value(&$plain::example()).unwrap();
            let names = |value: &serde_json::Value| value.as_object().unwrap().keys().cloned().collect::<std::collections::BTreeSet<_>>();
            assert_eq!(names(&derived), names(&plain), "rename_all = {}", $case);
        )*
    }
    };
}

same_names_as_serde! {
    "lowercase" => LowerDerived, LowerPlain;
    "UPPERCASE" => UpperDerived, UpperPlain;
    "PascalCase" => PascalDerived, PascalPlain;
    "camelCase" => CamelDerived, CamelPlain;
    "snake_case" => SnakeDerived, SnakePlain;
    "SCREAMING_SNAKE_CASE" => ScreamingDerived, ScreamingPlain;
    "kebab-case" => KebabDerived, KebabPlain;
    "SCREAMING-KEBAB-CASE" => ScreamingKebabDerived, ScreamingKebabPlain;
}

/// A list envelope that a `macro_rules!` macro declares, as services declare one page type per
/// resource: its block is read and written as in any other.
macro_rules! page_of {
    ($name:ident, $item:ty) => {
        #[derive(ResultEnvelope)]
        struct $name {
            items: Vec<$item>,
            #[envelope(completeness)]
            completeness: Completeness,
        }
    };
}

page_of!(NamePage, String);

#[test]
fn a_list_envelope_declared_by_a_macro_counts_its_items_and_reports_its_block() {
    let stale = completeness::PageInfo::new(5, Some(10), 10, "name ascending").with_resumed(false);
    let completeness = Completeness::complete(Scope::new("names", "all names")).with_page(stale);
    let page = NamePage { items: vec!["a".into(), "b".into()], completeness };
    let json = serde_json::to_value(&page).unwrap();
    assert_eq!(json["items"], json!(["a", "b"]));
    assert_eq!(json["complete"], true);
    assert_eq!(json["page"]["returned"], 2, "the items written are counted, not the block's figure");
    assert_envelope_invariants(&json);
}

/// A page of a service's own type named `Warning` (a lint's findings): in a struct with a
/// completeness block, whose warnings are the block's, the list is the items, counted in
/// `page.returned` (R11) and named as the items member (which the fault layer cuts), like a
/// list of any other type. (A single resource's `Vec<Warning>` is its warnings, and must hold
/// `completeness::Warning`: `tests/ui/fail/derive_own_warning_type_list.rs`.)
mod own_warning_items {
    use completeness::{Completeness, ReportsCompleteness, ResultEnvelope, Scope};
    use serde_json::json;

    mod lint {
        #[derive(Debug, Clone, serde::Serialize)]
        pub struct Warning {
            pub line: u32,
        }
    }

    #[derive(ResultEnvelope)]
    struct Findings {
        items: Vec<lint::Warning>,
        #[envelope(completeness)]
        completeness: Completeness,
    }

    #[test]
    fn a_list_of_a_type_of_ones_own_named_warning_is_the_items() {
        let page_info = completeness::PageInfo::new(5, Some(10), 10, "line ascending").with_resumed(false);
        let completeness = Completeness::complete(Scope::new("findings", "every finding")).with_page(page_info);
        let page = Findings { items: vec![lint::Warning { line: 3 }, lint::Warning { line: 9 }], completeness };
        assert_eq!(page.items_member(), Some("items"));
        let wire = serde_json::to_value(&page).unwrap();
        assert_eq!(wire["items"], json!([{"line": 3}, {"line": 9}]));
        assert_eq!(wire["page"]["returned"], 2, "the items written are counted: {wire}");
        assert_eq!(wire["warnings"], json!([]), "{wire}");
    }
}

/// serde's attributes that only change reading, which a `Deserialize` derive beside this one
/// honours, are accepted: on the struct `try_from` and `from` (it is read as another type and
/// converted), on the completeness block `skip_deserializing` and `default`. What is written is
/// what the derive writes.
mod reading_only_attributes {
    use completeness::testing::assert_envelope_invariants;
    use completeness::{Completeness, ResultEnvelope, Scope};
    use serde::Deserialize;
    use serde_json::json;

    /// The page as another service sends it: items and nothing else.
    #[derive(Deserialize)]
    struct Upstream {
        items: Vec<u32>,
    }

    #[derive(ResultEnvelope, Deserialize)]
    #[serde(try_from = "Upstream")]
    struct Checked {
        items: Vec<u32>,
        #[envelope(completeness)]
        completeness: Completeness,
    }

    impl TryFrom<Upstream> for Checked {
        type Error = String;
        fn try_from(upstream: Upstream) -> Result<Self, String> {
            if upstream.items.is_empty() {
                return Err("an empty upstream page".into());
            }
            Ok(Checked { items: upstream.items, completeness: Completeness::complete(Scope::new("n", "all")) })
        }
    }

    #[derive(ResultEnvelope, Deserialize)]
    #[serde(from = "Upstream")]
    struct Converted {
        items: Vec<u32>,
        #[envelope(completeness)]
        completeness: Completeness,
    }

    impl From<Upstream> for Converted {
        fn from(upstream: Upstream) -> Self {
            Converted { items: upstream.items, completeness: Completeness::complete(Scope::new("n", "all")) }
        }
    }

    /// Read without its block, which is then a default one.
    #[derive(ResultEnvelope, Deserialize)]
    struct Unread {
        items: Vec<u32>,
        #[envelope(completeness)]
        #[serde(skip_deserializing, default = "unread")]
        completeness: Completeness,
    }

    fn unread() -> Completeness {
        Completeness::complete(Scope::new("n", "read back without its block"))
    }

    #[test]
    fn attributes_that_only_change_reading_are_accepted_and_the_wire_is_the_contracts() {
        let checked: Checked = serde_json::from_value(json!({"items": [1, 2]})).unwrap();
        assert!(serde_json::from_value::<Checked>(json!({"items": []})).is_err());
        let converted: Converted = serde_json::from_value(json!({"items": [3]})).unwrap();
        let unread_page: Unread = serde_json::from_value(json!({"items": [4], "complete": false})).unwrap();
        assert_eq!(unread_page.completeness.scope().visibility, "read back without its block");
        for wire in [
            serde_json::to_value(&checked).unwrap(),
            serde_json::to_value(&converted).unwrap(),
            serde_json::to_value(&unread_page).unwrap(),
        ] {
            assert_envelope_invariants(&wire);
            assert_eq!(wire["complete"], true, "{wire}");
            assert_eq!(wire["scope"]["resource"], "n", "{wire}");
        }
        assert_eq!(serde_json::to_value(&checked).unwrap()["items"], json!([1, 2]));
    }
}

/// `#[envelope(json_schema)]`: the JSON Schema of a derived struct, as it writes itself.
#[cfg(feature = "json-schema")]
mod json_schema {
    use completeness::reason::MorePagesAvailable;
    use completeness::warning::PartialFieldSet;
    use completeness::{Completeness, Field, Omission, ResultEnvelope, Scope, Warning, completeness};
    use serde_json::{Value, json};

    #[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase")]
    pub struct Ticket {
        ticket_id: String,
    }

    // With `openapi` too, the OpenAPI tests below take these types.
    #[derive(ResultEnvelope)]
    #[envelope(json_schema)]
    #[cfg_attr(feature = "openapi", envelope(openapi))]
    #[serde(rename_all = "camelCase")]
    pub struct TicketPage<R: completeness::Reason> {
        pub(super) ticket_list: Vec<Ticket>,
        pub(super) queue_name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub(super) next_hint: Option<String>,
        #[envelope(completeness)]
        pub(super) completeness: Completeness<R>,
    }

    #[completeness(resource = "tickets", reasons(MorePagesAvailable))]
    pub(super) async fn list_tickets(more: bool) -> TicketPage<ListTicketsReason> {
        let scope = Scope::new("tickets", "open tickets");
        let completeness = match more {
            true => Completeness::incomplete(scope, MorePagesAvailable::new("c2")),
            false => Completeness::complete(scope),
        };
        let ticket_list = vec![Ticket { ticket_id: "t-1".into() }];
        TicketPage { ticket_list, queue_name: "support".into(), next_hint: None, completeness }
    }

    /// A single resource: a field left out is `null` and listed in `omitted_fields`.
    #[derive(ResultEnvelope)]
    #[envelope(json_schema)]
    #[cfg_attr(feature = "openapi", envelope(openapi))]
    pub struct Account {
        pub(super) id: String,
        pub(super) owner_email: Field<String>,
        pub(super) warnings: Vec<Warning>,
    }

    fn validator<T: schemars::JsonSchema>() -> (Value, jsonschema::Validator) {
        let schema = schemars::schema_for!(T).to_value();
        let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{e}: {schema}"));
        (schema, validator)
    }

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn a_derived_envelopes_schema_takes_what_it_writes_under_its_names_and_holds_the_block_rules() {
        let (schema, validator) = validator::<TicketPage<ListTicketsReason>>();
        for more in [false, true] {
            let written = serde_json::to_value(block_on(list_tickets(more))).unwrap();
            assert!(validator.is_valid(&written), "refuses {written}: {:?}", validator.validate(&written).err());
        }
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for member in ["complete", "incomplete_reasons", "next_cursor", "page", "ticketList", "queueName"] {
            assert!(required.contains(&member), "`{member}` is required: {required:?}");
        }
        assert!(!required.contains(&"nextHint"), "a member under skip_serializing_if may be left out");
        let mut lying = serde_json::to_value(block_on(list_tickets(true))).unwrap();
        lying["complete"] = json!(true);
        lying["status"] = json!("complete");
        assert!(!validator.is_valid(&lying), "a complete answer with a reason: {lying}");
        let mut undeclared = serde_json::to_value(block_on(list_tickets(true))).unwrap();
        undeclared["incomplete_reasons"][0] = json!({"code": "VISIBILITY_RESTRICTED", "message": "hidden"});
        assert!(!validator.is_valid(&undeclared), "a reason the endpoint does not declare: {undeclared}");
    }

    #[test]
    fn a_derived_single_resources_schema_takes_an_omitted_field_and_its_warning() {
        let (schema, validator) = validator::<Account>();
        let partial = Account {
            id: "sa-1".into(),
            owner_email: Field::Omitted(Omission::NoAccess),
            warnings: vec![PartialFieldSet::new(&["owner_email"], &[]).into()],
        };
        let whole = Account { id: "sa-2".into(), owner_email: Field::Filled("a@example.com".into()), warnings: vec![] };
        for account in [partial, whole] {
            let written = serde_json::to_value(&account).unwrap();
            assert!(validator.is_valid(&written), "refuses {written}: {:?}", validator.validate(&written).err());
        }
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["id", "owner_email", "warnings", "omitted_fields"]);
        let missing = json!({"id": "sa-3", "warnings": [], "omitted_fields": {}});
        assert!(!validator.is_valid(&missing), "a declared field left out: {missing}");
        // Contract §2.7: a field listed as omitted is null, and only a declared field is listed.
        let leaked = json!({"id": "sa-3", "owner_email": "a@example.com", "warnings": [],
                            "omitted_fields": {"owner_email": "NO_ACCESS"}});
        assert!(!validator.is_valid(&leaked), "an omitted field with a value: {leaked}");
        let listed = json!({"id": "sa-3", "owner_email": null, "warnings": [], "omitted_fields": {"id": "NO_ACCESS"}});
        assert!(!validator.is_valid(&listed), "a member that is no declared field listed: {listed}");
    }
}

/// `#[envelope(openapi)]`: the OpenAPI schema of a derived struct, a component of the document
/// of a route that names it, and what it writes passes it.
#[cfg(all(feature = "openapi", feature = "json-schema"))]
mod openapi {
    use super::json_schema::{Account, ListTicketsReason, TicketPage, list_tickets};
    use completeness::warning::PartialFieldSet;
    use completeness::{Completeness, Field, Omission, Scope, completeness};
    use serde_json::{Value, json};

    /// The same reasons as `list_tickets`, and a warning: another block, through the same struct.
    #[completeness(resource = "tickets", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
    async fn list_closed() -> TicketPage<ListClosedReason> {
        let scope = Scope::new("tickets", "closed tickets");
        let mut completeness = Completeness::complete(scope);
        completeness.push_warning(completeness::warning::PageSizeReduced::new(600, 500));
        TicketPage { ticket_list: vec![], queue_name: "support".into(), next_hint: None, completeness }
    }

    #[utoipa::path(get, path = "/tickets", responses((status = 200, body = TicketPage<ListTicketsReason>)))]
    #[allow(dead_code)]
    async fn tickets() {}

    #[utoipa::path(get, path = "/closed", responses((status = 200, body = TicketPage<ListClosedReason>)))]
    #[allow(dead_code)]
    async fn closed() {}

    #[utoipa::path(get, path = "/accounts/{id}", responses((status = 200, body = Account)))]
    #[allow(dead_code)]
    async fn account() {}

    #[derive(utoipa::OpenApi)]
    #[openapi(paths(tickets, closed, account))]
    struct Api;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    /// The document, and a validator of the component `path`'s 200 response refers to.
    fn validator(path: &str, rules: bool) -> (Value, jsonschema::Validator) {
        let mut document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
        let name = completeness::schema::response_component(&document, path, "get", "200", "application/json")
            .unwrap_or_else(|| panic!("{path} refers to a component: {document}"))
            .to_owned();
        if rules {
            assert!(completeness::schema::add_block_rules::<ListTicketsReason>(&mut document, &name), "{document}");
        }
        let schema = document["components"]["schemas"][&name].clone();
        let root = json!({"$ref": format!("#/components/schemas/{name}"), "components": document["components"]});
        let validator = jsonschema::draft202012::new(&root).unwrap_or_else(|e| panic!("{e}: {root}"));
        (schema, validator)
    }

    #[test]
    fn a_derived_envelopes_component_takes_what_it_writes_under_its_names_and_holds_the_block_rules() {
        let (schema, validator) = validator("/tickets", true);
        for more in [false, true] {
            let written = serde_json::to_value(block_on(list_tickets(more))).unwrap();
            assert!(validator.is_valid(&written), "refuses {written}: {:?}", validator.validate(&written).err());
        }
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for member in ["complete", "incomplete_reasons", "next_cursor", "page", "evidence", "ticketList", "queueName"] {
            assert!(required.contains(&member), "`{member}` is required: {required:?}");
        }
        assert!(!required.contains(&"nextHint"), "a member under skip_serializing_if may be left out");
        let mut lying = serde_json::to_value(block_on(list_tickets(true))).unwrap();
        lying["complete"] = json!(true);
        lying["status"] = json!("complete");
        assert!(!validator.is_valid(&lying), "a complete answer with a reason: {lying}");
        let mut undeclared = serde_json::to_value(block_on(list_tickets(true))).unwrap();
        undeclared["incomplete_reasons"][0] = json!({"code": "VISIBILITY_RESTRICTED", "message": "hidden"});
        assert!(!validator.is_valid(&undeclared), "a reason the endpoint does not declare: {undeclared}");
        let mut unnamed = serde_json::to_value(block_on(list_tickets(false))).unwrap();
        unnamed["ticketList"] = json!([{"id": "t-1"}]);
        assert!(!validator.is_valid(&unnamed), "an item without its own member: {unnamed}");
    }

    /// Two endpoints with the same reasons and other warnings send other blocks through one
    /// generic struct: two components, each taking its own endpoint's answers only.
    #[test]
    fn a_generic_derived_struct_has_a_component_per_block() {
        let document = serde_json::to_value(<Api as utoipa::OpenApi>::openapi()).unwrap();
        let component = |path: &str| {
            completeness::schema::response_component(&document, path, "get", "200", "application/json")
                .unwrap_or_else(|| panic!("{path} refers to a component"))
                .to_owned()
        };
        assert_ne!(component("/tickets"), component("/closed"), "one component per block");
        let closed = serde_json::to_value(block_on(list_closed())).unwrap();
        assert!(validator("/closed", false).1.is_valid(&closed), "{closed}");
        assert!(!validator("/tickets", false).1.is_valid(&closed), "/tickets declares no warning: {closed}");
    }

    #[test]
    fn a_derived_single_resources_component_takes_an_omitted_field_and_requires_what_its_json_schema_does() {
        let (schema, validator) = validator("/accounts/{id}", false);
        let partial = Account {
            id: "sa-1".into(),
            owner_email: Field::Omitted(Omission::NoAccess),
            warnings: vec![PartialFieldSet::new(&["owner_email"], &[]).into()],
        };
        let whole = Account { id: "sa-2".into(), owner_email: Field::Filled("a@example.com".into()), warnings: vec![] };
        for account in [partial, whole] {
            let written = serde_json::to_value(&account).unwrap();
            assert!(validator.is_valid(&written), "refuses {written}: {:?}", validator.validate(&written).err());
        }
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["id", "owner_email", "warnings", "omitted_fields"]);
        let json_schema = schemars::schema_for!(Account).to_value();
        assert_eq!(json_schema["required"], schema["required"], "both schemas require the same members");
        let missing = json!({"id": "sa-3", "warnings": [], "omitted_fields": {}});
        assert!(!validator.is_valid(&missing), "a declared field left out: {missing}");
        let listed = json!({"id": "sa-3", "owner_email": null, "warnings": [], "omitted_fields": {"id": "NO_ACCESS"}});
        assert!(!validator.is_valid(&listed), "a member that is no declared field listed: {listed}");
    }
}

/// `#[envelope(deserialize)]`: a single resource reads back what it wrote, each `Field` as it
/// was (filled, a genuine `null`, or left out for its reason), under serde's renames.
mod read_back {
    use completeness::warning::PartialFieldSet;
    use completeness::{Field, Omission, ResultEnvelope, Warning};
    use serde_json::json;

    #[derive(Debug, Clone, PartialEq, ResultEnvelope)]
    #[envelope(deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Profile {
        user_id: String,
        #[serde(rename = "mail")]
        email: Field<String>,
        last_login: Field<u64>,
        #[serde(default)]
        nickname: Option<String>,
        warnings: Vec<Warning>,
    }

    /// A generic one: the value of a `Field` may be a type parameter.
    #[derive(Debug, PartialEq, ResultEnvelope)]
    #[envelope(deserialize)]
    struct Labelled<T> {
        #[envelope(bounded = "one label, never a list")]
        label: T,
        #[envelope(bounded = "a note on the label, never a list")]
        note: Field<T>,
    }

    /// A type parameter only a `Field` holds.
    #[derive(Debug, PartialEq, ResultEnvelope)]
    #[envelope(deserialize)]
    struct Noted<T> {
        id: String,
        #[envelope(bounded = "a note, never a list")]
        note: Field<T>,
    }

    fn profile(email: Field<String>, last_login: Field<u64>) -> Profile {
        let left_out: Vec<&str> = [("mail", email.omission()), ("lastLogin", last_login.omission())]
            .into_iter()
            .filter_map(|(name, why)| why.map(|_| name))
            .collect();
        let warnings = if left_out.is_empty() { vec![] } else { vec![PartialFieldSet::new(&left_out, &[]).into()] };
        Profile { user_id: "u-1".into(), email, last_login, nickname: None, warnings }
    }

    #[test]
    fn each_field_reads_back_filled_null_or_left_out_for_its_reason() {
        let cases = [
            profile(Field::Filled("a@example.com".into()), Field::Filled(1_700_000_000)),
            profile(Field::Null, Field::Null),
            profile(Field::Omitted(Omission::NoAccess), Field::Omitted(Omission::SourceFailed)),
            profile(Field::Filled("b@example.com".into()), Field::Omitted(Omission::Unknown("ARCHIVED".into()))),
        ];
        for written in cases {
            let wire = serde_json::to_value(&written).unwrap();
            let read: Profile = serde_json::from_value(wire.clone()).unwrap_or_else(|e| panic!("{e}: {wire}"));
            assert_eq!(read, written, "read back from {wire}");
        }
    }

    #[test]
    fn a_null_listed_in_omitted_fields_is_left_out_and_a_listed_value_is_not_believed() {
        let left_out = json!({"userId": "u-2", "mail": null, "lastLogin": null, "nickname": null, "warnings": [],
                              "omitted_fields": {"lastLogin": "SOURCE_FAILED"}});
        let read: Profile = serde_json::from_value(left_out).unwrap();
        assert_eq!(read.last_login, Field::Omitted(Omission::SourceFailed), "never read as 'never logged in'");
        assert_eq!(read.email, Field::Null, "a null that is not listed is a genuine null");
        // Contract §2.7: a listed field is null; one sent with a value is read as the listing says.
        let contradicts = json!({"userId": "u-2", "mail": "a@example.com", "lastLogin": 5, "warnings": [],
                                 "omitted_fields": {"mail": "NO_ACCESS"}});
        let read: Profile = serde_json::from_value(contradicts).unwrap();
        assert_eq!(read.email, Field::Omitted(Omission::NoAccess));
        assert_eq!(read.last_login, Field::Filled(5));
    }

    #[test]
    fn a_resource_without_omitted_fields_or_with_unknown_members_is_refused_as_its_serde_attributes_say() {
        // Without the list, a `null` cannot be told from a field left out: refused, not guessed.
        let unlisted = json!({"userId": "u-3", "mail": null, "lastLogin": null, "warnings": []});
        let error = serde_json::from_value::<Profile>(unlisted).unwrap_err().to_string();
        assert!(error.contains("missing field `omitted_fields`"), "{error}");
        // The struct's own `deny_unknown_fields` holds, as under a `Deserialize` derive.
        let unknown = json!({"userId": "u-3", "mail": null, "lastLogin": null, "warnings": [],
                             "omitted_fields": {}, "role": "admin"});
        let error = serde_json::from_value::<Profile>(unknown).unwrap_err().to_string();
        assert!(error.contains("unknown field `role`"), "{error}");
        // Data members keep their serde names: the snake_case name is not read.
        let snake = json!({"user_id": "u-3", "mail": null, "lastLogin": null, "warnings": [], "omitted_fields": {}});
        let error = serde_json::from_value::<Profile>(snake).unwrap_err().to_string();
        assert!(error.contains("unknown field `user_id`"), "{error}");
    }

    /// A declared field is always written (contract §2.7): one that is not there is refused, never
    /// read as a genuine `null`; and a refusal names the struct.
    #[test]
    fn a_missing_field_is_refused_not_read_as_a_genuine_null() {
        let missing = json!({"userId": "u-4", "mail": null, "warnings": [], "omitted_fields": {}});
        let error = serde_json::from_value::<Profile>(missing).unwrap_err().to_string();
        assert!(error.contains("missing field `lastLogin`"), "{error}");
        let error = serde_json::from_value::<Profile>(json!(42)).unwrap_err().to_string();
        assert!(error.contains("struct Profile"), "{error}");
    }

    #[test]
    fn a_generic_resource_reads_back_its_field() {
        let written = Labelled { label: 7_u32, note: Field::Omitted(Omission::NotRequested) };
        let wire = serde_json::to_value(&written).unwrap();
        assert_eq!(wire, json!({"label": 7, "note": null, "omitted_fields": {"note": "NOT_REQUESTED"}}));
        assert_eq!(serde_json::from_value::<Labelled<u32>>(wire).unwrap(), written);
        let noted = Noted { id: "n-1".into(), note: Field::Filled(3_u8) };
        let wire = serde_json::to_value(&noted).unwrap();
        assert_eq!(serde_json::from_value::<Noted<u8>>(wire).unwrap(), noted);
    }
}
