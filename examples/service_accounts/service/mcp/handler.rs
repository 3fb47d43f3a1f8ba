//! rmcp's `ServerHandler` for [`InventoryTools`]: the protocol versions, the server's info, the
//! tool list and calls, and the refusal of the methods this server does not serve.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::request::Parts;
use completeness::observe::UNMATCHED;
use completeness::{Problem, ProblemCode};
use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CallToolResponse, CompleteRequestMethod, CompleteRequestParams,
    CompleteResult, ConstString, CustomRequest, CustomResult, ErrorCode, GetPromptRequestMethod,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult,
    ListToolsRequestMethod, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestMethod,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestMethod,
    SubscribeRequestParams, Tool, UnsubscribeRequestMethod, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tracing::Instrument;

use super::super::auth::Caller;
use super::super::telemetry;
use super::arguments::{ArgumentNumbers, UnfitArguments, problem_code, unfit_arguments};
use super::messages::{refused_call, route_of, shown};
use super::{InventoryTools, PATH, PROTOCOL_VERSIONS};

/// `ServerHandler` methods, each `name(params) -> result: method`, that refuse their method
/// with [`not_offered`].
macro_rules! not_offered_methods {
    ($($name:ident($params:ty) -> $result:ty: $method:ty;)*) => {
        $(
            async fn $name(&self, _: $params, context: RequestContext<RoleServer>) -> Result<$result, ErrorData> {
                Err(not_offered::<$method>(&context))
            }
        )*
    };
}

impl ServerHandler for InventoryTools {
    /// [`PROTOCOL_VERSIONS`], which bounds what `initialize` agrees to, what `server/discover`
    /// lists and what a request of the current protocol may name.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("service_accounts", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "An inventory of service accounts whose every list, search and count says whether it is complete. \
                 Read `complete` before anything else, and `incomplete_reasons` when it is false; each tool's \
                 description says what its reasons mean. An empty or short answer shows that nothing else exists \
                 only when `complete` is true, no warning is stale and, on a page reached with a cursor, every page \
                 before it lacked nothing but the next page and none was stale. A refusal is a tool error starting with \
                 `REFUSED (CODE)`. Archive only with the `evidence` of a complete owner=none inventory.",
            )
    }

    /// Every tool, on one page. A `cursor` can only come from a page that named a next one,
    /// and none does, so any `cursor` is invalid: `-32602`, as MCP's pagination asks.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if request.is_some_and(|request| request.cursor.is_some()) {
            return Err(refused_by_handler(
                &context,
                PATH,
                ErrorData::invalid_params(
                    "invalid `cursor`: every tool is listed on the first page, which names no next one; \
                     call tools/list without a cursor",
                    Some(json!({"code": ProblemCode::InvalidCursor.as_str()})),
                ),
            ));
        }
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The authentication layer put the caller on the HTTP request that carried this call.
        let parts = context.extensions.get::<Parts>();
        let caller = parts
            .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the request carries no authenticated credential", None))?;
        let numbers = parts.and_then(|parts| parts.extensions.get::<ArgumentNumbers>()).cloned().unwrap_or_default();
        // rmcp runs the call outside the request's span: its events go in the same span again,
        // so that they carry the request id.
        let span =
            parts.map_or_else(tracing::Span::none, |parts| telemetry::request_span(&parts.extensions, &parts.method));
        let arguments = request.arguments.unwrap_or_default();
        let unfit = UnfitArguments::of(context.protocol_version().as_ref());
        self.call(&caller, &request.name, arguments, &numbers, unfit).instrument(span).await.map(CallToolResponse::from)
    }

    /// rmcp hands over any request it could not read as the method it names. For a method
    /// this server serves, that means params that do not fit the protocol's schema (say
    /// `arguments: []`): an invalid-params error saying why, not "method not found", which
    /// would tell an agent that the server has no tools at all. serde's reason is told without
    /// the value it quotes (a string there may be an evidence token: rmcp logs the error).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let unfit = match request.method.as_str() {
            CallToolRequestMethod::VALUE => request.params_as::<CallToolRequestParams>().map(|read| read.is_some()),
            ListToolsRequestMethod::VALUE => request.params_as::<PaginatedRequestParams>().map(|read| read.is_some()),
            // A method of a capability this server does not offer whose params rmcp could not
            // read (`resources/subscribe` without a `uri`): refused as not served, as with
            // params that fit, not as unknown.
            method if UNOFFERED.iter().any(|family| method.starts_with(family)) => {
                return Err(not_offered_method(method, &context));
            }
            method => {
                // As a REST request no route matched: `NOT_FOUND`, under `unmatched`.
                let error = ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("unknown method `{}`", shown(method)),
                    Some(json!({"code": ProblemCode::NotFound.as_str()})),
                );
                return Err(refused_by_handler(&context, UNMATCHED, error));
            }
        };
        let reason = match unfit {
            Err(e) => without_values(&e.to_string()),
            Ok(false) => "they are missing".to_owned(),
            // They fit, read on their own: what failed was reading them as sent (a member given
            // twice is refused before, by `members_given_once`).
            Ok(true) => "they could not be read as sent".to_owned(),
        };
        let route = route_of(Some(&request.method), request.params.as_ref().map_or(&Value::Null, |p| &p["name"]));
        let error = unfit_arguments(
            format!("the params of `{}` do not fit the protocol's schema: {reason}", request.method),
            None,
        );
        Err(refused_by_handler(&context, route, error))
    }

    // The capabilities this server does not offer: each of their methods is refused as
    // `not_offered` says, where rmcp's default answer carries no `data` and leaves no event.
    not_offered_methods! {
        complete(CompleteRequestParams) -> CompleteResult: CompleteRequestMethod;
        get_prompt(GetPromptRequestParams) -> GetPromptResponse: GetPromptRequestMethod;
        list_prompts(Option<PaginatedRequestParams>) -> ListPromptsResult: ListPromptsRequestMethod;
        list_resources(Option<PaginatedRequestParams>) -> ListResourcesResult: ListResourcesRequestMethod;
        list_resource_templates(Option<PaginatedRequestParams>) -> ListResourceTemplatesResult:
            ListResourceTemplatesRequestMethod;
        read_resource(ReadResourceRequestParams) -> ReadResourceResponse: ReadResourceRequestMethod;
    }

    // The resource subscriptions of sessions, refused as the methods above are (rmcp deprecates
    // them for the `subscriptions/listen` of 2026-07-28). The methods of tasks and skills rmcp
    // refuses itself, before any handler, as this server declares neither capability.
    #[allow(deprecated)]
    async fn subscribe(&self, _: SubscribeRequestParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        Err(not_offered::<SubscribeRequestMethod>(&context))
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        _: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Err(not_offered::<UnsubscribeRequestMethod>(&context))
    }
}

/// The refusal of method `M` of a capability this server does not offer (completions, prompts,
/// resources): `-32601` with `data.code` `NOT_FOUND` and a message that names what the
/// server offers, observed under `/mcp` as any other method's refusal.
fn not_offered<M: ConstString>(context: &RequestContext<RoleServer>) -> ErrorData {
    not_offered_method(M::VALUE, context)
}

/// [`not_offered`] of `method`, by name.
fn not_offered_method(method: &str, context: &RequestContext<RoleServer>) -> ErrorData {
    let error = ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("`{}` is not served: this server offers tools only (`tools/list`, `tools/call`)", shown(method)),
        Some(json!({"code": ProblemCode::NotFound.as_str()})),
    );
    refused_by_handler(context, PATH, error)
}

/// The method families of the capabilities this server does not offer (resources, prompts,
/// completions), refused by [`not_offered`] however their params read.
const UNOFFERED: [&str; 3] = ["resources/", "prompts/", "completion/"];

/// `error`, a refusal by this handler of a message rmcp read, observed under `route` and
/// method `MCP` with the stable code of its `data`, in the name of the request's credential.
fn refused_by_handler(context: &RequestContext<RoleServer>, route: &str, error: ErrorData) -> ErrorData {
    if let Some(parts) = context.extensions.get::<Parts>() {
        let code = error.data.as_ref().and_then(|data| data["code"].as_str()).unwrap_or_default();
        let problem = Problem::new(problem_code(code), error.message.to_string());
        // rmcp runs the handler outside the request's span: the event goes in it again, so
        // that it carries the request id (as a tool call's do).
        let _span = telemetry::request_span(&parts.extensions, &parts.method).entered();
        refused_call(&parts.extensions, route, &problem);
    }
    error
}

/// serde's message without the value it quotes: `invalid type: string "…", expected a map`
/// becomes `invalid type: string, expected a map`.
fn without_values(message: &str) -> String {
    for lead in ["invalid type: ", "invalid value: "] {
        if let Some(start) = message.find(lead) {
            let rest = &message[start + lead.len()..];
            if let Some(end) = rest.rfind(", expected ") {
                let kind = rest[..end].split(['`', '"']).next().unwrap_or_default().trim();
                return format!("{}{lead}{kind}{}", &message[..start], &rest[end..]);
            }
        }
    }
    message.to_owned()
}
