//! The media types of the wire contract (contract §5.4).

/// The media type of problem responses.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// A `Content-Type` value without its parameters.
fn essence(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or_default().trim()
}

/// True when a `Content-Type` value declares JSON as axum's `Json` reads it:
/// `application/json`, or an `application/` type with the structured syntax suffix `+json`
/// (RFC 6839, `application/problem+json`), with any parameters, compared without regard to
/// case.
pub(crate) fn declares_json(content_type: &str) -> bool {
    let Some((kind, subtype)) = essence(content_type).split_once('/') else {
        return false;
    };
    let suffixed = subtype.len() > "+json".len()
        && subtype.get(subtype.len() - "+json".len()..).is_some_and(|suffix| suffix.eq_ignore_ascii_case("+json"));
    kind.eq_ignore_ascii_case("application") && (subtype.eq_ignore_ascii_case("json") || suffixed)
}

/// True when a `Content-Type` value declares a problem (`application/problem+json`), which is
/// never an answer (contract §5.4).
pub(crate) fn declares_problem(content_type: &str) -> bool {
    essence(content_type).eq_ignore_ascii_case(PROBLEM_JSON)
}

/// True when a `Content-Type` value declares a JSON answer: JSON ([`declares_json`]) that is
/// not a problem ([`declares_problem`]).
#[cfg(feature = "axum")]
pub(crate) fn declares_answer(content_type: &str) -> bool {
    declares_json(content_type) && !declares_problem(content_type)
}

/// A `Retry-After` value (RFC 9110 section 10.2.3) as the wait it asks for from `now`: its
/// delta-seconds, or the time from `now` to its HTTP date (none for a date already past). `None`
/// for a value that is neither. The framework sends seconds; a service may send a date.
#[cfg(any(feature = "client", feature = "faults"))]
pub(crate) fn retry_after_wait(value: &str, now: std::time::SystemTime) -> Option<std::time::Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse() {
        return Some(std::time::Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or_default())
}

/// [`retry_after_wait`] in whole seconds, rounded up: waiting them never asks before a date.
#[cfg(any(feature = "client", feature = "faults"))]
pub(crate) fn retry_after_seconds(value: &str, now: std::time::SystemTime) -> Option<u64> {
    retry_after_wait(value, now).map(|wait| wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
}

#[cfg(test)]
mod tests {
    use super::{declares_json, declares_problem};

    #[test]
    fn json_is_application_json_or_an_application_json_suffix_in_any_case_with_parameters() {
        for json in
            ["application/json", "Application/JSON; charset=utf-8", "application/problem+json", "application/x+JSON"]
        {
            assert!(declares_json(json), "{json}");
        }
        for other in [
            "text/plain",
            "application/jsonp",
            "application/json-seq",
            "json",
            "",
            "+json",
            "a+json",
            "text/x+json",
            "application/+json",
        ] {
            assert!(!declares_json(other), "{other}");
        }
        assert!(declares_problem("Application/Problem+JSON; charset=utf-8"));
        assert!(!declares_problem("application/json"));
    }
}
