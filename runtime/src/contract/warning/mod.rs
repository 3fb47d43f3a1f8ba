//! Warnings (contract §3.5): they change confidence, freshness or interpretation, never
//! `complete`.
//!
//! - [`WarningCode`] and the erased [`Warning`] a completeness block holds (here);
//! - the standard warnings' details (`standard.rs`): [`StaleIndex`], [`PageSizeReduced`], …;
//!   a service's own warnings implement [`WarningDetails`] with `#[derive(Warning)]`;
//! - the catalog of owners and review-by dates (`catalog.rs`).

mod catalog;
mod standard;

use std::borrow::Cow;
use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::members::detail_members;
use crate::contract::reason::CustomCode;

pub use catalog::{CatalogEntry, CatalogProblem, Date, WarningCatalog};
pub use standard::{
    DefaultScopeApplied, DeprecatedField, OrderingDefaulted, PageSizeReduced, PartialFieldSet, StaleIndex,
};

macro_rules! warning_codes {
    ($($name:ident $code:literal,)*) => {
        /// A stable warning code.
        ///
        /// The standard codes are variants; any other code (a service's own warning, or one
        /// from a newer version) is [`WarningCode::Custom`]. New standard codes may be added
        /// in any release (contract §7), hence `#[non_exhaustive]`.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum WarningCode {
            $(
                #[doc = concat!("`", $code, "`.")]
                $name,
            )*
            /// A code outside the standard table: a service's own warning, or one this version
            /// does not know; kept as received.
            Custom(CustomCode),
        }

        impl WarningCode {
            /// Every standard code, in contract order.
            pub const KNOWN: &'static [WarningCode] = &[$(WarningCode::$name),*];

            /// The SCREAMING_SNAKE_CASE wire form.
            pub fn as_str(&self) -> &str {
                match self {
                    $(WarningCode::$name => $code,)*
                    WarningCode::Custom(code) => code.as_str(),
                }
            }

            /// The wire form, in a `const` context (a code that owns its text, which only a
            /// wire read makes, gives `""`).
            pub const fn const_str(&self) -> &str {
                match self {
                    $(WarningCode::$name => $code,)*
                    WarningCode::Custom(code) => code.const_str(),
                }
            }
        }
    };
}
completeness_codes::for_each_warning!(warning_codes);

impl WarningCode {
    /// Parses a wire code; a code outside the standard table is kept as [`WarningCode::Custom`].
    pub fn parse(code: &str) -> WarningCode {
        WarningCode::KNOWN
            .iter()
            .find(|known| known.as_str() == code)
            .cloned()
            .unwrap_or_else(|| WarningCode::Custom(CustomCode::read(code)))
    }

    /// True for a code of the standard table.
    pub fn is_standard(&self) -> bool {
        !matches!(self, WarningCode::Custom(_))
    }

    /// A service's own code, as `#[derive(Warning)]` declares it.
    ///
    /// # Panics
    /// When `code` is not SCREAMING_SNAKE_CASE, is a standard code, a warning's or a reason's
    /// (a reader would refuse every answer that carries it), or is a letter or two from one (it
    /// would be read as it; contract §3.3, §3.5). As `WarningDetails::CODE` is a constant, that
    /// is a compile error in an implementation written by hand.
    pub const fn custom(code: &'static str) -> WarningCode {
        assert!(completeness_codes::is_wire_code(code), "a warning code is SCREAMING_SNAKE_CASE, e.g. `REPLICA_LAG`");
        assert!(
            !completeness_codes::is_standard_warning_code(code),
            "a service's own warning code is not a standard one: push a standard warning with its own type"
        );
        assert!(
            !completeness_codes::is_standard_reason_code(code),
            "a warning code is not a standard reason's: a reason makes the answer incomplete, push it as a reason"
        );
        assert!(
            completeness_codes::confusable_standard_code(code).is_none(),
            "a service's own warning code is not a letter or two from a standard one: choose one that cannot be read as it"
        );
        WarningCode::Custom(CustomCode(Cow::Borrowed(code)))
    }
}

impl fmt::Display for WarningCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for WarningCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for WarningCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(WarningCode::parse(&String::deserialize(deserializer)?))
    }
}

/// The typed details of one warning code.
///
/// The standard warnings implement it in this crate; a service's own warnings implement it
/// with `#[derive(Warning)]`, which checks the code, the owner and the review-by date. One
/// written by hand needs a code of its own too: an endpoint that lists a type of the service's
/// own whose `CODE` is a standard code does not compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a warning",
    label = "not a warning type",
    note = "derive it: `#[derive(Debug, Clone, completeness::Warning)]` with `#[warning(code = \"...\", owner = \"...\", review_by = \"...\", message = \"...\")]`",
    note = "if it is a reason, list it in `reasons(...)` and report it with `push_reason`"
)]
pub trait WarningDetails: Sized + 'static {
    /// The code these details belong to.
    const CODE: WarningCode;
    /// Who answers for a service's own code (`None` for the standard ones).
    const OWNER: Option<&'static str> = None;
    /// When a service's own code must be reviewed again, `YYYY-MM-DD` (`None` for the standard ones).
    const REVIEW_BY: Option<&'static str> = None;
    /// True when the warning says the answer was not read from current state (a lagging index,
    /// replica or cache): a complete answer with it backs no claim of absence and no change
    /// (contract §3.5). `STALE_INDEX` is; a service's own warning says so with
    /// `#[warning(stale, ..)]`.
    const STALE: bool = false;
    /// The detail members a service's own warning writes, by name, for the schemas of its
    /// endpoints (`#[derive(Warning)]` lists its fields); none said for a standard one.
    const DETAIL_MEMBERS: &'static [&'static str] = &[];
    /// The human message.
    fn message(&self) -> String;
    /// Writes the detail members (not `code`, `message` or `stale`).
    fn write_details<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
    /// Reads details back from a wire object (`code` and `message` already taken).
    fn read_details(object: &Map<String, Value>) -> Result<Self, String>;
}

/// One warning, as a completeness block holds it: `{"code", "message", ...details}`.
///
/// Built from typed details (`Warning::from(StaleIndex::new("audit"))`); a declared endpoint
/// accepts only the details it declares, so `Completeness::push_warning` takes those.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    code: WarningCode,
    message: String,
    /// True for `STALE_INDEX` and for every warning sent with `"stale": true`; sent as
    /// `"stale": true`, except by `STALE_INDEX`, which is stale by its code.
    stale: bool,
    details: Map<String, Value>,
}

impl<W: WarningDetails> From<W> for Warning {
    fn from(details: W) -> Self {
        let details_map = detail_members(|map| details.write_details(map), completeness_codes::WARNING_HEAD_MEMBERS);
        Warning { code: W::CODE, message: details.message(), stale: W::STALE, details: details_map }
    }
}

impl Warning {
    /// The code.
    pub fn code(&self) -> &WarningCode {
        &self.code
    }

    /// The human message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when the answer was not read from current state: `STALE_INDEX`, or a warning that
    /// carries `"stale": true` (contract §3.5). A complete answer with a stale warning backs
    /// neither a claim of absence nor a change (contract §8).
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The detail members.
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    /// The typed details `W`, when this warning has `W`'s code: `None` for another code, an
    /// error when the details do not read as `W`.
    pub fn to_details<W: WarningDetails>(&self) -> Option<Result<W, String>> {
        (self.code == W::CODE).then(|| W::read_details(&self.details))
    }
}

impl Serialize for Warning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // `STALE_INDEX` is stale by its code, which every reader knows; any other stale code
        // says so on the wire (contract §3.5, §7).
        let say_stale = self.stale && self.code != WarningCode::StaleIndex;
        let mut map = serializer.serialize_map(Some(2 + usize::from(say_stale) + self.details.len()))?;
        map.serialize_entry("code", &self.code)?;
        map.serialize_entry("message", &self.message)?;
        if say_stale {
            map.serialize_entry("stale", &true)?;
        }
        for (key, value) in &self.details {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Warning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut object = Map::deserialize(deserializer)?;
        let code = match object.remove("code") {
            // A reason's code is never a warning's: a reason sent as a warning would leave the
            // answer complete (contract §3.5).
            Some(Value::String(code)) if completeness_codes::is_standard_reason_code(&code) => {
                return Err(D::Error::custom(format!(
                    "warning {code}: {code} is a standard reason, which makes an answer incomplete; it is not a warning"
                )));
            }
            Some(Value::String(code)) if !code.is_empty() => WarningCode::parse(&code),
            _ => return Err(D::Error::custom("a warning needs a non-empty string `code`")),
        };
        let message = match object.remove("message") {
            Some(Value::String(message)) => message,
            _ => return Err(D::Error::custom(format!("warning {code} needs a string `message`"))),
        };
        let said = match object.remove("stale") {
            None => false,
            Some(Value::Bool(stale)) => stale,
            Some(other) => return Err(D::Error::custom(format!("warning {code} has `stale` {other}, not a boolean"))),
        };
        // As `Warning::from(StaleIndex)` is, so that the same warning compares equal however
        // it was made (the collector keeps each warning once).
        let stale = said || code == WarningCode::StaleIndex;
        Ok(Warning { code, message, stale, details: object })
    }
}

/// Reads member `name` of a warning's wire object.
fn member<T: serde::de::DeserializeOwned>(object: &Map<String, Value>, code: &str, name: &str) -> Result<T, String> {
    let value = object.get(name).cloned().unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| format!("warning {code}: bad `{name}`: {e}"))
}
