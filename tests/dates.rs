//! The wire format of dates and times does not change: RFC 3339 timestamps of cursors and
//! evidence, review-by dates of warning catalogs and the example's timestamps, checked against
//! golden values rendered by the original implementation (`tests/fixtures/dates/golden.json`).

use completeness::cursor::rfc3339;
use completeness::warning::Date;
use serde_json::Value;

use crate::e2e_support::service::clock as example_clock;

fn golden() -> Value {
    serde_json::from_str(include_str!("fixtures/dates/golden.json")).expect("the golden file is JSON")
}

fn pairs<'a>(golden: &'a Value, name: &str) -> &'a [Value] {
    let pairs = golden[name].as_array().unwrap_or_else(|| panic!("golden file lacks {name}"));
    assert!(!pairs.is_empty(), "{name} is empty");
    pairs
}

#[test]
fn cursor_and_evidence_times_render_as_before() {
    let golden = golden();
    for pair in pairs(&golden, "rfc3339_from_unix_ms") {
        let ms = pair[0].as_u64().unwrap();
        assert_eq!(rfc3339(ms), pair[1].as_str().unwrap(), "rfc3339({ms})");
    }
}

#[test]
fn the_example_renders_its_timestamps_as_before() {
    let golden = golden();
    for pair in pairs(&golden, "example_rfc3339_from_unix_seconds") {
        let seconds = pair[0].as_i64().unwrap();
        assert_eq!(example_clock::rfc3339(seconds), pair[1].as_str().unwrap(), "rfc3339({seconds} s)");
    }
}

#[test]
fn dates_from_unix_days_render_as_before() {
    let golden = golden();
    for pair in pairs(&golden, "date_from_unix_days") {
        let days = pair[0].as_i64().unwrap();
        assert_eq!(Date::from_unix_days(days).to_string(), pair[1].as_str().unwrap(), "day {days}");
    }
}

#[test]
fn review_by_dates_parse_and_render_as_before() {
    let golden = golden();
    for case in pairs(&golden, "date_parse_valid") {
        let text = case[0].as_str().unwrap();
        let date = Date::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let fields = &case[1];
        assert_eq!(
            (i64::from(date.year), u64::from(date.month), u64::from(date.day)),
            (fields[0].as_i64().unwrap(), fields[1].as_u64().unwrap(), fields[2].as_u64().unwrap()),
            "fields of {text}"
        );
        assert_eq!(date.to_string(), case[2].as_str().unwrap());
    }
    for text in pairs(&golden, "date_parse_invalid") {
        let text = text.as_str().unwrap();
        assert!(Date::parse(text).is_err(), "'{text}' must be refused");
    }
}

#[test]
fn a_review_by_date_the_calendar_lacks_is_refused() {
    // The hand-written parser took any day up to 31; a catalog typo must not pass silently.
    for text in ["2026-02-29", "2026-04-31", "2026-6-30", "+2026-06-30", "2026-06-30T00:00"] {
        assert!(Date::parse(text).is_err(), "'{text}' must be refused");
    }
    assert_eq!(Date::parse("2028-02-29").unwrap().to_string(), "2028-02-29");
}
