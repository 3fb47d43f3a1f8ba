//! An incomplete-and-empty envelope crosses a real rmcp server and client intact.
#![cfg(feature = "mcp")]

use std::sync::Arc;

use completeness::mcp::{envelope_tool, output_schema, tool_result};
use completeness::reason::VisibilityRestricted;
use completeness::testing::assert_envelope_invariants;
use completeness::warning::StaleIndex;
use completeness::{Completeness, Envelope, PageInfo, Scope, StandardReason};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, ErrorData, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, serve_directly};
use rmcp::{ClientHandler, RoleClient, RoleServer, ServerHandler};
use serde_json::{Value, json};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Account {
    id: String,
    name: String,
}

/// The listing a `north` credential gets for tenant `south`: nothing it may see.
fn restricted_listing() -> Envelope<Account, StandardReason> {
    let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'")
        .with_snapshot("s-1042")
        .with_filter("owner", "none")
        .with_filter("tenant", "south");
    let mut listing = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
    listing.completeness.push_warning(StaleIndex::new("audit").observed_revision("r-981"));
    listing
}

#[derive(Clone)]
struct InventoryServer;

impl ServerHandler for InventoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let input = json!({"type": "object", "properties": {"tenant": {"type": "string"}}});
        let Value::Object(input) = input else { unreachable!() };
        let tool =
            envelope_tool::<Account>("list_unowned_accounts", "Service accounts without an owner", Arc::new(input));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        assert_eq!(request.name, "list_unowned_accounts");
        let result = tool_result(&restricted_listing()).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }
}

#[derive(Clone)]
struct Agent;

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

#[tokio::test]
async fn an_incomplete_and_empty_result_reaches_the_client_with_every_completeness_member() {
    let expected = serde_json::to_value(restricted_listing()).unwrap();
    tokio::task::LocalSet::new()
        .run_until(async {
            let (server_io, client_io) = tokio::io::duplex(64 * 1024);
            let server = serve_directly::<RoleServer, _, _, _, _>(InventoryServer, server_io, Some(Agent.get_info()));
            let client = serve_directly::<RoleClient, _, _, _, _>(
                Agent,
                client_io,
                Some(InitializeResult::new(InventoryServer.get_info().capabilities).into()),
            );

            let tools = client.list_tools(None).await.expect("tools/list");
            let schema = tools.tools[0].output_schema.as_ref().expect("an outputSchema");
            let required: Vec<&str> =
                schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            for member in ["status", "complete", "truncated", "items", "incomplete_reasons", "continuation"] {
                assert!(required.contains(&member), "outputSchema must require `{member}`");
            }

            let mut params = CallToolRequestParams::new("list_unowned_accounts");
            params.arguments = Some(json!({"tenant": "south"}).as_object().unwrap().clone());
            let result = client.call_tool(params).await.expect("tools/call");

            assert_eq!(result.is_error, Some(false), "a partial answer is not an error");
            let structured = result.structured_content.clone().expect("structuredContent");
            assert_eq!(structured, expected, "the whole envelope arrives unchanged");
            assert_envelope_invariants(&structured);
            assert_eq!(structured["complete"], false);
            assert_eq!(structured["status"], "partial");
            assert_eq!(structured["truncated"], false);
            assert_eq!(structured["items"], json!([]));
            assert_eq!(structured["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
            assert_eq!(structured["continuation"], Value::Null);
            assert_eq!(structured["next_cursor"], Value::Null);
            assert_eq!(structured["scope"]["filters"]["tenant"], "south");
            assert_eq!(structured["scope"]["snapshot"], "s-1042");
            assert_eq!(structured["warnings"][0]["code"], "STALE_INDEX");
            assert_eq!(structured["evidence"], Value::Null);
            let back: Envelope<Value> = serde_json::from_value(structured).expect("the strict deserializer accepts it");
            assert!(!back.is_complete());

            let text = &result.content[0].as_text().expect("a text block").text;
            let verdict = text.lines().next().unwrap();
            assert!(
                verdict.starts_with(
                    "INCOMPLETE (VISIBILITY_RESTRICTED): 0 service accounts matching owner=none, tenant=south returned"
                ),
                "{verdict}"
            );
            assert!(verdict.contains("not evidence of absence"), "{verdict}");
            let rest: Value =
                serde_json::from_str(&text[verdict.len()..]).expect("the envelope JSON follows the verdict");
            assert_eq!(rest, expected);
            assert_eq!(
                text[verdict.len()..].trim_start(),
                serde_json::to_string(&restricted_listing()).unwrap(),
                "the text copy is the REST body, in the contract's member order"
            );
            assert!(
                text[verdict.len()..].trim_start().starts_with(r#"{"status":"partial","complete":false"#),
                "{text}"
            );

            client.cancel().await.expect("stop client");
            server.cancel().await.expect("stop server");
        })
        .await;
}

#[test]
fn a_complete_result_says_complete_first() {
    let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'");
    let listing: Envelope<Account> =
        Envelope::complete(vec![Account { id: "sa-000001".into(), name: "svc-north-00001".into() }], scope);
    let result = tool_result(&listing).unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.starts_with("COMPLETE: 1 service account, all there are in the whole scope"), "{text}");
    assert_eq!(result.structured_content.unwrap()["complete"], true);
}

/// A page reached with a cursor (`page.resumed`): complete, it is the last page of a traversal
/// whose earlier pages this answer does not hold, so the verdict speaks of this page and of the
/// traversal. A complete first page is the whole answer, and says so.
#[test]
fn a_complete_page_says_it_ends_the_traversal_not_that_it_holds_the_scope() {
    let scope = Scope::new("service_accounts", "service accounts readable by credential 'admin'").with_snapshot("s-1");
    let page = PageInfo::new(1, Some(3), 3, "id ascending").with_snapshot("s-1").with_resumed(true);
    let first: Envelope<Account> = Envelope::new(
        vec![],
        Completeness::complete(scope.clone())
            .with_page(PageInfo::new(0, Some(3), 3, "id ascending").with_snapshot("s-1").with_resumed(false)),
    );
    let text = tool_result(&first).unwrap().content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("COMPLETE: no service accounts exist in the whole scope"), "{text}");
    let last: Envelope<Account> = Envelope::new(
        vec![Account { id: "sa-000009".into(), name: "svc-north-00009".into() }],
        Completeness::complete(scope).with_page(page),
    );
    let result = tool_result(&last).unwrap();
    let text = &result.content[0].as_text().unwrap().text;
    let verdict = text.lines().next().unwrap_or_default();
    assert!(verdict.starts_with("COMPLETE: 1 service account on this page, the last of the traversal"), "{text}");
    // Whether the pages before it were whole, this page does not say: without evidence, the
    // line says what the traversal's coverage depends on.
    assert!(
        verdict.ends_with(
            "the traversal covers the whole scope (service accounts readable by credential 'admin') at snapshot s-1 \
             only if each of them lacked nothing but the next page and was current; this page alone proves no absence."
        ),
        "{verdict}"
    );
    assert!(!text.contains("exist in"), "{text}");
    assert!(!text.contains("not current"), "{text}");

    // The same last page read from a stale copy says so too.
    let stale =
        Envelope::new(last.items, last.completeness.with_warning(completeness::warning::StaleIndex::new("search")));
    let text = tool_result(&stale).unwrap().content[0].as_text().unwrap().text.clone();
    let verdict = text.lines().next().unwrap_or_default();
    assert_eq!(
        verdict,
        "COMPLETE BUT STALE (STALE_INDEX): 1 service account on this page, the last of the traversal, read from a \
         copy that is not current: not evidence that no others exist. Ask again later for a current answer.",
    );
}

/// A complete, empty answer read from a stale copy does not tell an agent that nothing exists:
/// `decide` refuses that claim, and so does the verdict it reads.
#[test]
fn a_complete_empty_answer_from_a_stale_index_claims_no_absence() {
    let scope = || Scope::new("service_accounts", "service accounts readable by credential 'admin'");
    let fresh: Envelope<Account> = Envelope::complete(vec![], scope());
    let text = tool_result(&fresh).unwrap().content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("COMPLETE: no service accounts exist in the whole scope"), "{text}");
    let stale: Envelope<Account> = Envelope::new(
        vec![],
        Completeness::complete(scope()).with_warning(completeness::warning::StaleIndex::new("search")),
    );
    let text = tool_result(&stale).unwrap().content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("COMPLETE BUT STALE (STALE_INDEX): 0 service accounts in the whole scope"), "{text}");
    assert!(!text.contains("exist in"), "{text}");
    assert!(text.contains("read from a copy that is not current: not evidence of absence."), "{text}");
    // With items too: they are not all that exists, for all the answer knows.
    let with_items: Envelope<Account> = Envelope::new(
        vec![Account { id: "sa-000001".into(), name: "svc-north-00001".into() }],
        Completeness::complete(scope()).with_warning(completeness::warning::StaleIndex::new("search")),
    );
    let text = tool_result(&with_items).unwrap().content[0].as_text().unwrap().text.clone();
    let verdict = text.lines().next().unwrap_or_default();
    assert!(
        verdict.ends_with(
            "read from a copy that is not current: not evidence that no others exist. Ask again later for a \
             current answer."
        ),
        "{verdict}"
    );
}

#[test]
fn the_output_schema_describes_items_and_the_completeness_block() {
    let schema = output_schema::<Account>();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["complete"]["type"], "boolean");
    assert_eq!(schema["properties"]["status"]["enum"], json!(["complete", "partial"]));
    let item_ref = schema["properties"]["items"]["items"]["$ref"].as_str().expect("items refer to Account");
    let name = item_ref.rsplit('/').next().unwrap();
    assert!(schema["$defs"][name]["properties"]["id"].is_object(), "Account is defined in $defs");
    let scope_ref = schema["properties"]["scope"]["$ref"].as_str().expect("scope refers to Scope");
    assert!(schema["$defs"][scope_ref.rsplit('/').next().unwrap()]["properties"]["visibility"].is_object());
}
