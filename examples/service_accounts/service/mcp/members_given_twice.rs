//! Members given twice: the walk that finds the first object of a message naming a member
//! twice, and the refusal of such a message.

use axum::response::{IntoResponse, Response};
use completeness::{Problem, ProblemCode};
use serde::Deserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

use super::messages::{invalid_params, shown};

/// A member named twice in one object of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Twice {
    /// Where the object is (`params.arguments`, `params.arguments.ids[0]`); empty for the
    /// message itself.
    within: String,
    /// The member's name.
    member: String,
}

/// The first member given twice in one object of the JSON text `bytes`, if any (`None` also
/// when `bytes` is not JSON, which rmcp then refuses).
pub(super) fn member_given_twice(bytes: &[u8]) -> Option<Twice> {
    let found = std::cell::RefCell::new(None);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let _ = Walk { path: String::new(), found: &found }.deserialize(&mut reader);
    found.into_inner()
}

/// Walks a JSON value, stopping at the first object that names a member twice.
struct Walk<'a> {
    path: String,
    found: &'a std::cell::RefCell<Option<Twice>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let mut index = 0;
        while items.next_element_seed(Walk { path: format!("{}[{index}]", self.path), found: self.found })?.is_some() {
            index += 1;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(member) = members.next_key::<String>()? {
            if seen.contains(&member) {
                *self.found.borrow_mut() = Some(Twice { within: self.path, member });
                return Err(de::Error::custom("a member is given twice"));
            }
            let path = if self.path.is_empty() { member.clone() } else { format!("{}.{member}", self.path) };
            members.next_value_seed(Walk { path, found: self.found })?;
            seen.insert(member);
        }
        Ok(())
    }
}

/// The refusal of a message that names `twice.member` twice: the JSON-RPC error `-32602` when
/// the message is a request and the member is in its `params` (served `200` as
/// `application/json`, as rmcp serves the invalid-params errors of the calls it reads, which
/// every MCP client, rmcp's included, reads as the call's error); otherwise, with no request to
/// answer (a notification, a response, the message's own members given twice, its `id` among
/// them), a 400 `INVALID_BODY` problem.
pub(super) fn refuse_twice(message: &Value, twice: &Twice) -> Response {
    let member = shown(&twice.member);
    let is_request = message.get("method").is_some_and(Value::is_string);
    let in_params =
        twice.within == "params" || twice.within.starts_with("params.") || twice.within.starts_with("params[");
    let id = message.get("id").filter(|id| is_request && in_params && (id.is_string() || id.is_number()));
    let Some(id) = id else {
        let within = if twice.within.is_empty() {
            "the JSON-RPC message".to_owned()
        } else {
            format!("`{}`", shown(&twice.within))
        };
        let detail = format!("Member `{member}` of {within} is given twice; give it once. Nothing was done.");
        return Problem::new(ProblemCode::InvalidBody, detail).into_response();
    };
    let message = format!(
        "member `{member}` of `{}` is given twice; give it once; nothing was run (INVALID_BODY)",
        shown(&twice.within)
    );
    let data = json!({"code": ProblemCode::InvalidBody.as_str(), "member": member, "within": shown(&twice.within)});
    invalid_params(id, message, data)
}
