//! End to end over HTTP: the four states, visibility, the search reasons, require_complete,
//! single-resource omissions and counts of the service_accounts example.

use crate::e2e_support;

use std::time::Duration;

use e2e_support::{Harness, config};
use reqwest::Method;
use serde_json::json;

/// Every inventory page of `first`, concatenated, with the last page's answer.
async fn all_ids(h: &Harness, first: &str, token: &str) -> (Vec<String>, e2e_support::Answer) {
    let mut pages = h.traverse(first, token).await;
    let ids = pages.iter().flat_map(|p| p.ids()).collect();
    (ids, pages.pop().unwrap())
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_four_states_are_all_distinct_on_the_wire() {
    let h = Harness::start(config(120)).await;

    // complete with items: one page holds everything east has
    let full = h.get("/service-accounts?tenant=east&page_size=500", "admin").await;
    assert_eq!(full.status, 200);
    assert_eq!(full.body["complete"], true);
    assert_eq!(full.body["status"], "complete");
    assert!(!full.ids().is_empty());
    assert!(full.body["next_cursor"].is_null() && full.body["continuation"].is_null());
    assert!(full.body["items"].as_array().unwrap().iter().all(|i| i["tenant"] == "east"));

    // complete and empty: nobody owns anything under that name, and admin reads every tenant
    let none = h.get("/service-accounts?owner=nobody-at-all", "admin").await;
    assert_eq!(none.body["complete"], true);
    assert_eq!(none.ids().len(), 0);
    assert_eq!(none.reasons(), Vec::<String>::new());

    // incomplete with items: a page that is not the last
    let page = h.get("/service-accounts?page_size=2", "admin").await;
    assert_eq!(page.body["complete"], false);
    assert_eq!(page.body["truncated"], true);
    assert_eq!(page.ids().len(), 2);
    assert_eq!(page.reasons(), ["MORE_PAGES_AVAILABLE"]);
    assert_eq!(page.body["continuation"]["kind"], "next_cursor");
    assert_eq!(page.body["continuation"]["cursor"], page.body["next_cursor"]);
    assert_eq!(page.body["page"]["cursor"]["freezes_snapshot"], true);

    // incomplete and empty: north asks about south
    let hidden = h.get("/service-accounts?owner=none&tenant=south", "north").await;
    assert_eq!(hidden.status, 200);
    assert_eq!(hidden.body["complete"], false);
    assert_eq!(hidden.body["status"], "partial");
    assert_eq!(hidden.body["truncated"], false);
    assert_eq!(hidden.ids().len(), 0);
    assert_eq!(hidden.reasons(), ["VISIBILITY_RESTRICTED"]);
    assert!(hidden.body["continuation"].is_null(), "no recovery exists for this caller, and null is not complete");
    assert!(hidden.body["evidence"].is_null());
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn north_is_told_about_restricted_visibility_on_every_page_even_when_it_sees_nothing() {
    let h = Harness::start(config(150)).await;
    // Without a tenant filter the scope is every tenant; north reads only its own.
    let pages = h.traverse("/service-accounts?page_size=20", "north").await;
    assert!(pages.len() > 1);
    for page in &pages {
        assert_eq!(page.body["complete"], false);
        assert!(page.reasons().contains(&"VISIBILITY_RESTRICTED".to_owned()));
        assert!(page.body["items"].as_array().unwrap().iter().all(|i| i["tenant"] == "north"));
    }
    let last = pages.last().unwrap();
    assert_eq!(last.reasons(), ["VISIBILITY_RESTRICTED"], "the last page has no more pages, yet is not complete");
    // The empty case: east is nobody's but admin's.
    let east = h.get("/service-accounts?tenant=east", "north").await;
    assert_eq!((east.ids().len(), east.reasons()), (0, vec!["VISIBILITY_RESTRICTED".to_owned()]));
    // Its own tenant alone is complete.
    let (ids, last) = all_ids(&h, "/service-accounts?tenant=north&page_size=500", "north").await;
    assert!(!ids.is_empty());
    assert_eq!(last.body["complete"], true);
    // The count follows the same rule: exact for its own tenant, a lower bound over all.
    let own = h.get("/service-accounts/count?tenant=north", "north").await;
    assert_eq!((own.body["count"].as_u64(), own.body["relation"].as_str()), (Some(ids.len() as u64), Some("exact")));
    let all = h.get("/service-accounts/count", "north").await;
    assert_eq!(all.body["relation"], "lower_bound");
    assert_eq!(all.reasons(), ["VISIBILITY_RESTRICTED"]);
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn an_admin_traversal_and_the_count_agree_exactly() {
    let h = Harness::start(config(200)).await;
    let (ids, last) = all_ids(&h, "/service-accounts?owner=none&page_size=3", "admin").await;
    assert_eq!(last.body["complete"], true);
    let count = h.get("/service-accounts/count?owner=none", "admin").await;
    assert_eq!(count.body["relation"], "exact");
    assert_eq!(count.body["count"].as_u64(), Some(ids.len() as u64));
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, ids, "keyset pages come in id order, each id once");
    // Every unowned account is found, archived ones are not listed.
    for id in &ids {
        let one = h.get(&format!("/service-accounts/{id}"), "admin").await;
        assert_eq!((one.body["owner"].clone(), one.body["archived"].clone()), (json!(null), json!(false)));
    }
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn page_sizes_above_the_maximum_are_clamped_and_say_so() {
    let mut cfg = config(60);
    cfg.max_page_size = 25;
    let h = Harness::start(cfg).await;
    let page = h.get("/service-accounts?page_size=1000", "admin").await;
    assert_eq!(page.status, 200);
    assert_eq!(page.body["page"]["requested_size"], 1000);
    assert_eq!(page.body["page"]["applied_size"], 25);
    assert_eq!(page.ids().len(), 25);
    assert_eq!(page.body["warnings"][0]["code"], "PAGE_SIZE_REDUCED");
    assert_eq!(page.body["warnings"][0]["applied"], 25);
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn search_reports_the_result_cap_with_a_narrowing_continuation_and_completes_when_narrowed() {
    let mut cfg = config(300);
    cfg.result_limit = 10;
    let h = Harness::start(cfg).await;
    let broad = h.get("/search?q=svc-", "admin").await;
    assert_eq!(broad.status, 200);
    assert_eq!(broad.ids().len(), 10);
    assert_eq!(broad.reasons(), ["RESULT_LIMIT_REACHED"]);
    assert_eq!(broad.body["incomplete_reasons"][0]["limit"], 10);
    assert_eq!(broad.body["truncated"], true);
    assert_eq!(broad.body["continuation"]["kind"], "narrow_query");
    assert!(broad.body["page"].is_null());
    // Following the hint: one account's full name.
    let narrow = h.get("/search?q=svc-north-00", "admin").await;
    let name = narrow.body["items"][0]["name"].as_str().unwrap().to_owned();
    let exact = h.get(&format!("/search?q={name}"), "admin").await;
    assert_eq!(exact.body["complete"], true, "{:?}", exact.body);
    assert_eq!(exact.ids().len(), 1);
    // Demanding completeness of the capped search is 422.
    let strict = h.get("/search?q=svc-&require_complete=true", "admin").await;
    strict.assert_problem(422, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(strict.body["incomplete_reasons"][0]["code"], "RESULT_LIMIT_REACHED");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_slow_audit_source_runs_out_of_a_small_budget_with_progress() {
    let mut cfg = config(90);
    cfg.slow_sources = vec![("audit".into(), Duration::from_millis(600))];
    let h = Harness::start(cfg).await;
    let hurried = h.get("/search?q=svc-south&time_budget_ms=100", "admin").await;
    assert_eq!(hurried.status, 200);
    assert_eq!(hurried.body["complete"], false);
    assert_eq!(hurried.reasons(), ["TIME_BUDGET_EXCEEDED"]);
    let reason = &hurried.body["incomplete_reasons"][0];
    assert_eq!(reason["budget_ms"], 100);
    assert_eq!(reason["progress"], json!({"completed": 2, "planned": 3, "unit": "sources"}));
    assert_eq!(hurried.body["continuation"]["kind"], "retry_with_deadline");
    assert!(!hurried.ids().is_empty(), "what the fast sources found is kept");
    // The recovery works: a budget of the suggested size completes.
    let seconds = hurried.body["continuation"]["minimum_seconds"].as_u64().unwrap();
    let patient = h.get(&format!("/search?q=svc-south&time_budget_ms={}", seconds * 1000), "admin").await;
    assert_eq!(patient.body["complete"], true, "{:?}", patient.body);
    // A demanded complete result is a 503 (here with the Prefer header).
    let strict = h
        .answer(
            h.request(Method::GET, "/search?q=svc-south&time_budget_ms=100")
                .bearer_auth("admin")
                .header("Prefer", "handling=strict"),
        )
        .await;
    strict.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    // RFC 7240: the preference was honoured, and the response says so; a complete answer too.
    assert_eq!(strict.preference_applied.as_deref(), Some("handling=strict"));
    let honoured = h
        .answer(h.request(Method::GET, &format!("/search?q=svc-south&time_budget_ms={}", seconds * 1000)).bearer_auth("admin").header("Prefer", "handling=strict"))
        .await;
    assert_eq!((honoured.status.as_u16(), honoured.preference_applied.as_deref()), (200, Some("handling=strict")));
    // Demanded by the query parameter, or not at all: no such header.
    let by_query = h.get("/search?q=svc-south&time_budget_ms=100&require_complete=true", "admin").await;
    by_query.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!((by_query.preference_applied, patient.preference_applied), (None, None));
    // The problem that replaced the answer echoes the budget the answer was given (§5.2).
    let url = "/search?q=svc-south&time_budget_ms=100&require_complete=true";
    let echoed = h.request(Method::GET, url).bearer_auth("admin").send().await.unwrap();
    let budget = echoed.headers().get("time-budget-ms").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!((echoed.status().as_u16(), budget.as_deref()), (503, Some("100")));
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_lagging_audit_index_warns_with_its_observed_revision_without_affecting_complete() {
    let mut cfg = config(40);
    cfg.audit_refresh = Duration::from_secs(3600);
    let h = Harness::start(cfg).await;
    let fresh = h.get("/search?q=svc-", "admin").await;
    assert_eq!(fresh.body["warnings"], json!([]), "a fresh index does not warn");
    // The index was built at the database's first snapshot, which it names as its revision.
    let built_at = h.get("/service-accounts?page_size=1", "admin").await.body["scope"]["snapshot"].clone();
    let number = built_at.as_str().and_then(|s| s.strip_prefix("s-")).expect("a snapshot label");
    let revision = format!("r-{number}");
    let created = h.post("/service-accounts", "admin", &json!({"name": "svc-north-fresh", "tenant": "north"})).await;
    assert_eq!(created.status, 201);
    let stale = h.get("/search?q=svc-north-fresh", "admin").await;
    assert_eq!(stale.body["complete"], true, "warnings never change complete");
    assert_eq!(stale.ids().len(), 1, "the write-through directory has it");
    let warning = &stale.body["warnings"][0];
    assert_eq!(warning["code"], "STALE_INDEX");
    assert_eq!(warning["source"], "audit");
    assert_eq!(warning["observed_revision"], revision.as_str());
    assert!(warning["refreshed_at"].as_str().unwrap().ends_with('Z'));
    // Once the index catches up the warning goes away.
    h.running.state.refresh_sources().await.unwrap();
    let caught_up = h.get("/search?q=svc-north-fresh", "admin").await;
    assert_eq!(caught_up.body["warnings"], json!([]));
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_write_the_write_through_copies_missed_warns_until_they_are_copied_again() {
    let mut cfg = config(40);
    cfg.audit_refresh = Duration::from_secs(3600);
    let h = Harness::start(cfg).await;
    let name = h.get("/service-accounts/sa-000001", "admin").await.body["name"].as_str().unwrap().to_owned();
    let search = format!("/search?q={name}");
    let before = h.get(&search, "admin").await;
    assert_eq!((before.ids(), &before.body["warnings"]), (vec!["sa-000001".to_owned()], &json!([])));

    // A delete made through the database alone, as another replica sharing it makes one: this
    // service's copies do not see it.
    h.store().delete(None, "sa-000001").await.unwrap();
    let stale = h.get(&search, "admin").await;
    assert_eq!(stale.body["complete"], true, "warnings never change complete");
    let warned: Vec<&str> = stale.body["warnings"].as_array().unwrap().iter().map(|w| w["source"].as_str().unwrap()).collect();
    assert_eq!(warned, ["directory", "audit", "legacy"], "every copy that may miss the delete says so: {}", stale.body);
    assert!(stale.body["warnings"].as_array().unwrap().iter().all(|w| w["code"] == "STALE_INDEX"));

    h.running.state.refresh_sources().await.unwrap();
    let fresh = h.get(&search, "admin").await;
    assert_eq!((fresh.ids(), &fresh.body["warnings"]), (Vec::<String>::new(), &json!([])), "copied again: {}", fresh.body);
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_failing_legacy_source_is_reported_and_the_search_is_never_complete() {
    let mut cfg = config(60);
    cfg.fail_sources = vec!["legacy".into()];
    let h = Harness::start(cfg).await;
    for q in ["svc-", "svc-east", "no-such-name-anywhere"] {
        let answer = h.get(&format!("/search?q={q}"), "admin").await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body["complete"], false, "{q}");
        assert!(answer.reasons().contains(&"SOURCE_UNAVAILABLE".to_owned()), "{q}");
        let reason = answer.body["incomplete_reasons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["code"] == "SOURCE_UNAVAILABLE")
            .unwrap()
            .clone();
        assert_eq!(reason["source"], "legacy");
    }
    let empty = h.get("/search?q=no-such-name-anywhere", "admin").await;
    assert_eq!(empty.ids().len(), 0, "incomplete and empty: absence is not proven");
    // A name written otherwise than names are (case, a blank around it) is no empty answer: it
    // is refused, saying how to write it.
    let misspelt = h.get("/search?q=%20SVC-East", "admin").await;
    misspelt.assert_problem(400, "INVALID_REQUEST");
    let detail = misspelt.body["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("case-sensitive") && detail.contains("Search for `svc-east`"), "{detail}");
    let strict = h.get("/search?q=svc-east&require_complete=true", "admin").await;
    strict.assert_problem(503, "COMPLETE_RESULT_UNAVAILABLE");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn require_complete_maps_reasons_to_statuses_and_lets_plain_pagination_through() {
    let h = Harness::start(config(80)).await;
    let forbidden = h.get("/service-accounts?tenant=south&require_complete=true", "north").await;
    forbidden.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    assert_eq!(forbidden.body["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    let counted = h.get("/service-accounts/count?require_complete=true", "north").await;
    counted.assert_problem(403, "COMPLETE_RESULT_UNAVAILABLE");
    let paged = h.get("/service-accounts?page_size=3&require_complete=true", "admin").await;
    assert_eq!(paged.status, 200, "MORE_PAGES_AVAILABLE alone is not a failure");
    assert_eq!(paged.reasons(), ["MORE_PAGES_AVAILABLE"]);
    let own = h.get("/service-accounts?tenant=north&page_size=500&require_complete=true", "north").await;
    assert_eq!((own.status.as_u16(), own.body["complete"].clone()), (200, json!(true)));
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_single_account_lists_every_field_it_did_not_fill_and_why() {
    let h = Harness::start(config(30)).await;
    let north_id = h.get("/service-accounts?tenant=north&page_size=1", "admin").await.ids()[0].clone();
    let seen = h.get(&format!("/service-accounts/{north_id}"), "north").await;
    assert_eq!(seen.status, 200);
    for field in [
        "id",
        "name",
        "tenant",
        "owner",
        "owner_email",
        "description",
        "last_used_at",
        "secret_fingerprint",
        "archived",
    ] {
        assert!(seen.body.get(field).is_some(), "every declared field is present: {field}");
    }
    assert_eq!(seen.body["owner_email"], json!(null));
    assert_eq!(seen.body["secret_fingerprint"], json!(null));
    assert_eq!(seen.body["omitted_fields"]["owner_email"], "NO_ACCESS");
    assert_eq!(seen.body["omitted_fields"]["secret_fingerprint"], "NOT_REQUESTED");
    assert_eq!(seen.body["warnings"][0]["code"], "PARTIAL_FIELD_SET");
    assert_eq!(seen.body["warnings"][0]["requestable"], json!(["secret_fingerprint"]));
    let asked = h.get(&format!("/service-accounts/{north_id}?fields=secret_fingerprint"), "admin").await;
    assert!(asked.body["secret_fingerprint"].as_str().unwrap().starts_with("SHA256:"));
    assert_eq!(asked.body["omitted_fields"], json!({}));
    assert_eq!(asked.body["warnings"], json!([]));
    // Another tenant's account does not exist for north.
    let south_id = h.get("/service-accounts?tenant=south&page_size=1", "admin").await.ids()[0].clone();
    h.get(&format!("/service-accounts/{south_id}"), "north").await.assert_problem(404, "NOT_FOUND");
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn a_failing_usage_source_is_an_omission_not_a_null() {
    let mut cfg = config(10);
    cfg.fail_sources = vec!["usage".into()];
    let h = Harness::start(cfg).await;
    let one = h.get("/service-accounts/sa-000001?fields=secret_fingerprint", "admin").await;
    assert_eq!(one.status, 200);
    assert_eq!(one.body["last_used_at"], json!(null));
    assert_eq!(one.body["omitted_fields"], json!({"last_used_at": "SOURCE_FAILED"}));
    assert_eq!(one.body["warnings"][0]["fields"], json!(["last_used_at"]));
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn missing_and_unknown_credentials_get_401_problems() {
    let h = Harness::start(config(5)).await;
    for path in ["/service-accounts", "/service-accounts/count", "/search?q=svc", "/service-accounts/sa-000001"] {
        let missing = h.send(Method::GET, path, None, None).await;
        missing.assert_problem(401, "UNAUTHENTICATED");
        // The example's credential names are its tokens: a refusal names none of them.
        let detail = missing.body["detail"].as_str().unwrap_or_default();
        assert!(["admin", "north", "south"].iter().all(|name| !detail.contains(name)), "{detail}");
        h.send(Method::GET, path, Some("mallory"), None).await.assert_problem(401, "UNAUTHENTICATED");
    }
    let with = |values: &[&str]| {
        let mut request = h.request(Method::GET, "/service-accounts?page_size=1");
        for value in values {
            request = request.header("authorization", *value);
        }
        request
    };
    // The scheme is case-insensitive, and the name may follow more than one space.
    for value in ["bearer admin", "BEARER admin", "Bearer  admin"] {
        let answer = h.answer(with(&[value])).await;
        assert_eq!(answer.status, 200, "{value}: {answer:?}");
    }
    // Another scheme, no name, or two headers (which one would be meant?) are refused.
    for (values, detail) in [
        (&["Basic YWRtaW46"][..], "The Authorization header must be `Bearer NAME`."),
        (&["Bearer "], "The Authorization header must be `Bearer NAME`."),
        (&["Bearer"], "The Authorization header must be `Bearer NAME`."),
        (&["Bearer admin", "Bearer north"], "Send one Authorization header, not several."),
        (&["Bearer admin", "Bearer admin"], "Send one Authorization header, not several."),
    ] {
        let answer = h.answer(with(values)).await;
        answer.assert_problem(401, "UNAUTHENTICATED");
        assert_eq!(answer.body["detail"], detail, "{values:?}");
    }
}
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_openapi_document_lists_every_route_with_its_reason_type() {
    let h = Harness::start(config(5)).await;
    let doc = h.send(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(doc.status, 200);
    assert!(doc.body["openapi"].as_str().unwrap().starts_with("3."));
    let paths = &doc.body["paths"];
    for (route, methods) in [
        ("/service-accounts", &["get", "post"][..]),
        ("/service-accounts/count", &["get"]),
        ("/service-accounts/{id}", &["get", "patch", "delete"]),
        ("/service-accounts/archive", &["post"]),
        ("/search", &["get"]),
        ("/credentials/{name}/revoke-tenant/{tenant}", &["post"]),
        ("/openapi.json", &["get"]),
        ("/metrics", &["get"]),
        ("/ready", &["get"]),
    ] {
        for method in methods {
            assert!(paths[route][method].is_object(), "{method} {route} is documented");
        }
    }
    let schemas = &doc.body["components"]["schemas"];
    // A reason type of several codes has a branch per code (`oneOf`), each with its details.
    let branches = |name: &str| schemas[name]["oneOf"].as_array().cloned().unwrap_or_else(|| vec![schemas[name].clone()]);
    let codes = |name: &str| -> serde_json::Value { branches(name).iter().flat_map(|b| b["properties"]["code"]["enum"].as_array().cloned().unwrap_or_default()).collect() };
    assert_eq!(codes("ListServiceAccountsReason"), json!(["MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"]));
    assert_eq!(codes("CountServiceAccountsReason"), json!(["VISIBILITY_RESTRICTED"]));
    assert_eq!(
        codes("SearchReason"),
        json!(["RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED", "VISIBILITY_RESTRICTED"]),
        "declared codes are listed in declaration order"
    );
    assert_eq!(codes("SearchWarning"), json!(["STALE_INDEX"]));
    let budget = branches("SearchReason").into_iter().find(|b| b["properties"]["code"]["enum"] == json!(["TIME_BUDGET_EXCEEDED"]));
    assert_eq!(
        budget.map(|b| b["required"].clone()),
        Some(json!(["code", "message", "budget_ms", "progress"])),
        "a code's branch requires its details (contract §3.2)"
    );
    let page = &schemas["ServiceAccountPage"];
    assert_eq!(
        page["properties"]["incomplete_reasons"]["items"]["$ref"],
        "#/components/schemas/ListServiceAccountsReason"
    );
    assert!(page["required"].as_array().unwrap().contains(&json!("complete")));
    // Every route that takes the demand for completeness documents both ways to make it, and
    // the acknowledgement of the header on its answers and on the refusal.
    for route in ["/service-accounts", "/service-accounts/count", "/search"] {
        let operation = &paths[route]["get"];
        let parameters: Vec<(&str, &str)> = operation["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap(), p["in"].as_str().unwrap()))
            .collect();
        assert!(parameters.contains(&("require_complete", "query")), "{route}: {parameters:?}");
        assert!(parameters.contains(&("Prefer", "header")), "{route}: {parameters:?}");
        assert!(operation["responses"]["200"]["headers"]["Preference-Applied"].is_object(), "{route}");
        assert!(operation["responses"]["403"]["headers"]["Preference-Applied"].is_object(), "{route}");
    }
    assert!(paths["/search"]["get"]["responses"]["503"]["headers"]["Retry-After"].is_object());
}
}
