//! Reading a JSON object whose members have distinct names.
//!
//! serde_json's `Map` keeps the last of two members of one name. A response with
//! `"complete": false, ..., "complete": true` would then read as complete to this reader and as
//! partial to one that keeps the first: the strict reader refuses it instead, as the server
//! refuses a request body that names a member twice.

use std::fmt;

use serde::Deserializer;
use serde::de::{Error as _, MapAccess, Visitor};
use serde_json::{Map, Value};

/// The members of the object `deserializer` holds; an error names a member given twice.
pub(crate) fn distinct_members<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map<String, Value>, D::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Map<String, Value>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
            let mut members = Map::new();
            while let Some(name) = access.next_key::<String>()? {
                if members.contains_key(&name) {
                    return Err(A::Error::custom(format!("member `{name}` is given twice; give it once")));
                }
                let value = access.next_value()?;
                members.insert(name, value);
            }
            Ok(members)
        }
    }
    deserializer.deserialize_map(Members)
}
