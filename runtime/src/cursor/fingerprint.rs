//! What a cursor is bound to: resource, filters and ordering, fingerprinted canonically.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::scope::Scope;

/// The query a traversal belongs to: resource, applied filters and total ordering.
///
/// Its fingerprint is SHA-256 over a canonical form (keys sorted at every depth, compact
/// JSON), so the order in which filters were added does not matter but every value does.
/// A cursor issued for one binding is refused with `CURSOR_QUERY_MISMATCH` under another.
/// The page size is deliberately not part of it: it may change between pages.
///
/// ```
/// use completeness_runtime::cursor::QueryBinding;
///
/// let a = QueryBinding::new("service_accounts", "id ascending").with_filter("owner", "none").with_filter("tenant", "north");
/// let b = QueryBinding::new("service_accounts", "id ascending").with_filter("tenant", "north").with_filter("owner", "none");
/// assert_eq!(a.fingerprint(), b.fingerprint());
/// let c = b.clone().with_filter("tenant", "south");
/// assert_ne!(a.fingerprint(), c.fingerprint());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QueryBinding {
    resource: String,
    ordering: String,
    filters: Map<String, Value>,
}

impl QueryBinding {
    /// A binding for `resource` read in `ordering` (e.g. `"id ascending"`), without filters.
    pub fn new(resource: impl Into<String>, ordering: impl Into<String>) -> QueryBinding {
        QueryBinding { resource: resource.into(), ordering: ordering.into(), filters: Map::new() }
    }

    /// The binding of a response scope: its resource and echoed filters, in `ordering`.
    ///
    /// Use this so the filters that bind the cursor are exactly the ones the response echoes.
    pub fn for_scope(scope: &Scope, ordering: impl Into<String>) -> QueryBinding {
        QueryBinding { resource: scope.resource.clone(), ordering: ordering.into(), filters: scope.filters.clone() }
    }

    /// Adds one applied filter (a `null` value is a filter too: "owner is none").
    pub fn with_filter(mut self, name: &str, value: impl Into<Value>) -> QueryBinding {
        self.filters.insert(name.to_owned(), value.into());
        self
    }

    /// The resource.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The ordering, echoed in `page.ordering`.
    pub fn ordering(&self) -> &str {
        &self.ordering
    }

    /// The filters.
    pub fn filters(&self) -> &Map<String, Value> {
        &self.filters
    }

    /// SHA-256 of the canonical form.
    pub fn fingerprint(&self) -> [u8; 32] {
        let mut text = String::with_capacity(64);
        text.push_str("completeness/query/v1\n");
        write_canonical(&Value::String(self.resource.clone()), &mut text);
        text.push('\n');
        write_canonical(&Value::String(self.ordering.clone()), &mut text);
        text.push('\n');
        write_canonical_map(&self.filters, &mut text);
        Sha256::digest(text.as_bytes()).into()
    }
}

/// The canonical JSON text of a filter map: keys sorted at every depth, no whitespace.
pub fn canonical_filters(filters: &Map<String, Value>) -> String {
    let mut text = String::new();
    write_canonical_map(filters, &mut text);
    text
}

/// SHA-256 of [`canonical_filters`].
pub fn filters_fingerprint(filters: &Map<String, Value>) -> [u8; 32] {
    Sha256::digest(canonical_filters(filters).as_bytes()).into()
}

fn write_canonical_map(map: &Map<String, Value>, out: &mut String) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    out.push('{');
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_canonical(&Value::String(key.clone()), out);
        out.push(':');
        write_canonical(&map[key], out);
    }
    out.push('}');
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => write_canonical_map(map, out),
        Value::Array(values) => {
            out.push('[');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        // Scalars: serde_json's compact form is already canonical for one value.
        scalar => out.push_str(&serde_json::to_string(scalar).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_sorts_keys_at_every_depth() {
        let a = json!({"b": {"y": 1, "x": [2, {"d": null, "c": "é"}]}, "a": true});
        let Value::Object(a) = a else { unreachable!() };
        assert_eq!(canonical_filters(&a), r#"{"a":true,"b":{"x":[2,{"c":"é","d":null}],"y":1}}"#);
    }

    #[test]
    fn resource_ordering_and_filter_values_all_change_the_fingerprint() {
        let base = QueryBinding::new("r", "id ascending").with_filter("owner", Value::Null);
        let prints = [
            base.fingerprint(),
            QueryBinding::new("r2", "id ascending").with_filter("owner", Value::Null).fingerprint(),
            QueryBinding::new("r", "id descending").with_filter("owner", Value::Null).fingerprint(),
            QueryBinding::new("r", "id ascending").with_filter("owner", "none").fingerprint(),
            QueryBinding::new("r", "id ascending").fingerprint(),
        ];
        for i in 0..prints.len() {
            for j in i + 1..prints.len() {
                assert_ne!(prints[i], prints[j], "bindings {i} and {j} must differ");
            }
        }
    }
}
