//! Wall-clock time as milliseconds and RFC 3339 text.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for a number of seconds since the Unix epoch (UTC); times before
/// the epoch render as the epoch.
pub fn rfc3339(seconds: i64) -> String {
    completeness::cursor::rfc3339(u64::try_from(seconds).unwrap_or(0).saturating_mul(1000))
}
