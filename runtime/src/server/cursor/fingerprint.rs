//! What a cursor is bound to: resource, filters and ordering, fingerprinted canonically.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::contract::scope::Scope;

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

    /// Binds a query that names no resource to the route it is served at instead.
    pub(crate) fn bind_route(&mut self, route: &str) {
        self.resource = format!("route {route}");
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
        let mut text = Vec::with_capacity(64);
        text.extend_from_slice(b"completeness/query/v1\n");
        write_json(&self.resource, &mut text);
        text.push(b'\n');
        write_json(&self.ordering, &mut text);
        text.push(b'\n');
        write_canonical_map(&self.filters, &mut text);
        Sha256::digest(&text).into()
    }
}

/// The canonical JSON text of a filter map: keys sorted at every depth, no whitespace.
pub fn canonical_filters(filters: &Map<String, Value>) -> String {
    // Only serde_json's output and ASCII punctuation were written: always UTF-8.
    String::from_utf8(canonical_bytes(filters)).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// SHA-256 of [`canonical_filters`].
pub fn filters_fingerprint(filters: &Map<String, Value>) -> [u8; 32] {
    Sha256::digest(canonical_bytes(filters)).into()
}

/// The bytes of [`canonical_filters`].
fn canonical_bytes(filters: &Map<String, Value>) -> Vec<u8> {
    let mut text = Vec::new();
    write_canonical_map(filters, &mut text);
    text
}

fn write_canonical_map(map: &Map<String, Value>, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    out.push(b'{');
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_json(key, out);
        out.push(b':');
        write_canonical(&map[key], out);
    }
    out.push(b'}');
}

fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => write_canonical_map(map, out),
        Value::Array(values) => {
            out.push(b'[');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(v, out);
            }
            out.push(b']');
        }
        // Scalars: serde_json's compact form is already canonical for one value.
        scalar => write_json(scalar, out),
    }
}

/// Appends serde_json's compact form of `value`.
fn write_json<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) {
    // Writing into memory cannot fail, and scalars and strings always serialize.
    serde_json::to_writer(out, value).unwrap_or_default();
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
    fn the_fingerprint_is_sha256_of_the_documented_canonical_text() {
        let binding = QueryBinding::new("r\"x", "id ascending").with_filter("owner", Value::Null).with_filter("a", "é");
        let text = "completeness/query/v1\n\"r\\\"x\"\n\"id ascending\"\n{\"a\":\"é\",\"owner\":null}";
        assert_eq!(binding.fingerprint(), <[u8; 32]>::from(Sha256::digest(text.as_bytes())));
        assert_eq!(
            filters_fingerprint(binding.filters()),
            <[u8; 32]>::from(Sha256::digest(r#"{"a":"é","owner":null}"#.as_bytes()))
        );
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
