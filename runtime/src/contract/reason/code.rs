//! Reason codes and kinds (contract §3.1, §3.2).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use completeness_codes::{ReasonKind, Recovery};

/// The text of a code outside the standard tables, a reason's ([`ReasonCode::Custom`]) or a
/// warning's ([`WarningCode::Custom`](crate::warning::WarningCode::Custom)). Only
/// [`ReasonCode::custom`] and [`WarningCode::custom`](crate::warning::WarningCode::custom),
/// which refuse a standard code and a code that is not SCREAMING_SNAKE_CASE, and the reading of
/// a wire code that is not standard make one: a standard code has one form only, its variant,
/// so that every comparison with it holds.
///
/// ```
/// use completeness_runtime::ReasonCode;
///
/// assert_eq!(ReasonCode::parse("MORE_PAGES_AVAILABLE"), ReasonCode::MorePagesAvailable);
/// let own = ReasonCode::custom("LEGAL_HOLD");
/// assert!(matches!(&own, ReasonCode::Custom(code) if code.as_str() == "LEGAL_HOLD"));
/// assert_eq!(own, ReasonCode::parse("LEGAL_HOLD"));
/// ```
///
/// A standard code cannot be dressed as a custom one:
///
/// ```compile_fail,E0423
/// use completeness_runtime::reason::CustomCode;
/// use std::borrow::Cow;
///
/// let forged = CustomCode(Cow::Borrowed("MORE_PAGES_AVAILABLE"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CustomCode(pub(crate) Cow<'static, str>);

impl CustomCode {
    /// A code read from the wire, which its reader found outside the standard table.
    pub(crate) fn read(code: &str) -> CustomCode {
        CustomCode(Cow::Owned(code.to_owned()))
    }

    /// The code's text, owned.
    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }

    /// The code as written on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The code in a `const` context; `""` for a code read from the wire, which owns its text.
    pub const fn const_str(&self) -> &str {
        match &self.0 {
            Cow::Borrowed(code) => code,
            Cow::Owned(_) => "",
        }
    }
}

impl fmt::Display for CustomCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! reason_codes {
    ($($name:ident $code:literal $kind:ident $recovery:ident $(($continuation:literal))?,)*) => {
        /// A stable reason code. Programs branch on this, never on the message.
        ///
        /// The standard codes are variants; any other code (a service's own reason, or one
        /// from a newer version) is [`ReasonCode::Custom`]. New standard codes may be added
        /// in any release (contract §7), hence `#[non_exhaustive]`.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ReasonCode {
            $(
                #[doc = concat!("`", $code, "` (kind: ", stringify!($kind), ").")]
                $name,
            )*
            /// A code outside the standard table: a service's own reason, or a code this
            /// version does not know. Either way it means incomplete.
            Custom(CustomCode),
        }

        impl ReasonCode {
            /// Every standard code, in contract order.
            pub const KNOWN: &'static [ReasonCode] = &[$(ReasonCode::$name),*];

            /// The SCREAMING_SNAKE_CASE wire form.
            pub fn as_str(&self) -> &str {
                match self {
                    $(ReasonCode::$name => $code,)*
                    ReasonCode::Custom(code) => code.as_str(),
                }
            }

            /// The wire form, in a `const` context (a code that owns its text, which only a
            /// wire read makes, gives `""`).
            pub const fn const_str(&self) -> &str {
                match self {
                    $(ReasonCode::$name => $code,)*
                    ReasonCode::Custom(code) => code.const_str(),
                }
            }

            /// The kind of a standard code; [`ReasonKind::Unknown`] for a custom one, whose
            /// kind travels beside it (see [`Reason::kind`](super::Reason::kind)).
            pub const fn standard_kind(&self) -> ReasonKind {
                match self {
                    $(ReasonCode::$name => ReasonKind::$kind,)*
                    ReasonCode::Custom(_) => ReasonKind::Unknown,
                }
            }

            /// The continuation that recovers from a standard code; `None` for a custom one,
            /// which this table cannot know (its recovery travels in the reason itself).
            pub const fn recovery(&self) -> Option<Recovery> {
                match self {
                    $(ReasonCode::$name => Some(Recovery::$recovery $(($continuation))?),)*
                    ReasonCode::Custom(_) => None,
                }
            }

            /// True when a reason of this code may come with a `next_cursor`: a standard code
            /// whose recovery is the next page (`MORE_PAGES_AVAILABLE`, a collector's
            /// `CLIENT_LIMIT_REACHED`), and a custom one, whose recovery this table cannot know.
            pub const fn may_offer_a_cursor(&self) -> bool {
                match self.recovery() {
                    Some(recovery) => match recovery.continuation() {
                        Some(kind) => completeness_codes::same_text(kind, "next_cursor"),
                        None => false,
                    },
                    None => true,
                }
            }
        }
    };
}
completeness_codes::for_each_reason!(reason_codes);

impl ReasonCode {
    /// Parses a wire code; a code outside the standard table is kept as [`ReasonCode::Custom`].
    pub fn parse(code: &str) -> ReasonCode {
        ReasonCode::KNOWN
            .iter()
            .find(|known| known.as_str() == code)
            .cloned()
            .unwrap_or_else(|| ReasonCode::Custom(CustomCode::read(code)))
    }

    /// A service's own code, as `#[derive(Reason)]` declares it.
    ///
    /// # Panics
    /// When `code` is not SCREAMING_SNAKE_CASE, is a standard code (a reader would refuse
    /// every answer that carries it), or is a letter or two from one (it would be read as it;
    /// contract §3.3). As `ReasonDetails::CODE` is a constant, that is a compile error in an
    /// implementation written by hand.
    pub const fn custom(code: &'static str) -> ReasonCode {
        assert!(completeness_codes::is_wire_code(code), "a reason code is SCREAMING_SNAKE_CASE, e.g. `LEGAL_HOLD`");
        assert!(
            !completeness_codes::is_standard_reason_code(code),
            "a service's own reason code is not a standard one: report a standard reason with its own type"
        );
        assert!(
            completeness_codes::confusable_standard_code(code).is_none(),
            "a service's own reason code is not a letter or two from a standard one: choose one that cannot be read as it"
        );
        ReasonCode::Custom(CustomCode(Cow::Borrowed(code)))
    }

    /// True for a code of the standard table.
    pub fn is_standard(&self) -> bool {
        !matches!(self, ReasonCode::Custom(_))
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReasonCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReasonCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Ok(ReasonCode::parse(&code))
    }
}

#[cfg(test)]
mod tests {
    use super::ReasonCode;
    use crate::contract::warning::WarningCode;

    #[test]
    #[should_panic(expected = "not a letter or two from a standard one")]
    fn a_reason_code_a_letter_from_a_standard_one_is_refused() {
        let _ = ReasonCode::custom("SOURCES_UNAVAILABLE");
    }

    #[test]
    #[should_panic(expected = "not a letter or two from a standard one")]
    fn a_warning_code_a_letter_from_a_standard_one_is_refused() {
        let _ = WarningCode::custom("STALE_INDEXX");
    }

    #[test]
    fn a_code_far_from_every_standard_one_is_taken() {
        assert_eq!(ReasonCode::custom("LEGAL_HOLD").as_str(), "LEGAL_HOLD");
        assert_eq!(WarningCode::custom("REPLICA_LAG").as_str(), "REPLICA_LAG");
    }
}
