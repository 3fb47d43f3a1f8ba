//! Reading JSON whose objects have distinct member names, at every depth.
//!
//! serde_json's `Map` keeps the last of two members of one name. A response with
//! `"complete": false, ..., "complete": true`, or a reason object naming `code` twice, would then
//! read one way here and another way in a reader that keeps the first: the strict reader refuses
//! it instead, as the server refuses a request body that names a member twice.
//!
//! The writing side keeps the same rule for the detail members a reason or a warning writes
//! beside its head ([`detail_members`]).

use std::fmt;

use serde::Serializer;
use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde_json::{Map, Number, Value};

/// The map serializer `write_details` of a reason or a warning writes into here.
pub(crate) type DetailWriter = <serde_json::value::Serializer as Serializer>::SerializeMap;

/// The detail members `write` writes, as JSON, without the members of the head (`head`: a
/// reason's `code`, `kind` and `message`, or a warning's own).
///
/// - Members that cannot be written as JSON are all left out rather than fail the response:
///   the code still says what it says.
/// - Details written by hand may name a member of the head. It would go out twice, and readers
///   keeping the first or the last would disagree (contract R1): the head's own is kept.
pub(crate) fn detail_members(
    write: impl FnOnce(&mut DetailWriter) -> Result<(), serde_json::Error>,
    head: &[&str],
) -> Map<String, Value> {
    let written =
        serde_json::value::Serializer.serialize_map(None).and_then(|mut map| write(&mut map).and_then(|()| map.end()));
    let mut members = match written {
        Ok(Value::Object(members)) => members,
        _ => Map::new(),
    };
    members.retain(|name, _| !head.contains(&name.as_str()));
    members
}

/// The members of the object `deserializer` holds; an error names a member given twice, in this
/// object or in any object or array inside it.
pub(crate) fn distinct_members<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map<String, Value>, D::Error> {
    match deserializer.deserialize_any(Distinct)? {
        Value::Object(members) => Ok(members),
        other => Err(D::Error::custom(format!("expected a JSON object, got {}", kind(&other)))),
    }
}

/// A JSON value read with [`Distinct`].
struct DistinctValue(Value);

impl<'de> Deserialize<'de> for DistinctValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Distinct).map(DistinctValue)
    }
}

/// Builds a `Value` like serde_json does, but refuses an object that names a member twice.
struct Distinct;

impl<'de> Visitor<'de> for Distinct {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(Distinct)
    }
    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }
    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }
    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }
    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }
    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut values = Vec::new();
        while let Some(DistinctValue(value)) = access.next_element()? {
            values.push(value);
        }
        Ok(Value::Array(values))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(name) = access.next_key::<String>()? {
            if members.contains_key(&name) {
                return Err(A::Error::custom(format!("member `{name}` is given twice; give it once")));
            }
            let DistinctValue(value) = access.next_value()?;
            members.insert(name, value);
        }
        Ok(Value::Object(members))
    }
}

/// What a JSON value is, for a message.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
