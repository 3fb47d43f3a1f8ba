//! `bounded` with a justification, a tuple envelope (data written as `items`), a generic one, a
//! generic payload marked as never a list, and a struct of the service's own that holds a list.

use completeness::{Completeness, ReportsCompleteness, ResultEnvelope, Scope, StandardReason};
use serde::Serialize;

#[derive(ResultEnvelope)]
struct User {
    name: String,
    #[envelope(bounded = "a user has at most three roles")]
    roles: Vec<String>,
}

#[derive(ResultEnvelope)]
struct Names(Vec<String>, #[envelope(completeness)] Completeness);

#[derive(ResultEnvelope)]
struct Page<T: Serialize, R: completeness::Reason = StandardReason> {
    rows: Vec<T>,
    #[envelope(completeness)]
    completeness: Completeness<R>,
}

/// A generic payload that is never a list, said so.
#[derive(ResultEnvelope)]
struct One<T: Serialize> {
    #[envelope(bounded = "an endpoint returns one record here, never a list")]
    data: T,
    request_id: String,
}

/// A list behind a struct of the service's own, said to be small.
#[derive(Serialize)]
struct Roles(Vec<String>);

#[derive(ResultEnvelope)]
struct Member {
    name: String,
    #[envelope(bounded = "a member has at most three roles")]
    roles: Roles,
}

/// A generic field serde never writes is not on the wire: no justification needed.
#[derive(ResultEnvelope)]
struct Cached<T: Serialize> {
    id: String,
    #[serde(skip_serializing)]
    cache: Option<T>,
}

fn main() {
    let cached = Cached::<Vec<u32>> { id: "c-1".into(), cache: Some(vec![1, 2]) };
    assert_eq!(serde_json::to_value(&cached).unwrap(), serde_json::json!({"id": "c-1"}));

    let one = One { data: 7_u32, request_id: "r-1".into() };
    assert_eq!(serde_json::to_value(&one).unwrap(), serde_json::json!({"data": 7, "request_id": "r-1"}));
    assert!(one.completeness_report().is_none());

    let member = Member { name: "ana".into(), roles: Roles(vec!["admin".into()]) };
    assert_eq!(serde_json::to_value(&member).unwrap(), serde_json::json!({"name": "ana", "roles": ["admin"]}));
    assert!(member.completeness_report().is_none());

    let user = User { name: "dana".into(), roles: vec!["admin".into()] };
    assert_eq!(serde_json::to_value(&user).unwrap(), serde_json::json!({"name": "dana", "roles": ["admin"]}));
    assert!(user.completeness_report().is_none());

    let names = Names(vec!["a".into()], Completeness::complete(Scope::new("names", "every name")));
    let json = serde_json::to_value(&names).unwrap();
    assert_eq!(json["items"], serde_json::json!(["a"]));
    assert_eq!(json["complete"], true);

    let page: Page<u32> = Page { rows: vec![], completeness: Completeness::complete(Scope::new("rows", "all")) };
    let json = serde_json::to_value(&page).unwrap();
    assert_eq!(json["rows"], serde_json::json!([]));
    assert_eq!(json["status"], "complete");
}
