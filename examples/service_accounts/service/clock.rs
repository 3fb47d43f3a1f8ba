//! Wall-clock time as milliseconds and RFC 3339 text.

use jiff::Timestamp;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    Timestamp::now().as_millisecond()
}

/// `YYYY-MM-DDTHH:MM:SSZ` for a number of seconds since the Unix epoch (UTC), in the
/// framework's wire format; times before the epoch render as the epoch.
pub fn rfc3339(seconds: i64) -> String {
    completeness::cursor::rfc3339(u64::try_from(seconds).unwrap_or(0).saturating_mul(1000))
}
