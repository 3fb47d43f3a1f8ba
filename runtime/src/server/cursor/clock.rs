//! Wall-clock milliseconds and RFC 3339 rendering for token expiry, through jiff.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp, civil};

/// Milliseconds since the Unix epoch, now (0 before the epoch).
pub(crate) fn now_ms() -> u64 {
    u64::try_from(Timestamp::now().as_millisecond()).unwrap_or(0)
}

/// `at` in milliseconds since the Unix epoch (0 before it; the last instant jiff knows after it).
pub(crate) fn unix_ms(at: std::time::SystemTime) -> u64 {
    let at =
        Timestamp::try_from(at).unwrap_or(if at < std::time::UNIX_EPOCH { Timestamp::MIN } else { Timestamp::MAX });
    u64::try_from(at.as_millisecond()).unwrap_or(0)
}

/// `now + ttl` in milliseconds, saturating.
pub(crate) fn after(now_ms: u64, ttl: Duration) -> u64 {
    now_ms.saturating_add(crate::contract::whole_millis(ttl))
}

/// RFC 3339 UTC with second precision, e.g. `2026-11-29T20:15:00Z`; times past
/// 9999-12-31T23:59:59Z render as that instant.
pub fn rfc3339(unix_ms: u64) -> String {
    let seconds = i64::try_from(unix_ms / 1000).unwrap_or(i64::MAX);
    // Civil time in UTC: jiff's timestamps stop a day short of the year 10000, its civil times do not.
    let epoch = civil::DateTime::constant(1970, 1, 1, 0, 0, 0, 0);
    let at = epoch.checked_add(SignedDuration::from_secs(seconds)).unwrap_or(civil::DateTime::MAX);
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// [`rfc3339`] of the second `unix_ms` falls in, rounded up: a time written to the second that
/// is never before `unix_ms` (an expiry is not read as later than written).
pub(crate) fn rfc3339_rounded_up(unix_ms: u64) -> String {
    rfc3339(unix_ms.div_ceil(1000).saturating_mul(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_system_times_as_unix_milliseconds() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(unix_ms(UNIX_EPOCH + Duration::from_millis(1_795_983_300_123)), 1_795_983_300_123);
        assert_eq!(unix_ms(UNIX_EPOCH - Duration::from_secs(5)), 0);
        assert!(unix_ms(UNIX_EPOCH + Duration::from_secs(1 << 40)) >= 253_402_207_200_000, "past the year 9999");
    }

    #[test]
    fn renders_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_983_300_000), "2026-11-29T20:15:00Z");
        assert_eq!(rfc3339(u64::MAX), "9999-12-31T23:59:59Z");
    }
}
