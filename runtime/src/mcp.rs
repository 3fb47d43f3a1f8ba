//! Envelopes as MCP tool results (`mcp` feature, rmcp).
//!
//! An agent reading a tool result must get the completeness block, not prose about
//! it: `structuredContent` is the whole envelope, the first text block starts with a
//! one-line verdict (`COMPLETE: ...`, `COMPLETE BUT STALE (CODES): ...` or
//! `INCOMPLETE (CODES): ...`, [`verdict`]) followed by the
//! same JSON, and `isError` stays false for a partial result (a partial answer is an
//! answer, and an error would hide its items). [`response_schema`] gives the JSON Schema to
//! advertise as the tool's `outputSchema`: of the endpoint's own response type
//! (`Envelope<T, ListThingsReason>`, or a derived struct with `#[envelope(json_schema)]`),
//! exactly the reasons and warnings it declares; [`response_tool`] makes the tool with it.
//! ([`output_schema`] and [`envelope_tool`] describe an envelope over any reason, which a
//! client cannot hold to what the endpoint declares.) A refusal (an expired cursor, missing
//! evidence) is a tool error carrying the problem: [`tool_error`].
//!
//! These functions only shape results: a tool call is not an HTTP route, so neither a
//! caller's demand for a complete answer nor the observe layer's events and counts apply by
//! themselves. Pass each answer through
//! [`EntryPoint::answer`](crate::server::observe::EntryPoint::answer) first, which applies the
//! demand and emits what the observe layer would.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::client::explain::{page_verdict, verdict};
use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::Reason;
use crate::server::problem::Problem;

/// The tool result carrying `envelope`.
///
/// ```
/// use completeness_runtime::mcp::tool_result;
/// use completeness_runtime::reason::VisibilityRestricted;
/// use completeness_runtime::{Envelope, Scope};
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let listing: Envelope<String> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
/// let result = tool_result(&listing).unwrap();
/// assert_eq!(result.is_error, Some(false));
/// assert_eq!(result.structured_content.as_ref().unwrap()["complete"], false);
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.starts_with("INCOMPLETE (VISIBILITY_RESTRICTED): 0 service accounts returned"));
/// ```
pub fn tool_result<T: Serialize, R: Reason>(envelope: &Envelope<T, R>) -> Result<CallToolResult, serde_json::Error> {
    tool_result_for(envelope, &envelope.completeness, envelope.items.len())
}

/// The tool result for any collection response (e.g. a struct deriving `ResultEnvelope`)
/// with its completeness block and the number of items it returned.
pub fn tool_result_for<R: Reason>(
    response: &impl Serialize,
    completeness: &Completeness<R>,
    returned: usize,
) -> Result<CallToolResult, serde_json::Error> {
    // A paginated answer is one page: complete, it ends a traversal, whose earlier pages the
    // server does not see; the whole result's verdict would overstate what this page holds.
    let line = if completeness.page().is_some() {
        page_verdict(completeness, returned)
    } else {
        verdict(completeness, returned)
    };
    structured_result(response, &line)
}

/// The tool result carrying `response` whole as `structuredContent`, with a first text block
/// of `verdict` (one line) followed by the same JSON; for responses without a completeness
/// block, such as a single resource with `omitted_fields`.
///
/// The JSON after the verdict is written from `response` itself, so it is the REST body byte
/// for byte, in the contract's member order (`status`, `complete`, `truncated` before the
/// items). `structuredContent` keeps that order too: the `mcp` feature turns on serde_json's
/// `preserve_order`, without which a `Value` sorts its members by name.
pub fn structured_result(response: &impl Serialize, verdict: &str) -> Result<CallToolResult, serde_json::Error> {
    let structured = serde_json::to_value(response)?;
    let text = format!("{verdict}\n{}", serde_json::to_string(response)?);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result.is_error = Some(false);
    Ok(result)
}

/// The tool error for a refusal: `isError: true`, the first text block starts with the
/// one-line `REFUSED (CODE): detail`, then `guidance` (what the caller can do; may be
/// empty), then the RFC 9457 problem as JSON. No `structuredContent`: an error is not
/// the envelope the `outputSchema` describes.
///
/// ```
/// use completeness_runtime::mcp::tool_error;
/// use completeness_runtime::{Problem, ProblemCode};
///
/// let problem = Problem::new(ProblemCode::CursorExpired, "Snapshot s-9 is no longer retained.");
/// let result = tool_error(&problem, "");
/// assert_eq!(result.is_error, Some(true));
/// let text = &result.content[0].as_text().unwrap().text;
/// assert!(text.starts_with("REFUSED (CURSOR_EXPIRED): Snapshot s-9 is no longer retained.\n{"));
/// assert_eq!(completeness_runtime::mcp::refusal_problem(&result), Some(problem));
/// ```
pub fn tool_error(problem: &Problem, guidance: &str) -> CallToolResult {
    let json = serde_json::to_string_pretty(problem).unwrap_or_default();
    let mut text = format!("REFUSED ({}): {}\n", problem.code(), problem.detail());
    if !guidance.is_empty() {
        text.push_str(guidance.trim_end());
        text.push('\n');
    }
    text.push_str(&json);
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The problem a [`tool_error`] carries, read back by a client; `None` for a result that is
/// not an error or carries no problem.
pub fn refusal_problem(result: &CallToolResult) -> Option<Problem> {
    if result.is_error != Some(true) {
        return None;
    }
    let text = &result.content.first()?.as_text()?.text;
    serde_json::from_str(&text[text.find("\n{")?..]).ok()
}

/// A tool named `name` whose `outputSchema` is [`response_schema`] of the endpoint's response
/// type `E`: the reasons and warnings it declares, with their details, and the rules of
/// contract §2.2 a schema can state.
///
/// ```
/// use std::sync::Arc;
/// use completeness_runtime::mcp::response_tool;
/// use completeness_runtime::{Envelope, StandardReason};
///
/// let input = serde_json::json!({"type": "object"});
/// let input = Arc::new(input.as_object().unwrap().clone());
/// let tool = response_tool::<Envelope<String, StandardReason>>("list_names", "Names, with completeness", input);
/// let output = tool.output_schema.unwrap();
/// assert!(output["required"].as_array().unwrap().contains(&"incomplete_reasons".into()));
/// ```
pub fn response_tool<E: JsonSchema>(
    name: &'static str,
    description: &'static str,
    input_schema: Arc<JsonObject>,
) -> Tool {
    Tool::new(name, description, input_schema).with_raw_output_schema(response_schema::<E>())
}

/// A tool named `name` whose `outputSchema` is the envelope of `T` over any reason
/// ([`output_schema`]); [`response_tool`] gives an endpoint's, with what it declares.
pub fn envelope_tool<T: JsonSchema>(
    name: &'static str,
    description: &'static str,
    input_schema: Arc<JsonObject>,
) -> Tool {
    Tool::new(name, description, input_schema).with_raw_output_schema(output_schema::<T>())
}

/// The JSON Schema (draft 2020-12, generated with schemars) of an envelope of `T` over any
/// reason, for a tool's `outputSchema`: [`response_schema`] of `Envelope<T>`.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    response_schema::<Envelope<T>>()
}

/// The JSON Schema (draft 2020-12, [`response_json`](crate::schema::response_json)) of the
/// response type `E`, for a tool's `outputSchema`: of
/// `Envelope<T, ListReason>`, every member of contract §2.1 required, the rules of §2.2 a
/// schema can state, and exactly the reasons and warnings the endpoint declares.
pub fn response_schema<E: JsonSchema>() -> Arc<JsonObject> {
    match crate::schema::response_json::<E>().to_value() {
        Value::Object(object) => Arc::new(object),
        // A schema of `true` or `false`: no response type has one.
        other => Arc::new(JsonObject::from_iter([("allOf".to_owned(), Value::Array(vec![other]))])),
    }
}
