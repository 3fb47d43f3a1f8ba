//! The ready-made collection envelope `{status, complete, truncated, items, ...}`.

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::contract::completeness::{Completeness, Shape};
use crate::contract::reason::{Reason, StandardReason};
use crate::contract::rules::{self, Rule, Violation};
use crate::contract::scope::Scope;

/// A list or search response: the items and their completeness block.
///
/// ```
/// use completeness_runtime::{Envelope, Scope, StandardReason};
/// use completeness_runtime::reason::VisibilityRestricted;
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let page: Envelope<String> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
/// let json = serde_json::to_value(&page).unwrap();
/// assert_eq!(json["complete"], false);
/// assert_eq!(json["items"], serde_json::json!([]));
/// assert_eq!(json["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope<T, R = StandardReason> {
    /// The data.
    pub items: Vec<T>,
    /// Whether `items` is everything in scope, and if not why.
    pub completeness: Completeness<R>,
}

impl<T, R: Reason> Envelope<T, R> {
    /// An envelope from items and a completeness block.
    pub fn new(items: Vec<T>, completeness: Completeness<R>) -> Self {
        Envelope { items, completeness }
    }

    /// A complete envelope: `items` is everything in `scope`.
    pub fn complete(items: Vec<T>, scope: Scope) -> Self {
        Envelope::new(items, Completeness::complete(scope))
    }

    /// An incomplete envelope with one reason.
    pub fn incomplete(items: Vec<T>, scope: Scope, reason: impl Into<R>) -> Self {
        Envelope::new(items, Completeness::incomplete(scope, reason))
    }

    /// True only when the items cover the whole requested scope.
    pub fn is_complete(&self) -> bool {
        self.completeness.is_complete()
    }

    /// The items.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Splits into items and completeness.
    pub fn into_parts(self) -> (Vec<T>, Completeness<R>) {
        (self.items, self.completeness)
    }
}

/// The schema of the response: [`collection_json`](crate::schema::collection_json) over `T`'s
/// schema and `R`'s reasons and warnings.
#[cfg(feature = "json-schema")]
impl<T: schemars::JsonSchema, R: crate::schema::BlockSchemas> schemars::JsonSchema for Envelope<T, R> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(format!("Envelope_{}_{}", T::schema_name(), R::schema_name()))
    }
    /// The full type: two endpoints declaring the same reasons and other warnings, or items of
    /// two types of one name, are two schemas.
    fn schema_id() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(std::any::type_name::<Self>())
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let item = generator.subschema_for::<T>();
        crate::schema::collection_json::<R>(item, generator)
    }
}

/// The OpenAPI schema of the response: [`collection_openapi`](crate::schema::collection_openapi)
/// over `T`'s schema and `R`'s reasons and warnings; its components, with `T`'s.
///
/// Written as utoipa's derive writes a generic type's (its `__dev::ComposeSchema`, which gives
/// `PartialSchema`), so that `#[utoipa::path(.., body = Envelope<T, R>)]` takes it: utoipa then
/// passes the item's schema as it refers to it, the first of `generics`.
#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema, R: crate::schema::BlockSchemas> utoipa::__dev::ComposeSchema for Envelope<T, R> {
    fn compose(
        generics: Vec<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    ) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let item = generics.into_iter().next().unwrap_or_else(T::schema);
        crate::schema::collection_openapi::<R>(item)
    }
}

#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema, R: crate::schema::BlockSchemas> utoipa::ToSchema for Envelope<T, R> {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(format!("Envelope_{}_{}", T::name(), R::schema_name()))
    }
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        T::schemas(schemas);
        crate::schema::envelope_components(schemas);
    }
}

/// The member of an [`Envelope`] that holds its items.
pub(crate) const ITEMS: &str = "items";

impl<T: Serialize, R: Reason> Serialize for Envelope<T, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(11))?;
        self.completeness.serialize_head(&mut map)?;
        map.serialize_entry(ITEMS, &self.items)?;
        self.completeness.serialize_collection_tail(&mut map, self.items.len())?;
        map.end()
    }
}

impl<'de, T: DeserializeOwned, R: Reason> Deserialize<'de> for Envelope<T, R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut object = crate::contract::members::distinct_members(deserializer)?;
        let completeness = Completeness::take_from(&mut object, Shape::Collection)?;
        let items: Vec<T> = match object.remove(ITEMS) {
            Some(Value::Array(values)) => values
                .into_iter()
                .enumerate()
                .map(|(i, v)| serde_json::from_value(v).map_err(|e| D::Error::custom(format!("items[{i}]: {e}"))))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(D::Error::custom("`items` must be an array")),
            None => {
                // A service's own page struct names its items otherwise: say which array it holds.
                let mut arrays = object.iter().filter(|(_, value)| value.is_array()).map(|(name, _)| name);
                let said = match (arrays.next(), arrays.next()) {
                    (Some(only), None) => format!(
                        "missing `items` (its one array is `{only}`: a page whose items are a member of its own is \
                         read with its own struct, or with the client's `items_member(\"{only}\")`)"
                    ),
                    _ => "missing `items`".to_owned(),
                };
                return Err(D::Error::custom(Violation::new(Rule::MembersPresent, said)));
            }
        };
        if let Some(violation) =
            completeness.page().and_then(|page| rules::check_page_returned(page.returned, "items", items.len()))
        {
            return Err(D::Error::custom(violation));
        }
        Ok(Envelope { items, completeness })
    }
}
