//! Fault injection (`faults` feature): make a real service answer incompletely, on purpose, in
//! every way its routes declare, so that a client's handling of each shape is tested before
//! production does it.
//!
//! **Never part of a default build**: the module exists only with the `faults` feature, and a
//! service faults only where [`FaultLayer`] is installed explicitly.
//!
//! # The layer
//!
//! [`FaultLayer`] is installed around a router built with `completeness::routing` (outside it:
//! `router.layer(FaultLayer::new(schedule))`). A route whose handler declares its reasons and
//! warnings with `#[completeness]` answers with its declared set attached; the layer reads it
//! and, on `GET` requests answered `200`, applies one fault among those the route offers
//! ([`Fault::offered`]); a single resource with a `Field` member (a `#[derive(ResultEnvelope)]`
//! struct) answers with its fields' names attached, and gets one of those it offers
//! ([`Fault::offered_on_resource`]):
//!
//! | fault | what the client receives |
//! | --- | --- |
//! | `VISIBILITY_RESTRICTED` | a random subset of the items is removed |
//! | `SOURCE_UNAVAILABLE` | the items of one source (their `source` member) are removed; `retry_after` |
//! | `TIME_BUDGET_EXCEEDED` | at least one item is cut; `progress` counts them; the budget is the one the route applied ([`TimeBudget`](crate::TimeBudget)), with `retry_with_deadline` only below the server's cap; a route without a budget of its own says the request's `time_budget_ms` (else 1000 ms) and offers no deadline |
//! | `RESULT_LIMIT_REACHED` | the items are cut to `limit`, at least 1 (replacing a limit the answer already gave); `narrow_query` |
//! | `QUOTA_EXHAUSTED` | the items are cut; `retry_after` |
//! | a service's own reason | by its declared kind: cut (truncation, budget, snapshot) or a subset removed; its [`Examples`] value, with its details and recovery, when given one |
//! | `SNAPSHOT_EXPIRED` (requests with a cursor) | the items are cut, the traversal ends; `restart` |
//! | `CURSOR_EXPIRED` (requests with a cursor, paginated routes) | `410` problem with `restart` |
//! | `TRAVERSAL_RESTARTED` (requests with a cursor, paginated routes) | the route's first page again, as it answers the request without its `cursor`: `resumed: false` (contract §2.5) |
//! | `CURSOR_REPEATED` (requests with a cursor, paginated routes, a page that hands out a next cursor; a kit's layer only, not [`FaultLayer::serving`]) | the page's `next_cursor` is a cursor its traversal was handed out before (drawn by the seed, the request's own included), as a server whose keyset loops (contract §2.5 forbids it); its items stay |
//! | `FILTER_DROPPED` (requests without a cursor that send a parameter the answer echoes in `scope.filters`; not [`FaultLayer::serving`]) | the route's answer to the request without one of those filters (drawn by the seed), as a proxy or an older server that drops a parameter it does not know gives it, and the same for every request that continues its traversal: honest about itself (its `scope` lacks the filter, and it may say `complete: true`), an answer to a wider question (contract §8) |
//! | `FUTURE_REASON` (not [`FaultLayer::serving`]) | a reason code no declaration of the route names, as a newer server sends one (contract §7): with a kind of §3.4 or, by the seed, none; items removed as that kind's reason removes them (a subset without a kind) |
//! | `SERVICE_UNAVAILABLE` (a first page, a search, a count, a later page of a paginated route, and a single resource with a `Field` member) | an outage: `503` problem `SERVICE_UNAVAILABLE` (a code of the layer's own, contract §5.4) with `Retry-After` of 1 to 5 seconds and a `retry_after` continuation; it says nothing of what exists, so a client that reads it as an empty list or the end of its traversal fails the [`Kit`]; the same request sent again after the wait (a later page: the same cursor) is answered as it would have been |
//! | `STALE_INDEX`, `DEFAULT_SCOPE_APPLIED`, `ORDERING_DEFAULTED`, own warnings | the warning is added (an own warning: its [`Examples`] value, when given one) |
//! | `FIELD_OMITTED` (a single resource with a `Field` member it filled with a value) | the field (every one such, emptied) is `null` and listed in `omitted_fields` with `NO_ACCESS` or `SOURCE_FAILED`, and named in its `PARTIAL_FIELD_SET` warning when it carries `warnings` (contract §2.7); its other members stay |
//!
//! Besides the two answers the route gives to another request (the first page again, and the
//! wider question of `FILTER_DROPPED`, sent as the route gives them, its evidence too: an honest
//! answer to that question), the two problems (`CURSOR_EXPIRED`, `SERVICE_UNAVAILABLE`) and a
//! next cursor handed out again (`CURSOR_REPEATED`), it only removes items and adds reasons or
//! warnings, and leaves a single resource's fields out (`FIELD_OMITTED`): it never adds or
//! alters an item. The
//! completeness block is rebuilt with the contract's own types, so every faulted answer keeps
//! the rules of `docs/contract.md` §2.2 (`page.returned` recounted, `continuation` and
//! `next_cursor` recomputed) and carries no evidence. Nor does any later page of a traversal it
//! faulted partial (a reason other than the next page, or a stale warning), faulted or not, as
//! after a server's own partial page (contract §6): a kit's layer remembers the cursors such
//! pages hand out; a serving one ([`FaultLayer::serving`]) signs them again, with the service's
//! keys, without the attestation the service gave them, so the rule holds wherever the cursor is
//! taken (another replica, the MCP tools, the service restarted).
//! A request that demanded a complete
//! result (`require_complete=true`, `Prefer: handling=strict`) gets the
//! `COMPLETE_RESULT_UNAVAILABLE` problem its faulted answer calls for (a single resource with a
//! field left out is sent as it is: the demand is on collections and aggregates, contract §5.3):
//! the layer asks the route without the demand, faults its answer, partial already or not, and
//! applies the demand to the answer it sends as the route would have, `Preference-Applied` and
//! `Vary` included. So a fault is never lost to a route's own refusal: `VISIBILITY_RESTRICTED`
//! on a search the route cut at its result limit is refused with 403, listing both reasons, where
//! the route alone would have answered 422. (A malformed `require_complete` reaches the route,
//! which refuses it with 400.)
//! Routes without a
//! declaration, other methods, other statuses and single resources without a `Field` member
//! pass through untouched (a request of another method that names a fault in [`FAULT_HEADER`]
//! is refused with 400 before it runs: it may be a write).
//! `FUTURE_REASON` is the one fault whose answer names a reason code the route does not
//! declare: the documents a service publishes (OpenAPI, JSON Schema, MCP output schemas) list
//! its declared codes and no other, on purpose, so [`FaultLayer::serving`], which real clients
//! are pointed at, leaves it out and keeps every answer within them; a kit's layer
//! ([`FaultLayer::new`], [`Kit`]) offers it. It leaves out `FILTER_DROPPED` and
//! `CURSOR_REPEATED` too ([`Fault::is_kit_only`]): the service never answers another question
//! than the one asked (a dropped filter is a broken intermediary's doing), nor hands out a
//! cursor twice (contract §2.5), and a serving layer answers as the service does.
//! The layer faults the collections of declared handlers: [`Envelope`](crate::Envelope)s, and
//! `#[derive(ResultEnvelope)]` structs, whose items are their first array member in the
//! order the body writes them (the first collection field), whatever its name. Only the items
//! and the block are faulted: a struct's other data members (a total such as `articlesCount`,
//! a side list) stay as the handler wrote them, so a client that checks them against the
//! items may find a faulted answer saying two things; check against `page.returned`.
//!
//! It faults declared [`Aggregate`](crate::Aggregate)s too, without altering their value: the
//! count stays, the reason is added, and an `exact` relation becomes `lower_bound` (the value
//! still holds as one: the fault says part of the scope was not counted). An `estimate` stays
//! one. So a client learns that a count can be partial as well.
//!
//! An answer the service gives outside HTTP, such as an MCP tool's that reads what a route
//! reads, is faulted as that route's `GET` would be by [`FaultLayer::fault_answer`], from the
//! same schedule: a service's agents meet the same faults over its tools as its REST clients.
//!
//! # Choosing faults
//!
//! A [`Schedule`] decides: a seed and a probability ([`Schedule::seeded`], with per-fault
//! weights), a fixed sequence, one fault on every request, or only the [`FAULT_HEADER`]
//! header, which names the fault of one request and is honoured only where the layer is
//! installed; any of them [`Schedule::emptied`], every faulted collection empty (for one
//! request, the header's `; emptied`: `VISIBILITY_RESTRICTED; emptied`). The same
//! schedule gives the same faults to the same sequence of requests it can fault, so a failure
//! is replayed from its schedule, which [`Schedule::code`] writes as Rust (a client that sends
//! requests at once may order them differently from run to run). Only those requests (a `GET`
//! of a declared route, or of a single resource with a `Field` member, answered `200`) move the
//! schedule: a metrics scrape, `/openapi.json`, a health check, a resource with no field it may
//! leave out or a write in between changes no fault
//! ([`FaultRecord::draw`]).
//! [`FaultLayer::log`] lists what every request got.
//!
//! # The conformance kit
//!
//! [`Kit`] runs a client against the service with the layer, under every fault the routes
//! offer and a few hundred seeded schedules, and checks what every client of the contract must
//! keep: no claim of completeness and no change on an incomplete answer, no endless loop or
//! wait and no panic, a conclusion that names what it could not cover, and a retry no sooner
//! than its answer asked (`Retry-After`, or a `retry_after` continuation, timed by the layer:
//! [`FaultRecord::arrived`], [`FaultRecord::answered`]); see its documentation.

mod examples;
mod fault;
mod inject;
mod kit;
mod layer;
mod outside;
mod schedule;

pub use examples::Examples;
pub use fault::Fault;
pub use inject::{Faulted, FaultedPage, RequestFacts, UNNAMED_SOURCE, inject};
pub use kit::{Conclusion, Failure, Kit, KitReport, Run, Target};
pub use layer::{FAULT_HEADER, FaultLayer, FaultRecord, FaultService};
pub use schedule::{DEFAULT_PROBABILITY, Schedule};

/// The random numbers [`inject`] uses for request `n` under `seed`, as the layer draws them.
pub fn shape_rng(seed: u64, n: u64) -> proptest::test_runner::TestRng {
    schedule::stream(seed, n, schedule::Draw::Shape)
}
