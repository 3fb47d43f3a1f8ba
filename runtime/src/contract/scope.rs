//! What a response claims to cover (contract §2.1 `scope`) and how it was paged (`page`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The scope a response covers: resource, visibility, snapshot and applied filters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Scope {
    /// The resource, e.g. `"service_accounts"`.
    pub resource: String,
    /// What the credential can see, in words: "service accounts readable by credential 'north'".
    pub visibility: String,
    /// The snapshot the answer was read at, when the resource has snapshots.
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "crate::contract::scope::nullable::<String>"))]
    pub snapshot: Option<String>,
    /// The filters that were applied, echoed.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub filters: Map<String, Value>,
}

impl Scope {
    /// A scope over `resource` as seen by a credential described by `visibility`.
    pub fn new(resource: impl Into<String>, visibility: impl Into<String>) -> Self {
        Scope { resource: resource.into(), visibility: visibility.into(), snapshot: None, filters: Map::new() }
    }

    /// Sets the snapshot.
    pub fn with_snapshot(mut self, snapshot: impl Into<String>) -> Self {
        self.snapshot = Some(snapshot.into());
        self
    }

    /// Echoes one applied filter.
    pub fn with_filter(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.filters.insert(name.to_owned(), value.into());
        self
    }

    /// How this scope differs from the query a client asked: over `resource`, with exactly
    /// `filters` (as the server echoes them, defaults it applies included); `None` when it is
    /// that query's scope. `complete: true` speaks of the scope the answer names (contract §8):
    /// over another resource, without a filter that was asked (a wider set), or with one that
    /// was not (a narrower one), a complete answer is not a complete answer to the question.
    ///
    /// ```
    /// use completeness_runtime::Scope;
    /// use serde_json::json;
    ///
    /// let scope = Scope::new("service_accounts", "every tenant").with_filter("owner", "none");
    /// assert_eq!(scope.differs_from("service_accounts", &[("owner", json!("none"))]), None);
    /// let wider = scope.differs_from("service_accounts", &[("owner", json!("none")), ("tenant", json!("north"))]);
    /// assert_eq!(wider.as_deref(), Some("the filter `tenant` was asked as \"north\" but not applied"));
    /// ```
    pub fn differs_from(&self, resource: &str, filters: &[(&str, Value)]) -> Option<String> {
        let mut differences = Vec::new();
        if self.resource != resource {
            differences.push(format!("the resource is `{}`, not `{resource}`", self.resource));
        }
        for (name, asked) in filters {
            match self.filters.get(*name) {
                None => differences.push(format!("the filter `{name}` was asked as {asked} but not applied")),
                Some(applied) if applied != asked => {
                    differences.push(format!("the filter `{name}` was asked as {asked} but applied as {applied}"))
                }
                Some(_) => {}
            }
        }
        for (name, applied) in &self.filters {
            if !filters.iter().any(|(asked, _)| asked == name) {
                differences.push(format!("the filter `{name}` = {applied} was applied but not asked"));
            }
        }
        (!differences.is_empty()).then(|| differences.join("; "))
    }
}

impl PageInfo {
    /// The facts of a page of `returned` items, read at `applied_size` of the
    /// `requested_size` asked for (`None`: none was), in `ordering`; without a snapshot, a
    /// cursor, or `resumed` (add them with the `with_` methods). A server builds these with
    /// [`Page`](crate::Page); this is for a collector, a test or a hand-built answer.
    pub fn new(returned: u64, requested_size: Option<u64>, applied_size: u64, ordering: impl Into<String>) -> Self {
        PageInfo {
            returned,
            requested_size,
            applied_size,
            ordering: ordering.into(),
            snapshot: None,
            cursor: None,
            resumed: None,
        }
    }

    /// These facts read at `snapshot`.
    pub fn with_snapshot(mut self, snapshot: impl Into<String>) -> Self {
        self.snapshot = Some(snapshot.into());
        self
    }

    /// These facts with `cursor` as the contract of `next_cursor`.
    pub fn with_cursor(mut self, cursor: CursorContract) -> Self {
        self.cursor = Some(cursor);
        self
    }

    /// These facts of a page reached with a cursor (`true`) or of a first page (`false`).
    pub fn with_resumed(mut self, resumed: bool) -> Self {
        self.resumed = Some(resumed);
        self
    }
}

impl CursorContract {
    /// A cursor that freezes the snapshot or not, refused after `expires_at` (RFC 3339), and
    /// bound to `invalidated_by`.
    pub fn new(freezes_snapshot: bool, expires_at: impl Into<String>, invalidated_by: Vec<CursorBinding>) -> Self {
        CursorContract { freezes_snapshot, expires_at: expires_at.into(), invalidated_by }
    }
}

/// Pagination facts of one page (contract §2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(transform = resumed_is_required))]
#[non_exhaustive]
pub struct PageInfo {
    /// Items on this page.
    #[cfg_attr(feature = "openapi", schema(format = "uint64"))]
    pub returned: u64,
    /// The page size the request asked for, echoed; null (`None`) when it named none.
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(required = true, format = "uint64"))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "crate::contract::scope::nullable::<u64>"))]
    pub requested_size: Option<u64>,
    /// The page size actually used (at least 1).
    #[cfg_attr(feature = "openapi", schema(minimum = 1, format = "uint64"))]
    #[cfg_attr(feature = "json-schema", schemars(range(min = 1)))]
    pub applied_size: u64,
    /// The total ordering, e.g. `"id ascending"`.
    pub ordering: String,
    /// The snapshot of the traversal.
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "crate::contract::scope::nullable::<String>"))]
    pub snapshot: Option<String>,
    /// The contract of `next_cursor`, when there is one.
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    #[cfg_attr(feature = "json-schema", schemars(schema_with = "crate::contract::scope::nullable::<CursorContract>"))]
    pub cursor: Option<CursorContract>,
    /// True on a page reached with a cursor, false on a first page. A resumed page's items
    /// cover the scope only together with the pages before it, whose reasons still count, so
    /// even a complete one is no evidence of absence by itself (contract §2.5, §8). A cursor
    /// answered with `false` got a first page again: the traversal started over, and the pages
    /// read before it are not to be merged with this one. A server
    /// always sends it; a server older than the member did not, and its pages cannot be told
    /// apart (read from one, it is absent).
    #[serde(default, deserialize_with = "boolean", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = bool, required = true))]
    #[cfg_attr(feature = "json-schema", schemars(with = "bool"))]
    pub resumed: Option<bool>,
}

/// What a cursor promises: snapshot freezing, expiry, and what invalidates it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct CursorContract {
    /// True when every page of the traversal is read at the first page's snapshot.
    pub freezes_snapshot: bool,
    /// RFC 3339 time after which the cursor is refused with `CURSOR_EXPIRED`: the latest it
    /// lives, not a promise that it lives that long. A cursor that freezes a snapshot is also
    /// refused, sooner, once the server no longer retains that snapshot (contract §2.5).
    #[serde(deserialize_with = "rfc3339")]
    #[cfg_attr(feature = "openapi", schema(format = DateTime))]
    #[cfg_attr(feature = "json-schema", schemars(extend("format" = "date-time")))]
    pub expires_at: String,
    /// What makes the cursor invalid when changed.
    pub invalidated_by: Vec<CursorBinding>,
}

/// Something a cursor is bound to. A server may bind its cursors to more in a later version
/// (contract §7): a reader keeps a binding it does not know as [`CursorBinding::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum CursorBinding {
    /// The query's filters.
    Filters,
    /// The ordering.
    Ordering,
    /// The credential and its permission epoch.
    Credential,
    /// A binding this version does not know (a newer server's), kept as it came, so that a
    /// reader that passes the block on (a gateway, the fault layer) loses nothing.
    #[serde(untagged)]
    Other(String),
}

/// The OpenAPI schema of a binding: one of this version's, or another string (utoipa's derive
/// reads no untagged variant; schemars's, which does, writes the same).
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CursorBinding {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Type};
        let known =
            ObjectBuilder::new().schema_type(Type::String).enum_values(Some(["filters", "ordering", "credential"]));
        let later = ObjectBuilder::new().schema_type(Type::String).description(Some("a binding of a later version"));
        AnyOfBuilder::new().item(known).item(later).description(Some("Something a cursor is bound to.")).into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CursorBinding {
    fn name() -> std::borrow::Cow<'static, str> {
        "CursorBinding".into()
    }
}

/// A member the contract always writes, `null` or a value (§2.1, §2.5): serde would read a
/// missing `Option` member as `null`, and a page without it as one that said it.
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    Option::deserialize(deserializer)
}

/// The JSON Schema of a member the contract always writes, `null` or a value (as [`present`]
/// reads it): required, and `null` allowed. (schemars's `required` on an `Option` would drop
/// the `null`, refusing every honest `null`.)
#[cfg(feature = "json-schema")]
pub(crate) fn nullable<T: schemars::JsonSchema>(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    generator.subschema_for::<Option<T>>()
}

/// A member a server always writes as a boolean and an older one leaves out (`page.resumed`):
/// absent is `None` (by `#[serde(default)]`), `null` is no boolean, and refused.
fn boolean<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    bool::deserialize(deserializer).map(Some)
}

/// The JSON Schema of [`PageInfo`] requires `resumed`, as a server writes it: schemars leaves a
/// member that is skipped when `None` out of `required`.
#[cfg(feature = "json-schema")]
fn resumed_is_required(schema: &mut schemars::Schema) {
    let required = schema.ensure_object().entry("required").or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let Some(required) = required.as_array_mut()
        && !required.iter().any(|name| name == "resumed")
    {
        required.push("resumed".into());
    }
}

/// An RFC 3339 time, as `expires_at` is (§2.5).
fn rfc3339<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    match text.parse::<jiff::Timestamp>() {
        Ok(_) => Ok(text),
        Err(_) => Err(serde::de::Error::custom(format!("`expires_at` is `{text}`, not an RFC 3339 time"))),
    }
}
