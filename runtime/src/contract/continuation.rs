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
    /// What a reader does next, in words, lower-case and without a full stop: `"ask again after
    /// 30 s"`, `"ask again with a time budget of at least 2 s (`time_budget_ms=2000` or more)"`.
    /// One wording for the verdicts and the problems that offer it.
    pub fn in_words(&self) -> String {
        let own = |text: &str| text.trim_end().trim_end_matches('.').to_owned();
        match self {
            Continuation::NextCursor { .. } => "send `next_cursor` back as the cursor of the same query".to_owned(),
            Continuation::RetryAfter { seconds } => format!("ask again after {seconds} s"),
            // The contract's parameter, named: "1 s" read alone has sent `time_budget_ms: 1`.
            Continuation::RetryWithDeadline { minimum_seconds } => format!(
                "ask again with a time budget of at least {minimum_seconds} s (`time_budget_ms={}` or more)",
                minimum_seconds.saturating_mul(1000)
            ),
            Continuation::NarrowQuery { hint } => format!("narrow the query ({})", own(hint)),
            Continuation::Restart { reason } => format!("start a new traversal from the first page ({})", own(reason)),
        }
    }

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
