//! What a fault does to one response, on its JSON: remove items (never an aggregate's value),
//! add a reason or a warning, and rebuild the completeness block with the contract's own types.

use std::sync::Arc;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value, json};

use super::examples::Examples;
use super::fault::{FUTURE_REASON, Fault, SERVICE_UNAVAILABLE};
use super::schedule::{below, unit};
use crate::contract::aggregate::{Aggregate, Relation};
use crate::contract::completeness::{Completeness, Shape};
use crate::contract::continuation::Continuation;
use crate::contract::declared::DeclaredSet;
use crate::contract::field::Omission;
use crate::contract::params;
use crate::contract::reason::{
    CustomReason, MorePagesAvailable, Progress, QuotaExhausted, Reason, ReasonCode, ReasonKind, ResultLimitReached,
    SnapshotExpired, SourceUnavailable, StandardReason, TimeBudgetExceeded, VisibilityRestricted,
};
use crate::contract::warning::{
    DefaultScopeApplied, OrderingDefaulted, PartialFieldSet, StaleIndex, Warning, WarningCode,
};
use crate::server::budget::TimeBudget;
use crate::server::problem::{Problem, ProblemCode};
use completeness_codes::{OMITTED_FIELDS, RESOURCE_WARNINGS};
use proptest::test_runner::TestRng;

/// The source named by `SOURCE_UNAVAILABLE` when the items carry no `source` member.
pub const UNNAMED_SOURCE: &str = "injected";

/// What the layer knows about the request it faults, and about the answer the route gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestFacts {
    /// The request continues a traversal (its query has a `cursor`).
    pub has_cursor: bool,
    /// The request's `time_budget_ms`, when it names one.
    pub time_budget_ms: Option<u64>,
    /// The budget the route applied, when it took one ([`TimeBudget`]): a faulted
    /// `TIME_BUDGET_EXCEEDED` is the one this budget gives, with its recovery.
    pub budget: Option<TimeBudget>,
    /// The data member holding the items, as the answer's body told (its first array member);
    /// `None`: `items`, or else the first array member by name.
    pub items_member: Option<String>,
    /// A reason's fault keeps none of the items ([`Schedule::emptied`](super::Schedule::emptied)).
    pub emptied: bool,
    /// The service's own reasons and warnings to inject as they are ([`Examples`]).
    pub examples: Arc<Examples>,
    /// The request's filter parameters: those of its query parameters the route's answer echoes
    /// in `scope.filters`, by name, each once. [`Fault::FilterDropped`] drops one of them.
    pub filters: Vec<String>,
    /// The cursors handed out before this page in the traversal the request continues, oldest
    /// first (the request's own last), when the layer knows them (a kit's layer remembers them)
    /// and the answer hands out a next cursor: those [`Fault::CursorRepeated`] can hand out again.
    pub handed_out: Vec<String>,
}

/// The data member that holds the items of the collection `body`: `items`, or else its first
/// array data member in the order the body writes them (a derived envelope's first collection
/// field), which a parsed [`Value`] no longer keeps. `None` when `body` is not such an object.
pub(crate) fn items_member_of(body: &[u8]) -> Option<String> {
    let members = Shape::Collection.members();
    let arrays: Vec<String> = members_in_order(body)?
        .into_iter()
        .filter(|(name, value)| !members.contains(&name.as_str()) && value.is_array())
        .map(|(name, _)| name)
        .collect();
    arrays.iter().find(|name| *name == "items").or(arrays.first()).cloned()
}

/// The members of the JSON object `body` in the order it writes them, which a parsed [`Value`]
/// no longer keeps (it sorts them); `None` when `body` is no JSON object.
fn members_in_order(body: &[u8]) -> Option<Vec<(String, Value)>> {
    struct InOrder(Vec<(String, Value)>);
    impl<'de> serde::Deserialize<'de> for InOrder {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_map(InOrderVisitor)
        }
    }
    struct InOrderVisitor;
    impl<'de> serde::de::Visitor<'de> for InOrderVisitor {
        type Value = InOrder;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<InOrder, A::Error> {
            let mut members = Vec::new();
            while let Some(member) = map.next_entry()? {
                members.push(member);
            }
            Ok(InOrder(members))
        }
    }
    serde_json::from_slice::<InOrder>(body).ok().map(|members| members.0)
}

impl RequestFacts {
    /// Reads the facts from a query string (without the `?`).
    pub fn from_query(query: Option<&str>) -> RequestFacts {
        let mut facts = RequestFacts::default();
        for pair in query.unwrap_or("").split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                params::CURSOR => facts.has_cursor = true,
                params::TIME_BUDGET_MS => facts.time_budget_ms = value.parse().ok(),
                _ => {}
            }
        }
        facts
    }
}

/// A faulted answer.
#[derive(Debug, Clone)]
pub enum Faulted {
    /// The collection or aggregate, made incomplete or warned.
    Page(Box<FaultedPage>),
    /// A problem sent instead (`410 CURSOR_EXPIRED`, `503 SERVICE_UNAVAILABLE`).
    Problem(Problem),
    /// Nothing to fault: the response is neither an aggregate nor has an array of items.
    Unchanged,
}

/// Applies `fault` to the `response` of a route that declares `declared`, with the random
/// numbers of `rng`.
///
/// - A collection keeps a subset of its items, in their order and unaltered.
/// - An aggregate (contract §2.6, recognised by its `relation` member beside one value member)
///   keeps its value; an `exact` value becomes a `lower_bound`, since the fault's reason says
///   part of the scope was not counted. An `estimate` stays one.
///
/// Either way the block gains the fault's reason or warning and loses any evidence. An error
/// when `response` does not keep the contract. An outage ([`Fault::Unavailable`]) replaces the
/// answer with its problem.
pub fn inject(
    fault: &Fault,
    response: &Value,
    declared: &DeclaredSet,
    facts: &RequestFacts,
    rng: &mut TestRng,
) -> Result<Faulted, String> {
    // A fault that answers with a problem needs nothing of the answer's shape.
    match fault {
        Fault::CursorExpired => {
            return Ok(Faulted::Problem(
                Problem::new(
                    ProblemCode::CursorExpired,
                    "The cursor expired (fault injection). Start a new traversal; results from this one cannot \
                     be combined with a new one.",
                )
                .with_continuation(&Continuation::Restart { reason: "cursor expired (fault injection)".to_owned() }),
            ));
        }
        Fault::Unavailable => return Ok(Faulted::Problem(outage(rng))),
        _ => {}
    }
    let mut data = response.as_object().cloned().ok_or("a response that reports completeness is a JSON object")?;
    let shape = if is_aggregate(&data) { Shape::Aggregate } else { Shape::Collection };
    let block =
        Completeness::<StandardReason>::take_from::<serde_json::Error>(&mut data, shape).map_err(|e| e.to_string())?;
    let items_member = match shape {
        Shape::Aggregate => None,
        Shape::Collection => match items_member(&data, facts.items_member.as_deref()) {
            Some(name) => Some(name),
            None => return Ok(Faulted::Unchanged),
        },
    };
    let mut target = match &items_member {
        None => Target::Value(data.values().find_map(Value::as_u64)),
        Some(name) => match data.get_mut(name).and_then(Value::as_array_mut) {
            Some(items) => Target::Items(items, facts.emptied),
            None => return Ok(Faulted::Unchanged),
        },
    };
    let mut page = Rebuild { block, ends_traversal: false, reason: None, warning: None };
    match fault {
        // Answered with a problem above.
        Fault::CursorExpired | Fault::Unavailable => return Ok(Faulted::Unchanged),
        // A single resource's fault ([`leave_out`]): a collection has no field to leave out.
        Fault::FieldOmitted => return Ok(Faulted::Unchanged),
        // The first page again, and the answer without a filter, are the route's own answers to
        // another request: the layer asks the route for them ([`FaultLayer`](super::FaultLayer));
        // nothing to change in this one.
        Fault::Restarted | Fault::FilterDropped => return Ok(Faulted::Unchanged),
        Fault::CursorRepeated => {
            let repeated = match facts.handed_out.len() as u64 {
                0 => return Ok(Faulted::Unchanged),
                n => facts.handed_out[below(rng, n) as usize].clone(),
            };
            let returned = target.len();
            let mut block = page.finish(returned);
            // The next page's cursor (`MORE_PAGES_AVAILABLE`'s, not a service's own reason's),
            // and the continuation that is it, point back; the cursor's contract (`page.cursor`)
            // is the same kind of cursor's.
            let carrier = block.next_cursor_carrier().map(|at| block.reasons()[at].code());
            if carrier != Some(ReasonCode::MorePagesAvailable)
                || block.reissue_next_cursor(MorePagesAvailable::new(repeated).into()).is_none()
            {
                return Ok(Faulted::Unchanged);
            }
            return Ok(Faulted::Page(Box::new(FaultedPage { block, data, shape, items_member })));
        }
        Fault::Warning(code) => {
            let example = (!code.is_standard()).then(|| facts.examples.warning_of(code)).flatten();
            page.warning = Some(example.unwrap_or_else(|| warning(code, fault.is_stale_in(declared), &page.block)));
        }
        Fault::Reason(code) => {
            let n = target.len();
            let reason: StandardReason = match code {
                ReasonCode::VisibilityRestricted => {
                    target.keep_subset(rng);
                    VisibilityRestricted::new().into()
                }
                ReasonCode::SourceUnavailable => {
                    let source = target.drop_source(rng);
                    SourceUnavailable::new(source).retry_after(1 + below(rng, 30)).into()
                }
                ReasonCode::TimeBudgetExceeded => {
                    // Work stopped before the end: at least one item is left out, when there is one.
                    let kept = target.keep_prefix(below(rng, n));
                    let progress = Progress { completed: kept, planned: target.planned(n), unit: "items".to_owned() };
                    match facts.budget {
                        // What the route's budget says when it runs out: a larger deadline only
                        // below the server's cap.
                        Some(budget) => budget.exceeded(progress).into(),
                        // A route without a budget of its own: no deadline to offer.
                        None => TimeBudgetExceeded::new(facts.time_budget_ms.unwrap_or(1_000), progress).into(),
                    }
                }
                ReasonCode::ResultLimitReached => {
                    // A limit is at least 1 (none returns nothing): one item may be all it kept.
                    let limit = target.keep_prefix(below(rng, n).max(1)).max(1);
                    ResultLimitReached::new(limit, "add a filter").into()
                }
                ReasonCode::QuotaExhausted => {
                    target.keep_prefix(below(rng, n + 1));
                    QuotaExhausted::new(1 + below(rng, 60)).into()
                }
                ReasonCode::SnapshotExpired => {
                    target.keep_prefix(below(rng, n + 1));
                    page.ends_traversal = true;
                    let snapshot = page.block.page().and_then(|p| p.snapshot.clone());
                    let snapshot = snapshot.or_else(|| page.block.scope().snapshot.clone());
                    SnapshotExpired::new(snapshot.unwrap_or_else(|| "unknown".to_owned())).into()
                }
                code => {
                    let kind = fault.kind_in(declared);
                    take_as(kind, &mut target, &mut page, rng);
                    facts.examples.reason_of(code).unwrap_or_else(|| custom(code, kind))
                }
            };
            page.reason = Some(reason);
        }
        Fault::FutureReason => {
            // A kind of §3.4 one time in six each, or none: a newer standard code carries its
            // kind (contract §7), a reader takes one without as the most cautious (§3.4).
            let drawn = below(rng, ReasonKind::DECLARABLE.len() as u64 + 1) as usize;
            let kind = drawn.checked_sub(1).map(|at| ReasonKind::DECLARABLE[at]);
            take_as(kind.unwrap_or(ReasonKind::Visibility), &mut target, &mut page, rng);
            page.reason = Some(future_reason(kind));
        }
    }
    let returned = target.len();
    let block = page.finish(returned);
    if shape == Shape::Aggregate {
        lower_the_relation(&mut data, &block)?;
    }
    Ok(Faulted::Page(Box::new(FaultedPage { block, data, shape, items_member })))
}

/// The longest `Retry-After` an injected outage asks for, in seconds: short, so that a client
/// that waits and asks again does not make a kit run slow.
const OUTAGE_RETRY_AFTER_MAX_SECS: u64 = 5;

/// The problem of an outage ([`Fault::Unavailable`]): `503 SERVICE_UNAVAILABLE` (a code of the
/// layer's own, as a service's outage is, contract §5.4), with `Retry-After` of 1 to
/// [`OUTAGE_RETRY_AFTER_MAX_SECS`] seconds and the `retry_after` continuation of as many.
pub(super) fn outage(rng: &mut TestRng) -> Problem {
    let seconds = 1 + below(rng, OUTAGE_RETRY_AFTER_MAX_SECS);
    Problem::new(
        ProblemCode::custom(SERVICE_UNAVAILABLE),
        format!(
            "The service cannot answer right now (fault injection): this says nothing of what exists. Ask again \
             the same in {}.",
            crate::contract::reason::details::seconds(seconds)
        ),
    )
    .with_status(503)
    .with_title("Service unavailable")
    .with_retry_after(seconds)
    .with_continuation(&Continuation::RetryAfter { seconds })
}

/// `value`, a JSON object, written with its members in the order the body `original` it was
/// read from writes them (a parsed [`Value`] keeps them sorted), members `original` lacks last:
/// a faulted answer reads, and compares, as the handler wrote it.
pub(super) fn written_in_order_of(original: &[u8], value: &Value) -> String {
    /// The members of an object, in the order given.
    struct Ordered<'a>(Vec<(&'a String, &'a Value)>);
    impl Serialize for Ordered<'_> {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut map = serializer.serialize_map(Some(self.0.len()))?;
            for (name, member) in &self.0 {
                map.serialize_entry(name, member)?;
            }
            map.end()
        }
    }
    let Some(object) = value.as_object() else { return value.to_string() };
    let order: Vec<String> = members_in_order(original).into_iter().flatten().map(|(name, _)| name).collect();
    let rank = |name: &String| order.iter().position(|named| named == name).unwrap_or(usize::MAX);
    let mut members: Vec<(&String, &Value)> = object.iter().collect();
    members.sort_by_key(|(name, _)| rank(name));
    serde_json::to_string(&Ordered(members)).unwrap_or_else(|_| value.to_string())
}

/// A single resource with fields left out on purpose ([`Fault::FieldOmitted`]).
#[derive(Debug, Clone)]
pub(super) struct LeftOut {
    /// The resource as it is sent: the fields `null`, listed in `omitted_fields`, and named in
    /// its `PARTIAL_FIELD_SET` warning when it carries `warnings`.
    pub(super) body: Value,
    /// The fields left out, with why.
    pub(super) omitted: Vec<(String, Omission)>,
}

/// The fields of the single resource `resource` (contract §2.7) among `fields` (the wire names
/// of its `Field` members) that it filled with a value: not `null` (a genuine null left out
/// would read the same to a client that takes it for one, and test nothing), and not listed in
/// its `omitted_fields`. None when it has no `omitted_fields` object to list one in.
pub(super) fn filled_fields(resource: &Value, fields: &[&str]) -> Vec<String> {
    let Some(listed) = resource.get(OMITTED_FIELDS).and_then(Value::as_object) else { return Vec::new() };
    let valued = |name: &str| resource.get(name).is_some_and(|value| !value.is_null());
    fields.iter().filter(|name| valued(name) && !listed.contains_key(**name)).map(|name| (*name).to_owned()).collect()
}

/// Leaves out of the single resource `resource` one of the fields among `fields` it filled
/// ([`filled_fields`]), drawn by `rng`, or every one when `emptied`: written `null`, listed in
/// `omitted_fields` with one code for all (`NO_ACCESS` or `SOURCE_FAILED`, drawn), and named in
/// the `fields` of its `PARTIAL_FIELD_SET` warning, added when it has none, when the resource
/// carries `warnings` (contract §2.7). `None` when it filled none of them, or lists its omitted
/// fields in no object.
pub(super) fn leave_out(resource: &Value, fields: &[&str], emptied: bool, rng: &mut TestRng) -> Option<LeftOut> {
    let filled = filled_fields(resource, fields);
    let chosen = match (filled.len() as u64, emptied) {
        (0, _) => return None,
        (_, true) => filled,
        (n, false) => vec![filled[below(rng, n) as usize].clone()],
    };
    let why = if below(rng, 2) == 0 { Omission::NoAccess } else { Omission::SourceFailed };
    let mut body = resource.as_object()?.clone();
    let listed = body.get_mut(OMITTED_FIELDS)?.as_object_mut()?;
    for name in &chosen {
        listed.insert(name.clone(), Value::from(why.as_str()));
    }
    for name in &chosen {
        body.insert(name.clone(), Value::Null);
    }
    if let Some(warnings) = body.get_mut(RESOURCE_WARNINGS).and_then(Value::as_array_mut) {
        let code = WarningCode::PartialFieldSet.as_str();
        match warnings.iter_mut().find(|warning| warning["code"] == code).and_then(Value::as_object_mut) {
            // Its `fields` name them too (a warning that names none gets the list).
            Some(warning) => {
                let named = warning.entry("fields").or_insert_with(|| Value::Array(Vec::new()));
                if !named.is_array() {
                    *named = Value::Array(Vec::new());
                }
                let named = named.as_array_mut()?;
                for name in &chosen {
                    if !named.iter().any(|field| field == name.as_str()) {
                        named.push(Value::from(name.as_str()));
                    }
                }
            }
            None => {
                let names: Vec<&str> = chosen.iter().map(String::as_str).collect();
                let warning = Warning::from(PartialFieldSet::new(&names, &[]));
                warnings.push(serde_json::to_value(&warning).ok()?);
            }
        }
    }
    let omitted = chosen.into_iter().map(|name| (name, why.clone())).collect();
    Some(LeftOut { body: Value::Object(body), omitted })
}

/// The collection `response` as it is but without its evidence: a page of a traversal an
/// earlier page of which was faulted partial (the pages after a partial one do not make the
/// inventory whole, contract §6). `None` when it is not a collection, or carries no evidence.
pub(crate) fn without_evidence(response: &Value, facts: &RequestFacts) -> Option<FaultedPage> {
    let mut data = response.as_object().cloned()?;
    if is_aggregate(&data) || data.get("evidence").is_none_or(Value::is_null) {
        return None;
    }
    let block = Completeness::<StandardReason>::take_from::<serde_json::Error>(&mut data, Shape::Collection).ok()?;
    let items_member = items_member(&data, facts.items_member.as_deref())?;
    let returned = data.get(&items_member).and_then(Value::as_array).map_or(0, |items| items.len() as u64);
    let block = Rebuild { block, ends_traversal: false, reason: None, warning: None }.finish(returned);
    Some(FaultedPage { block, data, shape: Shape::Collection, items_member: Some(items_member) })
}

/// True when `data` is an aggregate's: a `relation` member beside exactly one value member.
fn is_aggregate(data: &Map<String, Value>) -> bool {
    let members = Shape::Aggregate.members();
    let values = data.keys().filter(|k| !members.contains(&k.as_str()) && *k != "relation").count();
    data.get("relation").and_then(Value::as_str).is_some() && values == 1
}

/// Writes the aggregate's `relation` as [`Aggregate::new`] states it under `block`: an exact
/// value of a block made incomplete becomes a lower bound.
fn lower_the_relation(data: &mut Map<String, Value>, block: &Completeness<StandardReason>) -> Result<(), String> {
    let relation: Relation =
        serde_json::from_value(data["relation"].clone()).map_err(|e| format!("`relation`: {e}"))?;
    let stated = Aggregate::new("value", (), relation, block.clone()).relation();
    data.insert("relation".to_owned(), json!(stated));
    Ok(())
}

/// What a fault can take from: a collection's items (all of them, when the flag says the
/// schedule empties what it faults), or nothing from an aggregate's value (a count, when it is
/// one), which stays as it was.
enum Target<'a> {
    Items(&'a mut Vec<Value>, bool),
    Value(Option<u64>),
}

impl Target<'_> {
    /// The items, or the counted value (0 for a value that is not a count).
    fn len(&self) -> u64 {
        match self {
            Target::Items(items, _) => items.len() as u64,
            Target::Value(count) => count.unwrap_or(0),
        }
    }

    /// What a traversal planned to read: the items there were; unknown for an aggregate.
    fn planned(&self, n: u64) -> Option<u64> {
        matches!(self, Target::Items(..)).then_some(n)
    }

    /// Keeps each item with probability 1/2 (none when emptied: the draw still comes first, so
    /// that the later draws of a schedule are the same emptied or not).
    fn keep_subset(&mut self, rng: &mut TestRng) {
        if let Target::Items(items, emptied) = self {
            let emptied = *emptied;
            items.retain(|_| unit(rng) < 0.5 && !emptied);
        }
    }

    /// Keeps the first `k` items (none when emptied); returns how many are left (an
    /// aggregate's value is kept).
    fn keep_prefix(&mut self, k: u64) -> u64 {
        if let Target::Items(items, emptied) = self {
            items.truncate(if *emptied { 0 } else { usize::try_from(k).unwrap_or(usize::MAX) });
        }
        self.len()
    }

    /// Removes the items of one source (named by the items' `source` members, drawn among
    /// them), or a random subset under [`UNNAMED_SOURCE`] when the items name none; the name.
    fn drop_source(&mut self, rng: &mut TestRng) -> String {
        let Target::Items(items, _) = self else { return UNNAMED_SOURCE.to_owned() };
        let mut sources: Vec<&str> =
            items.iter().filter_map(|item| item.get("source").and_then(Value::as_str)).collect();
        sources.sort_unstable();
        sources.dedup();
        if sources.is_empty() {
            self.keep_subset(rng);
            return UNNAMED_SOURCE.to_owned();
        }
        // Emptied or not, only the named source's items go: the reason names one source.
        let source = sources[below(rng, sources.len() as u64) as usize].to_owned();
        items.retain(|item| item.get("source").and_then(Value::as_str) != Some(source.as_str()));
        source
    }
}

/// A faulted collection or aggregate: its new completeness block and its data members.
#[derive(Debug, Clone)]
pub struct FaultedPage {
    /// The rebuilt completeness block.
    pub block: Completeness<StandardReason>,
    /// The data members: the items among them, or an aggregate's value and `relation`.
    pub data: Map<String, Value>,
    /// A collection or an aggregate.
    pub shape: Shape,
    /// The data member holding a collection's items; `None` for an aggregate.
    pub items_member: Option<String>,
}

impl FaultedPage {
    /// The response as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(Whole { block: &self.block, data: &self.data, shape: self.shape }).unwrap_or(Value::Null)
    }

    /// How many items a faulted collection keeps; `None` for an aggregate.
    pub fn items_returned(&self) -> Option<u64> {
        if self.shape == Shape::Aggregate {
            return None;
        }
        let member = self.items_member.as_ref()?;
        self.data.get(member).and_then(Value::as_array).map(|items| items.len() as u64)
    }

    /// The response body, its members in the contract's order (`docs/contract.md` §2.1).
    pub fn to_body(&self) -> Vec<u8> {
        serde_json::to_vec(&Whole { block: &self.block, data: &self.data, shape: self.shape }).unwrap_or_default()
    }
}

/// The member that holds the items: `named` (from the body, `items_member_of`), else
/// `items`, else the first array among the data members by name.
fn items_member(data: &Map<String, Value>, named: Option<&str>) -> Option<String> {
    let array = |name: &str| data.get(name).is_some_and(Value::is_array);
    if let Some(name) = named.filter(|name| array(name)) {
        return Some(name.to_owned());
    }
    if array("items") {
        return Some("items".to_owned());
    }
    data.iter().find(|(_, v)| v.is_array()).map(|(k, _)| k.clone())
}

/// Takes items away as a reason of `kind` does: a truncation or a budget cuts the end off,
/// a snapshot cuts it and ends the traversal, any other kind hides a subset.
fn take_as(kind: ReasonKind, target: &mut Target<'_>, page: &mut Rebuild, rng: &mut TestRng) {
    let n = target.len();
    match kind {
        ReasonKind::Truncation | ReasonKind::Budget => {
            target.keep_prefix(below(rng, n + 1));
        }
        ReasonKind::Snapshot => {
            target.keep_prefix(below(rng, n + 1));
            page.ends_traversal = true;
        }
        _ => target.keep_subset(rng),
    }
}

/// The reason of [`Fault::FutureReason`]: the code no declaration names, with `kind` when
/// given, and without one (as a reader that does not know the code reads it: the most cautious).
fn future_reason(kind: Option<ReasonKind>) -> StandardReason {
    let mut details = Map::new();
    if let Some(kind) = kind {
        details.insert("kind".to_owned(), json!(kind.as_str()));
    }
    let message = format!(
        "{FUTURE_REASON}: a reason of a newer version of the service, which this route does not declare; items \
         were left out (fault injection)"
    );
    StandardReason::Custom(CustomReason::from_wire(FUTURE_REASON.to_owned(), message, details))
}

/// A service's own reason `code` of `kind`.
fn custom(code: &ReasonCode, kind: ReasonKind) -> StandardReason {
    let mut details = Map::new();
    details.insert("kind".to_owned(), json!(kind.as_str()));
    let message = format!("{code}: items were left out (fault injection)");
    StandardReason::Custom(CustomReason::from_wire(code.as_str().to_owned(), message, details))
}

/// The warning `code` (`stale` as declared), with details taken from the response itself.
fn warning(code: &WarningCode, stale: bool, block: &Completeness<StandardReason>) -> Warning {
    match code {
        WarningCode::StaleIndex => StaleIndex::new(UNNAMED_SOURCE).into(),
        WarningCode::DefaultScopeApplied => DefaultScopeApplied::new(block.scope().visibility.clone()).into(),
        WarningCode::OrderingDefaulted => {
            OrderingDefaulted::new(block.page().map_or_else(|| "default".to_owned(), |p| p.ordering.clone())).into()
        }
        code => {
            let message = format!("{code} (fault injection)");
            serde_json::from_value(json!({"code": code.as_str(), "message": message, "stale": stale}))
                .unwrap_or_else(|_| StaleIndex::new(UNNAMED_SOURCE).into())
        }
    }
}

/// The block being rebuilt around what the fault changed.
struct Rebuild {
    block: Completeness<StandardReason>,
    ends_traversal: bool,
    reason: Option<StandardReason>,
    warning: Option<Warning>,
}

impl Rebuild {
    /// The new block: the old reasons (without pagination when the traversal ended), the
    /// fault's reason, the old warnings and the fault's, the page facts recounted, no evidence.
    fn finish(self, returned: u64) -> Completeness<StandardReason> {
        let Rebuild { block, ends_traversal, reason, warning } = self;
        let mut rebuilt = Completeness::<StandardReason>::complete(block.scope().clone());
        let mut page = block.page().cloned();
        // A service's own reason read back from the wire has no recovery (the continuation
        // could be another reason's), so a cursor no standard reason carries was one of them:
        // the first such reason gets it back while the traversal goes on, as the wire gave it.
        let mut unclaimed = match ends_traversal || block.next_cursor_carrier().is_some() {
            true => None,
            false => block.next_cursor().map(str::to_owned),
        };
        for old in block.reasons() {
            if ends_traversal && old.code() == ReasonCode::MorePagesAvailable {
                continue;
            }
            // The fault cut the answer again: its reason says where the answer now stops (a
            // lower limit, less progress), in place of the one the answer gave. Unavailable
            // sources are one reason each.
            if reason.as_ref().is_some_and(|reason| replaces(reason, old)) {
                continue;
            }
            let mut old = old.clone();
            if let StandardReason::Custom(own) = &mut old
                && own.recovery().is_none()
                && let Some(cursor) = unclaimed.take()
            {
                own.keep_recovery(Continuation::NextCursor { cursor });
            }
            rebuilt.push_reason(old);
        }
        // A reason the answer already gives (the same hidden records) is not given twice.
        if let Some(reason) = reason.filter(|reason| !rebuilt.reasons().contains(reason)) {
            rebuilt.push_reason(reason);
        }
        for old in block.warnings() {
            rebuilt.push_warning(old.clone());
        }
        if let Some(warning) = warning {
            rebuilt.push_warning(warning);
        }
        if let Some(page) = page.as_mut() {
            page.returned = returned;
            if rebuilt.next_cursor().is_none() {
                page.cursor = None;
            }
        }
        rebuilt.set_page(page);
        rebuilt
    }
}

/// True when the fault's `reason` takes the place of the answer's `old` one: the same code,
/// except for unavailable sources, where each source is a reason of its own.
fn replaces(reason: &StandardReason, old: &StandardReason) -> bool {
    reason.code() == old.code() && !matches!(reason, StandardReason::SourceUnavailable(_))
}

/// A response written in the contract's member order: head, data, tail.
struct Whole<'a> {
    block: &'a Completeness<StandardReason>,
    data: &'a Map<String, Value>,
    shape: Shape,
}

impl Serialize for Whole<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.block.serialize_head(&mut map)?;
        for (name, value) in self.data {
            map.serialize_entry(name, value)?;
        }
        self.block.serialize_tail(&mut map, self.shape)?;
        map.end()
    }
}
