//! Counts and other aggregates with the completeness block plus `relation` (contract §2.6).

use std::borrow::Cow;

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::contract::completeness::{Completeness, Shape};
use crate::contract::reason::{Reason, StandardReason};
use crate::contract::rules::{Rule, Violation};

/// How an aggregate's value relates to the truth: exact over the whole scope, a lower bound, or
/// an estimate; never exact while the aggregate is incomplete (contract §2.6).
// Its derived schemas are the aggregate schemas' one list of its wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub enum Relation {
    /// The value is exact over the whole scope.
    Exact,
    /// The true value is at least this.
    LowerBound,
    /// The value is an estimate.
    Estimate,
}

/// The member that says how an aggregate's value relates to the truth.
pub(crate) const RELATION: &str = "relation";

/// True for a name the value cannot have: a member of the aggregate, or of a collection
/// response (`page`, `evidence`), which a reader would take for that member (contract §2.1).
/// The aggregate's own members are among the collection's.
pub(crate) fn reserved(name: &str) -> bool {
    name == RELATION || completeness_codes::COLLECTION_MEMBERS.contains(&name)
}

/// An aggregate such as `{"count": 31, "relation": "lower_bound", ...completeness}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate<T, R = StandardReason> {
    name: Cow<'static, str>,
    value: T,
    relation: Relation,
    completeness: Completeness<R>,
}

impl<T, R: Reason> Aggregate<T, R> {
    /// An aggregate whose value is written under `name` (e.g. `"count"`).
    ///
    /// An incomplete aggregate is never exact: `Relation::Exact` is written
    /// `Relation::LowerBound` while the block is incomplete, also when a reason is pushed
    /// after this (see [`Aggregate::relation`]).
    ///
    /// # Panics
    ///
    /// When `name` is a member of the aggregate or of a collection response (`status`,
    /// `complete`, `relation`, `scope`, `page`, `evidence`, ...): the value would be written over
    /// it, or read as it, and the answer could not be read back (contract §2.1). A derived
    /// envelope refuses such a field name when it compiles.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        value: T,
        relation: Relation,
        completeness: Completeness<R>,
    ) -> Self {
        let name = name.into();
        assert!(
            !reserved(&name),
            "the aggregate's value name `{name}` is a member of the contract (contract §2.1, §2.6): \
             name the value otherwise, e.g. `count`"
        );
        Aggregate { name, value, relation, completeness }
    }

    /// A count.
    pub fn count(value: T, relation: Relation, completeness: Completeness<R>) -> Self {
        Aggregate::new("count", value, relation, completeness)
    }

    /// The value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The member name of the value.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How the value relates to the truth: never `Exact` while the block is incomplete, where
    /// the true value is at least this one (an `Exact` one is `LowerBound`).
    pub fn relation(&self) -> Relation {
        match self.relation {
            Relation::Exact if !self.completeness.is_complete() => Relation::LowerBound,
            relation => relation,
        }
    }

    /// The completeness block.
    pub fn completeness(&self) -> &Completeness<R> {
        &self.completeness
    }

    /// The completeness block, mutably.
    pub fn completeness_mut(&mut self) -> &mut Completeness<R> {
        &mut self.completeness
    }
}

/// The schema of the response: [`aggregate_json`](crate::schema::aggregate_json) over `T`'s
/// schema and `R`'s reasons and warnings, the value as the one member besides the contract's
/// (its name is chosen at run time, [`Aggregate::new`]); `aggregate_json` with the name states
/// it exactly.
#[cfg(feature = "json-schema")]
impl<T: schemars::JsonSchema, R: crate::schema::BlockSchemas> schemars::JsonSchema for Aggregate<T, R> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Owned(format!("Aggregate_{}_{}", T::schema_name(), R::schema_name()))
    }
    /// The full type, as [`Envelope`](crate::Envelope)'s.
    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed(std::any::type_name::<Self>())
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let value = generator.subschema_for::<T>();
        crate::schema::aggregate_json::<R>(None, value, generator)
    }
}

/// The OpenAPI schema of the response: [`aggregate_openapi`](crate::schema::aggregate_openapi)
/// over `T`'s schema and `R`'s reasons and warnings, the value as the one member besides the
/// contract's; its components, with `T`'s. Written as [`Envelope`](crate::Envelope)'s, so that
/// `#[utoipa::path(.., body = Aggregate<T, R>)]` takes it.
#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema, R: crate::schema::BlockSchemas> utoipa::__dev::ComposeSchema for Aggregate<T, R> {
    fn compose(
        generics: Vec<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    ) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let value = generics.into_iter().next().unwrap_or_else(T::schema);
        crate::schema::aggregate_openapi::<R>(None, value)
    }
}

#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema, R: crate::schema::BlockSchemas> utoipa::ToSchema for Aggregate<T, R> {
    fn name() -> Cow<'static, str> {
        Cow::Owned(format!("Aggregate_{}_{}", T::name(), R::schema_name()))
    }
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        T::schemas(schemas);
        crate::schema::envelope_components(schemas);
    }
}

impl<T: Serialize, R: Reason> Serialize for Aggregate<T, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(10))?;
        self.completeness.serialize_head(&mut map)?;
        map.serialize_entry(self.name.as_ref(), &self.value)?;
        map.serialize_entry(RELATION, &self.relation())?;
        self.completeness.serialize_tail(&mut map, Shape::Aggregate)?;
        map.end()
    }
}

impl<'de, T: DeserializeOwned, R: Reason> Deserialize<'de> for Aggregate<T, R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut object = crate::contract::members::distinct_members(deserializer)?;
        let completeness = Completeness::take_from(&mut object, Shape::Aggregate)?;
        let relation: Relation = match object.remove(RELATION) {
            Some(v) => serde_json::from_value(v).map_err(|e| D::Error::custom(format!("`relation`: {e}")))?,
            None => return Err(D::Error::custom(Violation::new(Rule::MembersPresent, "missing `relation`"))),
        };
        if relation == Relation::Exact && !completeness.is_complete() {
            return Err(D::Error::custom("`relation` is \"exact\" but the aggregate is incomplete (contract §2.6)"));
        }
        let mut rest = object.into_iter();
        let (name, value) = match (rest.next(), rest.next()) {
            (Some(only), None) => only,
            (None, _) => return Err(D::Error::custom("an aggregate needs its value member (e.g. `count`)")),
            (Some((a, _)), Some((b, _))) => {
                return Err(D::Error::custom(format!("an aggregate has one value member, found `{a}` and `{b}`")));
            }
        };
        if reserved(&name) {
            return Err(D::Error::custom(format!(
                "an aggregate's value cannot be called `{name}`, a member of the contract (contract §2.1)"
            )));
        }
        let value = serde_json::from_value(value).map_err(|e| D::Error::custom(format!("`{name}`: {e}")))?;
        Ok(Aggregate { name: Cow::Owned(name), value, relation, completeness })
    }
}
