//! Checks every rule of the wire contract (contract §2.2), and the server's rule on evidence
//! (§6), on any JSON collection response; and the rules of an aggregate (§2.6).

use serde_json::Value;

use crate::contract::aggregate::{RELATION, Relation, reserved};
use crate::contract::completeness::{Completeness, Shape};
use crate::contract::reason::StandardReason;
use crate::contract::rules;
use crate::contract::warning::Warning;

/// Panics, listing every violation, unless `response` keeps the collection contract
/// (contract §2.2). Use it in any service's tests on the JSON it serves; a count or another
/// aggregate is checked with [`assert_aggregate_invariants`], as it has no `page` and no
/// `evidence`.
///
/// ```
/// use completeness_runtime::testing::assert_envelope_invariants;
/// use completeness_runtime::{Envelope, Scope};
/// use completeness_runtime::reason::VisibilityRestricted;
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let page: Envelope<u32> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
/// assert_envelope_invariants(&serde_json::to_value(&page).unwrap());
/// ```
#[track_caller]
pub fn assert_envelope_invariants(response: &Value) {
    panic_listing("the response", check_envelope_invariants(response), response);
}

/// Panics with every violation in `checked`, naming `what` broke the contract.
#[track_caller]
fn panic_listing(what: &str, checked: Result<(), Vec<String>>, response: &Value) {
    if let Err(violations) = checked {
        panic!("{what} breaks the completeness contract:\n  - {}\nresponse: {response}", violations.join("\n  - "));
    }
}

/// Every violation of the contract's rules (contract §2.2) in `response`, or `Ok(())`.
///
/// The rules are the strict deserializer's ([`crate::rules`]); this adds only those that need
/// the whole response: a data member exists, `page.returned` counts its items (R11), no
/// evidence goes beside a stale warning (contract §6) and a page says whether it resumed
/// (`page.resumed`, contract §2.5), the last two binding servers only. The
/// items are `items`. A struct's response without `items` but with several arrays (its items
/// and a bounded side list) does not say, once parsed, which array holds them: R11 then holds
/// when one of them has `page.returned` entries, which is weaker than the rule itself.
pub fn check_envelope_invariants(response: &Value) -> Result<(), Vec<String>> {
    let Some(object) = response.as_object() else {
        return Err(vec!["a collection response must be a JSON object".to_owned()]);
    };
    let mut v = Vec::new();
    let members = Shape::Collection.members();
    let data: Vec<(&String, &Value)> = object.iter().filter(|(k, _)| !members.contains(&k.as_str())).collect();
    if data.is_empty() {
        v.push("there is no data member (e.g. `items`)".to_owned());
    }
    // R1 as the reader holds it: `items` is the array of items, never `null` or an object.
    if let Some(items) = object.get("items")
        && !items.is_array()
    {
        v.push(format!("`items` must be an array, got {items} (contract §2.2 R1)"));
    }
    let mut copy = object.clone();
    match Completeness::<StandardReason>::read_checked(&mut copy, Shape::Collection) {
        Err(unreadable) => v.extend(unreadable),
        Ok((block, violations)) => {
            v.extend(violations.iter().map(ToString::to_string));
            // §6, a server's rule a reader cannot hold an older server to: no evidence beside
            // a stale warning, since a change needs current state.
            if block.evidence().is_some() && block.warnings().iter().any(Warning::is_stale) {
                v.push("`evidence` is set beside a stale warning: a server issues evidence only for an answer read from current state (contract §6)".to_owned());
            }
            // §2.5, a server's rule a reader cannot hold an older server to: a page says
            // whether it resumed a traversal, so that a cursor answered with a first page again
            // is never merged with the pages before it.
            if block.page().is_some_and(|page| page.resumed.is_none()) {
                v.push("`page` has no `resumed`: a server says of every page whether it continues a traversal (contract §2.5)".to_owned());
            }
        }
    }
    // R11, on the members as received, so that it is checked whatever else is broken. The
    // items are `items`; without it, a parsed object no longer says which of several arrays
    // its struct declared first, so the count must match one of them.
    let arrays: Vec<(&str, usize)> = data
        .iter()
        .filter(|(k, _)| !object.contains_key("items") || *k == "items")
        .filter_map(|(k, d)| d.as_array().map(|items| (k.as_str(), items.len())))
        .collect();
    let returned = object.get("page").and_then(|page| page.get("returned")).and_then(Value::as_u64);
    if let (Some(returned), Some(&(name, len))) = (returned, arrays.first())
        && !arrays.iter().any(|&(_, len)| len as u64 == returned)
    {
        v.extend(rules::check_page_returned(returned, name, len).map(|broken| broken.to_string()));
    }
    if v.is_empty() { Ok(()) } else { Err(v) }
}

/// Panics, listing every violation, unless `response` keeps the aggregate contract (contract
/// §2.6): the block's rules (§2.2, without `page` and `evidence`, which an aggregate has not),
/// a `relation`, never `exact` while incomplete, and one value member.
///
/// ```
/// use completeness_runtime::testing::assert_aggregate_invariants;
/// use completeness_runtime::{Aggregate, Completeness, Relation, Scope};
/// use completeness_runtime::reason::VisibilityRestricted;
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let count: Aggregate<u64> = Aggregate::count(3, Relation::Exact, Completeness::incomplete(scope, VisibilityRestricted::new()));
/// assert_aggregate_invariants(&serde_json::to_value(&count).unwrap()); // written lower_bound
/// ```
#[track_caller]
pub fn assert_aggregate_invariants(response: &Value) {
    panic_listing("the aggregate", check_aggregate_invariants(response), response);
}

/// Every violation of the aggregate contract (contract §2.6) in `response`, or `Ok(())`.
pub fn check_aggregate_invariants(response: &Value) -> Result<(), Vec<String>> {
    let Some(object) = response.as_object() else {
        return Err(vec!["an aggregate response must be a JSON object".to_owned()]);
    };
    let mut v = Vec::new();
    let mut rest = object.clone();
    let complete = match Completeness::<StandardReason>::read_checked(&mut rest, Shape::Aggregate) {
        Err(unreadable) => {
            v.extend(unreadable);
            None
        }
        Ok((block, violations)) => {
            v.extend(violations.iter().map(ToString::to_string));
            Some(block.is_complete())
        }
    };
    for member in ["page", "evidence"] {
        if rest.remove(member).is_some() {
            v.push(format!("`{member}` is a collection's member: an aggregate has none (contract §2.6)"));
        }
    }
    match rest.remove(RELATION).map(serde_json::from_value::<Relation>) {
        None => v.push("missing `relation`: how the value relates to the truth (contract §2.6)".to_owned()),
        Some(Err(error)) => v.push(format!("`relation` is not exact, lower_bound or estimate: {error}")),
        Some(Ok(Relation::Exact)) if complete == Some(false) => {
            v.push("`relation` is \"exact\" but the aggregate is incomplete (contract §2.6)".to_owned());
        }
        Some(Ok(_)) => {}
    }
    let values: Vec<&String> = rest.keys().collect();
    match values.as_slice() {
        [] => v.push("there is no value member (e.g. `count`)".to_owned()),
        [name] if reserved(name) => v.push(format!("the value member `{name}` is a member of the contract (§2.1)")),
        [_] => {}
        several => v.push(format!("an aggregate has one value member, found {several:?}")),
    }
    if v.is_empty() { Ok(()) } else { Err(v) }
}
