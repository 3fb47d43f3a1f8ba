//! The tools `/mcp` lists: their names, their descriptions (what each answer's completeness
//! means), and their schemas as `tools/list` carries them.

use std::sync::Arc;

use completeness::{ReasonCode, WarningCode};
use rmcp::model::{Tool, ToolAnnotations};
use serde_json::Value;

use completeness::config::CompletenessConfig;

use super::super::inventory::{CountServiceAccountsReason, ListServiceAccountsReason};
use super::super::search::SearchReason;
use super::arguments::{ArchiveArgs, CountArgs, GetArgs, ListArgs, SearchArgs};
use super::schemas::{input_schema, json_schema_formats_only, output_schema};

pub(super) const LIST: &str = "list_service_accounts";
pub(super) const SEARCH: &str = "search_service_accounts";
pub(super) const COUNT: &str = "count_service_accounts";
pub(super) const GET: &str = "get_service_account";
pub(super) const ARCHIVE: &str = "archive_service_accounts";
/// Every tool's name.
pub(super) const TOOLS: [&str; 5] = [LIST, SEARCH, COUNT, GET, ARCHIVE];

/// Starts at zero the counters the tools' partial answers raise, under each tool's name and
/// `MCP` (see [`completeness::observe::zero_counters`]).
pub(in super::super) fn zero_counters() {
    use completeness::observe::{zero_counters, zero_single_resource_counters};
    zero_counters::<ListServiceAccountsReason>(LIST, "MCP");
    zero_counters::<SearchReason>(SEARCH, "MCP");
    zero_counters::<CountServiceAccountsReason>(COUNT, "MCP");
    zero_single_resource_counters(GET, "MCP");
}

/// How to read a list, search or count whose incomplete reasons can be `reasons` and whose
/// warnings can be `warnings` (what `complete` true and false mean for it, `whole` and `part`):
/// what each reason means and what to do about it, and what a stale warning takes away, so
/// that a description names no code its tool never answers with.
fn reading(reasons: &[ReasonCode], warnings: &[WarningCode], whole: &str, part: &str) -> String {
    let meaning = |code: &ReasonCode| match code {
        ReasonCode::VisibilityRestricted => {
            "this credential cannot read part of the scope, and no retry or next page shows it: name a `tenant` it \
             reads for a complete answer over that tenant, or ask a person with a credential that reads them all"
        }
        ReasonCode::MorePagesAvailable => "call again with `cursor` set to `next_cursor`",
        ReasonCode::TimeBudgetExceeded => "the time budget ran out first; a larger `time_budget_ms` may reach more",
        ReasonCode::SourceUnavailable => "a source failed to answer; ask again later",
        ReasonCode::ResultLimitReached => "there are more matches than the result limit; narrow `q` or name a `tenant`",
        _ => "what was returned is a part",
    };
    let codes: Vec<String> = reasons.iter().map(|code| format!("{}: {}", code.as_str(), meaning(code))).collect();
    let stale = if warnings.contains(&WarningCode::StaleIndex) {
        " A STALE_INDEX warning (or any warning with `stale: true`) means part of the answer came from a copy that \
         lags: even when `complete` is true, an empty `items` then does not prove absence; ask again later."
    } else {
        ""
    };
    format!(
        "Read `complete` before anything else: true means {whole}; false means {part}, and `incomplete_reasons` \
         says why, one stable `code` each ({}). `continuation` is the next step to take, when there is one. The \
         first text line is the verdict; the JSON after it is `structuredContent`. A refusal is a tool error \
         starting with `REFUSED (CODE)`.{}",
        codes.join("; "),
        stale
    )
}

/// The tools, in the order of the REST routes, each schema with only the formats JSON Schema
/// defines ([`json_schema_formats_only`]).
pub(super) fn tools(document: &Value, settings: &CompletenessConfig) -> Vec<Tool> {
    let mut tools = described_tools(document, settings);
    for tool in &mut tools {
        let mut schemas = [Some(&mut tool.input_schema), tool.output_schema.as_mut()];
        for schema in schemas.iter_mut().flatten() {
            json_schema_formats_only(Arc::make_mut(schema));
        }
    }
    tools
}

/// The tools as they are described and typed, in the order of the REST routes.
fn described_tools(document: &Value, settings: &CompletenessConfig) -> Vec<Tool> {
    let output = |component: &str| output_schema(document, component);
    let read_only = |title: &str| {
        ToolAnnotations::with_title(title).read_only(true).destructive(false).idempotent(true).open_world(false)
    };
    // A page reached with a cursor covers the scope only with the pages before it (contract
    // §8), as its verdict says; a search has no pages.
    let whole_page = "the result covers the whole scope (an empty `items` then proves absence); on a page reached \
                      with a cursor (`page.resumed: true`), the traversal it ends covers it only if every page \
                      before it lacked nothing but the next page and none was stale";
    let whole = "the result covers the whole scope (an empty `items` then proves absence, unless a warning is \
                 stale)";
    let part = "it does not";
    vec![
        Tool::new(
            LIST,
            format!(
                "List service accounts that are not archived (GET /service-accounts), a page at a time at a frozen \
                 snapshot. Page with `cursor` = `next_cursor` (same filters) until `next_cursor` is null; the last \
                 page of a complete traversal carries `evidence`, which expires {} s after that page. A page holds \
                 {} accounts unless `page_size` asks for another number, at most {}; a cursor expires {} s after \
                 its page. A verdict starting STARTED \
                 OVER answers a cursor with the first page again: drop the pages read before it. One starting \
                 COMPLETE PAGE, INCOMPLETE TRAVERSAL ends a traversal an earlier page of which was partial or \
                 stale. {}",
                settings.evidence_ttl().as_secs_f64(),
                settings.default_page_size(),
                settings.max_page_size(),
                settings.cursor_ttl().as_secs_f64(),
                reading(ListServiceAccountsReason::ALL, ListServiceAccountsReason::WARNINGS, whole_page, part)
            ),
            input_schema::<ListArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccountPage"))
        .with_annotations(read_only("List service accounts")),
        Tool::new(
            SEARCH,
            format!(
                "Search service accounts by name (GET /search) across the directory, audit and legacy sources \
                 within a time budget: {} ms unless `time_budget_ms` asks for another, at most {} ms. Hits include \
                 archived accounts and say nothing of their state: read one with {GET} to tell. {}",
                settings.default_time_budget().as_millis(),
                settings.max_time_budget().as_millis(),
                reading(SearchReason::ALL, SearchReason::WARNINGS, whole, part)
            ),
            input_schema::<SearchArgs>(),
        )
        .with_raw_output_schema(output("SearchResult"))
        .with_annotations(read_only("Search service accounts")),
        Tool::new(
            COUNT,
            format!(
                "Count service accounts that are not archived (GET /service-accounts/count): `relation` says how \
                 `count` relates to the truth: `exact`, or `lower_bound` when `complete` is false (it then counts only what this credential \
                 can read). {}",
                reading(
                    CountServiceAccountsReason::ALL,
                    CountServiceAccountsReason::WARNINGS,
                    "`count` is exact over the whole scope",
                    "it is a lower bound"
                )
            ),
            input_schema::<CountArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccountCount"))
        .with_annotations(read_only("Count service accounts")),
        Tool::new(
            GET,
            "Read one service account (GET /service-accounts/{id}). Every field is present; a field this call did \
             not fill is null and named in `omitted_fields` with why (NO_ACCESS, SOURCE_FAILED, NOT_REQUESTED), so \
             null there means \"not told\", never \"no value\". A refusal is a tool error starting with \
             `REFUSED (CODE)`.",
            input_schema::<GetArgs>(),
        )
        .with_raw_output_schema(output("ServiceAccount"))
        .with_annotations(read_only("Read a service account")),
        Tool::new(
            ARCHIVE,
            format!(
                "Archive unowned service accounts (POST /service-accounts/archive); `archived` lists them. Needs \
                 `evidence` from the last page of a complete list_service_accounts traversal with owner `none` \
                 (complete: true), naming only ids of that inventory, within {} s of that page (then it is \
                 EVIDENCE_EXPIRED: list again). Without evidence, with evidence of another or an incomplete \
                 inventory, or when a target changed since, it is refused as a whole with a tool error \
                 (`REFUSED (CODE)`, what is missing, the options) and nothing is archived; any other refusal \
                 archives nothing either.",
                settings.evidence_ttl().as_secs_f64()
            ),
            input_schema::<ArchiveArgs>(),
        )
        .with_raw_output_schema(output("Archived"))
        .with_annotations(
            ToolAnnotations::with_title("Archive service accounts")
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}
