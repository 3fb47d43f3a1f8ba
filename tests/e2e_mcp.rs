//! End to end over MCP: an rmcp client speaks streamable HTTP to the `/mcp` endpoint of the
//! service_accounts example, started in-process on a free loopback port.

use crate::e2e_support;

use std::time::Duration;

use completeness::Envelope;
use completeness::testing::assert_envelope_invariants;
use e2e_support::{Harness, config};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, Tool,
};
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ClientConfig>;

/// An rmcp client of `h`'s `/mcp` endpoint, authenticated as `token`, asking for `version`.
async fn connect_with(h: &Harness, token: &str, version: ProtocolVersion) -> Result<Client, String> {
    connect_at(&h.running.url(), token, version).await
}

/// An rmcp client of the `/mcp` endpoint at `base` (`http://HOST:PORT`), authenticated as
/// `token`, asking for `version`.
async fn connect_at(base: &str, token: &str, version: ProtocolVersion) -> Result<Client, String> {
    let uri = format!("{base}/mcp");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(uri).auth_header(token),
    );
    ClientConfig::new(ClientCapabilities::default(), Implementation::new("e2e_mcp", "1.0.0"))
        .with_protocol_version(version)
        .serve(transport)
        .await
        .map_err(|e| e.to_string())
}

async fn connect(h: &Harness, token: &str) -> Client {
    connect_with(h, token, ProtocolVersion::LATEST_WITH_INITIALIZE).await.expect("the MCP session starts")
}

/// `tools/call` of `tool` with `arguments`.
async fn call(client: &Client, tool: &str, arguments: Value) -> Result<CallToolResult, ServiceError> {
    let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
    client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments)).await
}

/// A tool result that is not an error: its envelope, checked against its text block.
async fn answer(client: &Client, tool: &str, arguments: Value) -> Value {
    let result = call(client, tool, arguments.clone()).await.expect("tools/call answers");
    assert_eq!(result.is_error, Some(false), "{tool}({arguments}) is a result: {result:?}");
    let structured = result.structured_content.clone().expect("structuredContent");
    let text = &result.content[0].as_text().expect("a text block").text;
    let (verdict, json) = text.split_once('\n').expect("a verdict line, then the JSON");
    assert!(!verdict.is_empty() && !verdict.starts_with('{'), "{verdict}");
    assert_eq!(serde_json::from_str::<Value>(json).expect("JSON after the verdict"), structured);
    // In the contract's member order (§2.1), as the REST body: the decision first.
    let members: Vec<&str> = structured.as_object().expect("an object").keys().map(String::as_str).collect();
    if members.contains(&"status") {
        assert_eq!(members[..3], ["status", "complete", "truncated"], "structuredContent keeps the contract's order");
    }
    structured
}

/// A tool error: its problem `code`, and its text.
async fn refusal(client: &Client, tool: &str, arguments: Value) -> (String, String) {
    let result = call(client, tool, arguments.clone()).await.expect("tools/call answers");
    assert_eq!(result.is_error, Some(true), "{tool}({arguments}) is refused: {result:?}");
    assert!(result.structured_content.is_none(), "a refusal is not an envelope");
    let text = result.content[0].as_text().expect("a text block").text.clone();
    let problem: Value = serde_json::from_str(&text[text.find("\n{").expect("the problem JSON")..]).unwrap();
    let code = problem["code"].as_str().expect("a problem code").to_owned();
    assert!(text.starts_with(&format!("REFUSED ({code}): ")), "{text}");
    (code, text)
}

fn codes(envelope: &Value) -> Vec<&str> {
    envelope["incomplete_reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect()
}

fn ids(envelope: &Value) -> Vec<String> {
    envelope["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
}

/// Every page of `list_service_accounts` with `arguments`, following `next_cursor`; `between` runs
/// before each later page.
async fn traverse(client: &Client, arguments: Value, mut between: impl AsyncFnMut(usize)) -> Vec<Value> {
    let mut pages = vec![answer(client, "list_service_accounts", arguments.clone()).await];
    while let Some(cursor) = pages.last().unwrap()["next_cursor"].as_str().map(str::to_owned) {
        assert!(pages.len() < 1000, "a traversal that never ends");
        between(pages.len()).await;
        let mut next = arguments.clone();
        next["cursor"] = json!(cursor);
        pages.push(answer(client, "list_service_accounts", next).await);
    }
    pages
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_four_states_cross_mcp_whole_and_north_gets_visibility_restricted_on_an_empty_result() {
    let h = Harness::start(config(120)).await;
    let admin = connect(&h, "admin").await;
    let north = connect(&h, "north").await;

    // Complete with items: the whole unowned inventory in one page, with evidence.
    let all = answer(&admin, "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    assert_envelope_invariants(&all);
    assert_eq!(all["complete"], true);
    assert!(!ids(&all).is_empty());
    assert!(all["evidence"].is_string(), "a complete inventory carries evidence");
    let back: Envelope<Value> = serde_json::from_value(all.clone()).expect("the strict deserializer accepts it");
    assert!(back.is_complete());

    // Complete and empty: nobody owns anything under that name; the absence is proven.
    let none = answer(&admin, "list_service_accounts", json!({"owner": "nobody-at-all"})).await;
    assert_envelope_invariants(&none);
    assert_eq!((none["complete"].clone(), none["items"].clone()), (json!(true), json!([])));
    // A first page (`page.resumed: false`) that is complete is the whole answer, and its verdict
    // says the absence is proven.
    assert_eq!(none["page"]["resumed"], false);
    let result = call(&admin, "list_service_accounts", json!({"owner": "nobody-at-all"})).await.unwrap();
    let verdict = result.content[0].as_text().unwrap().text.lines().next().unwrap_or_default().to_owned();
    // It names the question it answers: "none exist" of these filters, not of every account.
    assert!(
        verdict.starts_with("COMPLETE: no service accounts matching owner=nobody-at-all exist in the whole scope"),
        "{verdict}"
    );

    // Incomplete with items: one page of several, still a result.
    let page = answer(&admin, "list_service_accounts", json!({"tenant": "east", "page_size": 5})).await;
    assert_envelope_invariants(&page);
    assert_eq!(page["complete"], false);
    assert_eq!(ids(&page).len(), 5);
    assert_eq!(codes(&page), ["MORE_PAGES_AVAILABLE"]);
    assert!(page["next_cursor"].is_string());
    assert_eq!(page["evidence"], Value::Null);

    // Incomplete and empty: north asks for tenant south, which it cannot read.
    let result = call(&north, "list_service_accounts", json!({"owner": "none", "tenant": "south"})).await.unwrap();
    assert_eq!(result.is_error, Some(false), "a partial answer is not an error");
    let text = &result.content[0].as_text().unwrap().text;
    assert!(
        text.starts_with("INCOMPLETE (VISIBILITY_RESTRICTED): 0 service accounts matching owner=none, tenant=south returned"),
        "{text}"
    );
    let hidden = result.structured_content.unwrap();
    assert_envelope_invariants(&hidden);
    assert_eq!((hidden["complete"].clone(), hidden["items"].clone()), (json!(false), json!([])));
    assert_eq!(codes(&hidden), ["VISIBILITY_RESTRICTED"]);
    assert_eq!(hidden["evidence"], Value::Null);

    // The same over count and search: a lower bound, a partial search.
    let count = answer(&north, "count_service_accounts", json!({"tenant": "south"})).await;
    assert_eq!((count["count"].clone(), count["complete"].clone()), (json!(0), json!(false)));
    assert_eq!(codes(&count), ["VISIBILITY_RESTRICTED"]);
    let result = call(&north, "count_service_accounts", json!({"tenant": "south"})).await.unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(
        text.starts_with(
            "INCOMPLETE (VISIBILITY_RESTRICTED): at least 0 service accounts matching tenant=south in scope: the rest \
             was not counted, so it proves no absence."
        ),
        "{text}"
    );
    assert!(text.lines().next().unwrap().ends_with(" No way to complete it is offered."), "what next: {text}");
    let search = answer(&north, "search_service_accounts", json!({"q": "svc-south", "tenant": "south"})).await;
    assert_eq!((search["complete"].clone(), search["items"].clone()), (json!(false), json!([])));
    assert!(codes(&search).contains(&"VISIBILITY_RESTRICTED"), "{search}");

    // require_complete turns the partial answer into a refusal carrying the code.
    let (code, _) =
        refusal(&north, "count_service_accounts", json!({"tenant": "south", "require_complete": true})).await;
    assert_eq!(code, "COMPLETE_RESULT_UNAVAILABLE");

    // The REST route gives the same envelope for the same question.
    let rest = h.get("/service-accounts?owner=none&tenant=south", "north").await;
    assert_eq!(rest.body["incomplete_reasons"], hidden["incomplete_reasons"]);
    assert_eq!(rest.body["scope"]["filters"], hidden["scope"]["filters"]);
    assert_eq!(rest.body["scope"]["visibility"], hidden["scope"]["visibility"]);
    admin.cancel().await.unwrap();
    north.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// The search tool reports what the service's search does, over MCP as over REST: a result cap
/// (`RESULT_LIMIT_REACHED` with its limit), a failed source (`SOURCE_UNAVAILABLE` naming it), a
/// budget spent (`TIME_BUDGET_EXCEEDED` with the budget the agent asked for, not the default),
/// and a lagging index (`STALE_INDEX`), each a result rather than an error, with the same codes
/// and details as the REST answer to the same question.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reason_and_warning_of_the_search_crosses_mcp_as_over_rest() {
    let h = Harness::start(e2e_support::Config {
        result_limit: 10,
        fail_sources: vec!["legacy".into()],
        slow_sources: vec![("audit".into(), Duration::from_millis(600))],
        audit_refresh: Duration::from_secs(3600),
        ..config(120)
    })
    .await;
    let admin = connect(&h, "admin").await;
    let rest = h.get("/search?q=svc-&time_budget_ms=100", "admin").await;
    let tool = answer(&admin, "search_service_accounts", json!({"q": "svc-", "time_budget_ms": 100})).await;
    assert_envelope_invariants(&tool);
    assert_eq!(tool["complete"], false, "{tool}");
    let mut expected = vec!["RESULT_LIMIT_REACHED", "SOURCE_UNAVAILABLE", "TIME_BUDGET_EXCEEDED"];
    let mut got = codes(&tool);
    got.sort_unstable();
    expected.sort_unstable();
    assert_eq!(got, expected, "{tool}");
    let mut over_rest = codes(&rest.body);
    over_rest.sort_unstable();
    assert_eq!(got, over_rest, "the same reasons as over REST: {}", rest.body);
    let reason = |code: &str| {
        tool["incomplete_reasons"].as_array().unwrap().iter().find(|r| r["code"] == code).cloned().unwrap()
    };
    assert_eq!(reason("RESULT_LIMIT_REACHED")["limit"], 10);
    assert_eq!(reason("SOURCE_UNAVAILABLE")["source"], "legacy");
    assert_eq!(reason("TIME_BUDGET_EXCEEDED")["budget_ms"], 100, "the budget the agent asked for");
    assert_eq!(ids(&tool).len(), 10, "capped at the limit");

    // A write the lagging index has not copied: the answer says which copy may be stale.
    let created = h.post("/service-accounts", "admin", &json!({"name": "svc-north-fresh", "tenant": "north"})).await;
    assert_eq!(created.status, 201, "{:?}", created.body);
    let stale =
        answer(&admin, "search_service_accounts", json!({"q": "svc-north-fresh", "time_budget_ms": 5000})).await;
    assert_envelope_invariants(&stale);
    assert_eq!(ids(&stale), [created.body["account"]["id"].as_str().unwrap()], "{stale}");
    let warnings = stale["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w["code"] == "STALE_INDEX" && w["source"] == "audit"), "{stale}");
    let rest = h.get("/search?q=svc-north-fresh&time_budget_ms=5000", "admin").await;
    assert_eq!(stale["warnings"], rest.body["warnings"], "the same warnings as over REST");
    admin.cancel().await.unwrap();
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_traversal_under_writes_returns_exactly_its_snapshot() {
    let h = Harness::start(config(160)).await;
    let admin = connect(&h, "admin").await;
    let whole = answer(&admin, "list_service_accounts", json!({"tenant": "north", "page_size": 500})).await;
    let expected = ids(&whole);
    assert!(expected.len() > 30, "several pages of 7");

    let mut written = 0;
    let pages = traverse(&admin, json!({"tenant": "north", "page_size": 7}), async |page| {
        // Between pages: a new account, an owner change and a delete, all in the traversed tenant.
        let created =
            h.post("/service-accounts", "admin", &json!({"name": format!("mcp-new-{page}"), "tenant": "north"})).await;
        assert_eq!(created.status, 201);
        let id = &expected[page % expected.len()];
        assert_eq!(h.patch(&format!("/service-accounts/{id}"), "admin", &json!({"owner": "moved"})).await.status, 200);
        if page % 3 == 0 {
            let gone = &expected[(page * 5 + 1) % expected.len()];
            // An earlier page may have deleted it already.
            let deleted = h.delete(&format!("/service-accounts/{gone}"), "admin").await.status;
            assert!(deleted == 200 || deleted == 404, "delete between pages: {deleted}");
        }
        written += 1;
    })
    .await;
    assert!(written >= 4, "writes happened between pages");
    let seen: Vec<String> = pages.iter().flat_map(ids).collect();
    assert_eq!(seen, expected, "no item missed, none repeated, none added");
    let last = pages.last().unwrap();
    assert_eq!(last["complete"], true);
    assert!(pages.iter().all(|p| p["page"]["snapshot"] == pages[0]["page"]["snapshot"]), "one frozen snapshot");
    let resumed: Vec<bool> = pages.iter().map(|p| p["page"]["resumed"] == true).collect();
    assert!(!resumed[0] && resumed[1..].iter().all(|r| *r), "every page but the first was reached with a cursor");
    let now = answer(&admin, "list_service_accounts", json!({"tenant": "north", "page_size": 500})).await;
    assert_ne!(ids(&now), expected, "the writes are real");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_and_foreign_cursors_are_tool_errors_with_the_problem_code() {
    let mut cfg = config(40);
    cfg.cursor_ttl = Duration::from_millis(200);
    let h = Harness::start(cfg).await;
    let admin = connect(&h, "admin").await;
    let north = connect(&h, "north").await;
    let first = answer(&admin, "list_service_accounts", json!({"page_size": 4})).await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();

    let (code, _) = refusal(&north, "list_service_accounts", json!({"page_size": 4, "cursor": cursor})).await;
    assert_eq!(code, "CURSOR_CREDENTIAL_MISMATCH", "another credential's cursor");
    let (code, _) =
        refusal(&admin, "list_service_accounts", json!({"page_size": 4, "owner": "none", "cursor": cursor})).await;
    assert_eq!(code, "CURSOR_QUERY_MISMATCH", "a cursor of other filters");
    let (code, _) = refusal(&admin, "list_service_accounts", json!({"cursor": "not-a-cursor"})).await;
    assert_eq!(code, "INVALID_CURSOR");
    // Too long for any query the REST route reads: refused, never dropped for a first page.
    let (code, _) =
        refusal(&admin, "list_service_accounts", json!({"page_size": 1, "cursor": "!".repeat(22_000)})).await;
    assert_eq!(code, "INVALID_CURSOR", "an oversized cursor is not answered as a first page");

    tokio::time::sleep(Duration::from_millis(400)).await;
    let (code, text) = refusal(&admin, "list_service_accounts", json!({"page_size": 4, "cursor": cursor})).await;
    assert_eq!(code, "CURSOR_EXPIRED", "never an empty success");
    assert!(text.contains("\"kind\": \"restart\""), "the problem says to restart: {text}");
    admin.cancel().await.unwrap();
    north.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn archive_is_refused_without_complete_evidence_and_changes_nothing_then_accepted_with_it() {
    let h = Harness::start(config(600)).await;
    let admin = connect(&h, "admin").await;
    let north = connect(&h, "north").await;
    let before = h.store().fingerprint().await.unwrap();

    // north's inventory is incomplete (VISIBILITY_RESTRICTED), so it carries no evidence.
    let partial = answer(&north, "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    assert_eq!(codes(&partial), ["VISIBILITY_RESTRICTED"]);
    let targets = ids(&partial);
    assert!(!targets.is_empty());
    let (code, text) =
        refusal(&north, "archive_service_accounts", json!({"ids": targets, "evidence": partial["evidence"]})).await;
    assert_eq!(code, "EVIDENCE_REQUIRED");
    assert!(text.contains("NOT ARCHIVED"), "{text}");
    assert!(text.contains("Missing: no evidence was given"), "{text}");
    assert!(text.contains("Options:"), "{text}");
    assert!(text.contains("nothing has been changed"), "{text}");

    // Without evidence at all.
    let (code, _) = refusal(&admin, "archive_service_accounts", json!({"ids": targets})).await;
    assert_eq!(code, "EVIDENCE_REQUIRED");

    // The first page of admin's traversal is incomplete too: no evidence to use.
    let page = answer(&admin, "list_service_accounts", json!({"owner": "none", "page_size": 3})).await;
    assert_eq!(page["evidence"], Value::Null);
    let (code, _) =
        refusal(&admin, "archive_service_accounts", json!({"ids": ids(&page), "evidence": page["evidence"]})).await;
    assert_eq!(code, "EVIDENCE_REQUIRED");

    // A forged token.
    let (code, text) =
        refusal(&admin, "archive_service_accounts", json!({"ids": ids(&page), "evidence": "forged"})).await;
    assert_eq!(code, "EVIDENCE_INVALID");
    assert!(text.contains("NOT ARCHIVED"), "{text}");
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing changed");

    // A complete inventory's evidence archives exactly the named accounts.
    let complete = answer(&admin, "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    assert_eq!(complete["complete"], true);
    let unowned = ids(&complete);
    let archived =
        answer(&admin, "archive_service_accounts", json!({"ids": unowned[..3], "evidence": complete["evidence"]}))
            .await;
    assert_eq!(archived["archived"], json!(unowned[..3]));
    assert_ne!(h.store().fingerprint().await.unwrap(), before);
    let one = json!({"ids": [unowned[3]], "evidence": complete["evidence"]});
    let result = call(&admin, "archive_service_accounts", one).await.unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("ARCHIVED: 1 service account, in snapshot "), "{text}");
    let after = answer(&admin, "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    assert_eq!(ids(&after), unowned[4..].to_vec(), "the four are no longer listed");
    // Sent again (a caller whose answer was lost), the same archive is refused for targets that
    // changed, and the text says an earlier call may have changed them and how to tell.
    let again = json!({"ids": unowned[..3], "evidence": complete["evidence"]});
    let (code, text) = refusal(&admin, "archive_service_accounts", again).await;
    assert_eq!(code, "TARGET_CHANGED");
    assert!(text.contains("perhaps by an earlier call of yours"), "{text}");
    assert!(text.contains(&unowned[..3].join(", ")), "the targets are named: {text}");
    assert!(text.contains("1. read them with get_service_account: one with `archived: true` is archived already"), "{text}");
    admin.cancel().await.unwrap();
    north.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// The tool named `name` of `tools`.
fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("tool {name} is listed"))
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_declares_schemas_that_the_answers_actually_satisfy() {
    let h = Harness::start(config(600)).await;
    let admin = connect(&h, "admin").await;
    let north = connect(&h, "north").await;
    let tools = admin.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "list_service_accounts",
            "search_service_accounts",
            "count_service_accounts",
            "get_service_account",
            "archive_service_accounts"
        ]
    );
    for t in &tools {
        let description = t.description.as_deref().unwrap_or("");
        assert!(description.contains("REFUSED (CODE)"), "{}: {description}", t.name);
        let annotations = t.annotations.as_ref().expect("annotations");
        let destructive = t.name == "archive_service_accounts";
        assert_eq!(annotations.read_only_hint, Some(!destructive), "{}", t.name);
        assert_eq!(annotations.destructive_hint, Some(destructive), "{}", t.name);
        assert_eq!(annotations.idempotent_hint, Some(true), "{}", t.name);
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert_eq!(t.input_schema["additionalProperties"], false, "{}: unknown arguments are refused", t.name);
        jsonschema::draft202012::meta::validate(&Value::Object(t.input_schema.as_ref().clone()))
            .unwrap_or_else(|e| panic!("{} inputSchema: {e}", t.name));
    }
    for name in ["list_service_accounts", "search_service_accounts", "count_service_accounts"] {
        let description = tool(&tools, name).description.as_deref().unwrap();
        for member in ["`complete`", "`incomplete_reasons`", "`continuation`"] {
            assert!(description.contains(member), "{name} explains {member}");
        }
    }
    let list_input = &tool(&tools, "list_service_accounts").input_schema;
    assert_eq!(list_input["properties"]["page_size"]["minimum"], 1);
    assert_eq!(list_input["properties"]["tenant"]["enum"], json!(["north", "south", "east", null]));
    let search_input = &tool(&tools, "search_service_accounts").input_schema;
    let q = &search_input["properties"]["q"];
    assert_eq!(
        (q["minLength"].clone(), q["maxLength"].clone(), q["pattern"].clone()),
        (json!(1), json!(64), json!("^[a-z0-9-]{1,64}$")),
        "as names are written: a q no name can contain is refused"
    );
    let (code, detail) = refusal(&admin, "search_service_accounts", json!({"q": "SVC-North"})).await;
    assert_eq!(code, "INVALID_REQUEST", "{detail}");
    assert_eq!(search_input["required"], json!(["q"]));
    let archive_input = &tool(&tools, "archive_service_accounts").input_schema;
    assert_eq!(archive_input["properties"]["ids"]["maxItems"], 1000);
    // The same constraints as the REST parameters, as the service's OpenAPI document states them.
    let document = h.send(reqwest::Method::GET, "/openapi.json", None, None).await.body;
    let parameter = |path: &str, name: &str| {
        let parameters = document["paths"][path]["get"]["parameters"].as_array().cloned().unwrap_or_default();
        parameters.into_iter().find(|p| p["name"] == name).map(|p| p["schema"].clone()).unwrap_or(Value::Null)
    };
    let get_input = &tool(&tools, "get_service_account").input_schema;
    let mcp_and_rest = [
        (&list_input["properties"]["owner"]["pattern"], parameter("/service-accounts", "owner")["pattern"].clone()),
        (&list_input["properties"]["cursor"]["minLength"], parameter("/service-accounts", "cursor")["minLength"].clone()),
        (&get_input["properties"]["id"]["pattern"], parameter("/service-accounts/{id}", "id")["pattern"].clone()),
        (&archive_input["properties"]["ids"]["items"]["pattern"], parameter("/service-accounts/{id}", "id")["pattern"].clone()),
    ];
    for (mcp, rest) in mcp_and_rest {
        assert!(!rest.is_null(), "the REST document states the constraint");
        assert_eq!(*mcp, rest, "an MCP argument is constrained as its REST parameter is");
    }

    let complete = answer(&admin, "list_service_accounts", json!({"owner": "none", "page_size": 500})).await;
    let some = ids(&complete);
    let north_id = ids(&answer(&north, "list_service_accounts", json!({"page_size": 1})).await)[0].clone();
    let answers = [
        ("list_service_accounts", complete.clone()),
        ("list_service_accounts", answer(&admin, "list_service_accounts", json!({"page_size": 5})).await),
        ("list_service_accounts", answer(&north, "list_service_accounts", json!({"tenant": "east"})).await),
        ("list_service_accounts", answer(&admin, "list_service_accounts", json!({"owner": "nobody"})).await),
        ("search_service_accounts", answer(&admin, "search_service_accounts", json!({"q": "svc-north"})).await),
        (
            "search_service_accounts",
            answer(&north, "search_service_accounts", json!({"q": "svc", "tenant": "south"})).await,
        ),
        ("count_service_accounts", answer(&admin, "count_service_accounts", json!({"owner": "none"})).await),
        ("count_service_accounts", answer(&north, "count_service_accounts", json!({})).await),
        (
            "get_service_account",
            answer(&admin, "get_service_account", json!({"id": some[0], "fields": ["secret_fingerprint"]})).await,
        ),
        ("get_service_account", answer(&north, "get_service_account", json!({"id": north_id})).await),
        (
            "archive_service_accounts",
            answer(&admin, "archive_service_accounts", json!({"ids": [some[0]], "evidence": complete["evidence"]}))
                .await,
        ),
    ];
    for (name, value) in &answers {
        let schema =
            Value::Object(tool(&tools, name).output_schema.as_ref().expect("an outputSchema").as_ref().clone());
        assert_eq!(schema["type"], "object", "{name}");
        // `$defs` holds what the schema reaches and nothing else: every byte of `tools/list` is
        // read by the agent.
        let text = schema.to_string();
        for def in schema["$defs"].as_object().into_iter().flat_map(|defs| defs.keys()) {
            assert!(text.contains(&format!("\"#/$defs/{def}\"")), "{name} carries `{def}`, which it never refers to");
        }
        let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{name} outputSchema: {e}"));
        let errors: Vec<String> =
            validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{name} answered outside its outputSchema: {errors:?}\n{value}");
    }
    admin.cancel().await.unwrap();
    north.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_credentials_are_refused_and_malformed_calls_are_refused_as_their_protocol_says() {
    let h = Harness::start(config(30)).await;
    let before = h.store().fingerprint().await.unwrap();
    let refused = connect_with(&h, "mallory", ProtocolVersion::LATEST_WITH_INITIALIZE).await;
    assert!(refused.is_err(), "an unknown credential gets no session");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}});
    let denied = h
        .answer(
            h.request(reqwest::Method::POST, "/mcp")
                .bearer_auth("mallory")
                .header("accept", "application/json, text/event-stream")
                .json(&initialize),
        )
        .await;
    denied.assert_problem(401, "UNAUTHENTICATED");

    let admin = connect(&h, "admin").await;
    let older = connect_with(&h, "admin", ProtocolVersion::V_2025_06_18).await.expect("a 2025-06-18 session");
    let invalid_params = |error: ServiceError| match error {
        ServiceError::McpError(data) => data,
        other => panic!("a JSON-RPC error, not {other:?}"),
    };
    // An unknown tool is a JSON-RPC error in every version.
    for client in [&admin, &older] {
        let unknown = invalid_params(call(client, "drop_all_tables", json!({})).await.unwrap_err());
        assert_eq!(unknown.code.0, -32602, "{unknown:?}");
        assert!(unknown.message.contains("unknown tool 'drop_all_tables'"), "{unknown:?}");
        assert!(unknown.message.contains("`list_service_accounts`"), "it names the tools there are: {unknown:?}");
        assert_eq!(unknown.data, Some(json!({"code": "INVALID_ARGUMENTS", "argument": "name"})), "a stable code");
    }
    // Arguments a known tool cannot read: since 2025-11-25 a tool error, which reaches the
    // model so that it can correct its call (SEP-1303); in 2025-06-18 a JSON-RPC error.
    let malformed = [
        ("list_service_accounts", json!({"page_size": "ten"}), Some("page_size")),
        ("list_service_accounts", json!({"page_size": {}}), Some("page_size")),
        ("list_service_accounts", json!({"owner": 7}), Some("owner")),
        ("list_service_accounts", json!({"ownr": "none"}), Some("ownr")),
        ("list_service_accounts", json!({"cursor": ["a"]}), Some("cursor")),
        ("search_service_accounts", json!({}), Some("q")),
        ("archive_service_accounts", json!({"ids": "sa-1"}), Some("ids")),
    ];
    for (tool, arguments, argument) in malformed {
        let (code, text) = refusal(&admin, tool, arguments.clone()).await;
        assert_eq!(code, "INVALID_ARGUMENTS", "{tool}({arguments}): {text}");
        assert!(text.contains("Call the tool again with arguments that fit its inputSchema"), "{text}");
        let problem: Value = serde_json::from_str(&text[text.find("\n{").unwrap()..]).unwrap();
        assert_eq!((problem["status"].clone(), problem["parameter"].as_str()), (json!(400), argument), "{problem}");
        let error = invalid_params(call(&older, tool, arguments.clone()).await.unwrap_err());
        assert_eq!(error.code.0, -32602, "{tool}({arguments}) in 2025-06-18: {error:?}");
        assert!(error.message.ends_with("; the tool did not run (INVALID_ARGUMENTS)"), "{error:?}");
        assert_eq!(error.data.as_ref().map(|data| data["argument"].as_str()), Some(argument), "{error:?}");
    }
    older.cancel().await.unwrap();

    // Values the schema excludes but the type allows are refused by the shared logic, with its code.
    let (code, _) = refusal(&admin, "list_service_accounts", json!({"page_size": 0})).await;
    assert_eq!(code, "INVALID_PAGE_SIZE");
    let (code, _) = refusal(&admin, "list_service_accounts", json!({"page_size": 2.5})).await;
    assert_eq!(code, "INVALID_PAGE_SIZE");
    // An integer written with a fraction or an exponent is one for JSON Schema's `integer`,
    // which the `inputSchema` says: the tool takes it as that integer.
    for (written, size) in [(json!(2.0), 2), (json!(1e1), 10)] {
        let page = answer(&admin, "list_service_accounts", json!({"page_size": written})).await;
        assert_eq!(page["page"]["applied_size"], size, "{written}: {page}");
    }
    let search = answer(&admin, "search_service_accounts", json!({"q": "svc", "time_budget_ms": 1000.0})).await;
    assert!(search["complete"].is_boolean(), "{search}");
    let (code, _) = refusal(&admin, "list_service_accounts", json!({"tenant": "west"})).await;
    assert_eq!(code, "INVALID_REQUEST");
    let (code, _) = refusal(&admin, "search_service_accounts", json!({"q": ""})).await;
    assert_eq!(code, "INVALID_REQUEST");
    let (code, _) = refusal(&admin, "get_service_account", json!({"id": "sa-000001", "fields": ["password"]})).await;
    assert_eq!(code, "INVALID_REQUEST");
    let (code, _) = refusal(&admin, "get_service_account", json!({"id": "sa-999999"})).await;
    assert_eq!(code, "NOT_FOUND");
    let (code, _) = refusal(&admin, "archive_service_accounts", json!({"ids": [], "evidence": "x"})).await;
    assert_eq!(code, "EVIDENCE_INVALID");

    // The session still works, and nothing changed.
    let rest = h.get("/service-accounts/count", "admin").await;
    assert_eq!(answer(&admin, "count_service_accounts", json!({})).await["count"], rest.body["count"]);
    assert_eq!(h.store().fingerprint().await.unwrap(), before);
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// One JSON-RPC message of an MCP HTTP answer (plain JSON or the `data:` of an SSE event).
fn message(body: &str) -> Value {
    if let Ok(value) = serde_json::from_str(body) {
        return value;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|m| m.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {body}"))
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_versions_are_negotiated_and_sessions_have_ids() {
    let h = Harness::start(config(30)).await;
    let post = |session: Option<&str>, version: Option<&str>, body: Value| {
        let mut request = h
            .request(reqwest::Method::POST, "/mcp")
            .bearer_auth("admin")
            .header("accept", "application/json, text/event-stream")
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        request.send()
    };
    for version in [ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(), "2025-06-18"] {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
        let response = post(None, None, initialize).await.unwrap();
        assert_eq!(response.status(), 200);
        let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        assert!(!session.is_empty(), "a session id");
        let accepted = message(&response.text().await.unwrap());
        assert_eq!(accepted["result"]["protocolVersion"], version, "the requested version is accepted");
        assert!(accepted["result"]["capabilities"]["tools"].is_object());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(post(Some(&session), Some(version), initialized).await.unwrap().status(), 202);
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "list_service_accounts", "arguments": {"tenant": "east", "page_size": 2}}});
        let response = post(Some(&session), Some(version), call).await.unwrap();
        assert_eq!(response.status(), 200);
        let text = response.text().await.unwrap();
        // Every event carries a message: a client of 2025-06-18 reads each `data` as JSON-RPC,
        // and an empty one (2025-11-25's priming event) breaks it.
        let events: Vec<&str> = text.split("\n\n").filter(|event| !event.trim().is_empty()).collect();
        for event in &events {
            let data = event.lines().filter_map(|line| line.strip_prefix("data:")).collect::<String>();
            assert!(serde_json::from_str::<Value>(data.trim()).is_ok(), "{version}: an event without a message: {event:?}");
        }
        let result = message(&text);
        assert_eq!(result["result"]["isError"], false, "{result}");
        assert_eq!(result["result"]["structuredContent"]["incomplete_reasons"][0]["code"], "MORE_PAGES_AVAILABLE");
        // A malformed call is refused as its version has it, not as an HTTP failure: a tool
        // error since 2025-11-25, a JSON-RPC error before.
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "list_service_accounts", "arguments": {"page_size": "x"}}});
        let response = post(Some(&session), Some(version), call).await.unwrap();
        assert!(response.status().is_success());
        let refused = message(&response.text().await.unwrap());
        if version == "2025-06-18" {
            assert_eq!(refused["error"]["code"], -32602, "{refused}");
        } else {
            assert_eq!(refused["result"]["isError"], true, "{refused}");
            assert_eq!(problem_in(&refused["result"])["code"], "INVALID_ARGUMENTS", "{refused}");
        }
        let ended = h
            .request(reqwest::Method::DELETE, "/mcp")
            .bearer_auth("admin")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", version)
            .send()
            .await
            .unwrap();
        assert_eq!(ended.status(), 204, "the session has ended");
    }
    // An unknown version is answered with one the server speaks.
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let offer = message(&post(None, None, initialize).await.unwrap().text().await.unwrap());
    let offered = offer["result"]["protocolVersion"].as_str().unwrap_or_default().to_owned();
    assert!(ProtocolVersion::KNOWN_VERSIONS.iter().any(|v| v.as_str() == offered), "{offer}");

    // rmcp clients of both versions, and of its default, work.
    let rest = h.get("/service-accounts/count", "admin").await;
    for version in [ProtocolVersion::LATEST_WITH_INITIALIZE, ProtocolVersion::V_2025_06_18, ProtocolVersion::default()]
    {
        let client = connect_with(&h, "admin", version.clone()).await.unwrap_or_else(|e| panic!("{version}: {e}"));
        let count = answer(&client, "count_service_accounts", json!({})).await;
        assert_eq!(count["count"], rest.body["count"], "{version}");
        client.cancel().await.unwrap();
    }
    h.running.stop().await.unwrap();
}
}

/// An rmcp client at the current protocol (2026-07-28): no `initialize`, no session; every call
/// carries its own metadata and is answered with plain JSON.
async fn connect_current(h: &Harness, token: &str) -> Result<Client, String> {
    connect_current_at(&h.running.url(), token).await
}

/// [`connect_current`] to the `/mcp` endpoint at `base`.
async fn connect_current_at(base: &str, token: &str) -> Result<Client, String> {
    let uri = format!("{base}/mcp");
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(uri).auth_header(token),
    );
    let lifecycle = rmcp::ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    rmcp::ClientServiceExt::serve_with_lifecycle(
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("e2e_mcp", "1.0.0")),
        transport,
        lifecycle,
    )
    .await
    .map_err(|e| e.to_string())
}

e2e_support::both_backends! {
#[tokio::test]
async fn the_current_protocol_without_sessions_keeps_credentials_and_the_contract() {
    let h = Harness::start(config(120)).await;
    let admin = connect_current(&h, "admin").await.expect("a client at the current protocol");
    let north = connect_current(&h, "north").await.expect("a client at the current protocol");

    // Each call is authenticated by its own request: north still cannot see south.
    let hidden = answer(&north, "list_service_accounts", json!({"owner": "none", "tenant": "south"})).await;
    assert_envelope_invariants(&hidden);
    assert_eq!((hidden["complete"].clone(), hidden["items"].clone()), (json!(false), json!([])));
    assert_eq!(codes(&hidden), ["VISIBILITY_RESTRICTED"]);

    // A cursor issued to one call continues in the next, exactly as in a session.
    let whole = answer(&admin, "list_service_accounts", json!({"tenant": "east", "page_size": 500})).await;
    assert_eq!(whole["complete"], true);
    let pages = traverse(&admin, json!({"tenant": "east", "page_size": 7}), async |_| {}).await;
    let paged: Vec<String> = pages.iter().flat_map(ids).collect();
    assert_eq!(paged, ids(&whole), "the traversal returns the whole tenant once, in order");
    assert_eq!(pages.last().unwrap()["complete"], true);

    // A credential the service does not know is refused before anything runs.
    let refused = connect_current(&h, "mallory").await.expect_err("an unknown credential is refused");
    assert!(refused.contains("401"), "{refused}");
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_endpoint_refuses_bad_http_with_problems_and_keeps_json_rpc_errors() {
    let h = Harness::start(config(10)).await;
    let before = h.store().fingerprint().await.unwrap();
    let both = "application/json, text/event-stream";
    let post = |accept: Option<&str>, content_type: &str, body: Vec<u8>| {
        let mut request = h.request(reqwest::Method::POST, "/mcp").bearer_auth("admin").header("content-type", content_type);
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        request.body(body)
    };
    let call = br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#.to_vec();
    let authority = h.running.addr.to_string();
    let other_port = h.running.addr.port().wrapping_add(1).max(1);
    let cases = [
        ("a body that is not JSON", post(Some(both), "application/json", b"{not json".to_vec()), 400, "INVALID_BODY"),
        ("a body that is not JSON at all", post(Some(both), "application/json", b"hello".to_vec()), 400, "INVALID_BODY"),
        ("a number beyond a float", post(Some(both), "application/json", br#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_service_accounts", "arguments": {"page_size": 1e400}}}"#.to_vec()), 400, "INVALID_BODY"),
        ("a body that is not typed JSON", post(Some(both), "text/plain", call.clone()), 415, "INVALID_BODY"),
        ("a body typed as something else", post(Some(both), "application/x-www-form-urlencoded", call.clone()), 415, "INVALID_BODY"),
        ("a body typed twice", post(Some(both), "application/json", call.clone()).header("content-type", "text/plain"), 415, "INVALID_BODY"),
        ("a body sent coded", post(Some(both), "application/json", call.clone()).header("content-encoding", "gzip"), 415, "INVALID_BODY"),
        ("a query parameter, which /mcp would not read", h.request(reqwest::Method::POST, "/mcp?dry_run=true").bearer_auth("admin").header("accept", both).header("content-type", "application/json").body(call.clone()), 400, "INVALID_REQUEST"),
        ("a query on the event stream", h.request(reqwest::Method::GET, "/mcp?since=0").bearer_auth("admin").header("accept", "text/event-stream"), 400, "INVALID_REQUEST"),
        ("JSON that is not a JSON-RPC message", post(Some(both), "application/json", b"{\"a\": 1}".to_vec()), 400, "INVALID_BODY"),
        ("an empty array", post(Some(both), "application/json", b"[]".to_vec()), 400, "INVALID_BODY"),
        ("a batch", post(Some(both), "application/json", [b"[".as_slice(), &call, b"]"].concat()), 400, "INVALID_BODY"),
        ("JSON-RPC 1.0", post(Some(both), "application/json", br#"{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}"#.to_vec()), 400, "INVALID_BODY"),
        ("no Accept", post(None, "application/json", call.clone()), 406, "NOT_ACCEPTABLE"),
        ("an Accept without event streams", post(Some("application/json"), "application/json", call.clone()), 406, "NOT_ACCEPTABLE"),
        ("PUT", h.request(reqwest::Method::PUT, "/mcp").bearer_auth("admin"), 405, "METHOD_NOT_ALLOWED"),
        ("DELETE without a session", h.request(reqwest::Method::DELETE, "/mcp").bearer_auth("admin"), 400, "INVALID_REQUEST"),
        ("a target over the limit", h.request(reqwest::Method::POST, &format!("/mcp?{}", "a".repeat(9_000))).bearer_auth("admin"), 414, "URI_TOO_LONG"),
        ("two session ids", post(Some(both), "application/json", call.clone()).header("mcp-session-id", "a").header("mcp-session-id", "b").header("mcp-protocol-version", "2025-06-18"), 400, "INVALID_REQUEST"),
        ("a session that ended or never was", post(Some(both), "application/json", call.clone()).header("mcp-session-id", "gone").header("mcp-protocol-version", "2025-06-18"), 404, "NOT_FOUND"),
        ("ending a session that ended or never was", h.request(reqwest::Method::DELETE, "/mcp").bearer_auth("admin").header("mcp-session-id", "gone"), 404, "NOT_FOUND"),
        ("a path below the endpoint", h.request(reqwest::Method::POST, "/mcp/deeper").bearer_auth("admin").header("accept", both).header("content-type", "application/json").body(call.clone()), 404, "NOT_FOUND"),
        ("an unsupported protocol version", post(Some(both), "application/json", call.clone()).header("mcp-protocol-version", "1999-01-01"), 400, "INVALID_REQUEST"),
        ("a Host that is not this server", post(Some(both), "application/json", call.clone()).header("host", "evil.example"), 403, "FORBIDDEN"),
        ("an Origin of another site", post(Some(both), "application/json", call.clone()).header("origin", "http://evil.example"), 403, "FORBIDDEN"),
        ("an Origin of this host on another port", post(Some(both), "application/json", call.clone()).header("origin", format!("http://127.0.0.1:{}", other_port)), 403, "FORBIDDEN"),
        ("an https Origin of this host", post(Some(both), "application/json", call.clone()).header("origin", format!("https://{authority}")), 403, "FORBIDDEN"),
        ("the Origin of a sandboxed page", post(Some(both), "application/json", call.clone()).header("origin", "null"), 403, "FORBIDDEN"),
        ("an Origin that is not one", post(Some(both), "application/json", call.clone()).header("origin", "evil"), 403, "FORBIDDEN"),
        ("two Origins, the first this server's", post(Some(both), "application/json", call.clone()).header("origin", format!("http://{authority}")).header("origin", "http://evil.example"), 403, "FORBIDDEN"),
        ("a GET from another site", h.request(reqwest::Method::GET, "/mcp").bearer_auth("admin").header("accept", "text/event-stream").header("origin", "http://evil.example"), 403, "FORBIDDEN"),
        ("a DELETE from another site", h.request(reqwest::Method::DELETE, "/mcp").bearer_auth("admin").header("mcp-session-id", "gone").header("origin", "http://evil.example"), 403, "FORBIDDEN"),
    ];
    for (what, request, status, code) in cases {
        let answer = h.answer(request).await;
        assert_eq!(answer.status.as_u16(), status, "{what}: {answer:?}");
        answer.assert_problem(status, code);
        assert!(answer.body["detail"].as_str().is_some_and(|d| !d.is_empty()), "{what} explains itself");
    }
    // The transport's own words reach the client, and a gone session says how to go on.
    let detail = |answer: &e2e_support::Answer| answer.body["detail"].as_str().unwrap_or_default().to_owned();
    let gone = h.answer(post(Some(both), "application/json", call.clone()).header("mcp-session-id", "gone")).await;
    assert!(detail(&gone).contains("Send `initialize` without one to start a new session."), "{gone:?}");
    assert!(detail(&gone).contains("Session not found"), "{gone:?}");
    let old = h.answer(post(Some(both), "application/json", call.clone()).header("mcp-protocol-version", "1999-01-01")).await;
    assert!(detail(&old).contains("Unsupported MCP-Protocol-Version: 1999-01-01"), "{old:?}");
    let unread = h.answer(post(Some(both), "application/json", b"hello".to_vec())).await;
    assert!(detail(&unread).starts_with("The body of an MCP request is not valid JSON"), "{unread:?}");
    let shapeless = h.answer(post(Some(both), "application/json", b"[1, 2]".to_vec())).await;
    assert!(detail(&shapeless).contains("one JSON-RPC message"), "{shapeless:?}");
    // A message nested deeper than JSON is read says so, not that it has the wrong shape.
    let nested = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "list_service_accounts", "arguments": {{"owner": {}0{}}}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let deep = h.answer(post(Some(both), "application/json", nested.into_bytes())).await;
    deep.assert_problem(400, "INVALID_BODY");
    assert!(detail(&deep).contains("nested deeper than 128 levels"), "{deep:?}");
    assert!(!detail(&deep).contains("one JSON-RPC message"), "{deep:?}");
    let untyped = h.answer(post(Some(both), "text/plain", call.clone())).await;
    assert!(detail(&untyped).contains("`Content-Type: application/json`"), "{untyped:?}");
    // `arguments: null` is not an object of arguments: refused, not run with the defaults.
    let null = h.answer(raw_call(&h, "admin", 13, "list_service_accounts", "null")).await;
    assert_eq!((null.body["error"]["code"].clone(), null.body["id"].clone()), (json!(-32602), json!(13)), "{null:?}");
    assert_eq!(null.body["error"]["data"]["code"], "INVALID_ARGUMENTS", "{null:?}");
    let said = null.body["error"]["message"].as_str().unwrap_or_default();
    assert!(said.ends_with("not null; the tool did not run (INVALID_ARGUMENTS)"), "nothing ran, said as elsewhere: {said}");

    // Without an Origin (a client that is not a browser) and from this server's own origin,
    // the same request is served.
    for origin in [None, Some(format!("http://{authority}")), Some(format!("http://localhost:{}", h.running.addr.port()))] {
        let mut request = h.mcp_request("admin", 9, "tools/list", None, json!({}));
        if let Some(origin) = &origin {
            request = request.header("origin", origin);
            if origin.contains("localhost") {
                request = request.header("host", format!("localhost:{}", h.running.addr.port()));
            }
        }
        let answer = h.answer(request).await;
        assert_eq!(answer.status.as_u16(), 200, "Origin {origin:?}: {answer:?}");
    }

    // A body over the limit, with its length declared or without one (cut as it is read). Sent
    // raw: the server answers before it reads the body, which an HTTP client may report as a
    // failed write.
    let head = |framing: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer admin\r\n\
             Content-Type: application/json\r\nAccept: {both}\r\n{framing}\r\nConnection: close\r\n\r\n"
        )
    };
    let declared = head("Content-Length: 70000") + &" ".repeat(70_000);
    let chunk = format!("{:x}\r\n{}\r\n", 10_000, " ".repeat(10_000));
    let chunked = head("Transfer-Encoding: chunked") + &chunk.repeat(7) + "0\r\n\r\n";
    for request in [declared, chunked] {
        let (status, body) = h.raw(&request).await;
        assert!(status.starts_with("HTTP/1.1 413"), "{status}");
        assert!(body.contains(r#""code":"INVALID_BODY""#), "{body}");
    }

    // A JSON-RPC error stays the JSON-RPC message an MCP client reads, not a problem.
    let answer = h.answer(h.mcp_request("admin", 7, "no/such/method", None, json!({}))).await;
    assert_eq!(answer.status.as_u16(), 404, "{answer:?}");
    assert_eq!(answer.content_type, "application/json", "{answer:?}");
    assert_eq!(answer.body["id"], 7, "{answer:?}");
    assert_eq!(answer.body["error"]["code"], -32601, "{answer:?}");
    assert_eq!(answer.body["error"]["data"]["code"], "NOT_FOUND", "a stable code, as a REST route no one has: {answer:?}");
    // So is a method of a capability the service does not offer, with params that fit it.
    // (`Mcp-Name` names the resource or prompt.)
    let unoffered = [
        ("resources/list", None, json!({})),
        ("resources/templates/list", None, json!({})),
        ("resources/read", Some("file:///etc/passwd"), json!({"uri": "file:///etc/passwd"})),
        ("prompts/list", None, json!({})),
        ("prompts/get", Some("cleanup"), json!({"name": "cleanup"})),
        (
            "completion/complete",
            None,
            json!({"ref": {"type": "ref/prompt", "name": "cleanup"}, "argument": {"name": "a", "value": "b"}}),
        ),
    ];
    for (method, name, params) in unoffered {
        let answer = h.answer(h.mcp_request("admin", 7, method, name, params)).await;
        assert_eq!(answer.body["error"]["code"], -32601, "{method}: {answer:?}");
        assert_eq!(answer.body["error"]["data"]["code"], "NOT_FOUND", "{method}: {answer:?}");
        let message = answer.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(method) && message.contains("tools/call"), "{method}: {message}");
    }

    // A call whose params do not fit the protocol (`arguments` is not an object) is an
    // invalid-params error: the method exists, its params are wrong.
    let list = "list_service_accounts";
    let unfit = json!({"name": list, "arguments": []});
    let answer = h.answer(h.mcp_request("admin", 8, "tools/call", Some(list), unfit)).await;
    assert_eq!(answer.content_type, "application/json", "{answer:?}");
    assert_eq!(answer.body["id"], 8, "{answer:?}");
    assert_eq!(answer.body["error"]["code"], -32602, "{answer:?}");
    assert_eq!(answer.body["error"]["data"]["code"], "INVALID_ARGUMENTS", "{answer:?}");
    assert!(answer.body["error"]["message"].as_str().is_some_and(|m| m.contains("expected a map")), "{answer:?}");

    // Every tool is on the first page of tools/list, which names no next one: any cursor is
    // invalid (MCP's pagination: -32602), not a request for the first page again; so is one of
    // another type than string, or params that are not an object, which rmcp would drop.
    let listed = h.answer(h.mcp_request("admin", 9, "tools/list", None, json!({}))).await;
    assert_eq!(listed.body["result"]["tools"].as_array().map(Vec::len), Some(5), "{listed:?}");
    assert!(listed.body["result"]["nextCursor"].is_null(), "one page: {listed:?}");
    for cursor in [json!("bogus"), json!(""), json!("0"), json!(5), json!(["bogus"]), json!({"at": 1}), json!(true)] {
        let answer = h.answer(h.mcp_request("admin", 10, "tools/list", None, json!({"cursor": cursor}))).await;
        assert_eq!(answer.body["id"], 10, "{answer:?}");
        let listed = answer.body["result"]["tools"].is_array();
        assert_eq!(answer.body["error"]["code"], -32602, "cursor {cursor}: status {}, listed: {listed}", answer.status);
        assert_eq!(answer.body["error"]["data"]["code"], "INVALID_CURSOR", "{answer:?}");
        assert!(answer.body["result"].is_null(), "no list for a bogus cursor: {answer:?}");
    }
    for params in ["5", "[]", r#""first""#] {
        let body = format!(r#"{{"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {params}}}"#);
        let answer = h.answer(post(Some(both), "application/json", body.into_bytes())).await;
        assert_eq!(answer.body["id"], 11, "{answer:?}");
        let listed = answer.body["result"]["tools"].is_array();
        assert_eq!(answer.body["error"]["code"], -32602, "params {params}: status {}, listed: {listed}", answer.status);
        assert_eq!(answer.body["error"]["data"]["code"], "INVALID_BODY", "no cursor was sent: {answer:?}");
        assert!(answer.body["result"].is_null(), "no list for params that do not fit: {answer:?}");
    }

    // An id rmcp cannot read is named as the fault, not taken for a batch or another JSON-RPC
    // version; an archive sent with one does nothing.
    let archive = r#""method": "tools/call", "params": {"name": "archive_service_accounts", "arguments": {"ids": ["sa-000001"], "evidence": "e"}}"#;
    for id in ["9223372036854775808", "18446744073709551621", "1e40", "1.5", "null"] {
        for method in [r#""method": "tools/list""#, archive] {
            let body = format!(r#"{{"jsonrpc": "2.0", "id": {id}, {method}}}"#);
            let answer = h.answer(post(Some(both), "application/json", body.into_bytes())).await;
            answer.assert_problem(400, "INVALID_BODY");
            assert!(detail(&answer).contains("The `id` of a JSON-RPC request must be a string or an integer"), "{answer:?}");
        }
    }
    let listing = format!(r#"{{"jsonrpc": "2.0", "id": -3, "method": "tools/list", "params": {{"_meta": {}}}}}"#, current_meta());
    let answer = h.answer(raw_message(&h, "admin", "tools/list", None, listing)).await;
    assert_eq!((answer.status.as_u16(), &answer.body["id"]), (200, &json!(-3)), "a negative integer is an id: {answer:?}");

    // An `initialize` whose params do not fit is told what does not fit, not that it lacks the
    // session it is asking for.
    let client_info = r#""clientInfo": {"name": "probe", "version": "1"}"#;
    for (params, says) in [
        (None, "`initialize` needs `params`".to_owned()),
        (Some(r#"{"protocolVersion": "2025-06-18", "capabilities": {}}"#.to_owned()), "clientInfo".to_owned()),
        (Some(format!(r#"{{"protocolVersion": 5, "capabilities": {{}}, {client_info}}}"#)), "invalid type".to_owned()),
    ] {
        let params = params.map(|params| format!(r#", "params": {params}"#)).unwrap_or_default();
        let body = format!(r#"{{"jsonrpc": "2.0", "id": 12, "method": "initialize"{params}}}"#);
        let answer = h.answer(post(Some(both), "application/json", body.clone().into_bytes())).await;
        assert_eq!((answer.status.as_u16(), &answer.body["id"]), (200, &json!(12)), "{body}: {answer:?}");
        assert_eq!(answer.body["error"]["code"], -32602, "{body}: {answer:?}");
        assert_eq!(answer.body["error"]["data"]["code"], "INVALID_BODY", "{answer:?}");
        let message = answer.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(&says) && !message.contains("Session"), "{body}: {message}");
    }
    let notification = r#"{"jsonrpc": "2.0", "method": "initialize", "params": {}}"#;
    let answer = h.answer(post(Some(both), "application/json", notification.as_bytes().to_vec())).await;
    answer.assert_problem(400, "INVALID_BODY");
    assert!(detail(&answer).contains("`initialize` do not fit"), "{answer:?}");

    assert_eq!(h.store().fingerprint().await.unwrap(), before, "no refused request changed anything");
    h.running.stop().await.unwrap();
}
}

const LIST: &str = "list_service_accounts";
const SEARCH: &str = "search_service_accounts";
const COUNT: &str = "count_service_accounts";
const GET: &str = "get_service_account";
const ARCHIVE: &str = "archive_service_accounts";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_is_served_at_the_address_the_service_listens_on_and_foreign_hosts_stay_refused() {
    // Any address of 127.0.0.0/8 is loopback.
    let mut cfg = config(30);
    cfg.addr = "127.0.0.2:0".parse().unwrap();
    let h = Harness::start(cfg).await;
    assert_eq!(h.running.addr.ip().to_string(), "127.0.0.2");
    let rest = h.get("/service-accounts/count", "admin").await;
    assert_eq!(rest.status, 200, "{rest:?}");
    for version in [ProtocolVersion::LATEST_WITH_INITIALIZE, ProtocolVersion::V_2025_06_18] {
        let client = connect_with(&h, "admin", version.clone()).await.unwrap_or_else(|e| panic!("{version}: {e}"));
        assert_eq!(answer(&client, COUNT, json!({})).await["count"], rest.body["count"], "{version}");
        client.cancel().await.unwrap();
    }
    let current = connect_current(&h, "admin").await.expect("a client at the current protocol");
    assert_eq!(answer(&current, COUNT, json!({})).await["count"], rest.body["count"]);

    // Against DNS rebinding, a name, or another address, is still refused.
    let port = h.running.addr.port();
    for host in [
        "evil.example".to_owned(),
        format!("evil.example:{port}"),
        format!("127.0.0.3:{port}"),
        format!("127.0.0.2.evil.example:{port}"),
    ] {
        let answer = h.answer(h.mcp_request("admin", 1, "tools/list", None, json!({})).header("host", &host)).await;
        answer.assert_problem(403, "FORBIDDEN");
    }

    // What other binds serve: the loopback names always, and the address listened on.
    use e2e_support::service::mcp::allowed_hosts;
    let hosts = |addr: &str| allowed_hosts(addr.parse().unwrap());
    let loopback = ["localhost", "127.0.0.1", "::1"];
    assert_eq!(hosts("127.0.0.1:3000"), loopback, "no address twice");
    assert_eq!(hosts("[::1]:3000"), loopback, "no address twice");
    assert_eq!(hosts("127.0.0.2:3000"), ["localhost", "127.0.0.1", "::1", "127.0.0.2"]);
    assert_eq!(hosts("[fd00::5]:3000"), ["localhost", "127.0.0.1", "::1", "[fd00::5]"]);
    assert_eq!(hosts("0.0.0.0:3000"), ["localhost", "127.0.0.1", "::1", "0.0.0.0"], "what the banner prints");
    assert_eq!(hosts("[::]:3000"), ["localhost", "127.0.0.1", "::1", "[::]"], "what the banner prints");
    current.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_answers_only_the_credential_that_opened_it() {
    let h = Harness::start(config(30)).await;
    let version = "2025-06-18";
    let both = "application/json, text/event-stream";
    let post = |token: &str, session: Option<&str>, body: Value| {
        let mut request =
            h.request(reqwest::Method::POST, "/mcp").bearer_auth(token).header("accept", both).json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", version);
        }
        request
    };
    let stream = |token: &str, session: &str| {
        h.request(reqwest::Method::GET, "/mcp")
            .bearer_auth(token)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", version)
    };
    let end = |token: &str, session: &str| {
        h.request(reqwest::Method::DELETE, "/mcp")
            .bearer_auth(token)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", version)
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = post("north", None, initialize.clone()).send().await.unwrap();
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post("north", Some(&session), initialized).send().await.unwrap().status(), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": COUNT, "arguments": {}}});

    // Any other credential naming north's session gets what a session that never existed gets.
    let never = h.answer(post("south", Some("never-was"), call.clone())).await;
    never.assert_problem(404, "NOT_FOUND");
    for token in ["south", "admin"] {
        let requests = [
            ("tools/call", post(token, Some(&session), call.clone())),
            ("the event stream", stream(token, &session)),
            ("ending it", end(token, &session)),
        ];
        for (what, request) in requests {
            let answer = h.answer(request).await;
            answer.assert_problem(404, "NOT_FOUND");
            assert_eq!(answer.body, never.body, "{token}, {what}: nothing tells the session exists");
        }
    }

    // north's session is untouched: it answers north, and its event stream opens.
    let answered = post("north", Some(&session), call.clone()).send().await.unwrap();
    assert_eq!(answered.status(), 200);
    let result = message(&answered.text().await.unwrap());
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(result["result"]["structuredContent"]["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
    let events = stream("north", &session).send().await.unwrap();
    assert_eq!(events.status(), 200);
    assert!(events.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    drop(events);

    // Ended by north, it is gone for north too.
    assert!(h.answer(end("north", &session)).await.status.is_success());
    h.answer(post("north", Some(&session), call.clone())).await.assert_problem(404, "NOT_FOUND");
    h.answer(end("north", &session)).await.assert_problem(404, "NOT_FOUND");

    // A credential holds a bounded number of sessions (each holds memory until it ends): one
    // more is refused with a code of the service's own, and opens nothing; another credential
    // is not held back, and ending one makes room.
    use e2e_support::service::mcp::{MAX_SESSIONS_PER_CREDENTIAL, TOO_MANY_SESSIONS};
    let mut held = Vec::new();
    for _ in 0..MAX_SESSIONS_PER_CREDENTIAL {
        let opened = post("north", None, initialize.clone()).send().await.unwrap();
        assert_eq!(opened.status(), 200);
        held.push(opened.headers()["mcp-session-id"].to_str().unwrap().to_owned());
    }
    let refused = h.answer(post("north", None, initialize.clone())).await;
    refused.assert_problem(429, TOO_MANY_SESSIONS);
    assert!(refused.body["detail"].as_str().is_some_and(|d| d.contains("No session was opened")), "{refused:?}");
    assert_eq!(h.answer(post("admin", None, initialize.clone())).await.status.as_u16(), 200, "admin is not held back");
    assert!(h.answer(end("north", &held[0])).await.status.is_success());
    assert_eq!(h.answer(post("north", None, initialize.clone())).await.status.as_u16(), 200, "one ended, one opens");
    h.answer(post("north", None, initialize)).await.assert_problem(429, TOO_MANY_SESSIONS);
    h.running.stop().await.unwrap();
}
}

/// The `_meta` every request of the current protocol carries (as `Harness::mcp_request` sends).
fn current_meta() -> String {
    json!({
        "io.modelcontextprotocol/protocolVersion": ProtocolVersion::V_2026_07_28.to_string(),
        "io.modelcontextprotocol/clientCapabilities": {}
    })
    .to_string()
}

/// `POST /mcp` as `token` of the JSON-RPC message `text`, written out by hand because no client
/// library sends it (a member given twice, a number serde_json cannot hold), at the current
/// protocol: `method` (and the `tool` it names) in the headers too.
fn raw_message(h: &Harness, token: &str, method: &str, tool: Option<&str>, text: String) -> reqwest::RequestBuilder {
    let version = ProtocolVersion::V_2026_07_28.to_string();
    let mut request = h
        .request(reqwest::Method::POST, "/mcp")
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", &version)
        .header("mcp-method", method);
    if let Some(tool) = tool {
        request = request.header("mcp-name", tool);
    }
    request.body(text)
}

/// `tools/call` of `tool` as `token` (request `id`), its `arguments` the JSON text `arguments`.
fn raw_call(h: &Harness, token: &str, id: u64, tool: &str, arguments: &str) -> reqwest::RequestBuilder {
    let text = format!(
        r#"{{"jsonrpc": "2.0", "id": {id}, "method": "tools/call", "params": {{"_meta": {}, "name": "{tool}", "arguments": {arguments}}}}}"#,
        current_meta()
    );
    raw_message(h, token, "tools/call", Some(tool), text)
}

/// The problem a tool error of a raw answer's `result` carries.
fn problem_in(result: &Value) -> Value {
    let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("a text block in {result}"));
    serde_json::from_str(&text[text.find("\n{").expect("the problem JSON")..]).unwrap()
}

/// A proxy at `http://127.0.0.1:PORT` in front of `h`'s `/mcp`, for an rmcp client, which
/// cannot send a member twice: in each message it forwards, a member named `twice:NAME` is
/// renamed `NAME`, so that an object that has both names NAME twice. Answers come back as they
/// are, read whole; a `GET` (the event stream a client may open) is answered 405, which tells an
/// rmcp client there is none.
async fn doubling_proxy(h: &Harness) -> String {
    use axum::body::{Body, Bytes};
    use axum::http::header::{CONTENT_LENGTH, HOST, TRANSFER_ENCODING};
    use axum::http::{HeaderMap, Method, StatusCode};
    use axum::response::{IntoResponse, Response};

    let target = format!("{}/mcp", h.running.url());
    let client = reqwest::Client::new();
    let forward = move |method: Method, headers: HeaderMap, body: Bytes| {
        let (target, client) = (target.clone(), client.clone());
        async move {
            if method == Method::GET {
                return StatusCode::METHOD_NOT_ALLOWED.into_response();
            }
            let body = String::from_utf8_lossy(&body).replace("\"twice:", "\"");
            let mut request = client.request(method, &target).body(body);
            for (name, value) in &headers {
                if name != HOST && name != CONTENT_LENGTH {
                    request = request.header(name, value);
                }
            }
            let response = request.send().await.expect("the service answers");
            let mut answer = Response::builder().status(response.status());
            for (name, value) in response.headers() {
                if name != CONTENT_LENGTH && name != TRANSFER_ENCODING {
                    answer = answer.header(name, value);
                }
            }
            answer.body(Body::from(response.bytes().await.expect("a whole answer"))).unwrap()
        }
    };
    let app = axum::Router::new().route("/mcp", axum::routing::any(forward));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_given_twice_is_refused_before_any_tool_runs_and_nothing_changes() {
    let h = Harness::start(config(200)).await;
    let admin = connect(&h, "admin").await;
    let complete = answer(&admin, LIST, json!({"owner": "none", "page_size": 500})).await;
    let unowned = ids(&complete);
    let evidence = complete["evidence"].as_str().expect("a complete inventory's evidence").to_owned();
    let before = h.store().fingerprint().await.unwrap();

    // The REST route refuses a body that names `ids` twice rather than archive the last.
    let twice = format!(r#"{{"ids": ["{}"], "ids": ["{}"], "evidence": "{evidence}"}}"#, unowned[0], unowned[1]);
    h.send(reqwest::Method::POST, "/service-accounts/archive", Some("admin"), Some(twice.clone().into_bytes()))
        .await
        .assert_problem(400, "INVALID_BODY");
    // So does the tool: the call's JSON-RPC error, naming the member, with the problem code.
    let refused = h.answer(raw_call(&h, "admin", 11, ARCHIVE, &twice)).await;
    assert_eq!((refused.status.as_u16(), refused.content_type.as_str()), (200, "application/json"), "{refused:?}");
    assert_eq!(refused.body["id"], 11, "{refused:?}");
    assert_eq!(refused.body["error"]["code"], -32602, "{refused:?}");
    assert_eq!(refused.body["error"]["data"]["code"], "INVALID_BODY", "{refused:?}");
    let message = refused.body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("member `ids`") && message.contains("twice"), "{message}");
    assert!(refused.body["result"].is_null(), "{refused:?}");
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");

    // `tenant` twice: REST refuses the repeated parameter, and the tool does not pick one either.
    h.get("/service-accounts?tenant=north&tenant=south", "north").await.assert_problem(400, "INVALID_REQUEST");
    let refused = h.answer(raw_call(&h, "north", 12, LIST, r#"{"tenant": "north", "tenant": "south"}"#)).await;
    assert_eq!(refused.body["error"]["code"], -32602, "{refused:?}");
    assert!(refused.body["error"]["message"].as_str().unwrap_or_default().contains("member `tenant`"), "{refused:?}");

    // Twice among the params themselves, or deeper in the arguments: the same, each named.
    let meta = current_meta();
    let cases = [
        (format!(r#"{{"_meta": {meta}, "name": "{COUNT}", "name": "{LIST}", "arguments": {{}}}}"#), "name", COUNT),
        (format!(r#"{{"_meta": {meta}, "name": "{GET}", "arguments": {{"id": "sa-000001", "fields": ["id"], "fields": ["secret_fingerprint"]}}}}"#), "fields", GET),
        (format!(r#"{{"_meta": {meta}, "name": "{LIST}", "arguments": {{"owner": {{"a": 1, "a": 2}}}}}}"#), "a", LIST),
    ];
    for (params, member, tool) in cases {
        let text = format!(r#"{{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {params}}}"#);
        let refused = h.answer(raw_message(&h, "admin", "tools/call", Some(tool), text)).await;
        assert_eq!((refused.body["id"].clone(), refused.body["error"]["code"].clone()), (json!(13), json!(-32602)), "{refused:?}");
        let message = refused.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(&format!("member `{member}`")) && !message.contains("missing"), "{message}");
    }
    // A message that leaves no request to answer (its own `id` twice, a notification) is a problem.
    let unanswerable = [
        ("tools/list", r#"{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "tools/list"}"#),
        ("notifications/initialized", r#"{"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"a": 1, "a": 2}}"#),
    ];
    for (method, text) in unanswerable {
        let refused = h.answer(raw_message(&h, "admin", method, None, text.to_owned())).await;
        refused.assert_problem(400, "INVALID_BODY");
        assert!(refused.body["detail"].as_str().unwrap_or_default().contains("is given twice"), "{refused:?}");
    }

    // rmcp's own client reads the refusal as the call's error, in a session and without one,
    // and goes on.
    let proxy = doubling_proxy(&h).await;
    let clients = [
        connect_at(&proxy, "admin", ProtocolVersion::LATEST_WITH_INITIALIZE).await.expect("a session through the proxy"),
        connect_current_at(&proxy, "admin").await.expect("a client at the current protocol through the proxy"),
    ];
    for client in clients {
        let arguments = json!({"ids": [unowned[0]], "twice:ids": [unowned[1]], "evidence": evidence});
        match call(&client, ARCHIVE, arguments).await {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(error.code.0, -32602, "{error:?}");
                assert_eq!(error.data.as_ref().map(|data| data["code"].clone()), Some(json!("INVALID_BODY")), "{error:?}");
                assert!(error.message.contains("member `ids`"), "{error:?}");
            }
            other => panic!("a JSON-RPC error of the call, not {other:?}"),
        }
        assert_eq!(answer(&client, COUNT, json!({})).await["complete"], true, "the client goes on");
        client.cancel().await.unwrap();
    }
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");

    // Given once, the same ids archive.
    let archived = answer(&admin, ARCHIVE, json!({"ids": [unowned[1]], "evidence": evidence})).await;
    assert_eq!(archived["archived"], json!([unowned[1]]));
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// The service's log lines (its human format, `debug`, rmcp capped as the service caps it)
/// written while the returned subscriber is the default.
fn captured_log() -> (impl tracing::Subscriber + Send + Sync, e2e_support::LogBuffer) {
    use tracing_subscriber::layer::SubscriberExt;
    let log = e2e_support::LogBuffer::default();
    let writer = {
        let log = log.clone();
        move || log.clone()
    };
    let filter = e2e_support::service::telemetry::log_filter(Some(std::ffi::OsStr::new("debug"))).unwrap();
    let subscriber = tracing_subscriber::registry()
        .with(filter)
        .with(tracing_subscriber::fmt::layer().with_ansi(false).with_writer(writer));
    (subscriber, log)
}

// One thread, so that the log of every task the service spawns is captured.
#[tokio::test]
async fn argument_errors_name_the_argument_and_its_type_and_no_value_reaches_the_log() {
    let (subscriber, log) = captured_log();
    let _log = tracing::subscriber::set_default(subscriber);
    let h = Harness::start(config(20)).await;
    let admin = connect(&h, "admin").await;
    let older = connect_with(&h, "admin", ProtocolVersion::V_2025_06_18).await.expect("a 2025-06-18 session");
    const SECRET: &str = "c1.secret-token-never-logged";
    // Every argument of every tool, of a JSON type it cannot have and carrying SECRET, the
    // others valid.
    let cases = [
        (LIST, "owner", json!({"owner": {"o": SECRET}}), "a string or null"),
        (LIST, "tenant", json!({"tenant": [SECRET]}), "a string or null"),
        (LIST, "page_size", json!({"page_size": SECRET}), "an integer or null"),
        (LIST, "cursor", json!({"cursor": [SECRET]}), "a string or null"),
        (LIST, "require_complete", json!({"require_complete": SECRET}), "a boolean"),
        (SEARCH, "q", json!({"q": [SECRET]}), "a string"),
        (SEARCH, "tenant", json!({"q": "svc", "tenant": {"t": SECRET}}), "a string or null"),
        (SEARCH, "time_budget_ms", json!({"q": "svc", "time_budget_ms": SECRET}), "an integer or null"),
        (SEARCH, "require_complete", json!({"q": "svc", "require_complete": SECRET}), "a boolean"),
        (COUNT, "owner", json!({"owner": [SECRET]}), "a string or null"),
        (COUNT, "tenant", json!({"tenant": {"t": SECRET}}), "a string or null"),
        (COUNT, "require_complete", json!({"require_complete": SECRET}), "a boolean"),
        (GET, "id", json!({"id": {"id": SECRET}}), "a string"),
        (GET, "fields", json!({"id": "sa-000001", "fields": SECRET}), "an array of strings"),
        (GET, "fields", json!({"id": "sa-000001", "fields": [{"f": SECRET}]}), "an array of strings"),
        (ARCHIVE, "ids", json!({"ids": SECRET}), "an array of strings"),
        (ARCHIVE, "ids", json!({"ids": [[SECRET]]}), "an array of strings"),
        (ARCHIVE, "evidence", json!({"ids": ["sa-000001"], "evidence": [SECRET]}), "a string or null"),
    ];
    for (tool, argument, arguments, expected) in cases {
        let (code, text) = refusal(&admin, tool, arguments.clone()).await;
        assert_eq!(code, "INVALID_ARGUMENTS", "{tool}({arguments}): {text}");
        let said = format!("REFUSED (INVALID_ARGUMENTS): argument `{argument}` must be {expected}.\n");
        assert!(text.starts_with(&said), "{tool}({arguments}): {text}");
        let problem: Value = serde_json::from_str(&text[text.find("\n{").unwrap()..]).unwrap();
        assert_eq!(problem["parameter"], argument, "{problem}");
        assert!(!text.contains("secret-token"), "{text}");
        // In 2025-06-18, a JSON-RPC error with the same words, which rmcp logs.
        let error = match call(&older, tool, arguments.clone()).await {
            Err(ServiceError::McpError(error)) => error,
            other => panic!("{tool}({arguments}): a JSON-RPC error in 2025-06-18, not {other:?}"),
        };
        assert_eq!(error.code.0, -32602, "{error:?}");
        let said = format!("argument `{argument}` must be {expected}; the tool did not run (INVALID_ARGUMENTS)");
        assert_eq!(error.message, said, "{tool}({arguments})");
        assert_eq!(error.data.as_ref().map(|data| data["argument"].clone()), Some(json!(argument)), "{error:?}");
        assert!(!format!("{error:?}").contains("secret-token"), "{error:?}");
    }
    // A missing or unknown argument is named too.
    let (_, text) = refusal(&admin, SEARCH, json!({})).await;
    assert!(text.contains("argument `q` is missing"), "{text}");
    let (_, text) = refusal(&admin, LIST, json!({"ownr": "none"})).await;
    assert!(text.contains("unknown argument `ownr`"), "{text}");
    // `arguments` that are not an object: the protocol's error, without the value either.
    for arguments in [json!(SECRET), json!([SECRET])] {
        let params = json!({"name": ARCHIVE, "arguments": arguments});
        let answer = h.answer(h.mcp_request("admin", 3, "tools/call", Some(ARCHIVE), params)).await;
        assert_eq!(answer.body["error"]["code"], -32602, "{answer:?}");
        assert!(!answer.body.to_string().contains("secret-token"), "{answer:?}");
    }
    admin.cancel().await.unwrap();
    older.cancel().await.unwrap();
    h.running.stop().await.unwrap();
    let log = log.text();
    assert!(log.contains("must be an array of strings"), "rmcp logs the errors it answers with:\n{log}");
    assert!(!log.contains("secret-token"), "a value reached the log:\n{log}");
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_argument_gets_the_rest_answer_whatever_its_json_form() {
    let h = Harness::start(config(40)).await;
    // Each JSON form with the query text REST gets the same answer for: a number that names an
    // integer is that integer (JSON Schema's `integer`, which the `inputSchema` says), any other
    // is read from its text.
    let sizes = [
        ("-1", "-1"), ("-0", "-0"), ("0", "0"), ("2.0", "2"), ("1e2", "100"), ("1E2", "100"), ("2.5", "2.5"), ("3", "3"),
        ("2.0000000000000001", "2.0000000000000001"), ("1e-400", "1e-400"), ("-3.0E0", "-3"), ("0.3e1", "3"),
        // An exponent of zero, without a fraction, names the integer too.
        ("5e0", "5"), ("5E+0", "5"), ("5e-0", "5"), ("10e0", "10"),
        ("18446744073709551615", "18446744073709551615"), ("18446744073709551616", "18446744073709551616"),
        ("99999999999999999999999", "99999999999999999999999"),
        // Zero whatever its exponent, which is never written out (it had taken the server down).
        ("0e1000000000000000", "0"), ("0.000e999999999999", "0"), ("-0e99999999999", "0"),
    ];
    for (text, query) in sizes {
        let rest = h.get(&format!("/service-accounts?tenant=east&page_size={}", e2e_support::encode(query)), "admin").await;
        let arguments = format!(r#"{{"tenant": "east", "page_size": {text}}}"#);
        let mcp = h.answer(raw_call(&h, "admin", 1, LIST, &arguments)).await;
        let result = &mcp.body["result"];
        if rest.status == 200 {
            assert_eq!(result["isError"], false, "page_size {text}: {mcp:?}");
            let page = &result["structuredContent"]["page"];
            for member in ["requested_size", "applied_size"] {
                assert_eq!(page[member], rest.body["page"][member], "page_size {text}: {member}");
            }
            assert_eq!(result["structuredContent"]["warnings"], rest.body["warnings"], "page_size {text}");
        } else {
            assert_eq!(result["isError"], true, "page_size {text}: {mcp:?}");
            let problem = problem_in(result);
            assert_eq!((problem["code"].clone(), problem["detail"].clone()), (rest.body["code"].clone(), rest.body["detail"].clone()), "page_size {text}");
        }
    }
    let budgets = [("-5", "-5"), ("0", "0"), ("100.0", "100"), ("1e3", "1000"), ("300e0", "300"), ("0.5", "0.5"), ("2000", "2000"), ("18446744073709551616", "18446744073709551616"), ("0e300000000", "0")];
    for (text, query) in budgets {
        let rest = h.get(&format!("/search?q=svc-east&time_budget_ms={}", e2e_support::encode(query)), "admin").await;
        let arguments = format!(r#"{{"q": "svc-east", "time_budget_ms": {text}}}"#);
        let mcp = h.answer(raw_call(&h, "admin", 2, SEARCH, &arguments)).await;
        let result = &mcp.body["result"];
        if rest.status == 200 {
            assert_eq!(result["isError"], false, "time_budget_ms {text}: {mcp:?}");
        } else {
            assert_eq!(result["isError"], true, "time_budget_ms {text}: {mcp:?}");
            let problem = problem_in(result);
            assert_eq!((problem["code"].clone(), problem["detail"].clone()), (rest.body["code"].clone(), rest.body["detail"].clone()), "time_budget_ms {text}");
        }
    }
    // A JSON type that is not a number at all is refused for its type, before the tool runs.
    let unfit = [
        (LIST, r#"{"page_size": "10"}"#),
        (LIST, r#"{"page_size": {}}"#),
        (LIST, r#"{"page_size": [1]}"#),
        (LIST, r#"{"page_size": true}"#),
        (SEARCH, r#"{"q": "svc", "time_budget_ms": "50"}"#),
        (SEARCH, r#"{"q": "svc", "time_budget_ms": {"ms": 50}}"#),
    ];
    for (tool, arguments) in unfit {
        let answer = h.answer(raw_call(&h, "admin", 3, tool, arguments)).await;
        assert_eq!(answer.body["result"]["isError"], true, "{arguments}: {answer:?}");
        let problem = problem_in(&answer.body["result"]);
        assert_eq!(problem["code"], "INVALID_ARGUMENTS", "{arguments}: {problem}");
        assert!(problem["detail"].as_str().unwrap_or_default().contains("must be an integer"), "{problem}");
    }
    h.running.stop().await.unwrap();
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_archive_refused_for_its_evidence_carries_the_approval_request() {
    let h = Harness::start(config(200)).await;
    let admin = connect(&h, "admin").await;
    let complete = answer(&admin, LIST, json!({"owner": "none", "page_size": 500})).await;
    let unowned = ids(&complete);
    let evidence = complete["evidence"].clone();
    let before = h.store().fingerprint().await.unwrap();

    // Refused for what the call names, not for its evidence: an approval would mend nothing.
    let malformed = [json!({"ids": [], "evidence": evidence}), json!({"ids": [unowned[0], unowned[0]], "evidence": evidence})];
    for arguments in malformed {
        let rest = h.post("/service-accounts/archive", "admin", &arguments).await;
        rest.assert_problem(400, "INVALID_BODY");
        let (code, text) = refusal(&admin, ARCHIVE, arguments.clone()).await;
        assert_eq!(code, "INVALID_BODY", "{arguments}");
        for approval in ["NOT ARCHIVED", "Missing:", "Options:"] {
            assert!(!text.contains(approval), "{arguments}: {text}");
        }
        assert!(text.contains("Nothing has been archived."), "{text}");
    }
    // Refused for the evidence: the approval request says what is missing and the options.
    let for_evidence = [
        (json!({"ids": [unowned[0]]}), "EVIDENCE_REQUIRED"),
        (json!({"ids": [unowned[0]], "evidence": "forged"}), "EVIDENCE_INVALID"),
        (json!({"ids": ["sa-999999"], "evidence": evidence}), "TARGET_NOT_IN_EVIDENCE"),
    ];
    for (arguments, expected) in for_evidence {
        let (code, text) = refusal(&admin, ARCHIVE, arguments.clone()).await;
        assert_eq!(code, expected, "{arguments}");
        for approval in ["NOT ARCHIVED: nothing has been changed", "Missing:", "Options:"] {
            assert!(text.contains(approval), "{arguments}: {text}");
        }
        // Targets outside the inventory are named, and the first option is to leave them out:
        // a new inventory would not hold them either.
        if expected == "TARGET_NOT_IN_EVIDENCE" {
            assert!(text.contains("not in the inventory the evidence covers (owned, archived or outside its filters): sa-999999."), "{text}");
            assert!(text.contains("1. call archive_service_accounts again without them, with the same evidence;"), "{text}");
        }
    }
    assert_eq!(h.store().fingerprint().await.unwrap(), before, "nothing was archived");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// Every property name and every string value an `enum` allows, anywhere in `schema`.
fn names_in(schema: &Value, names: &mut std::collections::BTreeSet<String>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                names.extend(properties.keys().cloned());
            }
            if let Some(Value::Array(values)) = object.get("enum") {
                names.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            object.values().for_each(|member| names_in(member, names));
        }
        Value::Array(items) => items.iter().for_each(|item| names_in(item, names)),
        _ => {}
    }
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn descriptions_name_only_what_their_tool_takes_and_answers_with() {
    let h = Harness::start(config(20)).await;
    let admin = connect(&h, "admin").await;
    let tools = admin.list_all_tools().await.expect("tools/list");
    for t in &tools {
        let input = Value::Object(t.input_schema.as_ref().clone());
        let output = Value::Object(t.output_schema.as_ref().expect("an outputSchema").as_ref().clone());
        let mut known = std::collections::BTreeSet::from(["structuredContent".to_owned(), "none".to_owned()]);
        names_in(&input, &mut known);
        names_in(&output, &mut known);
        let description = t.description.as_deref().unwrap_or_default();
        // Each member it names in backticks is one its tool takes or answers with.
        for named in description.split('`').skip(1).step_by(2) {
            if named.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                assert!(known.contains(named), "{} names `{named}`, which it neither takes nor answers with", t.name);
            }
        }
        // It explains exactly the reason codes its answers can carry, and names no warning
        // code they cannot carry.
        if let Some(reason) = output["properties"]["incomplete_reasons"]["items"]["$ref"].as_str() {
            let codes = |component: &str| -> std::collections::BTreeSet<&str> {
                let name = component.trim_start_matches("#/$defs/");
                let schema = &output["$defs"][name];
                // A reason type of several codes has a branch per code.
                let branches = schema["oneOf"].as_array().map_or_else(|| vec![schema], |b| b.iter().collect());
                branches
                    .into_iter()
                    .flat_map(|b| b["properties"]["code"]["enum"].as_array().unwrap())
                    .filter_map(Value::as_str)
                    .collect()
            };
            let declared = codes(reason);
            // A tool that declares no warning has no warning schema to refer to.
            let warnings = output["properties"]["warnings"]["items"]["$ref"].as_str().map(codes).unwrap_or_default();
            let explained: std::collections::BTreeSet<&str> = description
                .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .filter(|word| word.contains('_') && word.len() > 4)
                .collect();
            let explained_reasons: std::collections::BTreeSet<&str> =
                explained.iter().copied().filter(|code| !warnings.contains(code)).collect();
            assert_eq!(explained_reasons, declared, "{}: {description}", t.name);
        }
    }
    // The search reads a lagging index: its description says what that takes away.
    let search = tool(&tools, SEARCH).description.as_deref().unwrap_or_default();
    assert!(search.contains("STALE_INDEX") && search.contains("does not prove absence"), "{search}");
    let count = tool(&tools, COUNT).description.as_deref().unwrap_or_default();
    assert!(count.contains("`relation`") && count.contains("`count`") && !count.contains("`value`"), "{count}");
    // The limits the service applies, so that an agent need not find them by trying.
    let settings = &h.running.state.completeness;
    let list = tool(&tools, LIST).description.as_deref().unwrap_or_default();
    let sizes = format!(
        "A page holds {} accounts unless `page_size` asks for another number, at most {}; a cursor expires {} s",
        settings.default_page_size(),
        settings.max_page_size(),
        settings.cursor_ttl().as_secs()
    );
    assert!(list.contains(&sizes), "{sizes} in: {list}");
    // How long evidence lasts, where it is made and where it is spent.
    let lasts = format!("expires {} s after that page", settings.evidence_ttl().as_secs());
    assert!(list.contains(&lasts), "{lasts} in: {list}");
    let archive = tool(&tools, ARCHIVE).description.as_deref().unwrap_or_default();
    let within = format!("within {} s of that page", settings.evidence_ttl().as_secs());
    assert!(archive.contains(&within) && archive.contains("EVIDENCE_EXPIRED"), "{within} in: {archive}");
    let budget =
        format!("{} ms unless `time_budget_ms`", settings.default_time_budget().as_millis());
    assert!(search.contains(&budget), "{budget} in: {search}");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

e2e_support::both_backends! {
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_schemas_accept_what_the_tools_accept_and_refuse_what_they_refuse() {
    let h = Harness::start(config(200)).await;
    let admin = connect(&h, "admin").await;
    let tools = admin.list_all_tools().await.expect("tools/list");
    // Each inputSchema accepts what the tool accepts and refuses what it refuses, as REST's
    // schemas do: `fields` may name a field twice (as `fields=id,id` may), `ids` may not (as the
    // REST body's `uniqueItems` says).
    let complete = answer(&admin, LIST, json!({"owner": "none", "page_size": 500})).await;
    let some = ids(&complete);
    let document = h.send(reqwest::Method::GET, "/openapi.json", None, None).await.body;
    let rest_archive = &document["components"]["schemas"]["ArchiveRequest"]["properties"];
    let validator = |name: &str| {
        jsonschema::draft202012::new(&Value::Object(tool(&tools, name).input_schema.as_ref().clone())).unwrap()
    };
    let repeated_fields = json!({"id": some[0], "fields": ["id", "id"]});
    assert!(validator(GET).is_valid(&repeated_fields), "the schema allows a field twice");
    assert_eq!(h.get(&format!("/service-accounts/{}?fields=id,id", some[0]), "admin").await.status, 200);
    answer(&admin, GET, repeated_fields).await;
    let archive_input = &tool(&tools, ARCHIVE).input_schema;
    assert_eq!(archive_input["properties"]["ids"]["uniqueItems"], rest_archive["ids"]["uniqueItems"]);
    assert_eq!(archive_input["properties"]["evidence"]["minLength"], rest_archive["evidence"]["minLength"]);
    let repeated_ids = json!({"ids": [some[0], some[0]], "evidence": complete["evidence"]});
    assert!(!validator(ARCHIVE).is_valid(&repeated_ids), "the schema refuses an id twice");
    assert_eq!(refusal(&admin, ARCHIVE, repeated_ids).await.0, "INVALID_BODY");
    assert!(validator(ARCHIVE).is_valid(&json!({"ids": [some[0]], "evidence": complete["evidence"]})));
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}
}

/// `POST /mcp` as `admin` on protocol 2025-06-18 carrying `body`, in `session` when given.
fn session_post(h: &Harness, session: Option<&str>, body: Value) -> reqwest::RequestBuilder {
    let request = h
        .request(reqwest::Method::POST, "/mcp")
        .bearer_auth("admin")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&body);
    match session {
        Some(session) => request.header("mcp-session-id", session),
        None => request,
    }
}

/// A 2025-06-18 session opened by hand as `admin` (initialized, and told so): its id.
async fn raw_session(h: &Harness) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let opened = session_post(h, None, initialize).send().await.unwrap();
    let session = opened.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    opened.text().await.unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(session_post(h, Some(&session), initialized).send().await.unwrap().status(), 202);
    session
}

/// In a session, a request sent while another of the same session with the same `id` is in
/// flight is refused with `-32600` before it runs, and the first gets its own answer: rmcp,
/// which matches answers by `id`, would have given the first one's answer to the second and
/// left the first (an archive, say) without one. Once answered, the `id` may be used again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_in_flight_in_a_session_is_refused_and_the_first_request_keeps_its_answer() {
    let slow_audit = vec![("audit".to_owned(), Duration::from_millis(800))];
    let h = Harness::start(e2e_support::Config { slow_sources: slow_audit, ..config(30) }).await;
    let post = |session: Option<&str>, body: Value| session_post(&h, session, body).send();
    let session = raw_session(&h).await;

    // A search the slow source holds for 0.8 s, and a ping with its id meanwhile.
    let search = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "search_service_accounts", "arguments": {"q": "svc", "time_budget_ms": 5000}}});
    let sent = post(Some(&session), search);
    let first = tokio::spawn(async move { sent.await.unwrap().text().await.unwrap() });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    let refused = post(Some(&session), ping.clone()).await.unwrap();
    let refused = message(&refused.text().await.unwrap());
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!(7), json!(-32600)), "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("is in flight in this session"), "{refused}");

    let answered = message(&first.await.unwrap());
    assert_eq!(answered["id"], 7, "{answered}");
    assert_eq!(answered["result"]["isError"], false, "the first request keeps its own answer: {answered}");
    assert!(answered["result"]["structuredContent"]["items"].is_array(), "{answered}");
    // Answered, the id is free again.
    let again = message(&post(Some(&session), ping).await.unwrap().text().await.unwrap());
    assert_eq!((again["id"].clone(), again["result"].clone()), (json!(7), json!({})), "{again}");

    h.running.stop().await.unwrap();
}

/// In a session, a cancellation is accepted and ignored: the cancelled call runs to its end and
/// is answered with its own result, and its `id` stays in use until then. (rmcp forgot a
/// cancelled `id` at once while the tool ran on, then gave the tool's answer to the next
/// request with that `id`: a search for an account that exists answered "0 results, complete"
/// with the cancelled search's scope.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_keeps_its_id_and_its_answer_until_it_is_answered() {
    let slow_audit = vec![("audit".to_owned(), Duration::from_millis(800))];
    let h = Harness::start(e2e_support::Config { slow_sources: slow_audit, ..config(30) }).await;
    let post = |session: Option<&str>, body: Value| session_post(&h, session, body).send();
    let session = raw_session(&h).await;

    let search = |id: u64, q: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "search_service_accounts", "arguments": {"q": q, "time_budget_ms": 5000}}})
    };
    let sent = post(Some(&session), search(7, "zzzz"));
    let first = tokio::spawn(async move { sent.await.unwrap().text().await.unwrap() });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    assert_eq!(post(Some(&session), cancel).await.unwrap().status(), 202);
    let refused = message(&post(Some(&session), search(7, "svc-north")).await.unwrap().text().await.unwrap());
    assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (json!(7), json!(-32600)), "{refused}");

    let answered = message(&first.await.unwrap());
    assert_eq!(answered["id"], 7, "{answered}");
    let scope = &answered["result"]["structuredContent"]["scope"];
    assert_eq!(scope["filters"]["q"], "zzzz", "the cancelled call is answered with its own result: {answered}");
    // Answered, the id is free again, and a new call gets its own answer.
    let again = message(&post(Some(&session), search(7, "svc-north")).await.unwrap().text().await.unwrap());
    let found = &again["result"]["structuredContent"];
    assert_eq!(found["scope"]["filters"]["q"], "svc-north", "{again}");
    assert!(!found["items"].as_array().unwrap().is_empty(), "{again}");

    h.running.stop().await.unwrap();
}

/// A session has at most so many requests in flight or given up on lately: past them a new one
/// is refused, so that a client that sends requests and goes away from each cannot fill the
/// server's memory. Another session is not held back by it.
#[test]
fn a_session_has_a_bounded_number_of_requests_in_flight() {
    use e2e_support::service::mcp::{InFlight, MAX_IDS_PER_SESSION, Taken};
    let in_flight = InFlight::default();
    let key = |session: &str, id: u64| (session.to_owned(), id);
    for id in 0..MAX_IDS_PER_SESSION as u64 {
        assert!(in_flight.take(&key("s", id)).is_ok());
    }
    assert!(matches!(in_flight.take(&key("s", 3)), Err(Taken::InUse)));
    assert!(matches!(in_flight.take(&key("s", 100_000)), Err(Taken::Full)));
    assert!(in_flight.take(&key("t", 3)).is_ok(), "another session is not held back");
}

/// `POST /mcp` as `token` of the JSON-RPC message `body`, in `session` (with the protocol
/// version it negotiated, `version`) when one is named.
fn post_in(h: &Harness, token: &str, session: Option<(&str, &str)>, body: &Value) -> reqwest::RequestBuilder {
    let mut request = h
        .request(reqwest::Method::POST, "/mcp")
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some((session, version)) = session {
        request = request.header("mcp-session-id", session).header("mcp-protocol-version", version);
    }
    request
}

/// Sends `initialize` asking for protocol `version` as `token`: the session's id and the
/// version the server answered with.
async fn open_session(h: &Harness, token: &str, version: &str) -> (String, String) {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let response = post_in(h, token, None, &initialize).send().await.unwrap();
    assert_eq!(response.status(), 200, "initialize {version}");
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let answered = message(&response.text().await.unwrap());
    let agreed = answered["result"]["protocolVersion"].as_str().unwrap_or_else(|| panic!("{answered}")).to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post_in(h, token, Some((&session, &agreed)), &initialized).send().await.unwrap().status(), 202);
    (session, agreed)
}

/// 2024-11-05 and 2025-03-26 require a server to read JSON-RPC batches, which `/mcp` refuses: an
/// `initialize` asking for either is answered with a version the server speaks (MCP's
/// negotiation; the client decides whether to go on), never agreed to, and `server/discover`
/// lists only the versions it speaks. In the session so opened a batch is refused, as that
/// version has none, and so is a request that names the version asked for in its header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_versions_with_batches_are_not_agreed_to() {
    let h = Harness::start(config(30)).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": COUNT, "arguments": {}}});
    for asked in ["2024-11-05", "2025-03-26"] {
        let (session, agreed) = open_session(&h, "admin", asked).await;
        assert_eq!(
            agreed,
            ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(),
            "{asked}: the newest version of a session"
        );
        let batch = h.answer(post_in(&h, "admin", Some((&session, &agreed)), &json!([call]))).await;
        batch.assert_problem(400, "INVALID_BODY");
        let detail = batch.body["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("a batch is not accepted") && detail.contains("2025-06-18 and later"), "{detail}");
        // A body that is not JSON at all says so first, not that it is a message of another shape.
        for broken in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"page_size":NaN}}}"#,
            "{\"jsonrpc\":",
        ] {
            // (`post_in` declares the body JSON; the bytes sent are these.)
            let refused = h.answer(post_in(&h, "admin", Some((&session, &agreed)), &json!({})).body(broken)).await;
            refused.assert_problem(400, "INVALID_BODY");
            let detail = refused.body["detail"].as_str().unwrap_or_default();
            assert!(detail.starts_with("The body of an MCP request is not valid JSON"), "{broken}: {detail}");
            assert!(!detail.contains("a batch is not accepted"), "{detail}");
        }
        let answered = message(
            &post_in(&h, "admin", Some((&session, &agreed)), &call).send().await.unwrap().text().await.unwrap(),
        );
        assert_eq!(answered["result"]["isError"], false, "{asked}: the session serves: {answered}");
        // Nor does a request in the session speak it (rmcp takes any version it knows there):
        // refused before it runs, and so is a header naming two versions.
        let spoken_as_asked = h.answer(post_in(&h, "admin", Some((&session, asked)), &call)).await;
        spoken_as_asked.assert_problem(400, "INVALID_REQUEST");
        let detail = spoken_as_asked.body["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains(&format!("`MCP-Protocol-Version: {asked}` is not a version of a session of this server")),
            "{detail}"
        );
        assert!(detail.contains("(2025-06-18, 2025-11-25): send the version `initialize` agreed to."), "{detail}");
        // Nor the version that has no session.
        let sessionless = h.answer(post_in(&h, "admin", Some((&session, "2026-07-28")), &call)).await;
        sessionless.assert_problem(400, "INVALID_REQUEST");
        let twice = post_in(&h, "admin", Some((&session, &agreed)), &call).header("mcp-protocol-version", &agreed);
        let twice = h.answer(twice).await;
        twice.assert_problem(400, "INVALID_REQUEST");
        assert!(twice.body["detail"].as_str().unwrap_or_default().contains("two `MCP-Protocol-Version` fields"));
    }
    // The versions the README promises are agreed to as asked.
    for asked in [ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(), "2025-06-18"] {
        assert_eq!(open_session(&h, "admin", asked).await.1, asked);
    }
    let discovered = h.answer(h.mcp_request("admin", 3, "server/discover", None, json!({}))).await;
    assert_eq!(
        discovered.body["result"]["supportedVersions"],
        json!(["2025-06-18", "2025-11-25", "2026-07-28"]),
        "{discovered:?}"
    );
    h.running.stop().await.unwrap();
}

/// Every `format` anywhere in `schema`, with where it is.
fn formats_in(schema: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(format)) = object.get("format") {
                found.push((at.to_owned(), format.clone()));
            }
            for (key, member) in object {
                formats_in(member, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, item)| formats_in(item, &format!("{at}/{i}"), found))
        }
        _ => {}
    }
}

/// A tool's schemas are JSON Schema (draft 2020-12), whose validators do not know OpenAPI's
/// number formats (`uint64`, `int64`): Ajv, the TypeScript SDK's, warns about each and cannot
/// compile a schema with one in strict mode. No tool schema carries a `format` JSON Schema does
/// not define, each compiles with unknown formats refused, and the bounds stay; the OpenAPI
/// document keeps its formats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_schemas_carry_only_the_formats_json_schema_defines() {
    const JSON_SCHEMA_2020_12: [&str; 19] = [
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uuid",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    ];
    let h = Harness::start(config(20)).await;
    let admin = connect(&h, "admin").await;
    let tools = admin.list_all_tools().await.expect("tools/list");
    let mut checked = 0;
    for t in &tools {
        let schemas = [("inputSchema", Some(&t.input_schema)), ("outputSchema", t.output_schema.as_ref())];
        for (which, schema) in schemas {
            let schema = Value::Object(schema.expect("a schema").as_ref().clone());
            let mut found = Vec::new();
            formats_in(&schema, "", &mut found);
            let foreign: Vec<_> =
                found.iter().filter(|(_, format)| !JSON_SCHEMA_2020_12.contains(&format.as_str())).collect();
            assert!(foreign.is_empty(), "{} {which}: formats JSON Schema does not define: {foreign:?}", t.name);
            jsonschema::draft202012::options()
                .should_validate_formats(true)
                .should_ignore_unknown_formats(false)
                .build(&schema)
                .unwrap_or_else(|e| panic!("{} {which} does not compile with unknown formats refused: {e}", t.name));
            checked += 1;
        }
    }
    assert_eq!(checked, 10, "five tools, two schemas each");
    // The integer bounds stay: they carry what `uint64` said.
    let list = &tool(&tools, LIST).input_schema["properties"];
    assert_eq!(
        (list["page_size"]["minimum"].clone(), list["page_size"]["maximum"].clone()),
        (json!(1), json!(u64::MAX))
    );
    let returned = &tool(&tools, LIST).output_schema.as_ref().unwrap()["$defs"]["PageInfo"]["properties"]["returned"];
    assert_eq!(
        (returned["type"].clone(), returned["minimum"].clone(), returned["maximum"].clone()),
        (json!("integer"), json!(0), json!(u64::MAX)),
        "the largest value uint64 said is kept: {returned}"
    );
    // The OpenAPI document keeps OpenAPI's formats.
    let document = h.send(reqwest::Method::GET, "/openapi.json", None, None).await.body;
    let mut found = Vec::new();
    formats_in(&document, "", &mut found);
    assert!(found.iter().any(|(_, format)| format == "uint64"), "the OpenAPI document is as it was: {found:?}");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}

/// The `Retry-After` of a 429 `TOO_MANY_SESSIONS`: when the credential's session idle longest
/// reaches rmcp's five-minute idle limit (and is ended), if none is used meanwhile, in whole
/// seconds. Using that session moves it; ending a session makes room at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_sessions_says_when_one_would_end_on_its_own() {
    use e2e_support::service::mcp::{MAX_SESSIONS_PER_CREDENTIAL, TOO_MANY_SESSIONS};
    let h = Harness::start(config(30)).await;
    let version = "2025-06-18";
    let mut held = Vec::new();
    for _ in 0..MAX_SESSIONS_PER_CREDENTIAL {
        held.push(open_session(&h, "north", version).await.0);
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    let retry_after = async || {
        let refused = h.answer(post_in(&h, "north", None, &initialize)).await;
        refused.assert_problem(429, TOO_MANY_SESSIONS);
        let detail = refused.body["detail"].as_str().unwrap_or_default().to_owned();
        let seconds: u64 =
            refused.retry_after.as_deref().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{refused:?}"));
        assert!(detail.contains(&format!("in {seconds} seconds, as Retry-After says")), "{detail}");
        assert!((1..=301).contains(&seconds), "within the idle limit: {seconds}");
        seconds
    };
    assert!(retry_after().await >= 290, "the sessions were opened moments ago");

    // Every session used again but one, idle for three seconds: it is the first to end.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle = &held[5];
    for (n, session) in held.iter().enumerate().filter(|(_, session)| *session != idle) {
        let ping = json!({"jsonrpc": "2.0", "id": 100 + n, "method": "ping"});
        let answered =
            message(&post_in(&h, "north", Some((session, version)), &ping).send().await.unwrap().text().await.unwrap());
        assert_eq!(answered["result"], json!({}), "{answered}");
    }
    let before = retry_after().await;
    assert!(before <= 298, "the idle session ends first: {before}");
    // Used, it ends later too.
    let ping = json!({"jsonrpc": "2.0", "id": 99, "method": "ping"});
    post_in(&h, "north", Some((idle, version)), &ping).send().await.unwrap().text().await.unwrap();
    let after = retry_after().await;
    assert!(after > before, "{before} then {after}");

    // Ending one makes room at once.
    let end = h
        .request(reqwest::Method::DELETE, "/mcp")
        .bearer_auth("north")
        .header("mcp-session-id", idle)
        .header("mcp-protocol-version", version);
    assert!(h.answer(end).await.status.is_success());
    assert_eq!(h.answer(post_in(&h, "north", None, &initialize)).await.status.as_u16(), 200);
    h.running.stop().await.unwrap();
}

/// Protocol 2026-07-28 has no `ping` (and no session to keep alive): it is answered as any
/// method MCP does not define, `-32601` with `data.code` `NOT_FOUND` and what to call instead,
/// not rmcp's bare `-32601` "ping". In a session (2025-06-18, 2025-11-25) `ping` is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_is_answered_where_the_protocol_has_it_and_explained_where_it_has_not() {
    let h = Harness::start(config(20)).await;
    let unknown = h.answer(h.mcp_request("admin", 7, "no/such/method", None, json!({}))).await;
    let ping = h.answer(h.mcp_request("admin", 8, "ping", None, json!({}))).await;
    assert_eq!((ping.status, ping.content_type.as_str()), (unknown.status, "application/json"), "{ping:?}");
    assert_eq!(ping.body["id"], 8, "{ping:?}");
    assert_eq!(ping.body["error"]["code"], -32601, "{ping:?}");
    assert_eq!(ping.body["error"]["data"], unknown.body["error"]["data"], "as an unknown method: {ping:?}");
    assert_eq!(ping.body["error"]["data"]["code"], "NOT_FOUND", "{ping:?}");
    let said = ping.body["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("`ping`") && said.contains("2026-07-28") && said.contains("`server/discover`"), "{said}");
    // What it says to call is served.
    let discovered = h.answer(h.mcp_request("admin", 9, "server/discover", None, json!({}))).await;
    assert!(discovered.body["result"]["supportedVersions"].is_array(), "{discovered:?}");
    for version in [ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(), "2025-06-18"] {
        let (session, agreed) = open_session(&h, "admin", version).await;
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
        let answered = message(
            &post_in(&h, "admin", Some((&session, &agreed)), &ping).send().await.unwrap().text().await.unwrap(),
        );
        assert_eq!(
            (answered["id"].clone(), answered["result"].clone()),
            (json!(2), json!({})),
            "{version}: {answered}"
        );
    }
    h.running.stop().await.unwrap();
}

/// A session is initialized once, by the `initialize` that opened it (the lifecycle of every
/// version with sessions): another `initialize` in it is refused with `-32600` and changes
/// nothing; the session goes on at the version it agreed to, and a new session opens as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_initialized_once() {
    let h = Harness::start(config(20)).await;
    for version in [ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(), "2025-06-18"] {
        let (session, agreed) = open_session(&h, "admin", version).await;
        let other = if version == "2025-06-18" { "2025-11-25" } else { "2025-06-18" };
        // The same version again (rmcp answered it), or another.
        for asked in [version, other] {
            let again = json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {
                "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "another", "version": "2"}}});
            let refused = h.answer(post_in(&h, "admin", Some((&session, &agreed)), &again)).await;
            let answered = (refused.status.as_u16(), refused.content_type.as_str());
            assert_eq!(answered, (200, "application/json"), "{version}, {asked}: {refused:?}");
            assert_eq!(
                (refused.body["id"].clone(), refused.body["error"]["code"].clone()),
                (json!(5), json!(-32600)),
                "{version}, {asked}: {refused:?}"
            );
            assert_eq!(refused.body["error"]["data"]["code"], "INVALID_REQUEST", "{refused:?}");
            assert!(refused.body["result"].is_null(), "{refused:?}");
            let said = refused.body["error"]["message"].as_str().unwrap_or_default();
            assert!(said.contains("initialized once") && said.contains("open a new session"), "{said}");
            // Without an `id`, there is no call to answer: a problem.
            let notification = json!({"jsonrpc": "2.0", "method": "initialize", "params": again["params"]});
            h.answer(post_in(&h, "admin", Some((&session, &agreed)), &notification))
                .await
                .assert_problem(400, "INVALID_REQUEST");
        }
        // The session goes on, and its id 5 was never taken.
        let call =
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": COUNT, "arguments": {}}});
        let answered = message(
            &post_in(&h, "admin", Some((&session, &agreed)), &call).send().await.unwrap().text().await.unwrap(),
        );
        assert_eq!(answered["result"]["isError"], false, "{version}: {answered}");
        assert_eq!(open_session(&h, "admin", other).await.1, other, "a new session opens at the version it asks");
    }
    h.running.stop().await.unwrap();
}

/// The service started with `--faults SEED` and `schedule` as its schedule.
async fn faulted(schedule: completeness::testing::faults::Schedule) -> Harness {
    Harness::start(e2e_support::Config { faults: Some(schedule), ..config(60) }).await
}

/// Under `--faults`, the tools' answers are faulted as the REST routes' are, from the same
/// layer: a partial answer is a result that says so (never an error), whose verdict names the
/// fault, and carries no evidence; a demand for a complete result refuses it; an outage is a
/// tool error that says when to call again; a cursor answered with the first page again says it
/// was not resumed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_faults_the_tools_answer_as_incompletely_as_the_routes_they_stand_for() {
    use completeness::testing::faults::Schedule;

    let h = faulted(Schedule::always("VISIBILITY_RESTRICTED")).await;
    let admin = connect(&h, "admin").await;
    for (tool, arguments) in [
        ("list_service_accounts", json!({"owner": "none", "page_size": 500})),
        ("count_service_accounts", json!({"owner": "none"})),
        ("search_service_accounts", json!({"q": "svc"})),
    ] {
        let result = call(&admin, tool, arguments.clone()).await.expect("tools/call answers");
        assert_eq!(result.is_error, Some(false), "{tool}: a partial answer is not an error: {result:?}");
        let text = &result.content[0].as_text().expect("a text block").text;
        assert!(text.starts_with("INCOMPLETE ("), "{tool}: {text}");
        let envelope = answer(&admin, tool, arguments.clone()).await;
        match tool {
            "count_service_accounts" => {
                completeness::testing::assert_aggregate_invariants(&envelope);
                assert_eq!(envelope["relation"], "lower_bound", "{envelope}");
            }
            _ => assert_envelope_invariants(&envelope),
        }
        assert_eq!(envelope["complete"], false, "{tool}: {envelope}");
        assert!(codes(&envelope).contains(&"VISIBILITY_RESTRICTED"), "{tool}: {envelope}");
        assert_eq!(envelope["evidence"], Value::Null, "{tool}: a faulted answer carries no evidence");
        let mut strict = arguments;
        strict["require_complete"] = json!(true);
        let (code, _) = refusal(&admin, tool, strict).await;
        assert_eq!(code, "COMPLETE_RESULT_UNAVAILABLE", "{tool}");
    }
    // The REST route, behind the same layer, is faulted the same way.
    let rest = h.get("/service-accounts?owner=none", "admin").await;
    assert_eq!(rest.body["complete"], false, "{:?}", rest.body);
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();

    let h = faulted(Schedule::always("SERVICE_UNAVAILABLE")).await;
    let admin = connect(&h, "admin").await;
    let (code, text) = refusal(&admin, "list_service_accounts", json!({"owner": "none"})).await;
    assert_eq!(code, "SERVICE_UNAVAILABLE");
    assert!(text.contains("\nCall again in ") && text.contains(" seconds."), "when to call again: {text}");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();

    // A first page is never restarted; its cursor gets the first page again.
    let h = faulted(Schedule::always("TRAVERSAL_RESTARTED")).await;
    let admin = connect(&h, "admin").await;
    let first = answer(&admin, "list_service_accounts", json!({"page_size": 5})).await;
    assert_eq!(codes(&first), ["MORE_PAGES_AVAILABLE"], "{first}");
    let cursor = first["next_cursor"].as_str().expect("a next page").to_owned();
    let arguments = json!({"page_size": 5, "cursor": cursor});
    let again = answer(&admin, "list_service_accounts", arguments.clone()).await;
    assert_envelope_invariants(&again);
    assert_eq!((again["page"]["resumed"].clone(), ids(&again)), (json!(false), ids(&first)), "{again}");
    // Its verdict says so: the line alone would read as one more page.
    let result = call(&admin, "list_service_accounts", arguments).await.unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("STARTED OVER: the cursor was answered with the first page again"), "{text}");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();

    // A partial first page, then pages that lack nothing: the last is complete, without
    // evidence, and its verdict says the traversal is not whole.
    let h = faulted(Schedule::sequence([Some("VISIBILITY_RESTRICTED")])).await;
    let admin = connect(&h, "admin").await;
    let pages = traverse(&admin, json!({"page_size": 25}), async |_| {}).await;
    assert_eq!(codes(&pages[0]), ["MORE_PAGES_AVAILABLE", "VISIBILITY_RESTRICTED"], "{}", pages[0]);
    let last = pages.last().unwrap();
    assert_eq!((last["complete"].clone(), last["evidence"].clone()), (json!(true), Value::Null), "{last}");
    let mut arguments = json!({"page_size": 25});
    arguments["cursor"] = pages[pages.len() - 2]["next_cursor"].clone();
    let result = call(&admin, "list_service_accounts", arguments).await.unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("COMPLETE PAGE, INCOMPLETE TRAVERSAL: "), "{text}");
    assert!(text.lines().next().unwrap().ends_with("To continue: start a new traversal (no `cursor`)."), "{text}");
    // Read again from its first page, the traversal is whole, and its last page says so.
    let pages = traverse(&admin, json!({"page_size": 25}), async |_| {}).await;
    assert!(pages.last().unwrap()["evidence"].is_string(), "{}", pages.last().unwrap());
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}

/// Under `--faults`, an account read over MCP gets a field left out as over REST (§2.7): the
/// result lists it in `omitted_fields`, its value `null`, and its verdict says that this `null`
/// is no value; an outage is a tool error that says when to call again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_faults_an_account_read_over_mcp_gets_a_field_left_out() {
    use completeness::testing::faults::Schedule;

    let h = faulted(Schedule::always("FIELD_OMITTED")).await;
    let admin = connect(&h, "admin").await;
    let tools = admin.list_all_tools().await.expect("tools/list");
    let schema = Value::Object(tool(&tools, "get_service_account").output_schema.as_ref().unwrap().as_ref().clone());
    let within = jsonschema::draft202012::new(&schema).expect("the outputSchema compiles");
    // A list offers no such fault: it is answered whole.
    let page = answer(&admin, "list_service_accounts", json!({"page_size": 3})).await;
    assert_eq!(codes(&page), ["MORE_PAGES_AVAILABLE"], "{page}");
    for id in ids(&page) {
        let result = call(&admin, "get_service_account", json!({"id": id})).await.unwrap();
        let view = result.structured_content.clone().expect("structuredContent");
        let left_out: Vec<(&String, &Value)> =
            view["omitted_fields"].as_object().unwrap().iter().filter(|(_, why)| *why != "NOT_REQUESTED").collect();
        let [(name, why)] = left_out[..] else { panic!("one field left out: {view}") };
        assert!(["NO_ACCESS", "SOURCE_FAILED"].contains(&why.as_str().unwrap()), "{view}");
        assert!(view[name.as_str()].is_null(), "{view}");
        // A faulted answer stays within what the tool publishes.
        let errors: Vec<String> = within.iter_errors(&view).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "outside the outputSchema: {errors:?}\n{view}");
        // Its verdict names the field left out, and why.
        let verdict = result.content[0].as_text().unwrap().text.lines().next().unwrap().to_owned();
        assert!(verdict.starts_with(&format!("ACCOUNT {id} (PARTIAL_FIELD_SET): not filled")), "{verdict}");
        assert!(verdict.contains(&format!("{name}: {}", why.as_str().unwrap())), "{verdict}");
        // The REST route, behind the same layer, leaves one out the same way.
        let rest = h.get(&format!("/service-accounts/{id}"), "admin").await;
        let listed = rest.body["omitted_fields"].as_object().unwrap();
        assert!(listed.values().any(|why| why != "NOT_REQUESTED"), "{:?}", rest.body);
    }
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();

    let h = faulted(Schedule::always("SERVICE_UNAVAILABLE")).await;
    let admin = connect(&h, "admin").await;
    let (code, text) = refusal(&admin, "get_service_account", json!({"id": "sa-000001"})).await;
    assert_eq!(code, "SERVICE_UNAVAILABLE");
    assert!(text.contains("\nCall again in ") && text.contains(" seconds."), "when to call again: {text}");
    admin.cancel().await.unwrap();
    h.running.stop().await.unwrap();
}

/// In a session, the methods of a capability the service does not offer that only sessions
/// have (resource subscriptions) are refused as the others are: `-32601`
/// with `data.code` `NOT_FOUND` and a message saying what is served, where rmcp answered with
/// the bare method name and no event.
#[tokio::test]
async fn a_resource_subscription_in_a_session_is_refused_as_not_offered() {
    let h = Harness::start(config(20)).await;
    let session = raw_session(&h).await;
    let methods = [
        ("resources/subscribe", json!({"uri": "file:///etc/passwd"})),
        ("resources/unsubscribe", json!({"uri": "file:///etc/passwd"})),
        // Params rmcp cannot read: not served all the same, not an unknown method.
        ("resources/subscribe", json!({})),
        ("resources/unsubscribe", json!({"uri": 5})),
        ("resources/read", json!({})),
        ("prompts/get", json!({})),
    ];
    for (id, (method, params)) in methods.into_iter().enumerate() {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = session_post(&h, Some(&session), body).send().await.unwrap();
        let answer = message(&answer.text().await.unwrap());
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
        assert_eq!(answer["error"]["data"]["code"], "NOT_FOUND", "{method}: {answer}");
        let said = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains(method) && said.contains("tools/call"), "{method}: {said}");
    }
}

/// A request in a session speaks the version its `initialize` agreed to: another version the
/// server speaks in sessions is refused too (400 `INVALID_REQUEST`, naming the agreed one), as
/// MCP has a server do with an invalid version, where rmcp served it under the session's rules.
#[tokio::test]
async fn a_request_in_a_session_naming_another_version_than_agreed_is_refused() {
    let h = Harness::start(config(20)).await;
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "ping"});
    for (agreed, other) in [("2025-06-18", "2025-11-25"), ("2025-11-25", "2025-06-18")] {
        let (session, answered) = open_session(&h, "admin", agreed).await;
        assert_eq!(answered, agreed);
        let served = post_in(&h, "admin", Some((&session, agreed)), &ping).send().await.unwrap();
        assert_eq!(served.status(), 200, "{agreed}: the agreed version is served");
        let refused = h.answer(post_in(&h, "admin", Some((&session, other)), &ping)).await;
        refused.assert_problem(400, "INVALID_REQUEST");
        let detail = refused.body["detail"].as_str().unwrap_or_default();
        let said = format!(
            "`MCP-Protocol-Version: {other}` is not the version this session agreed to: send `MCP-Protocol-Version: \
             {agreed}`"
        );
        assert!(detail.contains(&said), "{detail}");
        // The session is still there, in its version.
        let again = post_in(&h, "admin", Some((&session, agreed)), &ping).send().await.unwrap();
        assert_eq!(again.status(), 200, "{agreed}: the session goes on");
    }
}
