//! [`StandardReason`]: any reason, as a client holds it (contract §3).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::details::*;
use super::{CustomReason, Reason, ReasonCode, ReasonDetails, ReasonKind, read_reason, split_wire};
use crate::contract::continuation::Continuation;

macro_rules! standard_reason {
    ($($name:ident $code:literal $kind:ident $recovery:ident $(($continuation:literal))?,)*) => {
        /// Every reason code with its typed details; the reason type clients use.
        ///
        /// A code outside the standard table (a service's own, or one from a newer version) is
        /// kept whole as [`StandardReason::Custom`]: it still means incomplete.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum StandardReason {
            $(
                #[doc = concat!("`", $code, "`.")]
                $name($name),
            )*
            /// A code outside the standard table.
            Custom(CustomReason),
        }

        impl Serialize for StandardReason {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(StandardReason::$name(details) => details.serialize(serializer),)*
                    StandardReason::Custom(reason) => reason.serialize(serializer),
                }
            }
        }

        impl Reason for StandardReason {
            fn code(&self) -> ReasonCode {
                match self {
                    $(StandardReason::$name(_) => ReasonCode::$name,)*
                    StandardReason::Custom(reason) => reason.reason_code(),
                }
            }
            fn kind(&self) -> ReasonKind {
                match self {
                    $(StandardReason::$name(_) => ReasonKind::$kind,)*
                    StandardReason::Custom(reason) => reason.kind(),
                }
            }
            fn recovery(&self) -> Option<Continuation> {
                match self {
                    $(StandardReason::$name(details) => details.recovery(),)*
                    StandardReason::Custom(reason) => reason.recovery().cloned(),
                }
            }
            fn message(&self) -> String {
                match self {
                    $(StandardReason::$name(details) => ReasonDetails::message(details),)*
                    StandardReason::Custom(reason) => reason.message().to_owned(),
                }
            }
            fn cursor_contract(&self) -> Option<&crate::contract::scope::CursorContract> {
                match self {
                    StandardReason::MorePagesAvailable(details) => details.cursor_contract(),
                    _ => None,
                }
            }
            fn restore_recovery(&mut self, recovery: &Continuation) -> bool {
                match self {
                    $(StandardReason::$name(details) => details.restore(recovery),)*
                    StandardReason::Custom(_) => false,
                }
            }
            fn adopt_recovery(&mut self, recovery: &Continuation) -> bool {
                match self {
                    StandardReason::Custom(reason) if reason.recovery().is_none() => {
                        reason.keep_recovery(recovery.clone());
                        true
                    }
                    _ => false,
                }
            }
            fn from_wire(mut object: Map<String, Value>) -> Result<Self, String> {
                let (code, message) = split_wire(&mut object)?;
                match code {
                    $(ReasonCode::$name => read_reason::<$name>(&object, message).map(StandardReason::$name),)*
                    ReasonCode::Custom(code) => Ok(StandardReason::Custom(CustomReason::from_wire(code.into_owned(), message, object))),
                }
            }
        }
    };
}
completeness_codes::for_each_reason!(standard_reason);

impl<D: ReasonDetails> From<D> for StandardReason {
    fn from(details: D) -> Self {
        details.into_reason()
    }
}

impl<'de> Deserialize<'de> for StandardReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        StandardReason::from_wire(object).map_err(serde::de::Error::custom)
    }
}

impl StandardReason {
    /// Converts any endpoint's reason into the standard form via its wire object.
    pub fn from_reason<R: Reason>(reason: &R) -> StandardReason {
        let standard = match serde_json::to_value(reason) {
            Ok(Value::Object(object)) => StandardReason::from_wire(object).ok(),
            _ => None,
        };
        let mut standard = standard.unwrap_or_else(|| {
            let mut object = Map::new();
            object.insert("kind".into(), reason.kind().as_str().into());
            StandardReason::Custom(CustomReason::from_wire(reason.code().as_str().to_owned(), reason.message(), object))
        });
        if let Some(recovery) = reason.recovery() {
            match &mut standard {
                // The reason's own offer, kept whole: the wire form does not carry it.
                StandardReason::Custom(custom) => custom.keep_recovery(recovery),
                _ => {
                    standard.restore_recovery(&recovery);
                }
            }
        }
        standard
    }

    /// The typed details `D`, when this reason has `D`'s code: `None` for another code, an
    /// error when the details do not read as `D`. Works for standard and custom reasons alike.
    pub fn to_details<D: ReasonDetails>(&self) -> Option<Result<D, String>> {
        if self.code() != D::CODE {
            return None;
        }
        let mut object = match serde_json::to_value(self) {
            Ok(Value::Object(object)) => object,
            _ => return Some(Err(format!("reason {} has no wire object", D::CODE))),
        };
        object.remove("code");
        object.remove("message");
        object.remove("kind");
        Some(D::read_details(&object).map(|mut details| {
            if let Some(recovery) = self.recovery() {
                details.restore(&recovery);
            }
            details
        }))
    }
}
