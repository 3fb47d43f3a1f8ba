//! Checks every invariant of DESIGN §2.1 on any JSON collection response.

use serde_json::{Map, Value};

use crate::contract::completeness::{Completeness, Shape};
use crate::contract::reason::{ReasonCode, StandardReason};

/// Panics, listing every violation, unless `response` keeps the collection contract
/// of DESIGN §2.1. Use it in any service's tests on the JSON it serves.
///
/// ```
/// use completeness_runtime::testing::assert_envelope_invariants;
/// use completeness_runtime::{Envelope, Scope};
/// use completeness_runtime::reason::VisibilityRestricted;
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let page: Envelope<u32> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
/// assert_envelope_invariants(&serde_json::to_value(&page).unwrap());
/// ```
#[track_caller]
pub fn assert_envelope_invariants(response: &Value) {
    if let Err(violations) = check_envelope_invariants(response) {
        panic!(
            "the response breaks the completeness contract:\n  - {}\nresponse: {response}",
            violations.join("\n  - ")
        );
    }
}

/// Every violation of DESIGN §2.1 in `response`, or `Ok(())`.
pub fn check_envelope_invariants(response: &Value) -> Result<(), Vec<String>> {
    let Some(object) = response.as_object() else {
        return Err(vec!["a collection response must be a JSON object".to_owned()]);
    };
    let mut v = Vec::new();
    for member in Shape::Collection.members() {
        if !object.contains_key(*member) {
            v.push(format!("member `{member}` is missing (members are never omitted; null where they do not apply)"));
        }
    }
    let data: Vec<(&String, &Value)> =
        object.iter().filter(|(k, _)| !Shape::Collection.members().contains(&k.as_str())).collect();
    if data.is_empty() {
        v.push("there is no data member (e.g. `items`)".to_owned());
    }

    let complete = match object.get("complete") {
        Some(Value::Bool(b)) => Some(*b),
        other => {
            v.push(format!("`complete` must be a boolean, got {}", show(other)));
            None
        }
    };
    let codes = check_reasons(object.get("incomplete_reasons"), &mut v);
    let has = |code: ReasonCode| codes.contains(&code);

    if let (Some(complete), Some(codes)) = (complete, Some(&codes)) {
        let reasons_present = object.get("incomplete_reasons").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
        if complete == reasons_present {
            v.push(format!(
                "`complete` is {complete} but `incomplete_reasons` is {}",
                if reasons_present { "not empty" } else { "empty" }
            ));
        }
        let status = if complete { "complete" } else { "partial" };
        if object.get("status").and_then(Value::as_str) != Some(status) {
            v.push(format!(
                "`status` must be \"{status}\" when `complete` is {complete}, got {}",
                show(object.get("status"))
            ));
        }
        let truncated = codes.iter().any(ReasonCode::is_truncation);
        if object.get("truncated").and_then(Value::as_bool) != Some(truncated) {
            v.push(format!(
                "`truncated` must be {truncated} (a truncation reason is {}present), got {}",
                if truncated { "" } else { "not " },
                show(object.get("truncated"))
            ));
        }
        if complete && !is_null(object.get("continuation")) {
            v.push("`continuation` must be null when `complete` is true".to_owned());
        }
        if !complete && !is_null(object.get("evidence")) {
            v.push("`evidence` must be null when `complete` is false".to_owned());
        }
    }

    let next_cursor = match object.get("next_cursor") {
        Some(Value::String(cursor)) if !cursor.is_empty() => Some(cursor.as_str()),
        Some(Value::Null) | None => None,
        Some(other) => {
            v.push(format!("`next_cursor` must be a non-empty string or null, got {other}"));
            None
        }
    };
    if has(ReasonCode::MorePagesAvailable) && next_cursor.is_none() {
        v.push("MORE_PAGES_AVAILABLE is present but `next_cursor` is null".to_owned());
    }
    if next_cursor.is_some() && !has(ReasonCode::MorePagesAvailable) && !has(ReasonCode::ClientLimitReached) {
        v.push("`next_cursor` is set without MORE_PAGES_AVAILABLE (or a resumable CLIENT_LIMIT_REACHED)".to_owned());
    }
    check_continuation(object.get("continuation"), &codes, next_cursor, &mut v);
    check_page(object.get("page"), &data, next_cursor.is_some() && has(ReasonCode::MorePagesAvailable), &mut v);
    check_scope(object.get("scope"), &mut v);
    check_warnings(object.get("warnings"), &mut v);
    if !matches!(object.get("evidence"), Some(Value::String(_)) | Some(Value::Null) | None) {
        v.push("`evidence` must be a string or null".to_owned());
    }

    if v.is_empty() {
        let mut copy = object.clone();
        if let Err(e) = Completeness::<StandardReason>::take_from::<serde_json::Error>(&mut copy, Shape::Collection) {
            v.push(format!("the strict deserializer rejects it: {e}"));
        }
    }
    if v.is_empty() { Ok(()) } else { Err(v) }
}

fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "nothing".to_owned(), Value::to_string)
}

fn is_null(value: Option<&Value>) -> bool {
    matches!(value, None | Some(Value::Null))
}

fn is_u64(object: &Map<String, Value>, name: &str) -> bool {
    object.get(name).is_some_and(Value::is_u64)
}

fn is_str(object: &Map<String, Value>, name: &str) -> bool {
    object.get(name).is_some_and(Value::is_string)
}

/// Checks each reason object and returns the codes.
fn check_reasons(reasons: Option<&Value>, v: &mut Vec<String>) -> Vec<ReasonCode> {
    let Some(Value::Array(reasons)) = reasons else {
        v.push("`incomplete_reasons` must be an array".to_owned());
        return Vec::new();
    };
    let mut codes = Vec::new();
    for (i, reason) in reasons.iter().enumerate() {
        let Some(r) = reason.as_object() else {
            v.push(format!("incomplete_reasons[{i}] must be an object"));
            continue;
        };
        let Some(code) = r.get("code").and_then(Value::as_str).filter(|c| is_screaming_snake(c)) else {
            v.push(format!("incomplete_reasons[{i}] needs a SCREAMING_SNAKE_CASE string `code`"));
            continue;
        };
        if !is_str(r, "message") {
            v.push(format!("incomplete_reasons[{i}] ({code}) needs a string `message`"));
        }
        let code = ReasonCode::parse(code);
        let missing: &[&str] = match code {
            ReasonCode::ResultLimitReached if !is_u64(r, "limit") => &["limit"],
            ReasonCode::TimeBudgetExceeded if !is_u64(r, "budget_ms") || !progress_ok(r.get("progress")) => {
                &["budget_ms", "progress {completed, planned, unit}"]
            }
            ReasonCode::SourceUnavailable if !is_str(r, "source") => &["source"],
            ReasonCode::QuotaExhausted if !is_u64(r, "retry_after_seconds") => &["retry_after_seconds"],
            ReasonCode::ClientLimitReached
                if !is_u64(r, "limit")
                    || !matches!(r.get("limit_kind").and_then(Value::as_str), Some("pages" | "items" | "deadline")) =>
            {
                &["limit_kind (pages | items | deadline)", "limit"]
            }
            ReasonCode::SnapshotExpired if !is_str(r, "snapshot") => &["snapshot"],
            _ => &[],
        };
        if !missing.is_empty() {
            v.push(format!("incomplete_reasons[{i}] ({code}) needs {}", missing.join(" and ")));
        }
        if code == ReasonCode::VisibilityRestricted && r.len() > 2 {
            v.push(format!(
                "incomplete_reasons[{i}] (VISIBILITY_RESTRICTED) must not name or count hidden records; it has {}",
                r.keys().filter(|k| *k != "code" && *k != "message").cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        codes.push(code);
    }
    codes
}

fn is_screaming_snake(code: &str) -> bool {
    !code.is_empty() && code.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn progress_ok(progress: Option<&Value>) -> bool {
    let Some(Value::Object(p)) = progress else { return false };
    is_u64(p, "completed")
        && is_str(p, "unit")
        && (matches!(p.get("planned"), Some(Value::Null)) || is_u64(p, "planned"))
}

/// The continuation kinds that recover from `code`; `None` for a code whose recovery is unknown.
fn recovers(code: &ReasonCode) -> Option<&'static [&'static str]> {
    Some(match code {
        ReasonCode::MorePagesAvailable | ReasonCode::ClientLimitReached => &["next_cursor"],
        ReasonCode::ResultLimitReached => &["narrow_query"],
        ReasonCode::TimeBudgetExceeded => &["retry_with_deadline"],
        ReasonCode::SourceUnavailable | ReasonCode::QuotaExhausted => &["retry_after"],
        ReasonCode::SnapshotExpired => &["restart"],
        ReasonCode::VisibilityRestricted => &[],
        ReasonCode::Unknown(_) => return None,
    })
}

/// True for codes that always have a recovery (DESIGN §2.2).
fn always_recoverable(code: &ReasonCode) -> bool {
    matches!(code, ReasonCode::MorePagesAvailable | ReasonCode::QuotaExhausted | ReasonCode::SnapshotExpired)
}

fn check_continuation(continuation: Option<&Value>, codes: &[ReasonCode], cursor: Option<&str>, v: &mut Vec<String>) {
    let kind = match continuation {
        None | Some(Value::Null) => {
            if let Some(code) = codes.iter().find(|c| always_recoverable(c)) {
                v.push(format!("`continuation` is null although {code} always has a recovery path"));
            }
            return;
        }
        Some(Value::Object(c)) => {
            let kind = c.get("kind").and_then(Value::as_str).unwrap_or("");
            let ok = match kind {
                "next_cursor" => is_str(c, "cursor") && c.len() == 2,
                "retry_after" => is_u64(c, "seconds") && c.len() == 2,
                "retry_with_deadline" => is_u64(c, "minimum_seconds") && c.len() == 2,
                "narrow_query" => is_str(c, "hint") && c.len() == 2,
                "restart" => is_str(c, "reason") && c.len() == 2,
                _ => false,
            };
            if !ok {
                v.push(format!("`continuation` is not one of the kinds of DESIGN §2.3: {}", Value::Object(c.clone())));
                return;
            }
            if kind == "next_cursor" && c.get("cursor").and_then(Value::as_str) != cursor {
                v.push("`continuation.cursor` must equal `next_cursor`".to_owned());
            }
            kind
        }
        Some(other) => {
            v.push(format!("`continuation` must be an object or null, got {other}"));
            return;
        }
    };
    // The continuation is the recovery of the first reason that has one.
    let matching = codes.iter().position(|c| recovers(c).is_none_or(|kinds| kinds.contains(&kind)));
    match matching {
        None => v.push(format!("`continuation` of kind {kind} recovers from none of the reasons")),
        Some(at) => {
            if let Some(earlier) = codes[..at].iter().find(|c| always_recoverable(c)) {
                v.push(format!(
                    "`continuation` must be the recovery of the first reason that has one ({earlier}), not {kind}"
                ));
            }
        }
    }
}

fn check_page(page: Option<&Value>, data: &[(&String, &Value)], more_pages: bool, v: &mut Vec<String>) {
    let p = match page {
        None | Some(Value::Null) => return,
        Some(Value::Object(p)) => p,
        Some(other) => return v.push(format!("`page` must be an object or null, got {other}")),
    };
    for member in ["returned", "requested_size", "applied_size", "ordering", "snapshot", "cursor"] {
        if !p.contains_key(member) {
            v.push(format!("`page.{member}` is missing"));
        }
    }
    if !is_u64(p, "returned") || !is_u64(p, "applied_size") || !is_str(p, "ordering") {
        v.push("`page` needs numeric `returned` and `applied_size` and a string `ordering`".to_owned());
    }
    let items = data.iter().find(|(k, _)| *k == "items").or_else(|| data.iter().find(|(_, d)| d.is_array()));
    if let (Some((name, Value::Array(items))), Some(returned)) = (items, p.get("returned").and_then(Value::as_u64))
        && returned != items.len() as u64
    {
        v.push(format!("`page.returned` is {returned} but `{name}` holds {}", items.len()));
    }
    match p.get("cursor") {
        Some(Value::Null) | None if more_pages => v.push("`page.cursor` must describe `next_cursor`".to_owned()),
        Some(Value::Object(c)) => {
            let bindings_ok = c
                .get("invalidated_by")
                .and_then(Value::as_array)
                .is_some_and(|b| b.iter().all(|x| matches!(x.as_str(), Some("filters" | "ordering" | "credential"))));
            if !c.get("freezes_snapshot").is_some_and(Value::is_boolean) || !is_str(c, "expires_at") || !bindings_ok {
                v.push("`page.cursor` needs `freezes_snapshot`, `expires_at` and `invalidated_by`".to_owned());
            }
        }
        _ => {}
    }
}

fn check_scope(scope: Option<&Value>, v: &mut Vec<String>) {
    let Some(Value::Object(s)) = scope else {
        return v.push("`scope` must be an object".to_owned());
    };
    if !is_str(s, "resource") || !is_str(s, "visibility") {
        v.push("`scope` needs string `resource` and `visibility`".to_owned());
    }
    if !matches!(s.get("snapshot"), Some(Value::String(_)) | Some(Value::Null)) {
        v.push("`scope.snapshot` must be a string or null".to_owned());
    }
    if !s.get("filters").is_some_and(Value::is_object) {
        v.push("`scope.filters` must be an object".to_owned());
    }
}

fn check_warnings(warnings: Option<&Value>, v: &mut Vec<String>) {
    let Some(Value::Array(warnings)) = warnings else {
        return v.push("`warnings` must be an array".to_owned());
    };
    for (i, w) in warnings.iter().enumerate() {
        let ok = w.as_object().is_some_and(|w| {
            w.get("code").and_then(Value::as_str).is_some_and(is_screaming_snake) && is_str(w, "message")
        });
        if !ok {
            v.push(format!("warnings[{i}] needs a SCREAMING_SNAKE_CASE `code` and a string `message`"));
        }
    }
}
