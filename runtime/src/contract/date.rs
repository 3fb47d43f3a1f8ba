//! A calendar date for review-by dates; the calendar itself is jiff's.

use std::fmt;

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp, civil};

/// A calendar date, `YYYY-MM-DD`, for review-by dates.
///
/// Dates run from -9999-01-01 to 9999-12-31 (jiff's range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// Year.
    pub year: i32,
    /// Month, 1–12.
    pub month: u8,
    /// Day, 1–31.
    pub day: u8,
}

impl Date {
    /// Parses `YYYY-MM-DD`: four-digit year, two-digit month and day, a day the month has.
    pub fn parse(text: &str) -> Result<Date, String> {
        let bad = || format!("'{text}' is not a YYYY-MM-DD date");
        let shaped = text.len() == 10
            && text.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
        if !shaped {
            return Err(bad());
        }
        text.parse::<civil::Date>().map(Date::from).map_err(|_| bad())
    }

    /// The date `days` days after 1970-01-01 (proleptic Gregorian calendar), clamped to
    /// the range of dates.
    pub fn from_unix_days(days: i64) -> Date {
        let epoch = civil::Date::constant(1970, 1, 1);
        let date = epoch.checked_add(SignedDuration::from_secs(days.saturating_mul(86_400))).unwrap_or(if days < 0 {
            civil::Date::MIN
        } else {
            civil::Date::MAX
        });
        Date::from(date)
    }

    /// Today's date in UTC.
    pub fn today() -> Date {
        Date::from(TimeZone::UTC.to_datetime(Timestamp::now()).date())
    }
}

impl From<civil::Date> for Date {
    fn from(date: civil::Date) -> Date {
        // jiff's months and days are 1–12 and 1–31: they fit a `u8`.
        Date { year: i32::from(date.year()), month: date.month().unsigned_abs(), day: date.day().unsigned_abs() }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}
