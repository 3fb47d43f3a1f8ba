//! Schemas of reason objects, for the OpenAPI document (`openapi`) and JSON Schema
//! (`json-schema`) of an endpoint's reason type.
//!
//! A reason type's schema is one branch per declared code (`oneOf`), so that a generated client
//! reads each code with its own detail members: a standard code's from [`details`] (contract
//! §3.2), which both renderers read; a service's own code with its `kind` required (§3.3) and
//! its details open. Detail objects may gain members (§7), so a branch is open to more, except
//! `VISIBILITY_RESTRICTED`, which never carries a detail (R12).

use crate::contract::reason::{ReasonCode, ReasonKind};

/// The value a detail member holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A non-negative integer.
    Count,
    /// A string.
    Text,
    /// A [`Progress`](crate::contract::reason::Progress) object.
    Progress,
    /// A [`LimitKind`](crate::contract::reason::LimitKind) string.
    LimitKind,
}

/// One detail member of a standard reason.
#[derive(Debug, Clone, Copy)]
struct Detail {
    name: &'static str,
    shape: Shape,
    about: &'static str,
}

/// The detail members a standard code's object carries, every one of them always (contract
/// §3.2); none for a service's own code, whose details the schema leaves open. A test holds
/// each standard details type to its line here.
fn details(code: &ReasonCode) -> &'static [Detail] {
    match code {
        ReasonCode::ResultLimitReached => {
            &[Detail { name: "limit", shape: Shape::Count, about: "The result cap that was hit." }]
        }
        ReasonCode::TimeBudgetExceeded => &[
            Detail { name: "budget_ms", shape: Shape::Count, about: "The budget that was applied, in milliseconds." },
            Detail { name: "progress", shape: Shape::Progress, about: "How far the work got." },
        ],
        ReasonCode::SourceUnavailable => {
            &[Detail { name: "source", shape: Shape::Text, about: "The source that did not answer." }]
        }
        ReasonCode::QuotaExhausted => &[Detail {
            name: "retry_after_seconds",
            shape: Shape::Count,
            about: "Seconds until the quota allows another request.",
        }],
        ReasonCode::ClientLimitReached => &[
            Detail {
                name: "limit_kind",
                shape: Shape::LimitKind,
                about: "Which client-side limit stopped the collector.",
            },
            Detail { name: "limit", shape: Shape::Count, about: "The limit's value: pages, items, or milliseconds." },
        ],
        ReasonCode::SnapshotExpired => {
            &[Detail { name: "snapshot", shape: Shape::Text, about: "The snapshot that is gone." }]
        }
        _ => &[],
    }
}

/// True for the code whose object carries nothing but `code` and `message` (R12).
fn closed(code: &ReasonCode) -> bool {
    *code == ReasonCode::VisibilityRestricted
}

/// What a branch says about its code.
fn about(code: &ReasonCode, kind: ReasonKind) -> String {
    match code {
        ReasonCode::Custom(_) => format!("`{code}`: a reason of this service, of kind `{}`.", kind.as_str()),
        _ => format!("`{code}` (kind `{}`, contract §3.2).", kind.as_str()),
    }
}

const OBJECT: &str = "Why the response is incomplete: one of the codes this endpoint declares, with its details.";
const MESSAGE: &str = "Human text; may change.";
const NONE: &str = "None: this endpoint declares no reasons, so it is always complete.";
const KIND: &str = "The reason's kind (contract §3.4): sent with every reason outside the standard table.";

/// The OpenAPI schema of a reason object restricted to `codes`, of kinds `kinds` (in the same order).
#[cfg(feature = "openapi")]
pub fn reason_schema_openapi(
    codes: &[ReasonCode],
    kinds: &[ReasonKind],
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::PartialSchema;
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};

    let string = || ObjectBuilder::new().schema_type(Type::String);
    let branch = |code: &ReasonCode, kind: ReasonKind| {
        let custom = matches!(code, ReasonCode::Custom(_));
        let mut object = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(about(code, kind)))
            .property("code", string().enum_values(Some([code.as_str()])))
            .required("code")
            .property("message", string().description(Some(MESSAGE)))
            .required("message")
            .property("kind", string().enum_values(Some([kind.as_str()])).description(Some(KIND)));
        if custom {
            object = object.required("kind");
        }
        for detail in details(code) {
            let schema = match detail.shape {
                Shape::Count => ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(0))
                    .description(Some(detail.about))
                    .into(),
                Shape::Text => string().description(Some(detail.about)).into(),
                Shape::Progress => crate::contract::reason::Progress::schema(),
                Shape::LimitKind => crate::contract::reason::LimitKind::schema(),
            };
            object = object.property(detail.name, schema).required(detail.name);
        }
        if closed(code) {
            object = object.additional_properties(Some(AdditionalProperties::FreeForm(false)));
        }
        object.build()
    };
    match (codes, kinds) {
        ([], _) => return string().enum_values(Some(Vec::<String>::new())).description(Some(NONE)).into(),
        ([code], [kind]) => return branch(code, *kind).into(),
        _ => {}
    }
    let mut one_of = OneOfBuilder::new().description(Some(OBJECT));
    for (code, kind) in codes.iter().zip(kinds) {
        one_of = one_of.item(branch(code, *kind));
    }
    utoipa::openapi::schema::Schema::OneOf(one_of.build()).into()
}

/// The JSON Schema of a reason object restricted to `codes`, of kinds `kinds` (in the same order).
#[cfg(feature = "json-schema")]
pub fn reason_schema_json(
    codes: &[ReasonCode],
    kinds: &[ReasonKind],
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    use serde_json::{Map, Value, json};

    let mut branch = |code: &ReasonCode, kind: ReasonKind| {
        let custom = matches!(code, ReasonCode::Custom(_));
        let mut properties = Map::new();
        properties.insert("code".into(), json!({"type": "string", "const": code.as_str()}));
        properties.insert("message".into(), json!({"type": "string", "description": MESSAGE}));
        properties.insert("kind".into(), json!({"type": "string", "const": kind.as_str(), "description": KIND}));
        let mut required = vec!["code", "message"];
        if custom {
            required.push("kind");
        }
        for detail in details(code) {
            let schema = match detail.shape {
                Shape::Count => json!({"type": "integer", "minimum": 0, "description": detail.about}),
                Shape::Text => json!({"type": "string", "description": detail.about}),
                Shape::Progress => generator.subschema_for::<crate::contract::reason::Progress>().to_value(),
                Shape::LimitKind => generator.subschema_for::<crate::contract::reason::LimitKind>().to_value(),
            };
            properties.insert(detail.name.into(), schema);
            required.push(detail.name);
        }
        let mut object = json!({
            "type": "object",
            "description": about(code, kind),
            "properties": properties,
            "required": required,
        });
        if closed(code) {
            object["additionalProperties"] = Value::Bool(false);
        }
        object
    };
    if codes.is_empty() {
        return schemars::json_schema!({ "description": NONE, "not": {} });
    }
    let branches: Vec<Value> = codes.iter().zip(kinds).map(|(code, kind)| branch(code, *kind)).collect();
    match <[Value; 1]>::try_from(branches) {
        Ok([only]) => schemars::Schema::try_from(only).unwrap_or_default(),
        Err(branches) => schemars::json_schema!({ "description": OBJECT, "oneOf": branches }),
    }
}
