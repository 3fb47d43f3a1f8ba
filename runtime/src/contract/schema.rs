//! Schemas of reason objects, for the OpenAPI document (`openapi`) and JSON Schema
//! (`json-schema`) of an endpoint's reason type.

use crate::contract::reason::{ReasonCode, ReasonKind};

/// The OpenAPI schema of a reason object restricted to `codes`.
#[cfg(feature = "openapi")]
pub fn reason_schema_openapi(
    codes: &[ReasonCode],
    kinds: &[ReasonKind],
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let code = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(codes.iter().map(|c| c.as_str().to_owned())))
        .description(Some("Stable reason code; programs branch on it."));
    let message = ObjectBuilder::new().schema_type(Type::String).description(Some("Human text; may change."));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some("Why the response is incomplete: one of the codes this endpoint declares, with its details."))
        .property("code", code)
        .required("code")
        .property("message", message)
        .required("message")
        .property("kind", kind_openapi(kinds))
        .additional_properties(Some(ObjectBuilder::new()))
        .build()
        .into()
}

/// The kinds a declared set's reasons have, for the `kind` member a service's own reasons carry.
fn kind_names(kinds: &[ReasonKind]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = kinds.iter().map(|kind| kind.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(feature = "openapi")]
fn kind_openapi(kinds: &[ReasonKind]) -> utoipa::openapi::schema::ObjectBuilder {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(kind_names(kinds)))
        .description(Some("The reason's kind: sent with every reason outside the standard table (contract §3.3)."))
}

/// The JSON Schema of a reason object restricted to `codes`.
#[cfg(feature = "json-schema")]
pub fn reason_schema_json(codes: &[ReasonCode], kinds: &[ReasonKind]) -> schemars::Schema {
    let codes: Vec<&str> = codes.iter().map(ReasonCode::as_str).collect();
    schemars::json_schema!({
        "type": "object",
        "description": "Why the response is incomplete: one of the codes this endpoint declares, with its details.",
        "properties": {
            "code": { "type": "string", "enum": codes },
            "message": { "type": "string" },
            "kind": { "type": "string", "enum": kind_names(kinds) }
        },
        "required": ["code", "message"]
    })
}
