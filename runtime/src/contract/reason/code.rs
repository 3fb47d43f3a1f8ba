//! Reason codes and kinds (contract §3.1, §3.2).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use completeness_codes::{ReasonKind, Recovery};

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
            Custom(Cow<'static, str>),
        }

        impl ReasonCode {
            /// Every standard code, in contract order.
            pub const KNOWN: &'static [ReasonCode] = &[$(ReasonCode::$name),*];

            /// The SCREAMING_SNAKE_CASE wire form.
            pub fn as_str(&self) -> &str {
                match self {
                    $(ReasonCode::$name => $code,)*
                    ReasonCode::Custom(code) => code,
                }
            }

            /// The wire form, in a `const` context (a code that owns its text, which only a
            /// wire read makes, gives `""`).
            pub const fn const_str(&self) -> &str {
                match self {
                    $(ReasonCode::$name => $code,)*
                    ReasonCode::Custom(Cow::Borrowed(code)) => code,
                    ReasonCode::Custom(Cow::Owned(_)) => "",
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
            .unwrap_or_else(|| ReasonCode::Custom(Cow::Owned(code.to_owned())))
    }

    /// A service's own code, as `#[derive(Reason)]` declares it.
    ///
    /// # Panics
    /// When `code` is not SCREAMING_SNAKE_CASE or is a standard code (contract §3.3): a reader
    /// would refuse every answer that carries it. As `ReasonDetails::CODE` is a constant, that
    /// is a compile error in an implementation written by hand.
    pub const fn custom(code: &'static str) -> ReasonCode {
        assert!(completeness_codes::is_wire_code(code), "a reason code is SCREAMING_SNAKE_CASE, e.g. `LEGAL_HOLD`");
        assert!(
            !completeness_codes::is_standard_reason_code(code),
            "a service's own reason code is not a standard one: report a standard reason with its own type"
        );
        ReasonCode::Custom(Cow::Borrowed(code))
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
