//! Typed recovery paths of an incomplete answer (contract §2.4).

use serde::{Deserialize, Serialize};

/// How a caller can recover the part of the answer it did not get.
///
/// A continuation is always a real recovery path: never one that repeats the
/// same query and hopes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub enum Continuation {
    /// Fetch the next page with this cursor.
    NextCursor {
        /// The opaque cursor to send back; never empty (R7).
        #[cfg_attr(feature = "openapi", schema(min_length = 1))]
        #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
        cursor: String,
    },
    /// Ask again after this many seconds.
    RetryAfter {
        /// Seconds to wait, a non-negative integer (up to 2^64 − 1).
        #[cfg_attr(feature = "openapi", schema(format = "uint64"))]
        seconds: u64,
    },
    /// Ask again with a time budget of at least this many seconds.
    RetryWithDeadline {
        /// The smallest budget that could help, in seconds (up to 2^64 − 1).
        #[cfg_attr(feature = "openapi", schema(format = "uint64"))]
        minimum_seconds: u64,
    },
    /// Ask a narrower question; the hint says how.
    NarrowQuery {
        /// What to narrow, in words.
        hint: String,
    },
    /// Start a new traversal; results of the old one cannot be combined with it.
    Restart {
        /// Why the old traversal cannot continue.
        reason: String,
    },
}

impl Continuation {
    /// The wire name of this continuation's kind, e.g. `"next_cursor"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Continuation::NextCursor { .. } => "next_cursor",
            Continuation::RetryAfter { .. } => "retry_after",
            Continuation::RetryWithDeadline { .. } => "retry_with_deadline",
            Continuation::NarrowQuery { .. } => "narrow_query",
            Continuation::Restart { .. } => "restart",
        }
    }

    /// The cursor, when this is a `next_cursor` continuation.
    pub fn cursor(&self) -> Option<&str> {
        match self {
            Continuation::NextCursor { cursor } => Some(cursor),
            _ => None,
        }
    }
}
