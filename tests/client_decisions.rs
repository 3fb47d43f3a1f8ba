//! `decide` implements the rules for agents of contract §8.

use completeness::ApprovalRequest;
use completeness::client::RecoveryOption;
use completeness::client::explain::{page_verdict, verdict};
use completeness::reason::{
    ClientLimitReached, LimitKind, MorePagesAvailable, Progress, ResultLimitReached, TimeBudgetExceeded,
    VisibilityRestricted,
};
use completeness::warning::StaleIndex;
use completeness::{Decision, Envelope, Intent, ReasonCode, Scope, StandardReason, Warning, WarningCode, decide};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    case: String,
    response: Value,
    intent: Intent,
    expected_decision: Decision,
}

fn fixture() -> Vec<Case> {
    let text = include_str!("fixtures/agent_decisions.json");
    serde_json::from_str::<Fixture>(text).expect("the fixture parses").cases
}

fn scope() -> Scope {
    Scope::new("service_accounts", "service accounts readable by credential 'admin'").with_snapshot("s-7")
}

#[test]
fn every_fixture_case_gets_its_expected_decision() {
    let cases = fixture();
    assert!(cases.len() >= 24, "the fixture needs at least 24 cases, has {}", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let envelope: Envelope<Value, StandardReason> = serde_json::from_value(case.response.clone())
            .unwrap_or_else(|e| panic!("case '{}': the strict deserializer rejects the response: {e}", case.case));
        let decision = decide(&envelope, case.intent);
        if decision != case.expected_decision {
            wrong.push(format!("'{}': expected {:?}, got {decision:?}", case.case, case.expected_decision));
        }
    }
    assert!(wrong.is_empty(), "wrong decisions:\n{}", wrong.join("\n"));
}

#[test]
fn fixture_covers_every_reason_code_every_warning_code_every_intent_and_all_four_states() {
    let cases = fixture();
    let mut codes = std::collections::BTreeSet::new();
    let mut warnings = std::collections::BTreeSet::new();
    let mut states = std::collections::BTreeSet::new();
    let mut intents = std::collections::BTreeSet::new();
    for case in &cases {
        let response = &case.response;
        for reason in response["incomplete_reasons"].as_array().unwrap() {
            codes.insert(ReasonCode::parse(reason["code"].as_str().unwrap()));
        }
        for warning in response["warnings"].as_array().unwrap() {
            warnings.insert(WarningCode::parse(warning["code"].as_str().unwrap()));
        }
        let empty = response["items"].as_array().unwrap().is_empty();
        states.insert((response["complete"].as_bool().unwrap(), empty));
        intents.insert(format!("{:?}", case.intent));
    }
    for code in ReasonCode::KNOWN {
        assert!(codes.contains(code), "no case covers {code}");
    }
    assert!(codes.iter().any(|c| matches!(c, ReasonCode::Custom(_))), "no case covers an unknown code");
    for code in WarningCode::KNOWN {
        assert!(warnings.contains(code), "no case covers the warning {code}");
    }
    assert!(warnings.iter().any(|c| !c.is_standard()), "no case covers an unknown warning code");
    assert_eq!(states.len(), 4, "the four states are not all covered: {states:?}");
    assert_eq!(intents.len(), 4, "not every intent is covered: {intents:?}");
}

#[test]
fn empty_incomplete_page_never_authorizes_cleanup() {
    for reason in [
        StandardReason::from(MorePagesAvailable::new("c2")),
        VisibilityRestricted::new().into(),
        ResultLimitReached::new(50, "add a tenant").into(),
        TimeBudgetExceeded::new(100, Progress::new(0, None, "rows")).into(),
        ClientLimitReached::new(LimitKind::Items, 10).resume_with("c9").into(),
    ] {
        let page: Envelope<String> = Envelope::incomplete(vec![], scope(), reason.clone());
        assert_eq!(decide(&page, Intent::Mutate), Decision::RefuseOrRequestReview, "{reason:?}");
        assert_ne!(decide(&page, Intent::ClaimAbsence), Decision::Proceed, "{reason:?}");
    }
}

#[test]
fn empty_first_page_with_more_pages_continues_the_search_then_refuses_the_mutation() {
    let first: Envelope<String> = Envelope::incomplete(vec![], scope(), MorePagesAvailable::new("c2"));
    assert_eq!(decide(&first, Intent::ClaimAbsence), Decision::ContinueSearch);
    assert_eq!(decide(&first, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[test]
fn complete_and_empty_is_evidence_of_absence() {
    let page: Envelope<String> = Envelope::complete(vec![], scope());
    assert_eq!(decide(&page, Intent::ClaimAbsence), Decision::Proceed);
}

/// The last page of a traversal, reached with a cursor, says so (`page.resumed`): complete, it
/// ends the traversal, but its items are only the tail, so it backs no claim of absence, empty
/// or not. The first page with the same facts does.
#[test]
fn a_complete_page_reached_with_a_cursor_is_no_evidence_of_absence() {
    let page = |resumed: bool, items: Vec<String>| -> Envelope<String> {
        serde_json::from_value(serde_json::json!({
            "status": "complete", "complete": true, "truncated": false,
            "incomplete_reasons": [], "continuation": null, "next_cursor": null,
            "scope": scope(), "warnings": [], "evidence": "ev1.test",
            "page": {"returned": items.len(), "requested_size": 50, "applied_size": 50,
                     "ordering": "id ascending", "snapshot": "s-7", "cursor": null, "resumed": resumed},
            "items": items,
        }))
        .unwrap()
    };
    for items in [vec![], vec!["sa-000050".to_owned()]] {
        let last = page(true, items.clone());
        assert_eq!(decide(&last, Intent::ClaimAbsence), Decision::RefuseOrRequestReview, "{items:?}");
        assert_eq!(decide(&last, Intent::Report), Decision::Proceed, "it may describe what it holds");
        assert_eq!(decide(&last, Intent::Investigate), Decision::Proceed);
        // The evidence is the server's, of the whole traversal, and the server checks it.
        assert_eq!(decide(&last, Intent::Mutate), Decision::Proceed);
        let first = page(false, items.clone());
        assert_eq!(decide(&first, Intent::ClaimAbsence), Decision::Proceed, "{items:?}");

        // Its verdict and an approval built on it say so too, as a whole result or as a page
        // (a collection that started from a cursor keeps the tail's `page.resumed`).
        for line in [verdict(&last.completeness, items.len()), page_verdict(&last.completeness, items.len())] {
            assert!(line.contains("with the pages before it"), "{line}");
            assert!(line.contains("as its evidence attests; this page alone proves no absence."), "{line}");
            assert!(!line.contains("exist in"), "{line}");
        }
        let whole = verdict(&first.completeness, items.len());
        assert!(!whole.contains("pages before it"), "{whole}");
        let approval = ApprovalRequest::new("archive", "all", &last);
        assert!(approval.resumed);
        assert!(matches!(&approval.options[0], RecoveryOption::ReadAgain { why } if why.contains("first page")));
        assert!(approval.to_string().contains("covers the scope only with the pages before it"), "{approval}");
        let approval = ApprovalRequest::new("archive", "all", &first);
        assert_eq!(approval.options, [RecoveryOption::Abandon]);
        assert!(approval.to_string().contains("The evidence covers the whole scope."), "{approval}");
    }
}

#[test]
fn stale_index_on_a_complete_result_allows_a_report_but_not_a_mutation() {
    let page: Envelope<String> =
        Envelope::complete(vec!["sa-1".into()], scope()).with_warning_for_test(Warning::from(StaleIndex::new("audit")));
    assert_eq!(decide(&page, Intent::Report), Decision::Proceed);
    assert_eq!(decide(&page, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[test]
fn a_mutation_needs_an_evidence_token_even_on_a_complete_result() {
    let without: Envelope<String> = Envelope::complete(vec!["sa-1".into()], scope());
    assert_eq!(decide(&without, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[test]
fn partial_items_may_drive_a_read_only_investigation_only() {
    let page: Envelope<String> = Envelope::incomplete(vec!["sa-1".into()], scope(), VisibilityRestricted::new());
    assert_eq!(decide(&page, Intent::Investigate), Decision::Proceed);
    assert_eq!(decide(&page, Intent::Report), Decision::RefuseOrRequestReview);
    assert_eq!(decide(&page, Intent::Mutate), Decision::RefuseOrRequestReview);
}

#[test]
fn a_continuation_is_never_invented_without_a_cursor() {
    let stopped: Envelope<String> = Envelope::incomplete(vec![], scope(), ClientLimitReached::new(LimitKind::Pages, 0));
    assert_eq!(stopped.completeness.next_cursor(), None);
    assert_eq!(decide(&stopped, Intent::Report), Decision::RetryLater);
}

#[test]
fn unknown_reason_codes_count_as_incomplete() {
    let json = serde_json::json!({
        "status": "partial", "complete": false, "truncated": false, "items": [],
        "incomplete_reasons": [{"code": "FUTURE_REASON", "message": "from a newer server"}],
        "continuation": null, "next_cursor": null, "page": null,
        "scope": {"resource": "service_accounts", "visibility": "all", "snapshot": null, "filters": {}},
        "warnings": [], "evidence": null
    });
    let page: Envelope<Value> = serde_json::from_value(json).unwrap();
    assert!(!page.is_complete());
    for intent in [Intent::Report, Intent::ClaimAbsence, Intent::Investigate, Intent::Mutate] {
        assert_eq!(decide(&page, intent), Decision::RefuseOrRequestReview, "{intent:?}");
    }
}

/// Adds a warning to a test envelope.
trait WithWarning {
    fn with_warning_for_test(self, warning: Warning) -> Self;
}

impl<T> WithWarning for Envelope<T> {
    fn with_warning_for_test(mut self, warning: Warning) -> Self {
        self.completeness.push_warning(warning);
        self
    }
}
