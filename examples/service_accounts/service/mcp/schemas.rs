//! The tools' JSON Schemas: each input schema from its arguments' type, each output schema from
//! the OpenAPI document, and only the formats JSON Schema defines.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde_json::{Value, json};

use super::super::account;
use super::super::seed::TENANTS;

/// The formats JSON Schema (draft 2020-12, the dialect of MCP's tool schemas) defines.
const JSON_SCHEMA_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops from `schema` (its members and subschemas, `$defs` included) every `format` that
/// JSON Schema does not define ([`JSON_SCHEMA_FORMATS`]): the OpenAPI document's and schemars'
/// `uint64`, `int64`, `uint32`, `double`, which name a number's width. Their meaning is in
/// `minimum` and `maximum` already, and a JSON Schema validator does not know them: Ajv (the
/// TypeScript SDK's) warns about each, and refuses to compile a schema with one in strict mode.
/// The OpenAPI document keeps them, as OpenAPI's format registry defines them. Only keywords
/// whose values are schemas are entered, so a property named `format` stays. A width's bound
/// the schema does not state yet (`uint64`'s largest value, say) is written as `minimum` or
/// `maximum` where the format goes, so that no bound is lost with it.
pub(super) fn json_schema_formats_only(schema: &mut JsonObject) {
    if let Some(format) = schema.get("format").and_then(Value::as_str).map(str::to_owned)
        && !JSON_SCHEMA_FORMATS.contains(&format.as_str())
    {
        schema.remove("format");
        let (least, most): (Option<Value>, Option<Value>) = match format.as_str() {
            "uint64" => (Some(0.into()), Some(u64::MAX.into())),
            "uint32" => (Some(0.into()), Some(u32::MAX.into())),
            "int64" => (Some(i64::MIN.into()), Some(i64::MAX.into())),
            "int32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
            _ => (None, None),
        };
        for (keyword, exclusive, bound) in
            [("minimum", "exclusiveMinimum", least), ("maximum", "exclusiveMaximum", most)]
        {
            if let Some(bound) = bound
                && !schema.contains_key(keyword)
                && !schema.contains_key(exclusive)
            {
                schema.insert(keyword.to_owned(), bound);
            }
        }
    }
    let subschema = |value: &mut Value| {
        if let Value::Object(schema) = value {
            json_schema_formats_only(schema);
        }
    };
    for (keyword, value) in schema.iter_mut() {
        match (keyword.as_str(), value) {
            ("properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas", Value::Object(map)) => {
                map.values_mut().for_each(subschema);
            }
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(schemas)) => {
                schemas.iter_mut().for_each(subschema);
            }
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "contentSchema",
                value,
            ) => subschema(value),
            _ => {}
        }
    }
}

/// The JSON Schema of a tool's arguments (draft 2020-12), with the tenants and requestable
/// fields as the REST routes check them.
pub(super) fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        if let Some(tenant) = properties.get_mut("tenant") {
            let mut tenants: Vec<Value> = TENANTS.iter().map(|t| Value::from(*t)).collect();
            tenants.push(Value::Null);
            tenant["enum"] = Value::Array(tenants);
        }
        // Any field, each as often as wanted: the REST route's `fields=id,id` fills `id` once.
        if let Some(fields) = properties.get_mut("fields") {
            fields["items"] = json!({"type": "string", "enum": account::FIELDS});
        }
    }
    match schema.to_value() {
        Value::Object(object) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The schema of OpenAPI component `component` as a standalone JSON Schema: `$defs` holds the
/// components it reaches, and only those. An agent reads every byte of `tools/list`, and the
/// whole document's components in each of five tools would be most of it.
pub(super) fn output_schema(document: &Value, component: &str) -> Arc<JsonObject> {
    let components = &document["components"]["schemas"];
    let mut root = components.get(component).cloned().unwrap_or_else(|| Value::Object(JsonObject::new()));
    let mut pending = Vec::new();
    relocate_refs(&mut root, &mut pending);
    let mut defs = JsonObject::new();
    while let Some(name) = pending.pop() {
        if let (false, Some(schema)) = (defs.contains_key(&name), components.get(&name)) {
            let mut schema = schema.clone();
            relocate_refs(&mut schema, &mut pending);
            defs.insert(name, schema);
        }
    }
    let mut root = match root {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    };
    root.insert("$schema".to_owned(), json!("https://json-schema.org/draft/2020-12/schema"));
    root.insert("type".to_owned(), json!("object"));
    if !defs.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
    Arc::new(root)
}

/// Rewrites `#/components/schemas/X` references to `#/$defs/X`, pushing each `X` on `reached`.
fn relocate_refs(value: &mut Value, reached: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, member) in object.iter_mut() {
                match member {
                    Value::String(target) if key == "$ref" => {
                        if let Some(name) = target.strip_prefix("#/components/schemas/") {
                            reached.push(name.to_owned());
                            *target = format!("#/$defs/{name}");
                        }
                    }
                    other => relocate_refs(other, reached),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| relocate_refs(item, reached)),
        _ => {}
    }
}
