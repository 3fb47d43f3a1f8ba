//! Wall-clock milliseconds and RFC 3339 rendering for token expiry.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::contract::warning::Date;

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `now + ttl` in milliseconds, saturating.
pub(crate) fn after(now_ms: u64, ttl: Duration) -> u64 {
    now_ms.saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
}

/// RFC 3339 UTC with second precision, e.g. `2026-11-29T20:15:00Z`.
pub fn rfc3339(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let in_day = secs % 86_400;
    let date = Date::from_unix_days(days);
    format!("{date}T{:02}:{:02}:{:02}Z", in_day / 3600, in_day / 60 % 60, in_day % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_983_300_000), "2026-11-29T20:15:00Z");
    }
}
