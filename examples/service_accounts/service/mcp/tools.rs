//! The tools themselves: [`InventoryTools`], each tool calling the function its REST route
//! calls, and the REST request each call stands for.

use std::sync::Arc;

use axum::body::Body;
use axum::http::Uri;
use axum::http::request::Parts;
use completeness::client::explain;
use completeness::mcp::{structured_result, tool_error, tool_result};
use completeness::observe::{EntryPoint, UNMATCHED};
use completeness::{Evidence, PageRequest, Problem, ProblemCode, RequireComplete, TimeBudget};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject, Tool};
use serde_json::Number;

use super::super::auth::Caller;
use super::super::inventory::{self, InventoryQuery};
use super::super::state::AppState;
use super::super::{account, archive, http, search};
use super::PATH;
use super::arguments::{
    ArchiveArgs, ArgumentNumbers, CountArgs, GetArgs, ListArgs, SearchArgs, Unfit, UnfitArguments, integer_digits,
    read, unfit_arguments, unread,
};
use super::messages::shown;
use super::tool_list::{COUNT, GET, LIST, SEARCH, tools};
use super::verdicts::{approval_request, archived_verdict, count_verdict, field_verdict, retry_guidance};

/// The MCP server: the tools over the service's state.
#[derive(Clone)]
pub struct InventoryTools {
    state: AppState,
    pub(super) tools: Arc<Vec<Tool>>,
}

impl InventoryTools {
    /// The tools over `state`.
    pub fn new(state: AppState) -> InventoryTools {
        let tools = Arc::new(tools(&state.openapi, &state.completeness));
        InventoryTools { state, tools }
    }

    /// Calls tool `name` with `arguments` as `caller`; arguments that cannot be read are
    /// refused as `unfit` says for the call's protocol version.
    pub(super) async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: JsonObject,
        numbers: &ArgumentNumbers,
        unfit: UnfitArguments,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(tool) = self.tools.iter().find(|tool| tool.name == name) else {
            // The tool's name is the call's first argument, refused with the stable code an
            // agent branches on and the names it could have meant; a JSON-RPC error in every
            // protocol version, as MCP has it for an unknown tool.
            let known: Vec<String> = self.tools.iter().map(|tool| format!("`{}`", tool.name)).collect();
            let message = format!("unknown tool '{}'; this server's tools are {}", shown(name), known.join(", "));
            // Under `unmatched`, as a REST request no route matched: the name is the client's.
            let entry = EntryPoint::new(UNMATCHED, "MCP").with_credential(&caller.name);
            return Err(unread(&entry, unfit_arguments(message, Some("name"))));
        };
        let schema = tool.input_schema.as_ref();
        // Answers and refusals show in the log and the counters as those of the REST routes
        // do, under the tool's name and the method `MCP`.
        let entry = EntryPoint::new(&tool.name, "MCP").with_credential(&caller.name);
        // The arguments read, then the tool run; arguments that cannot be read are refused
        // before it runs.
        let outcome = async {
            Ok::<_, Unfit>(match name {
                LIST => self.list(&entry, caller, read(schema, arguments)?, numbers).await,
                SEARCH => self.search(&entry, caller, read(schema, arguments)?, numbers).await,
                COUNT => self.count(&entry, caller, read(schema, arguments)?).await,
                GET => self.get(&entry, caller, read(schema, arguments)?).await,
                _ /* ARCHIVE, the only tool left */ => Ok(self.archive(&entry, caller, read(schema, arguments)?).await),
            })
        };
        let outcome = match outcome.await {
            Ok(outcome) => outcome,
            // Observed as a REST route's refusal of a query it cannot read.
            Err(refused) => {
                let problem = refused.problem();
                entry.refused(&problem);
                return match unfit {
                    UnfitArguments::ProtocolError => Err(refused.into_error()),
                    UnfitArguments::ToolError => Ok(tool_error(&problem, UNFIT_GUIDANCE)),
                };
            }
        };
        Ok(outcome.unwrap_or_else(|problem| {
            entry.refused(&problem);
            tool_error(&problem, &retry_guidance(&problem))
        }))
    }

    /// The JSON text of number argument `name` as the call carried it (see [`ArgumentNumbers`];
    /// serde_json's own rendering of `number` where the body was not read for it), written as
    /// the integer it names when it names one: JSON Schema's `integer`, which the tools'
    /// `inputSchema` says, takes `2.0` and `1e2` as 2 and 100, so the tool does too.
    fn number_text(numbers: &ArgumentNumbers, name: &str, number: &Number) -> String {
        let text = numbers.0.get(name).cloned().unwrap_or_else(|| number.to_string());
        integer_digits(&text).unwrap_or(text)
    }

    async fn list(
        &self,
        entry: &EntryPoint<'_>,
        caller: &Caller,
        args: ListArgs,
        numbers: &ArgumentNumbers,
    ) -> Result<CallToolResult, Problem> {
        // `page_size` and `cursor` are read by the REST route's extractor, from the query it
        // would have been sent: the same number gets the same code, or the same clamping.
        let page_size = args.page_size.as_ref().map(|size| Self::number_text(numbers, "page_size", size));
        let query = rest_query(caller, [("page_size", page_size.clone()), ("cursor", args.cursor.clone())])?;
        let request = PageRequest::from_parts(&query, &self.state.completeness)?;
        let inventory = inventory_query(&args.owner, &args.tenant)?;
        let cursor_sent = args.cursor.is_some();
        let envelope = inventory::list_page(&self.state, caller, &request, &inventory).await?;
        let envelope = match &self.state.faults {
            None => envelope,
            Some(faults) => {
                let pairs = [("owner", args.owner), ("tenant", args.tenant), ("page_size", page_size.clone())];
                let stands_for = rest_request(LIST_ROUTE, pairs, args.cursor)?;
                let (state, caller) = (self.state.clone(), caller.clone());
                let first_page = move || async move {
                    let query = rest_query(&caller, [("page_size", page_size)])?;
                    let request = PageRequest::from_parts(&query, &state.completeness)?;
                    inventory::list_page(&state, &caller, &request, &inventory).await
                };
                faults.fault_answer(stands_for, envelope, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &envelope)?;
        // This service gives evidence with the last page of every whole, current traversal.
        let traversal = explain::Traversal { cursor_sent, evidence_when_whole: true };
        let verdict = explain::traversal_page_verdict(&envelope.completeness, envelope.items.len(), traversal);
        structured_result(&envelope, &verdict).map_err(internal)
    }

    async fn search(
        &self,
        entry: &EntryPoint<'_>,
        caller: &Caller,
        args: SearchArgs,
        numbers: &ArgumentNumbers,
    ) -> Result<CallToolResult, Problem> {
        // As `page_size`: the REST route's extractor reads the budget, capped the same way.
        let budget_ms = args.time_budget_ms.as_ref().map(|ms| Self::number_text(numbers, "time_budget_ms", ms));
        let budget = TimeBudget::from_parts(
            &rest_query(caller, [("time_budget_ms", budget_ms.clone())])?,
            &self.state.completeness,
        )?;
        let envelope = search::search_records(&self.state, caller, &args.q, args.tenant.as_deref(), &budget).await?;
        let envelope = match &self.state.faults {
            None => envelope,
            Some(faults) => {
                let pairs =
                    [("q", Some(args.q.clone())), ("tenant", args.tenant.clone()), ("time_budget_ms", budget_ms)];
                let mut stands_for = rest_request(SEARCH_ROUTE, pairs, None)?;
                stands_for.extensions_mut().insert(budget);
                let (state, caller) = (self.state.clone(), caller.clone());
                // A search has no cursor: the layer never asks for its first page, which is itself.
                let first_page = move || async move {
                    search::search_records(&state, &caller, &args.q, args.tenant.as_deref(), &budget).await
                };
                faults.fault_answer(stands_for, envelope, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &envelope)?;
        tool_result(&envelope).map_err(internal)
    }

    async fn count(&self, entry: &EntryPoint<'_>, caller: &Caller, args: CountArgs) -> Result<CallToolResult, Problem> {
        let inventory = inventory_query(&args.owner, &args.tenant)?;
        let aggregate = inventory::count(&self.state, caller, &inventory).await?;
        let aggregate = match &self.state.faults {
            None => aggregate,
            Some(faults) => {
                let stands_for = rest_request(COUNT_ROUTE, [("owner", args.owner), ("tenant", args.tenant)], None)?;
                let (state, caller) = (self.state.clone(), caller.clone());
                // A count has no cursor: the layer never asks for its first page, which is itself.
                let first_page = move || async move { inventory::count(&state, &caller, &inventory).await };
                faults.fault_answer(stands_for, aggregate, first_page).await?
            }
        };
        entry.answer(RequireComplete(args.require_complete), &aggregate)?;
        structured_result(&aggregate, &count_verdict(&aggregate)).map_err(internal)
    }

    async fn get(&self, entry: &EntryPoint<'_>, caller: &Caller, args: GetArgs) -> Result<CallToolResult, Problem> {
        let view = account::account_view(&self.state, caller, &args.id, args.fields.iter().map(String::as_str)).await?;
        let view = match &self.state.faults {
            None => view,
            Some(faults) => {
                let fields = (!args.fields.is_empty()).then(|| args.fields.join(","));
                let stands_for = rest_request(&ACCOUNT_ROUTE.replace("{id}", &view.id), [("fields", fields)], None)?;
                // A single resource has no cursor: the layer never asks for its first page.
                let no_first_page = || {
                    std::future::ready(Err(Problem::new(ProblemCode::Internal, "a single resource has no first page")))
                };
                faults.fault_answer(stands_for, view, no_first_page).await?
            }
        };
        // Fields left out show to operators as they do over REST (a single resource demands
        // nothing, so this never refuses).
        entry.answer(RequireComplete(false), &view)?;
        structured_result(&view, &field_verdict(&view)?).map_err(internal)
    }

    async fn archive(&self, entry: &EntryPoint<'_>, caller: &Caller, args: ArchiveArgs) -> CallToolResult {
        let verified =
            Evidence::verify(&self.state.completeness, args.evidence.as_deref().unwrap_or(""), &caller.credential());
        let done = match verified {
            Ok(evidence) => {
                let done = archive::archive_with(&self.state, caller, &evidence, args.ids).await;
                if done.is_ok() {
                    entry.accepted(&evidence);
                }
                done
            }
            Err(problem) => Err(problem),
        };
        match done.and_then(|done| structured_result(&done, &archived_verdict(&done)).map_err(internal)) {
            Ok(result) => result,
            Err(problem) => {
                entry.refused(&problem);
                // The approval request answers a refusal for the evidence alone: the options it
                // gives (take the inventory again, ask for a wider credential) fix nothing else.
                let guidance = approval_request(caller, &problem).unwrap_or_else(|| {
                    let done = if http::outcome_unknown(&problem) {
                        "The archive may have been applied, or not: list the accounts again before calling again."
                    } else {
                        "Nothing has been archived."
                    };
                    format!("{done} {}", retry_guidance(&problem)).trim_end().to_owned()
                });
                tool_error(&problem, &guidance)
            }
        }
    }
}

/// What a tool error for arguments that cannot be read tells the agent to do.
const UNFIT_GUIDANCE: &str = "Nothing was done. Call the tool again with arguments that fit its inputSchema.";

/// The REST route `list_service_accounts` stands for, whose answers `--faults` faults as the
/// tool's ([`FaultLayer::fault_answer`](completeness::testing::faults::FaultLayer::fault_answer)).
const LIST_ROUTE: &str = "/service-accounts";
/// The REST route `search_service_accounts` stands for.
const SEARCH_ROUTE: &str = "/search";
/// The REST route `count_service_accounts` stands for.
const COUNT_ROUTE: &str = "/service-accounts/count";
/// The REST route `get_service_account` stands for, `{id}` its account's id.
const ACCOUNT_ROUTE: &str = "/service-accounts/{id}";

/// The `GET` of the REST route at `path` that a call with the arguments `pairs` and `cursor`
/// stands for, as `--faults` faults it.
fn rest_request<const N: usize>(
    path: &str,
    pairs: [(&str, Option<String>); N],
    cursor: Option<String>,
) -> Result<axum::extract::Request, Problem> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs.into_iter().chain([("cursor", cursor)]) {
        if let Some(value) = value {
            query.append_pair(name, &value);
        }
    }
    axum::http::Request::get(format!("{path}?{}", query.finish()))
        .body(Body::empty())
        .map_err(|_| Problem::new(ProblemCode::InvalidRequest, "the arguments are too long to be read"))
}

/// The request parts the REST route would have read `pairs` from (its query) as `caller`, for
/// the extractors that read them ([`PageRequest::from_parts`], [`TimeBudget::from_parts`]).
/// Arguments too long for any request's query (a cursor of tens of kilobytes) are refused as
/// the REST route refuses what it cannot read, never dropped: a cursor left out would be
/// answered as a first page.
fn rest_query<const N: usize>(caller: &Caller, pairs: [(&str, Option<String>); N]) -> Result<Parts, Problem> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    let mut named = Vec::new();
    for (name, value) in pairs {
        if let Some(value) = value {
            query.append_pair(name, &value);
            named.push(name);
        }
    }
    let uri = Uri::try_from(format!("{PATH}?{}", query.finish())).map_err(|_| {
        let detail = format!("the arguments ({}) are too long to be read", named.join(", "));
        if named.contains(&"cursor") {
            Problem::new(ProblemCode::InvalidCursor, detail).with_parameter("cursor")
        } else {
            Problem::new(ProblemCode::InvalidRequest, detail)
        }
    })?;
    let (mut parts, ()) = axum::http::Request::new(()).into_parts();
    parts.uri = uri;
    parts.extensions.insert(caller.credential());
    Ok(parts)
}

/// The inventory filters of `list` and `count`, as the REST query reads them.
fn inventory_query(owner: &Option<String>, tenant: &Option<String>) -> Result<InventoryQuery, Problem> {
    let pairs: Vec<(String, String)> = [("owner", owner), ("tenant", tenant)]
        .into_iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| (name.to_owned(), v.clone())))
        .collect();
    InventoryQuery::parse(&pairs)
}

pub(super) fn internal(error: serde_json::Error) -> Problem {
    Problem::new(ProblemCode::Internal, format!("the result could not be serialized: {error}"))
}
