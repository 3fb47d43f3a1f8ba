//! Fields of single-resource reads that the server may not have filled (contract §2.7).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a field was not filled.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Omission {
    /// `NO_ACCESS`: the credential may not read it.
    NoAccess,
    /// `SOURCE_FAILED`: the source that holds it failed.
    SourceFailed,
    /// `NOT_REQUESTED`: it is only filled when asked for (`fields=`).
    NotRequested,
    /// A code this version does not know.
    Unknown(String),
}

impl Omission {
    /// The standard omissions, in the contract's order (§2.7).
    pub const KNOWN: [Omission; 3] = [Omission::NoAccess, Omission::SourceFailed, Omission::NotRequested];

    /// The wire form.
    pub fn as_str(&self) -> &str {
        match self {
            Omission::NoAccess => "NO_ACCESS",
            Omission::SourceFailed => "SOURCE_FAILED",
            Omission::NotRequested => "NOT_REQUESTED",
            Omission::Unknown(code) => code,
        }
    }

    /// Parses the wire form; unknown codes are kept.
    pub fn parse(code: &str) -> Omission {
        Omission::KNOWN
            .into_iter()
            .find(|known| known.as_str() == code)
            .unwrap_or_else(|| Omission::Unknown(code.to_owned()))
    }
}

// `Unknown("NO_ACCESS")`, built by hand, is `NoAccess`, as it is on the wire.
super::one_code_per_text!(Omission);

/// In the order of their codes.
impl PartialOrd for Omission {
    fn partial_cmp(&self, other: &Omission) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Omission {
    fn cmp(&self, other: &Omission) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Display for Omission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Omission {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Omission {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Omission::parse(&String::deserialize(deserializer)?))
    }
}

/// A field the server fills, leaves genuinely null, or omits for a stated reason.
///
/// On the wire both `Null` and `Omitted` are `null`; only `Omitted` is listed in
/// `omitted_fields`, so a client can tell "there is no value" from "you were not told".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Field<T> {
    /// The value.
    Filled(T),
    /// A genuine null: the value does not exist.
    #[default]
    Null,
    /// Not filled, for this reason.
    Omitted(Omission),
}

impl<T> Field<T> {
    /// `Filled` for `Some`, `Null` for `None`.
    pub fn from_option(value: Option<T>) -> Self {
        value.map_or(Field::Null, Field::Filled)
    }

    /// The value, if filled.
    pub fn value(&self) -> Option<&T> {
        match self {
            Field::Filled(value) => Some(value),
            _ => None,
        }
    }

    /// Why it is not filled, if omitted.
    pub fn omission(&self) -> Option<&Omission> {
        match self {
            Field::Omitted(why) => Some(why),
            _ => None,
        }
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Filled(value) => value.serialize(serializer),
            Field::Null | Field::Omitted(_) => serializer.serialize_none(),
        }
    }
}

/// The `omitted_fields` member: field name → omission code.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OmittedFields(pub BTreeMap<String, Omission>);

impl OmittedFields {
    /// Records `field` as omitted when it is.
    pub fn note<T>(&mut self, name: &str, field: &Field<T>) {
        if let Field::Omitted(why) = field {
            self.0.insert(name.to_owned(), why.clone());
        }
    }

    /// Rebuilds a field from its wire value and this map: listed → `Omitted`, null → `Null`.
    /// A field listed yet sent with a value contradicts itself (contract §2.7: an omitted field
    /// is null): it is read as the listing says, `Omitted`, the reading that claims less.
    pub fn restore<T>(&self, name: &str, value: Option<T>) -> Field<T> {
        match (self.0.get(name), value) {
            (Some(why), _) => Field::Omitted(why.clone()),
            (None, Some(value)) => Field::Filled(value),
            (None, None) => Field::Null,
        }
    }

    /// True when nothing was omitted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Each field left out with why, `owner_email (NO_ACCESS), last_used_at (SOURCE_FAILED)`; empty
/// when none is.
impl fmt::Display for OmittedFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, (name, why)) in self.0.iter().enumerate() {
            let comma = if at == 0 { "" } else { ", " };
            write!(f, "{comma}{name} ({why})")?;
        }
        Ok(())
    }
}
