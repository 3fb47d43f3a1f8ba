//! Single-resource fields, aggregates, the warning catalog, and problem responses.

use completeness::reason::{MorePagesAvailable, ResultLimitReached, SourceUnavailable, VisibilityRestricted};
use completeness::warning::{CatalogProblem, Date};
use completeness::{
    Aggregate, Completeness, Envelope, Field, IncompleteReport, Omission, OmittedFields, Problem, ProblemCode,
    Relation, Scope, StandardReason, WarningCatalog, WarningCode,
};
use serde_json::json;

#[test]
fn omitted_fields_lists_omissions_and_leaves_genuine_nulls_out() {
    let owner_email: Field<String> = Field::Omitted(Omission::NoAccess);
    let description: Field<String> = Field::Null;
    let owner: Field<String> = Field::Filled("dana".into());
    let mut omitted = OmittedFields::default();
    omitted.note("owner_email", &owner_email);
    omitted.note("description", &description);
    omitted.note("owner", &owner);

    assert_eq!(serde_json::to_value(&owner_email).unwrap(), json!(null));
    assert_eq!(serde_json::to_value(&description).unwrap(), json!(null));
    assert_eq!(serde_json::to_value(&owner).unwrap(), json!("dana"));
    assert_eq!(serde_json::to_value(&omitted).unwrap(), json!({"owner_email": "NO_ACCESS"}));

    let back: OmittedFields = serde_json::from_value(json!({"owner_email": "NO_ACCESS"})).unwrap();
    assert_eq!(back.restore::<String>("owner_email", None), Field::Omitted(Omission::NoAccess));
    assert_eq!(back.restore::<String>("description", None), Field::Null, "a null not listed is a genuine null");
    assert_eq!(back.restore("owner", Some("dana".to_owned())), Field::Filled("dana".into()));
    // Listed and sent with a value: the listing is believed, it claims less.
    let contradicted = back.restore("owner_email", Some("a@b".to_owned()));
    assert_eq!(contradicted, Field::Omitted(Omission::NoAccess));
}

#[test]
fn omission_codes_are_stable_and_unknown_ones_are_kept() {
    for (omission, code) in [
        (Omission::NoAccess, "NO_ACCESS"),
        (Omission::SourceFailed, "SOURCE_FAILED"),
        (Omission::NotRequested, "NOT_REQUESTED"),
    ] {
        assert_eq!(omission.as_str(), code);
        assert_eq!(Omission::parse(code), omission);
    }
    assert_eq!(Omission::parse("REDACTED_BY_POLICY"), Omission::Unknown("REDACTED_BY_POLICY".into()));
}

#[test]
fn the_catalog_fails_once_a_code_is_past_its_review_date() {
    let catalog = WarningCatalog::new()
        .entry(WarningCode::StaleIndex, "search-team", "2027-03-01", "audit index lags")
        .entry(WarningCode::PageSizeReduced, "api-team", "2026-06-30", "page sizes are clamped");
    let before = Date::parse("2026-06-30").unwrap();
    assert_eq!(catalog.check(before), Ok(()), "on the review date itself the entry is still valid");
    let after = Date::parse("2026-07-01").unwrap();
    let problems = catalog.check(after).unwrap_err();
    assert_eq!(
        problems,
        vec![CatalogProblem::Overdue {
            code: WarningCode::PageSizeReduced,
            owner: "api-team".into(),
            review_by: Date::parse("2026-06-30").unwrap(),
        }]
    );
    assert!(problems[0].to_string().contains("api-team must review it"));
}

#[test]
fn the_catalog_fails_for_an_emitted_code_without_an_entry() {
    let catalog = WarningCatalog::new().entry(WarningCode::StaleIndex, "search-team", "2027-03-01", "audit index lags");
    assert_eq!(catalog.require([&WarningCode::StaleIndex]), Ok(()));
    assert_eq!(
        catalog.require([&WarningCode::StaleIndex, &WarningCode::DeprecatedField]),
        Err(vec![CatalogProblem::Uncatalogued(WarningCode::DeprecatedField)])
    );
}

#[test]
fn dates_come_from_unix_days_correctly() {
    assert_eq!(Date::from_unix_days(0).to_string(), "1970-01-01");
    assert_eq!(Date::from_unix_days(11_016).to_string(), "2000-02-29");
    assert_eq!(Date::from_unix_days(20_786).to_string(), "2026-11-29");
    assert!(Date::parse("2026-13-01").is_err());
    assert!(Date::parse("yesterday").is_err());
}

fn scope() -> Scope {
    Scope::new("search", "records readable by credential 'admin'")
}

#[test]
fn demanding_completeness_of_a_visibility_restricted_result_is_403() {
    let c: Completeness<StandardReason> = Completeness::incomplete(scope(), ResultLimitReached::new(50, "narrow"))
        .with_reason(VisibilityRestricted::new());
    let problem = Problem::complete_result_unavailable(&IncompleteReport::of(&c));
    assert_eq!(problem.status(), 403, "visibility wins over the result limit");
    assert_eq!(problem.code(), &ProblemCode::CompleteResultUnavailable);
    let body = serde_json::to_value(&problem).unwrap();
    assert_eq!(body["incomplete_reasons"][1]["code"], "VISIBILITY_RESTRICTED");
    assert_eq!(body["type"], "urn:completeness:problem:complete-result-unavailable");
}

#[test]
fn demanding_completeness_of_a_capped_result_is_422() {
    let c: Completeness<StandardReason> = Completeness::incomplete(scope(), SourceUnavailable::new("legacy"))
        .with_reason(ResultLimitReached::new(50, "narrow"));
    assert_eq!(Problem::complete_result_unavailable(&IncompleteReport::of(&c)).status(), 422);
}

#[test]
fn demanding_completeness_of_a_failed_source_is_503_with_retry_after_when_known() {
    let unknown: Completeness<StandardReason> = Completeness::incomplete(scope(), SourceUnavailable::new("legacy"));
    let problem = Problem::complete_result_unavailable(&IncompleteReport::of(&unknown));
    assert_eq!((problem.status(), problem.retry_after()), (503, None));
    let known: Completeness<StandardReason> =
        Completeness::incomplete(scope(), SourceUnavailable::new("legacy").retry_after(5));
    let problem = Problem::complete_result_unavailable(&IncompleteReport::of(&known));
    assert_eq!((problem.status(), problem.retry_after()), (503, Some(5)));
}

/// A reason relayed from upstream without a kind this server knows is the most cautious kind
/// (contract §3.4), as a visibility reason is: no retry fixes it.
#[test]
fn demanding_completeness_of_a_reason_of_no_known_kind_is_403() {
    let mut wire = serde_json::to_value(Envelope::<String>::complete(vec![], scope())).unwrap();
    wire["complete"] = json!(false);
    wire["status"] = json!("partial");
    wire["truncated"] = json!(true);
    wire["incomplete_reasons"] = json!([{"code": "REGION_DRAINING", "message": "A region is draining."}]);
    let relayed: Envelope<String> = serde_json::from_value(wire).unwrap();
    let problem = Problem::complete_result_unavailable(&IncompleteReport::of(&relayed.completeness));
    assert_eq!(problem.status(), 403);
}

#[test]
fn the_first_reason_with_a_recovery_chooses_the_continuation() {
    let c: Completeness<StandardReason> = Completeness::incomplete(scope(), VisibilityRestricted::new())
        .with_reason(ResultLimitReached::new(50, "add a tenant filter"))
        .with_reason(MorePagesAvailable::new("c1.next"));
    assert_eq!(c.continuation().map(|k| k.kind()), Some("narrow_query"));
    assert_eq!(c.next_cursor(), Some("c1.next"), "next_cursor still follows MORE_PAGES_AVAILABLE");
}

/// A problem names each member once (contract §5.4): an extension named like a head member
/// is not taken, and a standard code keeps its title; a service's own code written in its code
/// equals the same code read from the wire.
#[test]
fn a_problem_head_cannot_be_overwritten_or_given_twice() {
    let problem = Problem::new(ProblemCode::CursorExpired, "expired")
        .with_extension("status", 200)
        .with_extension("code", "OK")
        .with_extension("type", "about:blank")
        .with_title("Fine")
        .with_extension("snapshot", "s-9");
    let text = serde_json::to_string(&problem).unwrap();
    assert_eq!(text.matches(r#""code":"#).count(), 1, "{text}");
    assert_eq!(text.matches(r#""status":"#).count(), 1, "{text}");
    assert_eq!(text.matches(r#""type":"#).count(), 1, "{text}");
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!((body["status"].clone(), body["code"].clone()), (json!(410), json!("CURSOR_EXPIRED")));
    assert_eq!(body["title"], "Cursor expired", "{text}");
    assert_eq!(body["snapshot"], "s-9", "other extensions are taken");
    assert_eq!(ProblemCode::custom("SHARD_DRAINING"), ProblemCode::parse("SHARD_DRAINING"));
    assert_eq!(ProblemCode::custom("NOT_FOUND"), ProblemCode::NotFound, "a standard name is the standard code");
    assert!(ProblemCode::custom("SHARD_DRAINING").is_bounded() && !ProblemCode::parse("SHARD_DRAINING").is_bounded());
}

/// A code of the service's own is SCREAMING_SNAKE_CASE (contract §7): written as a constant,
/// another is a compile error; built at run time, a panic (the code is the service's, never a
/// client's). Before, `custom("my code")` wrote a `type` that is no URI.
#[test]
fn a_problem_code_of_the_services_own_is_screaming_snake_case() {
    const DRAINING: ProblemCode = ProblemCode::custom("SHARD_DRAINING");
    const NOT_FOUND: ProblemCode = ProblemCode::custom("NOT_FOUND");
    assert_eq!(DRAINING.as_str(), "SHARD_DRAINING");
    assert_eq!(NOT_FOUND, ProblemCode::NotFound);
    for bad in ["my code", "", "Not-Snake", "shard_draining", "_DRAINING"] {
        let built = std::panic::catch_unwind(|| ProblemCode::custom(bad));
        assert!(built.is_err(), "{bad:?} is taken as a code");
    }
}

#[test]
fn a_problem_code_of_the_services_own_carries_the_title_it_is_given() {
    let generic = Problem::new(ProblemCode::parse("METHOD_NOT_ALLOWED"), "not here").with_status(405);
    assert_eq!(generic.title(), "Request failed", "a code the runtime does not know has a generic title");
    let titled = generic.with_title("Method not allowed");
    let body = serde_json::to_value(&titled).unwrap();
    assert_eq!(body["title"], "Method not allowed");
    assert_eq!(body["type"], "urn:completeness:problem:method-not-allowed");
    assert_eq!(body["status"], 405);
    let back: Problem = serde_json::from_value(body).unwrap();
    assert_eq!(back, titled, "a client reads the title back");
}

/// A problem is never sent with a success status, nor one a client would not read as an
/// answer: `with_status` takes error statuses only and keeps the code's own otherwise.
#[test]
fn a_problem_keeps_an_error_status() {
    for refused in [100_u16, 200, 204, 302, 399, 600, 0] {
        let problem = Problem::new(ProblemCode::InvalidCursor, "bad").with_status(refused);
        assert_eq!(problem.status(), 400, "{refused} is not an error status");
        let response = axum::response::IntoResponse::into_response(problem);
        assert_eq!(response.status().as_u16(), 400, "{refused}: the response keeps the code's status");
    }
    for taken in [400_u16, 409, 499, 500, 599] {
        assert_eq!(Problem::new(ProblemCode::InvalidCursor, "bad").with_status(taken).status(), taken);
    }
}

/// An aggregate's value may not be named like a member of the contract: it would be written
/// over one of the aggregate's own, or read as a collection's (`evidence`), and the answer could
/// not be read back as sent (contract §2.1, §2.6).
#[test]
fn an_aggregate_value_named_like_one_of_its_members_is_refused_where_it_is_built() {
    let block = || Completeness::<StandardReason>::complete(Scope::new("accounts", "all"));
    let members =
        ["status", "complete", "truncated", "incomplete_reasons", "relation", "scope", "warnings", "page", "evidence"];
    for member in members {
        let built = std::panic::catch_unwind(|| Aggregate::new(member, 3_u64, Relation::Exact, block()));
        let message = built.err().and_then(|e| e.downcast::<String>().ok()).map(|m| *m).unwrap_or_default();
        assert!(message.contains(&format!("`{member}` is a member of the contract")), "{member}: {message:?}");
    }
    let by_status = Aggregate::new("by_status", json!({"open": 3}), Relation::Exact, block());
    let read: Aggregate<serde_json::Value> = serde_json::from_value(serde_json::to_value(&by_status).unwrap()).unwrap();
    assert_eq!(read.name(), "by_status");
    assert_eq!(read.value(), &json!({"open": 3}));
}

/// Two problem codes written alike are equal, and so are their statuses and titles, however
/// each was built: `Other("CURSOR_EXPIRED")` (read by an older path, or built by hand) is 410
/// as `CursorExpired` is, not the 400 of a code this version does not know.
#[test]
fn a_problem_code_written_as_a_standard_one_has_its_status_and_title() {
    use completeness::ProblemCode;
    for known in ProblemCode::KNOWN {
        let other = ProblemCode::Other(known.as_str().to_owned());
        assert_eq!(other, *known);
        assert_eq!((other.status(), other.title()), (known.status(), known.title()), "{}", known.as_str());
    }
    let own = ProblemCode::Other("ACCOUNT_ARCHIVED".to_owned());
    assert_eq!((own.status(), own.title()), (400, "Request failed"));
}

/// An omission is its code: one built by hand with a standard code's text is that code.
#[test]
fn an_omission_written_as_a_standard_one_is_that_one() {
    use completeness::Omission;
    for known in Omission::KNOWN {
        let unknown = Omission::Unknown(known.as_str().to_owned());
        assert_eq!(unknown, known);
        assert_eq!(unknown.cmp(&known), std::cmp::Ordering::Equal);
    }
    assert_ne!(Omission::Unknown("REDACTED".to_owned()), Omission::NoAccess);
}
