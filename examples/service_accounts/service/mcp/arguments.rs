//! A tool's arguments: their types, how they are read and checked against the tool's
//! `inputSchema`, the refusal of those that cannot be read, and their numbers as written.

use std::collections::HashMap;

use completeness::observe::EntryPoint;
use completeness::{Problem, ProblemCode};
use rmcp::ErrorData;
use rmcp::model::{JsonObject, ProtocolVersion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Number, Value, json};

use super::super::{archive, openapi};
use super::messages::{Head, shown};

/// `list_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ListArgs {
    /// `none` for accounts without an owner, or an owner's name; absent for every account.
    #[schemars(pattern(openapi::OWNER_FILTER_PATTERN))]
    pub(super) owner: Option<String>,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    pub(super) tenant: Option<String>,
    /// Items per page, a positive integer; any size above the server's maximum, however large,
    /// is reduced to it (with a PAGE_SIZE_REDUCED warning).
    #[schemars(with = "Option<u64>", range(min = 1))]
    pub(super) page_size: Option<Number>,
    /// `next_cursor` of the previous page, with the same filters; absent for the first page.
    #[schemars(length(min = 1))]
    pub(super) cursor: Option<String>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of a result that is
    /// incomplete for any reason but MORE_PAGES_AVAILABLE.
    #[serde(default)]
    pub(super) require_complete: bool,
}

/// `search_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SearchArgs {
    /// Part of an account's name, as names are written: lower-case letters, digits and '-'
    /// (the match is case-sensitive).
    #[schemars(length(min = 1, max = 64), pattern(super::super::account::NAME_PATTERN))]
    pub(super) q: String,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    pub(super) tenant: Option<String>,
    /// How long the search may take, in milliseconds, a positive integer; any budget above the
    /// server's maximum, however large, is capped to it.
    #[schemars(with = "Option<u64>", range(min = 1))]
    pub(super) time_budget_ms: Option<Number>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of an incomplete result.
    #[serde(default)]
    pub(super) require_complete: bool,
}

/// `count_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CountArgs {
    /// `none` for accounts without an owner, or an owner's name; absent for every account.
    #[schemars(pattern(openapi::OWNER_FILTER_PATTERN))]
    pub(super) owner: Option<String>,
    /// One tenant; absent for every tenant. A credential that cannot read them all then gets
    /// VISIBILITY_RESTRICTED: name a tenant it reads for a complete answer over that tenant.
    pub(super) tenant: Option<String>,
    /// True to get a tool error (COMPLETE_RESULT_UNAVAILABLE) instead of a lower bound.
    #[serde(default)]
    pub(super) require_complete: bool,
}

/// `get_service_account` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct GetArgs {
    /// The account's id, e.g. `sa-000001`.
    #[schemars(pattern(openapi::ACCOUNT_ID_PATTERN))]
    pub(super) id: String,
    /// Fields to fill: any field name; `secret_fingerprint` is only filled when named here. A
    /// field named twice is filled once, as in the REST route's `fields=`.
    #[serde(default)]
    pub(super) fields: Vec<String>,
}

/// `archive_service_accounts` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ArchiveArgs {
    /// The accounts to archive, each named once: ids from the inventory the evidence comes from.
    #[schemars(
        length(min = 1, max = archive::MAX_TARGETS),
        inner(pattern(openapi::ACCOUNT_ID_PATTERN)),
        extend("uniqueItems" = true)
    )]
    pub(super) ids: Vec<String>,
    /// `evidence` of the last page of a complete `list_service_accounts` traversal with owner `none`.
    #[schemars(length(min = 1))]
    pub(super) evidence: Option<String>,
}

/// Reads a tool's arguments, checked against its `inputSchema` first: an unknown member, a
/// missing one, or one of the wrong JSON type is [`Unfit`], naming the argument and the type it
/// must have, never its value (which may be a cursor or an evidence token, and rmcp logs a
/// JSON-RPC error). Any JSON number passes where the schema says `integer`: which numbers are
/// valid is the shared logic's to say, with its problem code.
pub(super) fn read<T: DeserializeOwned>(schema: &JsonObject, arguments: JsonObject) -> Result<T, Unfit> {
    let unfit = |argument: &str, message: String| Unfit { message, argument: Some(argument.to_owned()) };
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    for (name, value) in &arguments {
        let Some(property) = properties.get(name) else {
            let known: Vec<String> = properties.keys().map(|name| format!("`{name}`")).collect();
            let message = format!("unknown argument `{}`; this tool takes {}", shown(name), known.join(", "));
            return Err(unfit(name, message));
        };
        if !fits(value, property) {
            return Err(unfit(name, format!("argument `{name}` must be {}", expected(property))));
        }
    }
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str);
    if let Some(missing) = required.into_iter().find(|name| !arguments.contains_key(*name)) {
        return Err(unfit(missing, format!("argument `{missing}` is missing")));
    }
    serde_json::from_value(Value::Object(arguments))
        .map_err(|_| Unfit { message: "the arguments do not fit the tool's inputSchema".to_owned(), argument: None })
}

/// Arguments of a known tool that cannot be read ([`read`]): why, and the argument at fault
/// when one is (its name as the client wrote it).
#[derive(Debug)]
pub(super) struct Unfit {
    message: String,
    argument: Option<String>,
}

impl Unfit {
    /// The refusal as a problem, code `INVALID_ARGUMENTS` and status 400, what a REST route
    /// answers a query it cannot read; `parameter` names the argument at fault.
    pub(super) fn problem(&self) -> Problem {
        let problem = Problem::new(ProblemCode::custom(INVALID_ARGUMENTS), format!("{}.", self.message))
            .with_title("Invalid arguments")
            .with_status(400);
        match &self.argument {
            Some(argument) => problem.with_parameter(&shown(argument)),
            None => problem,
        }
    }

    /// The refusal as a JSON-RPC invalid-params error ([`unfit_arguments`]).
    pub(super) fn into_error(self) -> ErrorData {
        unfit_arguments(self.message, self.argument.as_deref())
    }
}

/// How a call whose arguments cannot be read is refused, by the protocol version of its
/// session or request. 2025-11-25 made it a tool error (SEP-1303: the result reaches the model,
/// which can correct its call, where a JSON-RPC error stops at its host); 2025-06-18 had it a
/// JSON-RPC invalid-params error. A call of an unknown tool, or whose params do not fit the
/// protocol's own schema, is a JSON-RPC error in every version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UnfitArguments {
    /// A JSON-RPC error, `-32602` with `data.code` `INVALID_ARGUMENTS` (2025-06-18).
    ProtocolError,
    /// A tool error, `isError: true`, `REFUSED (INVALID_ARGUMENTS)` (2025-11-25 and later).
    ToolError,
}

impl UnfitArguments {
    /// How a call of protocol `version` is refused; a call whose version is not known, the
    /// current protocol's way.
    pub(super) fn of(version: Option<&ProtocolVersion>) -> UnfitArguments {
        // Versions are dates, `YYYY-MM-DD`: their text sorts as they do.
        match version {
            Some(version) if version.as_str() < ProtocolVersion::V_2025_11_25.as_str() => UnfitArguments::ProtocolError,
            _ => UnfitArguments::ToolError,
        }
    }
}

/// The stable code of a call whose arguments (or tool name) cannot be read: the service's own,
/// in the `data` of the JSON-RPC error or the tool error's problem.
pub(super) const INVALID_ARGUMENTS: &str = "INVALID_ARGUMENTS";

/// The problem code of a JSON-RPC error's `data.code`: this service's own (counted by name in
/// the metrics), or a standard one.
pub(super) fn problem_code(code: &str) -> ProblemCode {
    if code == INVALID_ARGUMENTS { ProblemCode::custom(INVALID_ARGUMENTS) } else { ProblemCode::parse(code) }
}

/// `error`, a call refused before its tool ran, observed first as a REST route's refusal is:
/// its `problem` event, with the code `INVALID_ARGUMENTS` and the status a REST route would
/// answer (400).
pub(super) fn unread(entry: &EntryPoint<'_>, error: ErrorData) -> ErrorData {
    entry.refused(&Problem::new(ProblemCode::custom(INVALID_ARGUMENTS), error.message.to_string()));
    error
}

/// The invalid-params error of a call that cannot be read; `argument` names the one at fault,
/// when one is. The message says that nothing ran and names the code too: a host that passes
/// an agent only the message (not `data`) loses neither.
pub(super) fn unfit_arguments(message: impl Into<String>, argument: Option<&str>) -> ErrorData {
    let data = match argument {
        Some(argument) => json!({"code": INVALID_ARGUMENTS, "argument": shown(argument)}),
        None => json!({"code": INVALID_ARGUMENTS}),
    };
    let message = format!("{}; the tool did not run ({INVALID_ARGUMENTS})", message.into());
    ErrorData::invalid_params(message, Some(data))
}

/// The JSON types `schema` allows (its `type`, one name or several); empty when it says none.
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(several) => several.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// True when `value` has a JSON type `schema` allows, and so does each item of an array.
fn fits(value: &Value, schema: &Value) -> bool {
    let allowed = types(schema);
    let is = |name: &str| allowed.is_empty() || allowed.contains(&name);
    match value {
        Value::Null => is("null"),
        Value::Bool(_) => is("boolean"),
        Value::Number(_) => is("number") || is("integer"),
        Value::String(_) => is("string"),
        Value::Object(_) => is("object"),
        Value::Array(items) => is("array") && items.iter().all(|item| fits(item, &schema["items"])),
    }
}

/// What a value of `schema` is, in words: "a string or null", "an array of strings".
fn expected(schema: &Value) -> String {
    let one = |name: &str| match name {
        "array" => {
            let items: Vec<&str> = types(&schema["items"])
                .into_iter()
                .map(|item| match item {
                    "string" => "strings",
                    "integer" => "integers",
                    "number" => "numbers",
                    "boolean" => "booleans",
                    "object" => "objects",
                    _ => "values",
                })
                .collect();
            if items.is_empty() { "an array".to_owned() } else { format!("an array of {}", items.join(" or ")) }
        }
        "integer" => "an integer".to_owned(),
        "object" => "an object".to_owned(),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    };
    let all: Vec<String> = types(schema).into_iter().map(one).collect();
    if all.is_empty() { "a JSON value".to_owned() } else { all.join(" or ") }
}

/// The JSON text of each number among a `tools/call`'s `arguments`, by argument name, as the
/// body carried it: `18446744073709551616` stays that, where serde_json's `Number` would hold
/// an approximation. See [`InventoryTools::number_text`](super::InventoryTools::number_text).
#[derive(Debug, Clone, Default)]
pub(super) struct ArgumentNumbers(pub(super) HashMap<String, String>);

/// The numbers among the `params.arguments` of `message`, as written.
pub(super) fn argument_numbers(message: &Head<'_>) -> Option<ArgumentNumbers> {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<HashMap<String, &'a RawValue>>,
    }
    let arguments = serde_json::from_str::<Params<'_>>(message.params?.get()).ok()?.arguments?;
    let numbers = arguments
        .into_iter()
        .map(|(name, raw)| (name, raw.get().to_owned()))
        .filter(|(_, text)| text.starts_with(|c: char| c == '-' || c.is_ascii_digit()))
        .collect();
    Some(ArgumentNumbers(numbers))
}

/// More zeros than a float's largest exponent: no number a JSON reader takes stands for them.
const MAX_EXPONENT_ZEROS: usize = 400;

/// The digits of the integer a JSON number names when written with a fraction or an exponent
/// (`2.0`, `1e2`, `-3.0E0`), read from its decimal text, so no float rounds `2.0000000000000001`
/// to 2; `None` for one written as an integer already, or naming no integer (`2.5`, `1e-3`).
pub(super) fn integer_digits(text: &str) -> Option<String> {
    let (sign, unsigned) = text.strip_prefix('-').map_or(("", text), |rest| ("-", rest));
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => {
            (mantissa, Some(exponent.strip_prefix('+').unwrap_or(exponent).parse::<i64>().ok()?))
        }
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // Written as an integer already: neither a fraction nor an exponent (`5e0` has one).
    if (fraction.is_empty() && exponent.is_none())
        || !(whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let exponent = exponent.unwrap_or(0);
    // The digits, and where the decimal point falls among them once the exponent is applied.
    let digits = format!("{whole}{fraction}");
    // Zero whatever its exponent: `0e1000000000` is read as 0 by a JSON reader, and its zeros
    // would never be written out.
    if digits.bytes().all(|b| b == b'0') {
        return Some("0".to_owned());
    }
    let point = whole.len() as i64 + exponent;
    let split = usize::try_from(point.clamp(0, digits.len() as i64)).ok()?;
    if digits[split..].bytes().any(|b| b != b'0') {
        return None;
    }
    // A number whose point lies past its digits gets the zeros it stands for; a JSON reader has
    // already refused one too large for a float (`1e400`), so they are at most a few hundred
    // (more is no integer this reads: left as written, refused as the REST route refuses it).
    let zeros = usize::try_from(point - digits.len() as i64).unwrap_or(0);
    if zeros > MAX_EXPONENT_ZEROS {
        return None;
    }
    let integer = format!("{}{}", &digits[..split], "0".repeat(zeros));
    let integer = integer.trim_start_matches('0');
    Some(if integer.is_empty() { "0".to_owned() } else { format!("{sign}{integer}") })
}
