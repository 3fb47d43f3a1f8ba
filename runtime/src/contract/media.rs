//! The media types of the wire contract (contract §5.4).

/// True when a `Content-Type` value declares JSON: `application/json` or a structured syntax
/// suffix `+json` (RFC 6839), with any parameters, compared without regard to case.
pub(crate) fn declares_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    let suffix = essence.len().checked_sub("+json".len()).and_then(|at| essence.get(at..));
    essence.eq_ignore_ascii_case("application/json")
        || suffix.is_some_and(|suffix| suffix.eq_ignore_ascii_case("+json"))
}

#[cfg(test)]
mod tests {
    use super::declares_json;

    #[test]
    fn json_is_application_json_or_a_json_suffix_in_any_case_with_parameters() {
        for json in ["application/json", "Application/JSON; charset=utf-8", "application/problem+json", "x/y+JSON"] {
            assert!(declares_json(json), "{json}");
        }
        for other in ["text/plain", "application/jsonp", "application/json-seq", "json", "", "+jso", "éjson"] {
            assert!(!declares_json(other), "{other}");
        }
    }
}
