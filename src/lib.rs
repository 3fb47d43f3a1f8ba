//! `completeness` makes silent truncation of API results impossible.
//!
//! A list endpoint that returns `[]` after hitting a limit, a timeout, a dead
//! source or a permission filter looks exactly like one that found nothing. This
//! crate makes "did this cover everything I asked about?" a typed, machine-readable
//! and compile-time-enforced part of every list, search and aggregate response.
//!
//! ```
//! use completeness::{Envelope, Scope};
//! use completeness::reason::VisibilityRestricted;
//!
//! let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'")
//!     .with_filter("tenant", "south");
//! let answer: Envelope<String> = Envelope::incomplete(vec![], scope, VisibilityRestricted::new());
//!
//! // Empty, and says so honestly: absence here proves nothing.
//! let json = serde_json::to_value(&answer).unwrap();
//! assert_eq!(json["items"], serde_json::json!([]));
//! assert_eq!(json["complete"], false);
//! assert_eq!(json["incomplete_reasons"][0]["code"], "VISIBILITY_RESTRICTED");
//!
//! // A client that reads it back gets the same contract, strictly checked.
//! let back: Envelope<String> = serde_json::from_value(json).unwrap();
//! assert!(!back.is_complete());
//! ```
//!
//! The wire contract, normative, is [`wire_contract`] (`docs/contract.md` in the repository).
//!
//! # `#[completeness]`
//!
//! On an `async fn` axum handler:
//!
//! | key | example | meaning |
//! | --- | --- | --- |
//! | `resource` | `resource = "service_accounts"` | the resource the endpoint covers; its scope carries it (required) |
//! | `reasons(...)` | `reasons(MorePagesAvailable, crate::reasons::LegalHold)` | every reason it can report; `reasons()` for an endpoint that is always complete (required) |
//! | `warnings(...)` | `warnings(PageSizeReduced, ReplicaLag)` | every warning it can push (optional) |
//! | `crate` | `crate = "platform::completeness"` | the path the framework is reached by, when not `::completeness` (optional; see [Under another name](#under-another-name)) |
//! | `reason_type` | `reason_type = ListItemsV2Reason` | the name of the endpoint's reason type, in place of the one made from the handler's (optional; see below) |
//!
//! Standard names need no import (the attribute names the runtime's types itself, so an import
//! used only there is unused, and rustc says so); a service's own reasons and warnings are
//! named by path. A standard name counts bare, by its full path, or through its module
//! (`reason::MorePagesAvailable`); imported under another name, it reads as a type of the
//! service's own, and is refused as one with a standard code. Each type is listed once, by one
//! path: the macro tells listed names apart as they are written, so one type by two paths
//! (`LegalHold` and `Hold`, after `use self::LegalHold as Hold`) is two names to it, and rustc
//! refuses the declaration with conflicting implementations of `Declares<LegalHold>` (E0119).
//! A service's own type generic over a constant is listed with its argument, a block too
//! (`Capped<{ 2 + 1 }>`).
//!
//! What it generates for `async fn list_accounts(..)`:
//! - `ListAccountsReason`, the endpoint's reason type: an alias of [`DeclaredReason`] over a
//!   hidden set type. `ListAccountsReason::ALL` and `::WARNINGS` list the declared codes; its
//!   OpenAPI and JSON schemas list them too, each standard code with its details and each of the
//!   service's own with its kind and its detail members by name (their types left open) (its
//!   `warning_schema()` the warnings), and `Envelope<Account, ListAccountsReason>` has the JSON
//!   Schema of the whole response (`completeness::schema::response_json`, generated for what a
//!   server writes) and its OpenAPI schema. A completeness block over it accepts only the
//!   declared reasons (`push_reason`) and warnings (`push_warning`): anything else does not
//!   compile. Its scope's resource is the declared one.
//!
//!   Its name is the handler's in UpperCamelCase followed by `Reason`: each word between
//!   underscores capitalized, the underscores dropped (so `list_items_2` and `list_items2` both
//!   give `ListItems2Reason`), after the type's name for an associated function (`Api::list`
//!   gives `ApiListReason`, as a free `api_list` does). Two handlers of one module whose names
//!   give one reason type clash: rustc says the name is defined multiple times (E0428, with
//!   errors about the hidden set type beside it, `__ListItems2ReasonSet`). Give one of them
//!   another name with `reason_type = ListItemsV2Reason`, and name that type in its response.
//! - The handler, as written: same signature, same extractors (axum's limit), callable directly
//!   in a unit test. Its body starts with a type-level check that its return type reports
//!   completeness over `ListAccountsReason` ([`ReportsCompleteness`], [`CarriesReason`]).
//!
//! It refuses a bare list, `Json<Vec<T>>` or `impl IntoResponse` return type, an unknown or
//! repeated name, a code declared twice, and a handler taking [`PageRequest`] that does not
//! declare `MorePagesAvailable` and `PageSizeReduced`. `Result<R, E>` is accepted for any named error
//! type (give it a status: the macro refuses there only a bare list, `Json` of a list or of an
//! envelope, which go out as a 200, an envelope over another reason type than the declared one,
//! and `impl Trait`, since the check must name the whole type; behind a type alias, `Json` of a
//! standard collection and the other envelope are refused by a type-level check;
//! `Exempt<Json<Envelope<..>>>` is refused too), and so are response parts before the response
//! (`(StatusCode, R)`, `([(HeaderName, V); N], R)`, `(HeaderMap, R)`, ...; a part type of the
//! service's own once it implements `completeness::report::ResponsePart`). The crate's own
//! refusals (a refused cursor, missing evidence) are [`Problem`]s: an error type of the service's
//! own answers them as they are (`From<Problem>`, responding with the problem), since a client
//! that gets `CURSOR_EXPIRED` as plain text cannot tell it from any other failure.
//!
//! A caller's `require_complete=true` / `Prefer: handling=strict` is applied when the response
//! goes out, by the layer `completeness::routing` puts on every route (contract §5.3). A handler
//! routed with `axum::routing` instead gets none of it: its partial answers go out as 200s to a
//! strict caller, and are not observed unless the observe layer is added by hand. The audit
//! (`cargo completeness audit`) names such routes; route them with `completeness::routing`, or
//! apply the demand yourself with `RequireComplete::apply`.
//!
//! Associated functions: put `#[completeness]` (no arguments) on the `impl` block as well; the
//! reason type of `Api::list` is `ApiListReason`, next to the block (so the blocks of two types
//! in one module may each have a `list`; two blocks of one generic type, `impl Api<u8>` and
//! `impl Api<u16>`, may not, since the name has no room for the type's arguments, unless
//! `reason_type` names one of them otherwise). Inside the
//! block, a handler's attribute is found by its name, `completeness` (also as a path ending in
//! it): one imported under another name (`use completeness::completeness as declare`) is not
//! seen there. A `#[cfg]` on a handler also guards its reason type, and a
//! `#[cfg_attr(pred, completeness(..))]` is expanded where `pred` holds, as on a free function.
//! Without the block's own `#[completeness]`, a handler's attribute is expanded as on a free
//! function, and rustc refuses what it writes beside the function ("enum is not supported in
//! `trait`s or `impl`s"): add the block's. utoipa's `#[utoipa::path]` cannot go on an associated function,
//! with or without this block (it writes a struct beside the function, which rustc refuses in an
//! `impl` in the same words): document such a handler with `#[utoipa::path]` on a free function
//! that stands for it, or build its operation in code.
//!
//! ```
//! use completeness::{Envelope, Scope, completeness};
//!
//! struct Api;
//!
//! #[completeness]
//! impl Api {
//!     #[completeness(resource = "tags", reasons())]
//!     async fn list_tags() -> Envelope<String, ApiListTagsReason> {
//!         Envelope::complete(vec!["blue".into()], Scope::new("tags", "every tag"))
//!     }
//! }
//!
//! // A handler is the function its author wrote: call it directly.
//! let page = futures_lite_block_on(Api::list_tags());
//! assert!(page.is_complete());
//! assert_eq!(page.completeness.scope().resource, "tags");
//! # fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```
//!
//! # Features
//!
//! Additive; an item's module says which it needs.
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `axum` (default) | the server side: [`routing`], [`CompletenessConfig`], [`PageRequest`], [`TimeBudget`], cursors, evidence, extractors, [`observe`] (events) |
//! | `openapi` | utoipa schemas of envelopes, reasons, warnings and [`Problem`]; `schema::add_block_rules` |
//! | `json-schema` | schemars: `schema::response_json`, the schema of what an endpoint writes |
//! | `client` | `client::http`, a reqwest client for [`collect_all`] |
//! | `mcp` | `mcp`: rmcp tool results and tool schemas (turns on serde_json's `preserve_order`) |
//! | `testing` | `testing`: the contract checker, generators, an in-memory paged source |
//! | `faults` | `testing::faults`: the fault layer and the conformance kit |
//! | `audit` | `audit_layer`: the run-time audit of unmigrated routes |
//! | `metrics` | the [`observe`] counters, through the `metrics` crate |
//!
//! # Routing and settings
//!
//! - `completeness::routing::{get, post, put, patch, delete, on}` accept only handlers whose
//!   response reports completeness, first method or chained; `.into()` hands the method
//!   router to axum's `Router::route`.
//! - The settings ([`CompletenessConfig`]: cursor keys, page sizes, time budgets) are the
//!   router's state, or part of it as axum states carry their parts:
//!   `impl FromRef<AppState> for CompletenessConfig` ([`config::CompletenessState`]; an
//!   `Arc<AppState>` state gives what `AppState` gives). A router without them
//!   does not compile: "the router state `()` does not carry the completeness settings".
//! - A service without authentication sets `.with_anonymous_credential()`; every other one
//!   puts a [`Credential`] on each request in its authentication middleware.
//! - Client mistakes are RFC 9457 problems with a stable `code` (contract §5.4) when read with
//!   [`QueryParams`], [`PathParams`] and [`JsonBody`] (400 `INVALID_REQUEST`, 400 `INVALID_BODY`,
//!   413) instead of axum's `Query`, `Path` and `Json`, whose rejections are plain text. axum's
//!   own answers (an unknown route, a method not allowed) are not problems unless the service
//!   maps them; the example service's `refusals` module shows one way. A `GET` that sends a body
//!   is answered as if it had none: a service that reads filters from somewhere else than the
//!   query refuses such a read itself (the example does, so that a filter sent in a body is not
//!   ignored while a wider scope is answered).
//! - The framework reads the query parameters `page_size` and `cursor` ([`PageRequest`]),
//!   `require_complete` (every route of `completeness::routing`) and `time_budget_ms`
//!   ([`TimeBudget`]): a filter struct with `#[serde(deny_unknown_fields)]` must allow
//!   those it shares a request with. [`QueryParams`] answers a fault of one of them (given
//!   twice, unreadable) with that parameter's own problem, as its extractor would, whichever
//!   extractor runs first.
//!
//! ```
//! use axum::Router;
//! use completeness::routing::get;
//! use completeness::{CompletenessConfig, CursorKeys, Envelope, Scope};
//!
//! async fn list() -> Envelope<String> {
//!     Envelope::complete(vec![], Scope::new("names", "every name"))
//! }
//!
//! let settings = CompletenessConfig::new(CursorKeys::ephemeral()).with_anonymous_credential();
//! let app: Router = Router::new().route("/names", get(list).into()).with_state(settings);
//! # let _ = app;
//! ```
//!
//! # `#[derive(ResultEnvelope)]`
//!
//! On a response struct: `Serialize`, [`ReportsCompleteness`] and, with `axum`, `IntoResponse`
//! (so the struct derives `ResultEnvelope` instead of serde's `Serialize`, not beside it:
//! `#[derive(Serialize, ResultEnvelope)]` is rustc's E0119, "conflicting implementations of
//! trait `Serialize`"; serde's `Deserialize` beside it is fine).
//!
//! | attribute | on | meaning |
//! | --- | --- | --- |
//! | `#[envelope(completeness)]` | a field of type `Completeness<R>` | the completeness block; its members are written around the data (contract §2.1) |
//! | `#[envelope(bounded = "why")]` | any field whose type is not written as a scalar | a deliberately small collection (or a parameter, or a type of the service's own, that is never a list), with the justification (required text) |
//! | `#[envelope(crate = "...")]` | the struct | the path the framework is reached by, when not `::completeness` (see [Under another name](#under-another-name)) |
//! | `#[envelope(json_schema)]` | the struct | also `schemars::JsonSchema` (feature `json-schema`), as the struct writes itself: its data members under their wire names (required unless under `skip_serializing_if`), the block's members with its declared reasons and warnings and the rules of contract §2.2, or a single resource's `omitted_fields`; every data field's type implements `JsonSchema` |
//! | `#[envelope(openapi)]` | the struct | also `utoipa::ToSchema` (feature `openapi`), the same members in OpenAPI: name the struct in `#[utoipa::path(.., body = TicketPage<ListTicketsReason>)]` and its component is in the document, named after the struct (a generic one's after its block too: one component per endpoint's reasons and warnings; two structs of one name in two modules need two names); utoipa writes no `if`, so add the rules of §2.2 with `completeness::schema::add_block_rules`, and a single resource's rule that a field listed in `omitted_fields` is `null` (§2.7) is in its JSON Schema only; every data field's type implements `ToSchema` |
//! | `#[envelope(deserialize)]` | a single resource | also `serde::Deserialize`, reading back what it writes: each `Field<T>` under the name it is written by, restored from `omitted_fields` (a field listed there is left out, for its reason, whatever its `null`; contract §2.7), which must be present, as must each `Field` (one missing is refused, never read as a genuine `null`); the other members and the struct's serde attributes read as under serde's derive (so a member written under `skip_serializing_if` reads back only with `#[serde(default)]`; do not derive `Deserialize` beside it). Refused on a struct with a completeness block or a tuple struct (derive serde's `Deserialize` beside those), with the struct's serde `from`, `try_from`, `default`, `crate` or a `rename_all` in two cases, and on a `Field` with any serde key but `rename = ".."` |
//!
//! - A struct with a collection field (`Vec`, maps, sets, slices, also inside `Box`, `Field` or
//!   a tuple) needs a completeness field, or `bounded` on the field; without either, the error
//!   points at the collection.
//! - A struct without collection or completeness field is a single resource: it reports no
//!   completeness, so a `#[completeness]` handler may return it only if it declares `reasons()`
//!   (it could report none of the others). Its `Field<T>` fields fill `omitted_fields`
//!   (contract §2.7). serde's own `Deserialize` cannot read a `Field<T>` (a `null` alone does
//!   not say whether it was left out): `#[envelope(deserialize)]` reads it back.
//! - Collections are recognised by their written type: the standard collections (and `IndexMap`,
//!   `IndexSet`, `SmallVec`, `ArrayVec`, `TinyVec`, `ThinVec`), slices, and those inside
//!   `Option`, `Box`, `Rc`, `Arc`, `Cow`, `Field`, a reference or a tuple. A field of a type
//!   parameter (`data: T`, also `(T, u64)`, `[T; 1]` or an associated type `S::Items`) may be a
//!   list, so it needs the completeness field too, or
//!   `#[envelope(bounded = "why T is one resource")]`. In a single resource, a `Vec<Warning>` is
//!   its warnings, and must hold `completeness::Warning`; name it `warnings`, as it goes out
//!   under its name and clients read a resource's warnings there (contract §2.7: a `rename` of a
//!   field `warnings`, or a `rename_all` that changes it, is refused); in a struct with a completeness field,
//!   whose warnings are the block's, it is a list like any other: the first unbounded list holds
//!   the items, whatever its item type is named (`items: Vec<lint::Warning>`). In a single resource (a struct of no
//!   type parameter), a field whose type is, behind a type alias, a standard collection (a
//!   slice behind `Box`, `Arc`, `Rc`, `Cow` or a reference counts as one), or one inside
//!   `Option`, `Field`, `Box`, `Rc` or `Arc`, is refused when the struct compiles; so is, in a
//!   struct with a completeness block, a data field that is a standard collection behind an
//!   alias, which the derive would neither count in `page.returned` nor always write. A list behind
//!   a struct of the service's own (`struct Members(Vec<T>)`, or one struct deep:
//!   `struct Roster { members: Vec<T>, updated: u64 }`) or in a `serde_json::Value` (at any
//!   depth) has no type that says so: it is seen when it goes out, and reported once per field with a `WARN`
//!   event `list_in_single_resource` (the answer is sent as it is). Write such a field as
//!   `Vec<T>`, give the struct a completeness field, or mark the field `bounded`; a handler that
//!   declares a reason and returns such a struct is refused. A list inside a tuple behind an
//!   alias (`type Pair = (u32, Vec<T>)`) is not seen at all: write the tuple out.
//! - A list is never `Option<Vec<T>>` (unless it is a side list marked `bounded`): `None` would
//!   go out as `null`. Write `Vec<T>` and, when the list could not be read, report why with a
//!   reason.
//! - A struct without a completeness block cannot hold an `Envelope`, `Aggregate` or `Collected`
//!   (also inside `Option` or `Box`): their reasons would go out unseen by the endpoint's
//!   declaration and by `require_complete`. Return it, or give the struct a block. Nor can it
//!   hold a `Completeness` left unmarked (a forgotten `#[envelope(completeness)]`), for the
//!   same reason: mark it. Behind an alias or an import under another name
//!   (`use completeness::Envelope as Page`), such a field is refused when the struct compiles
//!   (in a struct of no type parameter).
//! - A `Field<T>` is known by that name, as the field's own type: behind an alias, an import under
//!   another name, or inside `Option` or `Box`, it is refused when the struct compiles (in a
//!   struct of no type parameter), since what it leaves out would go out as a plain `null`.
//! - In a single resource, a `Vec` of a type named `Warning` that is not `completeness::Warning`
//!   is refused when the struct compiles: it is a list of items, not the resource's warnings, and
//!   a list needs a completeness field.
//! - A tuple struct writes its one data field as `items`.
//! - Data fields must not reuse a contract member name (`status`, `scope`, ...).
//! - serde: `rename_all` on the struct and `rename`, `skip_serializing_if`, `skip_serializing`,
//!   `skip` on data fields are honoured (completeness members keep their contract names), but
//!   for collections and `Field<T>` fields, which are always written (contract §2.1, §2.7).
//!   Attributes that only affect reading, what a `Deserialize` derive beside this one reads, are
//!   accepted: on the struct `deny_unknown_fields`, `default`, `bound`, `expecting`, `from`,
//!   `try_from` and `crate`; on any field, the completeness field too, `default`, `alias`,
//!   `deserialize_with`, `skip_deserializing`, `borrow` and `bound`. The completeness field takes
//!   `flatten` besides, and nothing that changes how it is written. Any other is refused with an
//!   error. `rename` and `rename_all` are also read in serde's long form,
//!   `rename(serialize = "..", deserialize = "..")`, whose writing half counts.
//!
//! # `#[derive(Reason)]` and `#[derive(Warning)]`
//!
//! A service's own reason: `#[reason(code = "LEGAL_HOLD", kind = visibility, message = "...")]`,
//! with an optional `recovery = path` to a `fn(&Self) -> Option<Continuation>` (not on a reason
//! of kind `visibility`, which no way on recovers), and `next_cursor` when that recovery may be
//! `Continuation::NextCursor` (the reason hands out a cursor of its own, which the handler reads
//! back; only on a reason of kind `truncation`, contract §3.3). Without `next_cursor` the reason offers no cursor: an
//! endpoint whose reasons all leave it out refuses a `cursor` sent to it (400
//! `CURSOR_QUERY_MISMATCH`, contract §2.5), and a cursor its recovery returns is left out. The message may
//! name fields (`"{hold}"`, `"{count:>width$}"`); the fields are the reason's detail members, each
//! named by its own name, also one not in snake_case or the name of a constant in scope
//! (`"{partnerID}"`, `"{LIMIT}"`: the field, not the constant). The code must be
//! SCREAMING_SNAKE_CASE and not a standard one; the kind is one of `truncation`, `budget`,
//! `source`, `visibility`, `snapshot` (contract §3.4).
//!
//! A service's own warning: `#[warning(code = "REPLICA_LAG", owner = "storage-team",
//! review_by = "2027-06-30", message = "...")]`; `WarningCatalog::declare::<ReplicaLag>(..)`
//! catalogs it with its owner and date. Add `stale` when the warning means the answer was not
//! read from current state (a lagging replica, index or cache): it is sent as `"stale": true`,
//! and a client then treats a complete answer as it treats one with `STALE_INDEX`: good for a
//! report, not for a claim of absence or a change (contract §3.5, §8). Without `stale`, a
//! complete and empty answer with the warning is evidence of absence.
//!
//! The keys may be spread over several attributes, as serde's may (each key once). Both take
//! `crate = "..."` too (see [Under another name](#under-another-name)).
//!
//! ```
//! use completeness::{Envelope, Reason, Scope, Warning, completeness};
//!
//! #[derive(Debug, Clone, Reason)]
//! #[reason(code = "SHARD_REBALANCING", kind = source, message = "Shard {shard} is being rebalanced.")]
//! struct ShardRebalancing {
//!     shard: u32,
//! }
//!
//! #[derive(Debug, Clone, Warning)]
//! #[warning(code = "REPLICA_LAG", owner = "storage-team", review_by = "2027-06-30", message = "Lag: {seconds} s.")]
//! #[warning(stale)]
//! struct ReplicaLag {
//!     seconds: u64,
//! }
//!
//! #[completeness(resource = "orders", reasons(MorePagesAvailable, ShardRebalancing), warnings(ReplicaLag))]
//! async fn list_orders() -> Envelope<u64, ListOrdersReason> {
//!     let mut page = Envelope::incomplete(vec![7], Scope::new("orders", "all"), ShardRebalancing { shard: 3 });
//!     page.completeness.push_warning(ReplicaLag { seconds: 2 });
//!     page
//! }
//! # let _ = list_orders;
//! ```
//!
//! # Under another name
//!
//! The macros' code names the framework `::completeness`. A service that reaches it by another
//! path (the dependency renamed in `Cargo.toml`, `platform = { package = "completeness", .. }`,
//! or a facade crate of its own that re-exports it) says which, as serde's `crate` key:
//! `crate = "platform"` on `#[completeness(..)]`, `#[envelope(..)]` (the struct's),
//! `#[reason(..)]` and `#[warning(..)]`. A standard name by path is then written through it
//! (`platform::reason::MorePagesAvailable`); bare names need nothing.
//!
//! ```
//! mod platform {
//!     pub mod completeness {
//!         pub use ::completeness::*;
//!     }
//! }
//! use platform::completeness::{Completeness, ResultEnvelope, Scope, completeness};
//!
//! #[derive(ResultEnvelope)]
//! #[envelope(crate = "crate::platform::completeness")]
//! struct Names {
//!     names: Vec<String>,
//!     #[envelope(completeness)]
//!     completeness: Completeness<ListNamesReason>,
//! }
//!
//! #[completeness(crate = "crate::platform::completeness", resource = "names", reasons(MorePagesAvailable))]
//! async fn list_names() -> Names {
//!     Names { names: vec!["a".into()], completeness: Completeness::complete(Scope::new("names", "all")) }
//! }
//! # fn main() { let _ = list_names; }
//! ```

// On docs.rs (`--cfg docsrs`, a nightly rustdoc), each item gated by a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use completeness_macros::{Reason, ResultEnvelope, Warning, completeness};
pub use completeness_runtime::*;
// The short module paths every example uses (`completeness::routing::get`), documented here
// as modules of this crate: a glob re-export carries them, but rustdoc shows none of them.
#[cfg(feature = "audit")]
#[doc(inline)]
pub use completeness_runtime::audit_layer;
#[cfg(any(feature = "openapi", feature = "json-schema"))]
#[doc(inline)]
pub use completeness_runtime::schema;
#[doc(inline)]
pub use completeness_runtime::{
    aggregate, continuation, declared, envelope, field, problem, reason, report, rules, scope, warning,
};
#[cfg(feature = "axum")]
#[doc(inline)]
pub use completeness_runtime::{
    budget, config, credential, cursor, evidence, extract, fanout, observe, page_request, require, response, routing,
};

#[doc(hidden)]
pub use completeness_runtime::__private;

/// The wire contract, normative: every member, rule (R1–R13), code and compatibility promise.
/// The code cites its sections as `contract §N`.
#[doc = include_str!("../docs/contract.md")]
pub mod wire_contract {}

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
