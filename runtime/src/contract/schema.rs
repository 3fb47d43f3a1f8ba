//! Schemas of what a response carries, for its OpenAPI document (`openapi`) and its JSON
//! Schema (`json-schema`):
//! - the reason and warning objects of one endpoint: its reason type renders its own
//!   (`utoipa::ToSchema`, `schemars::JsonSchema`, `DeclaredReason::warning_schema`); the
//!   functions here render any codes, for a response whose codes no reason type declares (a
//!   single resource's warnings);
//! - whole responses: [`Envelope`](crate::Envelope)'s schema (`collection_json`,
//!   `collection_openapi`), and a derived struct's (`#[envelope(json_schema)]`,
//!   `#[envelope(openapi)]`), the block's members over the reasons and warnings of
//!   `BlockSchemas`, with the rules of contract §2.2 a schema can state (in OpenAPI, added to
//!   the document by `add_block_rules`).
//!
//! An endpoint's reasons (or warnings) are one branch per declared code (`oneOf`), so that a
//! generated client reads each code with its own detail members: a standard code's from
//! `reason_details` and `warning_details` (contract §3.2, §3.5), a service's own code with
//! its `kind` required (§3.3) and its detail members by name (`DETAIL_MEMBERS`, which the
//! derives fill), of any type. Both renderers read the same `Member`
//! lists. Detail objects may gain members (§7), so a branch is open to more, except
//! `VISIBILITY_RESTRICTED`, which never carries a detail (R12).

use crate::contract::completeness::Shape as Response;
use crate::contract::reason::{ReasonCode, ReasonKind};
use crate::contract::warning::WarningCode;

/// The value a member holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Exactly this string.
    Exactly(&'static str),
    /// A non-negative integer.
    Count,
    /// A string.
    Text,
    /// An array of strings.
    Texts,
    /// `true` or `false`; only the one given when it is `Some`.
    Flag(Option<bool>),
    /// A [`Progress`](crate::contract::reason::Progress) object.
    Progress,
    /// A [`LimitKind`](crate::contract::reason::LimitKind) string.
    LimitKind,
    /// Any value: a detail of a service's own reason or warning, whose type the schema does
    /// not know.
    Any,
}

/// One member of a reason or warning object.
#[derive(Debug, Clone, Copy)]
struct Member {
    name: &'static str,
    shape: Shape,
    about: &'static str,
    required: bool,
}

/// A member every object of its code carries.
const fn always(name: &'static str, shape: Shape, about: &'static str) -> Member {
    Member { name, shape, about, required: true }
}

/// A member an object of its code carries when it is known.
const fn when_known(name: &'static str, shape: Shape, about: &'static str) -> Member {
    Member { name, shape, about, required: false }
}

/// The detail members of a standard reason (contract §3.2); none for a service's own, whose
/// details the schema leaves open. A test holds each standard details type to its line here.
fn reason_details(code: &ReasonCode) -> Vec<Member> {
    match code {
        ReasonCode::ResultLimitReached => vec![always("limit", Shape::Count, "The result cap that was hit.")],
        ReasonCode::TimeBudgetExceeded => vec![
            always("budget_ms", Shape::Count, "The budget that was applied, in milliseconds."),
            always("progress", Shape::Progress, "How far the work got."),
        ],
        ReasonCode::SourceUnavailable => vec![always("source", Shape::Text, "The source that did not answer.")],
        ReasonCode::QuotaExhausted => {
            vec![always("retry_after_seconds", Shape::Count, "Seconds until the quota allows another request.")]
        }
        ReasonCode::ClientLimitReached => vec![
            always("limit_kind", Shape::LimitKind, "Which client-side limit stopped the collector."),
            always("limit", Shape::Count, "The limit's value: pages, items, or milliseconds."),
        ],
        ReasonCode::SnapshotExpired => vec![always("snapshot", Shape::Text, "The snapshot that is gone.")],
        _ => Vec::new(),
    }
}

/// The detail members of a standard warning (contract §3.5); none for a service's own.
fn warning_details(code: &WarningCode) -> Vec<Member> {
    match code {
        WarningCode::StaleIndex => vec![
            always("source", Shape::Text, "The source whose index lags."),
            when_known("observed_revision", Shape::Text, "The revision the index reflects."),
            when_known("refreshed_at", Shape::Text, "When the index was last refreshed (RFC 3339)."),
        ],
        WarningCode::PartialFieldSet => vec![
            always("fields", Shape::Texts, "The fields left out."),
            always("requestable", Shape::Texts, "The fields that can be asked for with `fields=`."),
        ],
        WarningCode::DefaultScopeApplied => vec![always("scope", Shape::Text, "The scope applied by default.")],
        WarningCode::PageSizeReduced => vec![
            always("requested", Shape::Count, "The page size asked for."),
            always("applied", Shape::Count, "The page size applied."),
        ],
        WarningCode::OrderingDefaulted => vec![always("ordering", Shape::Text, "The ordering applied by default.")],
        WarningCode::DeprecatedField => vec![always("field", Shape::Text, "The deprecated field.")],
        _ => Vec::new(),
    }
}

const MESSAGE: &str = "Human text; may change.";
const KIND: &str = "The reason's kind (contract §3.4): sent with every reason outside the standard table.";
const STALE: &str = "True: not read from current state (contract §3.5); STALE_INDEX is stale by its code.";

/// One object of one code: what it says, its members, and whether it takes no others.
#[derive(Debug)]
struct Branch {
    about: String,
    members: Vec<Member>,
    closed: bool,
}

/// A service's own detail members, each required: the derive writes every field.
fn own_details(details: &'static [&'static str], about: &'static str) -> impl Iterator<Item = Member> {
    details.iter().map(move |name| always(name, Shape::Any, about))
}

/// The branch of a reason of `code`, of kind `kind`, with `details` when it is a service's own.
fn reason_branch(code: &'static ReasonCode, kind: ReasonKind, details: &'static [&'static str]) -> Branch {
    let custom = matches!(code, ReasonCode::Custom(_));
    let about = match custom {
        true => format!("`{code}`: a reason of this service, of kind `{}`.", kind.as_str()),
        false => format!("`{code}` (kind `{}`, contract §3.2).", kind.as_str()),
    };
    let mut members = vec![
        always("code", Shape::Exactly(code.as_str()), "Stable reason code; programs branch on it."),
        always("message", Shape::Text, MESSAGE),
        // A standard reason carries no kind; one added to the table later does (§7).
        Member { required: custom, ..always("kind", Shape::Exactly(kind.as_str()), KIND) },
    ];
    members.extend(reason_details(code));
    members.extend(own_details(details, "A detail of this service's reason."));
    // A count or a name of what is hidden would tell the caller what it may not see (R12).
    Branch { about, members, closed: *code == ReasonCode::VisibilityRestricted }
}

/// The branch of a warning of `code`; `stale` when it is declared stale; with `details` when it
/// is a service's own.
fn warning_branch(code: &'static WarningCode, stale: bool, details: &'static [&'static str]) -> Branch {
    let about = match code {
        WarningCode::Custom(_) => format!("`{code}`: a warning of this service."),
        _ => format!("`{code}` (contract §3.5)."),
    };
    let mut members = vec![
        always("code", Shape::Exactly(code.as_str()), "Stable warning code; programs branch on it."),
        always("message", Shape::Text, MESSAGE),
        // A service's own stale warning always says so; STALE_INDEX is stale by its code, and
        // may say so; any other warning is current, and may say that (§3.5).
        Member {
            required: stale && *code != WarningCode::StaleIndex,
            ..always("stale", Shape::Flag(Some(stale || *code == WarningCode::StaleIndex)), STALE)
        },
    ];
    members.extend(warning_details(code));
    members.extend(own_details(details, "A detail of this service's warning."));
    Branch { about, members, closed: false }
}

const REASONS: &str = "Why the response is incomplete: one of the codes this endpoint declares, with its details.";
const NO_REASONS: &str = "None: this endpoint declares no reasons, so it is always complete.";
const WARNINGS: &str = "A warning: it changes confidence or freshness, never `complete`. One of the codes this \
                        endpoint declares, with its details.";
const NO_WARNINGS: &str = "None: this endpoint declares no warnings.";

/// The detail members of the `at`th declared code, if `details` says.
fn nth(details: &[&'static [&'static str]], at: usize) -> &'static [&'static str] {
    details.get(at).copied().unwrap_or_default()
}

/// The branches of the reasons `codes`, of kinds `kinds`, with `details` (in the same order).
fn reason_branches(
    codes: &'static [ReasonCode],
    kinds: &[ReasonKind],
    details: &[&'static [&'static str]],
) -> Vec<Branch> {
    codes.iter().zip(kinds).enumerate().map(|(at, (code, kind))| reason_branch(code, *kind, nth(details, at))).collect()
}

/// The branches of the warnings `codes`, stale as `stale` says, with `details` (in the same
/// order).
fn warning_branches(codes: &'static [WarningCode], stale: &[bool], details: &[&'static [&'static str]]) -> Vec<Branch> {
    codes
        .iter()
        .zip(stale)
        .enumerate()
        .map(|(at, (code, stale))| warning_branch(code, *stale, nth(details, at)))
        .collect()
}

/// The OpenAPI schema of a reason object of one of `codes`, of kinds `kinds`; a service's own
/// code with the detail members `details` lists (in the same order; `&[]` for none).
#[cfg(feature = "openapi")]
pub fn reasons_openapi(
    codes: &'static [ReasonCode],
    kinds: &[ReasonKind],
    details: &[&'static [&'static str]],
) -> openapi::Schema {
    openapi::one_of(reason_branches(codes, kinds, details), REASONS, NO_REASONS)
}

/// The OpenAPI schema of a warning object of one of `codes`, stale as `stale` says; a service's
/// own code with the detail members `details` lists (in the same order; `&[]` for none).
#[cfg(feature = "openapi")]
pub fn warnings_openapi(
    codes: &'static [WarningCode],
    stale: &[bool],
    details: &[&'static [&'static str]],
) -> openapi::Schema {
    openapi::one_of(warning_branches(codes, stale, details), WARNINGS, NO_WARNINGS)
}

/// The JSON Schema of a reason object, as [`reasons_openapi`] for OpenAPI.
#[cfg(feature = "json-schema")]
pub fn reasons_json(
    codes: &'static [ReasonCode],
    kinds: &[ReasonKind],
    details: &[&'static [&'static str]],
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    json::one_of(reason_branches(codes, kinds, details), REASONS, NO_REASONS, generator)
}

/// The JSON Schema of a warning object, as [`warnings_openapi`] for OpenAPI.
#[cfg(feature = "json-schema")]
pub fn warnings_json(
    codes: &'static [WarningCode],
    stale: &[bool],
    details: &[&'static [&'static str]],
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    json::one_of(warning_branches(codes, stale, details), WARNINGS, NO_WARNINGS, generator)
}

/// Branches rendered with utoipa's builders.
#[cfg(feature = "openapi")]
mod openapi {
    use utoipa::openapi::schema::{
        AdditionalProperties, AnyOfBuilder, ArrayBuilder, ObjectBuilder, OneOfBuilder, SchemaType, Type,
    };
    use utoipa::openapi::{RefOr, schema};

    use super::{Branch, Shape};

    /// What the renderer returns.
    pub type Schema = RefOr<schema::Schema>;

    /// A reference to `T`'s component, which [`super::reason_components`] lists.
    fn component<T: utoipa::ToSchema>() -> Schema {
        utoipa::openapi::Ref::from_schema_name(T::name()).into()
    }

    fn member(shape: Shape, about: &str) -> Schema {
        let of = |kind: Type| ObjectBuilder::new().schema_type(kind).description(Some(about));
        match shape {
            Shape::Exactly(value) => of(Type::String).enum_values(Some([value])).into(),
            // Written as u64s, up to 2^64 − 1: past what `int64` holds.
            Shape::Count => of(Type::Integer)
                .minimum(Some(0))
                .format(Some(schema::SchemaFormat::Custom("uint64".to_owned())))
                .into(),
            Shape::Text => of(Type::String).into(),
            Shape::Texts => ArrayBuilder::new().items(of(Type::String)).description(Some(about)).into(),
            Shape::Flag(None) => of(Type::Boolean).into(),
            Shape::Flag(Some(value)) => of(Type::Boolean).enum_values(Some([value])).into(),
            // By reference, as the JSON Schema renders them: an object written inline in a
            // branch of a `oneOf` is one some client generators name twice and then drop.
            Shape::Progress => component::<crate::contract::reason::Progress>(),
            Shape::LimitKind => component::<crate::contract::reason::LimitKind>(),
            Shape::Any => ObjectBuilder::new().schema_type(SchemaType::AnyValue).description(Some(about)).into(),
        }
    }

    fn object(branch: Branch) -> schema::Schema {
        let mut object = ObjectBuilder::new().schema_type(Type::Object).description(Some(branch.about));
        for m in branch.members {
            object = object.property(m.name, member(m.shape, m.about));
            if m.required {
                object = object.required(m.name);
            }
        }
        if branch.closed {
            object = object.additional_properties(Some(AdditionalProperties::FreeForm(false)));
        }
        object.into()
    }

    /// Any code: the standard branches, or another code in the wire form, with the `head`
    /// member of its kind (`kind`, `stale`), as `anyOf`. (The codes another may not have are
    /// left to the pattern's readers: utoipa writes no `not`.)
    pub fn any_code(any: super::AnyCode, head: (&str, Schema)) -> Schema {
        let other = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(super::OTHER))
            .property("code", ObjectBuilder::new().schema_type(Type::String).pattern(Some(super::WIRE_CODE)))
            .required("code")
            .property("message", ObjectBuilder::new().schema_type(Type::String).description(Some(super::MESSAGE)))
            .required("message")
            .property(head.0, head.1);
        let any_of = any
            .branches
            .into_iter()
            .fold(AnyOfBuilder::new().description(Some(any.about)), |any_of, branch| any_of.item(object(branch)))
            .item(other);
        schema::Schema::AnyOf(any_of.build()).into()
    }

    /// One branch as it is; several as `oneOf`; none as an object of at least one member and at
    /// most none, which no value matches (utoipa writes no `false` schema or `not`, and an empty
    /// `enum` is one many tools refuse), described by `none`.
    pub fn one_of(branches: Vec<Branch>, about: &str, none: &str) -> Schema {
        let mut branches = branches.into_iter();
        match (branches.next(), branches.len()) {
            (None, _) => ObjectBuilder::new()
                .schema_type(schema::Type::Object)
                .min_properties(Some(1))
                .max_properties(Some(0))
                .description(Some(none))
                .into(),
            (Some(only), 0) => object(only).into(),
            (Some(first), _) => {
                let one_of = std::iter::once(first)
                    .chain(branches)
                    .fold(OneOfBuilder::new().description(Some(about)), |one_of, branch| one_of.item(object(branch)));
                schema::Schema::OneOf(one_of.build()).into()
            }
        }
    }
}

/// Branches rendered as JSON Schema (draft 2020-12).
#[cfg(feature = "json-schema")]
mod json {
    use serde_json::{Map, Value, json};

    use super::{Branch, Shape};

    fn member(shape: Shape, about: &str, generator: &mut schemars::SchemaGenerator) -> Value {
        let mut schema = match shape {
            Shape::Exactly(value) => json!({"type": "string", "const": value}),
            Shape::Count => json!({"type": "integer", "minimum": 0}),
            Shape::Text => json!({"type": "string"}),
            Shape::Texts => json!({"type": "array", "items": {"type": "string"}}),
            Shape::Flag(None) => json!({"type": "boolean"}),
            Shape::Flag(Some(value)) => json!({"type": "boolean", "const": value}),
            Shape::Progress => return generator.subschema_for::<crate::contract::reason::Progress>().to_value(),
            Shape::LimitKind => return generator.subschema_for::<crate::contract::reason::LimitKind>().to_value(),
            Shape::Any => json!({}),
        };
        schema["description"] = Value::from(about);
        schema
    }

    fn object(branch: Branch, generator: &mut schemars::SchemaGenerator) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for m in branch.members {
            properties.insert(m.name.into(), member(m.shape, m.about, generator));
            if m.required {
                required.push(m.name);
            }
        }
        let mut object = json!({
            "type": "object",
            "description": branch.about,
            "properties": properties,
            "required": required,
        });
        if branch.closed {
            object["additionalProperties"] = Value::Bool(false);
        }
        object
    }

    /// Any code: the standard branches, or another code in the wire form that is none of the
    /// taken ones, with the `head` member of its kind (`kind`, `stale`), as `anyOf`.
    pub fn any_code(
        any: super::AnyCode,
        head: (&str, Value),
        generator: &mut schemars::SchemaGenerator,
    ) -> schemars::Schema {
        let mut objects: Vec<Value> = any.branches.into_iter().map(|branch| object(branch, generator)).collect();
        let mut properties = Map::new();
        properties
            .insert("code".into(), json!({"type": "string", "pattern": super::WIRE_CODE, "not": {"enum": any.taken}}));
        properties.insert("message".into(), json!({"type": "string", "description": super::MESSAGE}));
        properties.insert(head.0.into(), head.1);
        objects.push(json!({
            "type": "object",
            "description": super::OTHER,
            "properties": properties,
            "required": ["code", "message"],
        }));
        schemars::Schema::try_from(json!({"description": any.about, "anyOf": objects})).unwrap_or_default()
    }

    /// One branch as it is; several as `oneOf`; none as a schema no value matches.
    pub fn one_of(
        branches: Vec<Branch>,
        about: &str,
        none: &str,
        generator: &mut schemars::SchemaGenerator,
    ) -> schemars::Schema {
        let mut objects: Vec<Value> = branches.into_iter().map(|branch| object(branch, generator)).collect();
        let schema = match objects.len() {
            0 => json!({"description": none, "not": {}}),
            1 => objects.remove(0),
            _ => json!({"description": about, "oneOf": objects}),
        };
        schemars::Schema::try_from(schema).unwrap_or_default()
    }
}

/// The schemas of what a completeness block over a reason type carries: its reasons and its
/// warnings, for JSON Schema (`json-schema`) and OpenAPI (`openapi`). An endpoint's reason type
/// ([`DeclaredReason`](crate::DeclaredReason)) gives the codes it declares;
/// [`StandardReason`](crate::StandardReason), any code, the standard ones with their details.
/// [`Envelope`](crate::Envelope) reads it for its own schema.
pub trait BlockSchemas {
    /// The part of the names of the schemas of responses over this reason type: for an
    /// endpoint's, its reasons and its warnings ([`DeclaredReason::block_schema_name`](crate::DeclaredReason::block_schema_name)).
    fn schema_name() -> std::borrow::Cow<'static, str>;
    /// A schema a reason matches when it may offer a `next_cursor` (R7).
    fn cursor_reason() -> serde_json::Value;
    /// The JSON Schema of one reason.
    #[cfg(feature = "json-schema")]
    fn reason_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// The JSON Schema of one warning.
    #[cfg(feature = "json-schema")]
    fn warning_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// The OpenAPI schema of one reason.
    #[cfg(feature = "openapi")]
    fn reason_openapi() -> openapi::Schema;
    /// The OpenAPI schema of one warning.
    #[cfg(feature = "openapi")]
    fn warning_openapi() -> openapi::Schema;
}

impl<S: crate::ReasonSet> BlockSchemas for crate::DeclaredReason<S> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Owned(crate::DeclaredReason::<S>::block_schema_name())
    }
    fn cursor_reason() -> serde_json::Value {
        let crate::contract::declared::DeclaredSet { reasons, cursors, .. } = S::DECLARED;
        let offering: Vec<&str> =
            reasons.iter().zip(cursors).filter(|(_, offers)| **offers).map(|(code, _)| code.as_str()).collect();
        match offering.is_empty() {
            // None may: the schema no reason matches (an empty `enum` would do, but is one many
            // tools refuse).
            true => serde_json::Value::Bool(false),
            false => serde_json::json!({"properties": {"code": {"enum": offering}}, "required": ["code"]}),
        }
    }
    #[cfg(feature = "json-schema")]
    fn reason_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        reasons_json(S::DECLARED.reasons, S::DECLARED.kinds, S::DECLARED.details, generator)
    }
    #[cfg(feature = "json-schema")]
    fn warning_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        warnings_json(S::DECLARED.warnings, S::DECLARED.stale, S::DECLARED.warning_details, generator)
    }
    #[cfg(feature = "openapi")]
    fn reason_openapi() -> openapi::Schema {
        reasons_openapi(S::DECLARED.reasons, S::DECLARED.kinds, S::DECLARED.details)
    }
    #[cfg(feature = "openapi")]
    fn warning_openapi() -> openapi::Schema {
        warnings_openapi(S::DECLARED.warnings, S::DECLARED.stale, S::DECLARED.warning_details)
    }
}

/// What any reason or warning may be: each standard code's branch, or another code in the wire
/// form, which a client keeps as an unknown one (§3.3, §7), with the codes it may not have.
struct AnyCode {
    branches: Vec<Branch>,
    #[cfg_attr(not(feature = "json-schema"), expect(dead_code, reason = "OpenAPI's utoipa writes no `not`"))]
    taken: Vec<&'static str>,
    about: &'static str,
}

const OTHER: &str = "A code outside the standard table: a service's own, or a newer one.";

fn any_reason() -> AnyCode {
    let every = <crate::Everything as crate::ReasonSet>::DECLARED;
    AnyCode {
        branches: reason_branches(every.reasons, every.kinds, every.details),
        taken: standard_reason_codes(),
        about: REASONS,
    }
}

/// A warning with a reason's code is refused (§3.5): it would leave the answer complete.
fn any_warning() -> AnyCode {
    let every = <crate::Everything as crate::ReasonSet>::DECLARED;
    let taken = every.warnings.iter().map(WarningCode::as_str).chain(standard_reason_codes()).collect();
    AnyCode { branches: warning_branches(every.warnings, every.stale, every.warning_details), taken, about: WARNINGS }
}

/// Any reason: a standard code with its details (§3.2), or another code in the wire form.
impl BlockSchemas for crate::StandardReason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("StandardReason")
    }
    /// A standard code that may, or a code outside the table (a service's own may).
    fn cursor_reason() -> serde_json::Value {
        let offering: Vec<&str> =
            ReasonCode::KNOWN.iter().filter(|code| code.may_offer_a_cursor()).map(ReasonCode::as_str).collect();
        serde_json::json!({"anyOf": [
            {"properties": {"code": {"enum": offering}}, "required": ["code"]},
            {"properties": {"code": {"not": {"enum": standard_reason_codes()}}}, "required": ["code"]},
        ]})
    }
    #[cfg(feature = "json-schema")]
    fn reason_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let declarable = ReasonKind::DECLARABLE.map(ReasonKind::as_str);
        let kind = serde_json::json!({"enum": declarable, "description": KIND});
        json::any_code(any_reason(), ("kind", kind), generator)
    }
    #[cfg(feature = "json-schema")]
    fn warning_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let stale = serde_json::json!({"type": "boolean", "description": STALE});
        json::any_code(any_warning(), ("stale", stale), generator)
    }
    #[cfg(feature = "openapi")]
    fn reason_openapi() -> openapi::Schema {
        let kind = utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(ReasonKind::DECLARABLE.map(ReasonKind::as_str)))
            .description(Some(KIND));
        openapi::any_code(any_reason(), ("kind", kind.into()))
    }
    #[cfg(feature = "openapi")]
    fn warning_openapi() -> openapi::Schema {
        let stale = utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Boolean)
            .description(Some(STALE));
        openapi::any_code(any_warning(), ("stale", stale.into()))
    }
}

/// Every standard reason code.
fn standard_reason_codes() -> Vec<&'static str> {
    ReasonCode::KNOWN.iter().map(ReasonCode::as_str).collect()
}

/// The rules of contract §2.2 that a JSON Schema can state, over a block's members, as the
/// items of an `allOf`: R2, R3 and R5 (a complete answer has no reason, says so, offers no way
/// on), R9 (an incomplete one says why, and is no evidence), R4 (`truncated` exactly when a
/// reason truncates; with one of a code and kind not known, either), R6 (the reasons that
/// always have a continuation come with one), R7 (`next_cursor` with `MORE_PAGES_AVAILABLE`,
/// and only beside a reason that may offer one) and R10 (a page's facts state the contract of
/// the next page's cursor). An OpenAPI 3.1 document, whose schemas are JSON Schemas, may carry
/// them too: utoipa's builders write no `if`, so a document adds these as JSON
/// ([`add_block_rules`]).
pub fn block_rules<R: BlockSchemas>() -> serde_json::Value {
    use serde_json::json;

    let code = |codes: Vec<&str>| json!({"properties": {"code": {"enum": codes}}, "required": ["code"]});
    let truncation: Vec<&str> = ReasonCode::KNOWN
        .iter()
        .filter(|code| code.standard_kind() == ReasonKind::Truncation)
        .map(ReasonCode::as_str)
        .collect();
    let truncating =
        json!({"anyOf": [code(truncation), {"properties": {"kind": {"const": "truncation"}}, "required": ["kind"]}]});
    let kind_unknown = json!({
        "properties": {"code": {"not": {"enum": standard_reason_codes()}}},
        "required": ["code"],
        "not": {"required": ["kind"]},
    });
    let always: Vec<&str> = ReasonCode::KNOWN
        .iter()
        .filter(|code| code.recovery().is_some_and(completeness_codes::Recovery::is_always))
        .map(ReasonCode::as_str)
        .collect();
    let more_pages = code(vec![ReasonCode::MorePagesAvailable.as_str()]);
    let holding = |reason: serde_json::Value| json!({"properties": {"incomplete_reasons": {"contains": reason}}, "required": ["incomplete_reasons"]});
    json!([
        {"if": {"properties": {"complete": {"const": true}}, "required": ["complete"]},
         "then": {"properties": {"status": {"const": "complete"}, "incomplete_reasons": {"maxItems": 0},
                                 "continuation": {"type": "null"}, "next_cursor": {"type": "null"}}}},
        {"if": {"properties": {"complete": {"const": false}}, "required": ["complete"]},
         "then": {"properties": {"status": {"const": "partial"}, "incomplete_reasons": {"minItems": 1},
                                 "evidence": {"type": "null"}}}},
        {"if": {"properties": {"truncated": {"const": true}}, "required": ["truncated"]},
         "then": {"properties": {"incomplete_reasons": {"contains": {"anyOf": [truncating, kind_unknown]}}}},
         "else": {"properties": {"incomplete_reasons": {"not": {"contains": truncating}}}}},
        {"if": holding(code(always)), "then": {"properties": {"continuation": {"type": "object"}}}},
        {"if": holding(more_pages.clone()), "then": {"properties": {"next_cursor": {"type": "string"}}}},
        {"if": {"properties": {"next_cursor": {"type": "string"}}, "required": ["next_cursor"]},
         "then": holding(R::cursor_reason())},
        {"if": {"allOf": [holding(more_pages), {"properties": {"page": {"type": "object"}}, "required": ["page"]}]},
         "then": {"properties": {"page": {"properties": {"cursor": {"type": "object"}}}}}},
    ])
}

/// Adds [`block_rules`] over `R` to the component `component` of `document`, an OpenAPI 3.1
/// document as JSON (`serde_json::to_value(ApiDoc::openapi())`): utoipa's builders write no
/// `if`, so the rules a response's schema can state go in here, beside what the component
/// already requires (`allOf`). The component of a response is the one its `$ref` points at:
/// [`response_component`] reads it. (utoipa composes the name of a generic type from the type
/// as written, `Envelope::<T, R>::name()` followed by the names of the type arguments, so it is
/// not `name()` itself, whether a route names the envelope, `#[utoipa::path(.., body =
/// Envelope<T, R>)]`, or `components(schemas(..))` lists it.) False, and `document` unchanged,
/// when there is no such component.
#[cfg(feature = "openapi")]
pub fn add_block_rules<R: BlockSchemas>(document: &mut serde_json::Value, component: &str) -> bool {
    add_rules(document, component, block_rules::<R>())
}

/// [`add_block_rules`] for an aggregate's component (contract §2.6, a count with its
/// `relation`), and the rule of §2.6 a schema can state beside them: an incomplete aggregate is
/// never `exact`. False, and `document` unchanged, when there is no such component.
#[cfg(feature = "openapi")]
pub fn add_aggregate_rules<R: BlockSchemas>(document: &mut serde_json::Value, component: &str) -> bool {
    let mut rules = block_rules::<R>();
    if let serde_json::Value::Array(rules) = &mut rules {
        rules.push(never_exact_while_incomplete());
    }
    add_rules(document, component, rules)
}

/// Adds `rules` (an array of schemas, or one) to the `allOf` of `component` in `document`;
/// false, and `document` unchanged, when there is no such component.
#[cfg(feature = "openapi")]
fn add_rules(document: &mut serde_json::Value, component: &str, rules: serde_json::Value) -> bool {
    let Some(schema) = document
        .pointer_mut("/components/schemas")
        .and_then(|schemas| schemas.get_mut(component))
        .and_then(serde_json::Value::as_object_mut)
    else {
        return false;
    };
    let rules = match rules {
        serde_json::Value::Array(rules) => rules,
        other => vec![other],
    };
    match schema.get_mut("allOf").and_then(serde_json::Value::as_array_mut) {
        Some(all_of) => all_of.extend(rules),
        None => {
            schema.insert("allOf".to_owned(), serde_json::Value::Array(rules));
        }
    }
    true
}

/// In `document`, an OpenAPI document as JSON, the name of the component that the response
/// at `path` (`"/documents"`), `method` (`"get"`), `status` (`"200"`) refers to for
/// `content_type` (`"application/json"`), the arguments in the order a document nests them:
/// what [`add_block_rules`] takes. `None` when that response has no schema reference (a
/// `method` is lower-case, as in the document).
///
/// `response_component(&document, "/documents", "get", "200", "application/json")`
#[cfg(feature = "openapi")]
pub fn response_component<'a>(
    document: &'a serde_json::Value,
    path: &str,
    method: &str,
    status: &str,
    content_type: &str,
) -> Option<&'a str> {
    let response = document.get("paths")?.get(path)?.get(method)?.get("responses")?.get(status)?;
    let reference = response.get("content")?.get(content_type)?.get("schema")?.get("$ref")?.as_str()?;
    reference.strip_prefix("#/components/schemas/")
}

/// The wire form of a code (§3.1), as a pattern.
pub(crate) const WIRE_CODE: &str = "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$";

/// The members of a completeness block of `shape` (contract §2.1; an aggregate's lack `page`
/// and `evidence`, §2.6) over reason type `R`, and the rules of §2.2 that a schema can state
/// ([`block_rules`]): the schema of [`Envelope`](crate::Envelope), of
/// [`Aggregate`](crate::Aggregate) and of a derived struct with a block, beside their data.
#[cfg(feature = "json-schema")]
fn block_json<R: BlockSchemas>(generator: &mut schemars::SchemaGenerator, shape: Response) -> serde_json::Value {
    use serde_json::json;

    let reason = R::reason_schema(generator).to_value();
    let warning = R::warning_schema(generator).to_value();
    let continuation = generator.subschema_for::<Option<crate::Continuation>>().to_value();
    let page = generator.subschema_for::<Option<crate::PageInfo>>().to_value();
    let scope = generator.subschema_for::<crate::Scope>().to_value();
    let token = json!({"type": ["string", "null"], "minLength": 1});
    let mut block = json!({
        "type": "object",
        "required": shape.members(),
        "properties": {
            "status": {"enum": ["complete", "partial"]},
            "complete": {"type": "boolean"},
            "truncated": {"type": "boolean"},
            "incomplete_reasons": {"type": "array", "items": reason},
            "continuation": continuation,
            "next_cursor": token,
            "page": page,
            "scope": scope,
            "warnings": {"type": "array", "items": warning},
            "evidence": token,
        },
        "allOf": block_rules::<R>(),
    });
    if let Some(properties) = block["properties"].as_object_mut() {
        properties.retain(|name, _| shape.members().contains(&name.as_str()));
    }
    block
}

/// Adds the data member `name` of schema `schema` to the object schema `object`, required
/// when `required`.
#[cfg(feature = "json-schema")]
fn add_member(object: &mut serde_json::Value, name: &str, schema: serde_json::Value, required: bool) {
    object["properties"][name] = schema;
    if required && let Some(list) = object["required"].as_array_mut() {
        list.push(name.into());
    }
}

/// The JSON Schema of a collection response, [`Envelope`](crate::Envelope): the block's
/// members over `R` (`block_json`), and `items` of `item`.
#[cfg(feature = "json-schema")]
pub fn collection_json<R: BlockSchemas>(
    item: schemars::Schema,
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    let mut schema = block_json::<R>(generator, Response::Collection);
    schema["description"] = format!("{COLLECTION} {COMPLETE_ABOUT}").into();
    add_member(&mut schema, "items", serde_json::json!({"type": "array", "items": item.to_value()}), true);
    schemars::Schema::try_from(schema).unwrap_or_default()
}

/// The JSON Schema of an aggregate (contract §2.6), [`Aggregate`](crate::Aggregate), as
/// [`aggregate_openapi`] says it, with the rules of §2.2 and §2.6 a schema can state: the
/// block's members without `page` and `evidence`, `relation` (never `exact` while incomplete),
/// and the value under `name`, or, with `None`, as the one member besides them.
#[cfg(feature = "json-schema")]
pub fn aggregate_json<R: BlockSchemas>(
    name: Option<&str>,
    value: schemars::Schema,
    generator: &mut schemars::SchemaGenerator,
) -> schemars::Schema {
    let mut schema = block_json::<R>(generator, Response::Aggregate);
    let relation = generator.subschema_for::<crate::Relation>().to_value();
    add_member(&mut schema, "relation", relation, true);
    match name {
        Some(name) => {
            schema["description"] = AGGREGATE.into();
            add_member(&mut schema, name, value.to_value(), true);
        }
        None => {
            let members = Response::Aggregate.members().len() + 2;
            schema["description"] = format!("{AGGREGATE}{OPEN_VALUE}").into();
            schema["additionalProperties"] = value.to_value();
            schema["minProperties"] = members.into();
            schema["maxProperties"] = members.into();
        }
    }
    if let Some(rules) = schema["allOf"].as_array_mut() {
        rules.push(never_exact_while_incomplete());
    }
    schemars::Schema::try_from(schema).unwrap_or_default()
}

/// The rule of contract §2.6 a schema can state: an incomplete aggregate is never `exact`.
#[cfg(any(feature = "json-schema", feature = "openapi"))]
fn never_exact_while_incomplete() -> serde_json::Value {
    serde_json::json!({
        "if": {"properties": {"complete": {"const": false}}, "required": ["complete"]},
        "then": {"properties": {"relation": {"not": {"const": "exact"}}}},
    })
}

/// The JSON Schema (draft 2020-12) of what the response type `E` writes: the root schema, its
/// definitions under `$defs`. Generated for serialization, as a server writes: `schemars`'s
/// `schema_for!` describes what a type reads, where a member under `skip_serializing_if` is
/// required, so an item that leaves one out would be refused.
#[cfg(feature = "json-schema")]
pub fn response_json<E: schemars::JsonSchema>() -> schemars::Schema {
    schemars::generate::SchemaSettings::draft2020_12().for_serialize().into_generator().into_root_schema_for::<E>()
}

/// One data member of a derived struct, as the derive writes it: its wire name, its schema
/// (`S`: JSON Schema's or OpenAPI's), and whether it is always written (a field under
/// `skip_serializing_if` is not).
#[cfg(any(feature = "json-schema", feature = "openapi"))]
#[doc(hidden)]
pub struct DataMember<S> {
    /// The wire name.
    pub name: &'static str,
    /// The schema of its type.
    pub schema: S,
    /// Always written.
    pub required: bool,
    /// A declared field of a single resource (`Field<T>`), which `omitted_fields` may list.
    pub declared: bool,
}

/// The names of the declared fields among `data`: what `omitted_fields` may list (§2.7).
#[cfg(any(feature = "json-schema", feature = "openapi"))]
fn declared_fields<S>(data: &[DataMember<S>]) -> Vec<&'static str> {
    data.iter().filter(|member| member.declared).map(|member| member.name).collect()
}

/// What `omitted_fields` holds (§2.7), in both schemas.
#[cfg(any(feature = "json-schema", feature = "openapi"))]
const OMITTED_FIELDS: &str = "The fields left out, each with why: NO_ACCESS, SOURCE_FAILED or NOT_REQUESTED.";

/// The JSON Schema of a `#[derive(ResultEnvelope)]` struct: with a block over `R`, the
/// block's members and rules beside the data members; a single resource (`R` is `()`) its data
/// members, and `omitted_fields` when it has a `Field` (contract §2.7).
#[cfg(feature = "json-schema")]
#[doc(hidden)]
pub fn derived_json<R: DerivedBlock>(
    generator: &mut schemars::SchemaGenerator,
    data: Vec<DataMember<schemars::Schema>>,
    omitted_fields: bool,
) -> schemars::Schema {
    let mut schema = R::block(generator);
    let declared = declared_fields(&data);
    for member in data {
        add_member(&mut schema, member.name, member.schema.to_value(), member.required);
    }
    if omitted_fields {
        // Contract §2.7: `omitted_fields` lists declared fields only, and a field it lists is null.
        let omitted = serde_json::json!({
            "allOf": [generator.subschema_for::<crate::contract::field::OmittedFields>().to_value()],
            "propertyNames": {"enum": declared},
        });
        add_member(&mut schema, "omitted_fields", omitted, true);
        let rules: Vec<serde_json::Value> = declared
            .iter()
            .map(|name| {
                serde_json::json!({
                    "if": {"properties": {"omitted_fields": {"required": [name]}}, "required": ["omitted_fields"]},
                    "then": {"properties": {*name: {"type": "null"}}},
                })
            })
            .collect();
        match schema["allOf"].as_array_mut() {
            Some(all) => all.extend(rules),
            None => schema["allOf"] = rules.into(),
        }
    }
    schemars::Schema::try_from(schema).unwrap_or_default()
}

/// What a derived struct's block gives its schemas: the block's members over a reason type, or
/// nothing for a single resource (`()`).
#[cfg(any(feature = "json-schema", feature = "openapi"))]
#[doc(hidden)]
pub trait DerivedBlock {
    /// The JSON Schema object the data members are added to.
    #[cfg(feature = "json-schema")]
    fn block(generator: &mut schemars::SchemaGenerator) -> serde_json::Value;
    /// The OpenAPI object the data members are added to.
    #[cfg(feature = "openapi")]
    fn block_openapi() -> utoipa::openapi::schema::ObjectBuilder;
    /// The components the OpenAPI object refers to.
    #[cfg(feature = "openapi")]
    fn openapi_components(schemas: &mut Vec<(String, openapi::Schema)>);
    /// What tells this block apart in a component's name: the reason type's reasons and
    /// warnings ([`BlockSchemas::schema_name`]); nothing for a single resource.
    #[cfg(feature = "openapi")]
    fn openapi_name() -> Option<std::borrow::Cow<'static, str>>;
}

const SINGLE: &str = "A single resource (contract §2.7): every declared field present; one not filled is null and \
                      listed in `omitted_fields`.";
const DERIVED: &str = "A response with its completeness block (contract §2.1).";

#[cfg(any(feature = "json-schema", feature = "openapi"))]
impl DerivedBlock for () {
    #[cfg(feature = "json-schema")]
    fn block(_: &mut schemars::SchemaGenerator) -> serde_json::Value {
        serde_json::json!({"type": "object", "description": SINGLE, "properties": {}, "required": []})
    }
    #[cfg(feature = "openapi")]
    fn block_openapi() -> utoipa::openapi::schema::ObjectBuilder {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new().schema_type(Type::Object).description(Some(SINGLE))
    }
    #[cfg(feature = "openapi")]
    fn openapi_components(_: &mut Vec<(String, openapi::Schema)>) {}
    #[cfg(feature = "openapi")]
    fn openapi_name() -> Option<std::borrow::Cow<'static, str>> {
        None
    }
}

#[cfg(any(feature = "json-schema", feature = "openapi"))]
impl<R: BlockSchemas> DerivedBlock for crate::Completeness<R> {
    #[cfg(feature = "json-schema")]
    fn block(generator: &mut schemars::SchemaGenerator) -> serde_json::Value {
        let mut schema = block_json::<R>(generator, Response::Collection);
        schema["description"] = DERIVED.into();
        schema
    }
    #[cfg(feature = "openapi")]
    fn block_openapi() -> utoipa::openapi::schema::ObjectBuilder {
        block_openapi::<R>(Response::Collection).description(Some(DERIVED))
    }
    #[cfg(feature = "openapi")]
    fn openapi_components(schemas: &mut Vec<(String, openapi::Schema)>) {
        envelope_components(schemas);
    }
    #[cfg(feature = "openapi")]
    fn openapi_name() -> Option<std::borrow::Cow<'static, str>> {
        Some(R::schema_name())
    }
}

/// A declared field of a single resource: its value, or `null` (genuine, or omitted and listed
/// in `omitted_fields`; contract §2.7).
#[cfg(feature = "json-schema")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for crate::Field<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Field_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        generator.subschema_for::<Option<T>>()
    }
}

/// `omitted_fields`: each field left out, by name, with why (`NO_ACCESS`, `SOURCE_FAILED`,
/// `NOT_REQUESTED`, or a code a newer server sends; contract §2.7).
#[cfg(feature = "json-schema")]
impl schemars::JsonSchema for crate::OmittedFields {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OmittedFields".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": OMITTED_FIELDS,
            "additionalProperties": {"type": "string", "pattern": WIRE_CODE},
        })
    }
}

/// Any warning, as a service writes it on a single resource: a standard code with its
/// details, or another code.
#[cfg(feature = "openapi")]
impl utoipa::__dev::ComposeSchema for crate::Warning {
    fn compose(_: Vec<openapi::Schema>) -> openapi::Schema {
        <crate::StandardReason as BlockSchemas>::warning_openapi()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for crate::Warning {
    fn name() -> std::borrow::Cow<'static, str> {
        "Warning".into()
    }
}

/// Any reason, as a client holds it: a standard code with its details, or another code.
#[cfg(feature = "json-schema")]
impl schemars::JsonSchema for crate::StandardReason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StandardReason".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <crate::StandardReason as BlockSchemas>::reason_schema(generator)
    }
}

/// A warning of any code: the standard ones with their details (§3.5).
#[cfg(feature = "json-schema")]
impl schemars::JsonSchema for crate::Warning {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Warning".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <crate::StandardReason as BlockSchemas>::warning_schema(generator)
    }
}

/// The OpenAPI schema of a collection response, [`Envelope`](crate::Envelope): the members of
/// contract §2.1, each required, with `items` of `item` (inline) and the reasons and warnings
/// of `R`; the page facts, scope and continuation refer to their components, which
/// [`envelope_components`] lists. (utoipa writes no `if`/`then`: [`add_block_rules`] adds the
/// rules of §2.2 to the document's JSON.)
#[cfg(feature = "openapi")]
pub fn collection_openapi<R: BlockSchemas>(item: openapi::Schema) -> openapi::Schema {
    use utoipa::openapi::schema::ArrayBuilder;
    let items: openapi::Schema = ArrayBuilder::new().items(item).into();
    block_openapi::<R>(Response::Collection)
        .description(Some(COLLECTION))
        .property("items", items)
        .required("items")
        .into()
}

/// The members of a completeness block of `shape` (contract §2.1; an aggregate's lack `page`
/// and `evidence`, §2.6) over reason type `R`, each required: the OpenAPI object of
/// [`Envelope`](crate::Envelope), of [`Aggregate`](crate::Aggregate) and of a derived struct
/// with a block, beside their data.
#[cfg(feature = "openapi")]
fn block_openapi<R: BlockSchemas>(shape: Response) -> utoipa::openapi::schema::ObjectBuilder {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, SchemaType, Type};
    use utoipa::openapi::{Ref, RefOr};

    let nullable = |name: &str, about: &str| -> openapi::Schema {
        let one_of = OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Null))
            .item(Ref::from_schema_name(name))
            .description(Some(about));
        utoipa::openapi::schema::Schema::OneOf(one_of.build()).into()
    };
    let token = |about: &str| -> openapi::Schema {
        ObjectBuilder::new()
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .min_length(Some(1))
            .description(Some(about))
            .into()
    };
    let array = |items: openapi::Schema| -> openapi::Schema { ArrayBuilder::new().items(items).into() };
    let members: [(&str, openapi::Schema); 10] = [
        (
            "status",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["complete", "partial"]))
                .description(Some(STATUS_ABOUT))
                .into(),
        ),
        ("complete", ObjectBuilder::new().schema_type(Type::Boolean).description(Some(COMPLETE_ABOUT)).into()),
        ("truncated", ObjectBuilder::new().schema_type(Type::Boolean).description(Some(TRUNCATED_ABOUT)).into()),
        ("incomplete_reasons", array(R::reason_openapi())),
        ("continuation", nullable("Continuation", "How to recover; null when complete (contract §2.4).")),
        ("next_cursor", token("The next page's cursor; null on the last page.")),
        ("page", nullable("PageInfo", "Pagination facts (contract §2.5).")),
        ("scope", RefOr::Ref(Ref::from_schema_name("Scope"))),
        ("warnings", array(R::warning_openapi())),
        ("evidence", token(EVIDENCE_ABOUT)),
    ];
    let members = members.into_iter().filter(|(name, _)| shape.members().contains(name));
    members.fold(ObjectBuilder::new().schema_type(Type::Object), |object, (name, schema)| {
        object.property(name, schema).required(name)
    })
}

/// What an aggregate is.
#[cfg(any(feature = "json-schema", feature = "openapi"))]
const AGGREGATE: &str = "An aggregate (a count) with its completeness block and `relation` (contract §2.6).";

/// What an aggregate's value member is, when its name is not known to the type.
#[cfg(any(feature = "json-schema", feature = "openapi"))]
const OPEN_VALUE: &str = " Its value is its one member besides those listed (its name is the endpoint's, e.g. \
                          `count`).";

/// The OpenAPI schema of an aggregate (contract §2.6), [`Aggregate`](crate::Aggregate): the
/// block's members without `page` and `evidence`, `relation`, and the value under `name` of
/// schema `value`, each required. With `name` `None`, the value is the one member besides
/// those, of schema `value` (`additionalProperties`, and as many properties as the members
/// and one): what `Aggregate<T, R>`'s own schema says, whose value's name is chosen at run time.
/// [`add_aggregate_rules`] adds the rules utoipa cannot write.
#[cfg(feature = "openapi")]
pub fn aggregate_openapi<R: BlockSchemas>(name: Option<&str>, value: openapi::Schema) -> openapi::Schema {
    use utoipa::openapi::schema::AdditionalProperties;
    let relation = <crate::Relation as utoipa::PartialSchema>::schema();
    let object = block_openapi::<R>(Response::Aggregate).property("relation", relation).required("relation");
    match name {
        Some(name) => object.description(Some(AGGREGATE)).property(name, value).required(name).into(),
        None => {
            let members = Response::Aggregate.members().len() + 2;
            object
                .description(Some(format!("{AGGREGATE}{OPEN_VALUE}")))
                .additional_properties(Some(AdditionalProperties::RefOr(value)))
                .min_properties(Some(members))
                .max_properties(Some(members))
                .into()
        }
    }
}

/// The component name of a `#[derive(ResultEnvelope)]` struct named `name`: its own name, and
/// for a `generic` one the block's too, since two endpoints with the same reasons and other
/// warnings send other blocks through one generic struct (utoipa appends the type arguments'
/// names, and a reason type's name leaves out its warnings), as [`Envelope`](crate::Envelope)'s
/// name does.
#[cfg(feature = "openapi")]
#[doc(hidden)]
pub fn derived_openapi_name<B: DerivedBlock>(name: &'static str, generic: bool) -> std::borrow::Cow<'static, str> {
    match B::openapi_name() {
        Some(block) if generic => format!("{name}_{block}").into(),
        _ => name.into(),
    }
}

/// The OpenAPI schema of a `#[derive(ResultEnvelope)]` struct (`#[envelope(openapi)]`), as
/// [`derived_json`] is its JSON Schema: the block's members beside the data members, and
/// `omitted_fields` for a single resource with a `Field` (contract §2.7). utoipa writes no
/// `if`: [`add_block_rules`] adds the rules of §2.2 to the document.
#[cfg(feature = "openapi")]
#[doc(hidden)]
pub fn derived_openapi<B: DerivedBlock>(
    data: Vec<DataMember<openapi::Schema>>,
    omitted_fields: bool,
) -> openapi::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let declared = declared_fields(&data);
    let mut object = B::block_openapi();
    for member in data {
        object = object.property(member.name, member.schema);
        if member.required {
            object = object.required(member.name);
        }
    }
    if omitted_fields {
        let omitted = ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some(OMITTED_FIELDS))
            .property_names(Some(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(declared))))
            .additional_properties(Some(ObjectBuilder::new().schema_type(Type::String).pattern(Some(WIRE_CODE))));
        object = object.property("omitted_fields", omitted).required("omitted_fields");
    }
    object.into()
}

/// A declared field of a single resource: its value, or `null` (contract §2.7).
#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema> utoipa::__dev::ComposeSchema for crate::Field<T> {
    fn compose(generics: Vec<openapi::Schema>) -> openapi::Schema {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        let value = generics.into_iter().next().unwrap_or_else(T::schema);
        OneOfBuilder::new().item(ObjectBuilder::new().schema_type(Type::Null)).item(value).into()
    }
}

#[cfg(feature = "openapi")]
impl<T: utoipa::ToSchema> utoipa::ToSchema for crate::Field<T> {
    fn name() -> std::borrow::Cow<'static, str> {
        format!("Field_{}", T::name()).into()
    }
    fn schemas(schemas: &mut Vec<(String, openapi::Schema)>) {
        T::schemas(schemas);
    }
}

/// The components [`collection_openapi`] refers to, by name, for a `ToSchema::schemas`.
#[cfg(feature = "openapi")]
pub fn envelope_components(schemas: &mut Vec<(String, openapi::Schema)>) {
    add_component::<crate::Continuation>(schemas);
    add_component::<crate::PageInfo>(schemas);
    add_component::<crate::Scope>(schemas);
    reason_components(schemas);
}

/// The components a reason's schema refers to, by name: the detail objects of the standard
/// reasons (`Progress`, `LimitKind`). A document that states reasons without an envelope, or a
/// reason type's schema by hand, lists them with these.
#[cfg(feature = "openapi")]
pub fn reason_components(schemas: &mut Vec<(String, openapi::Schema)>) {
    add_component::<crate::contract::reason::Progress>(schemas);
    add_component::<crate::contract::reason::LimitKind>(schemas);
}

/// Adds `T`'s schema under its name, and the components it refers to.
#[cfg(feature = "openapi")]
pub(crate) fn add_component<T: utoipa::ToSchema>(schemas: &mut Vec<(String, openapi::Schema)>) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}

/// What `complete` means, as a schema describes the member: for a document that writes its
/// completeness block by hand, as the crate's own schemas do.
pub const COMPLETE_ABOUT: &str = "The decision field: true when the answer covers the whole scope; an empty result is \
                                  evidence of absence only when it is true. On a page reached with a cursor \
                                  (`page.resumed` true), true ends the traversal, but its items cover the scope only \
                                  with the pages before it, and every earlier page's `incomplete_reasons` still count \
                                  (contract §2.5, §8).";

/// What `status` means, as a schema describes the member.
pub const STATUS_ABOUT: &str = "`complete` in words: \"complete\" exactly when `complete` is true.";

/// What `truncated` means, as a schema describes the member.
pub const TRUNCATED_ABOUT: &str = "True when a reason of kind truncation is among `incomplete_reasons`.";

/// What `evidence` means, as a schema describes the member.
pub const EVIDENCE_ABOUT: &str = "Evidence of a complete inventory, for a destructive action (contract §6): only on a \
                                  complete answer, and on a page reached with a cursor only when no page before it \
                                  was incomplete for a reason other than more pages or carried a stale warning; null \
                                  otherwise, so a complete last page without evidence says an earlier page was \
                                  partial. Always null on an endpoint that issues none (a search, a count): only an \
                                  inventory that a destructive action checks issues evidence.";
const COLLECTION: &str = "A collection response with its completeness block (contract §2.1).";

/// The OpenAPI parameters of the framework's own extractors, as they read them, for an
/// operation's `parameters`: what a route taking `PageRequest`, `TimeBudget`, or any route of
/// `completeness::routing` (which reads the demand for a complete answer) accepts beside its own.
///
/// ```
/// use completeness_runtime::schema::parameters;
/// use utoipa::openapi::path::OperationBuilder;
///
/// let list = OperationBuilder::new()
///     .parameters(Some([parameters::paging(), parameters::require_complete()].concat()))
///     .build();
/// assert_eq!(list.parameters.unwrap().len(), 4);
/// ```
///
/// In utoipa's route attribute, the same lists are [`IntoParams`](utoipa::IntoParams) types:
/// `#[utoipa::path(get, path = "/documents", params(parameters::PagingParams,
/// parameters::RequireCompleteParams), ..)]`.
#[cfg(feature = "openapi")]
pub mod parameters {
    use std::time::Duration;

    use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
    use utoipa::openapi::schema::{ObjectBuilder, Type};

    use crate::contract::params::{CURSOR, PAGE_SIZE, REQUEST_TIMEOUT, REQUIRE_COMPLETE, TIME_BUDGET_MS};

    /// What `Request-Timeout` accepts: a decimal number of seconds that is not zero, between
    /// optional blanks. Zero, a sign, an exponent or a bare point are refused.
    pub const POSITIVE_SECONDS: &str = r"^[ \t]*([0-9]*[1-9][0-9]*(\.[0-9]+)?|[0-9]+\.[0-9]*[1-9][0-9]*)[ \t]*$";

    fn parameter(name: &str, place: ParameterIn, description: &str, schema: ObjectBuilder) -> Parameter {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(place)
            .description(Some(description))
            .schema(Some(schema))
            .build()
    }

    /// `page_size` and `cursor` (`PageRequest`, contract §2.5).
    pub fn paging() -> Vec<Parameter> {
        paging_stated(None)
    }

    /// [`paging`] with the limits `config` applies stated: the default and largest page size
    /// (also the `page_size` schema's `default`), and how long a cursor lasts. A generated client
    /// or an agent then knows them before its first request.
    #[cfg(feature = "axum")]
    pub fn paging_for(config: &crate::server::config::CompletenessConfig) -> Vec<Parameter> {
        paging_stated(Some(Paging {
            default: config.default_page_size(),
            max: config.max_page_size(),
            cursor_ttl: config.cursor_ttl(),
        }))
    }

    /// The limits [`paging_for`] states.
    struct Paging {
        default: u64,
        max: u64,
        cursor_ttl: Duration,
    }

    fn paging_stated(limits: Option<Paging>) -> Vec<Parameter> {
        let mut size = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1));
        let (sizes, lasts) = match &limits {
            Some(Paging { default, max, cursor_ttl }) => {
                size = size.default(Some((*default).into()));
                (
                    format!(
                        "Items per page, at least 1 ({default} when not given); a size above {max} is reduced \
                         to {max}, with a PAGE_SIZE_REDUCED warning"
                    ),
                    format!(
                        " A cursor expires {} after its page was answered (410 CURSOR_EXPIRED, with a `restart` \
                         continuation).",
                        seconds(*cursor_ttl)
                    ),
                )
            }
            None => (
                "Items per page, at least 1; a size above the server's maximum is clamped to it, with a \
                 PAGE_SIZE_REDUCED warning"
                    .to_owned(),
                String::new(),
            ),
        };
        vec![
            parameter(
                PAGE_SIZE,
                ParameterIn::Query,
                &format!("{sizes} (given twice, or 0: 400 INVALID_PAGE_SIZE)."),
                size,
            ),
            parameter(
                CURSOR,
                ParameterIn::Query,
                &format!(
                    "The `next_cursor` of the previous page, as sent, with the same filters and ordering as the \
                     first page (`page_size` may change); refused with a problem when it expired, was tampered \
                     with, or belongs to another query or credential. A page answered with `page.resumed: false` \
                     is a first page again: the traversal started over, so drop the pages read before it.{lasts}"
                ),
                ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)),
            ),
        ]
    }

    /// `time_budget_ms` and the `Request-Timeout` header (`TimeBudget`, contract §5.2).
    pub fn time_budget() -> Vec<Parameter> {
        time_budget_stated(None)
    }

    /// [`time_budget`] with the budgets `config` applies stated: the default (also the
    /// `time_budget_ms` schema's `default`) and the cap.
    #[cfg(feature = "axum")]
    pub fn time_budget_for(config: &crate::server::config::CompletenessConfig) -> Vec<Parameter> {
        time_budget_stated(Some((config.default_time_budget(), config.max_time_budget())))
    }

    fn time_budget_stated(budgets: Option<(Duration, Duration)>) -> Vec<Parameter> {
        let mut ms = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1));
        let stated = match budgets {
            Some((default, max)) => {
                ms = ms.default(Some(crate::contract::whole_millis(default).into()));
                format!(
                    "Positive milliseconds ({} when neither this nor Request-Timeout is given); a budget above {} \
                     is capped to it",
                    default.as_millis(),
                    max.as_millis()
                )
            }
            None => "Positive milliseconds; a budget above the server's maximum is capped to it".to_owned(),
        };
        vec![
            parameter(
                TIME_BUDGET_MS,
                ParameterIn::Query,
                &format!("{stated} (given twice, or not a positive integer: 400 INVALID_TIME_BUDGET)."),
                ms,
            ),
            parameter(
                REQUEST_TIMEOUT,
                ParameterIn::Header,
                "Positive seconds, with up to three decimals counted (a positive time under a millisecond \
                 counts as one); with `time_budget_ms` too, the smaller applies (0, or not a number: 400 \
                 INVALID_TIME_BUDGET).",
                ObjectBuilder::new().schema_type(Type::String).pattern(Some(POSITIVE_SECONDS)),
            ),
        ]
    }

    /// `duration` as the descriptions say it: `900 s`, `0.5 s`.
    fn seconds(duration: Duration) -> String {
        format!("{} s", duration.as_secs_f64())
    }

    /// `require_complete` and the `Prefer: handling=strict` header (contract §5.3), read on every
    /// route of `completeness::routing`.
    pub fn require_complete() -> Vec<Parameter> {
        vec![
            parameter(
                REQUIRE_COMPLETE,
                ParameterIn::Query,
                "true: an answer incomplete for any reason but a next page is a problem response \
                 (`COMPLETE_RESULT_UNAVAILABLE`), not a partial 200 (contract §5.3). A page whose only \
                 reason is `MORE_PAGES_AVAILABLE` is still a 200 with `complete: false`: the demand judges \
                 one page, so follow `next_cursor` until `complete: true`, and judge the traversal yourself.",
                ObjectBuilder::new().schema_type(Type::String).enum_values(Some(["true", "false", "1", "0"])),
            ),
            parameter(
                "Prefer",
                ParameterIn::Header,
                "`handling=strict`: the same demand as require_complete=true; other preferences are ignored \
                 (RFC 7240).",
                ObjectBuilder::new().schema_type(Type::String),
            ),
        ]
    }

    /// [`paging`] as utoipa's route attribute takes it: `params(PagingParams)`.
    #[derive(Debug, Clone, Copy)]
    pub struct PagingParams;

    /// [`time_budget`] as utoipa's route attribute takes it: `params(TimeBudgetParams)`.
    #[derive(Debug, Clone, Copy)]
    pub struct TimeBudgetParams;

    /// [`require_complete`] as utoipa's route attribute takes it: `params(RequireCompleteParams)`.
    #[derive(Debug, Clone, Copy)]
    pub struct RequireCompleteParams;

    /// Each list names where each of its parameters goes (the query or a header): the place
    /// utoipa offers is not asked.
    macro_rules! into_params {
        ($($ty:ident => $list:ident),*) => {$(
            impl utoipa::IntoParams for $ty {
                fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
                    $list()
                }
            }
        )*};
    }

    into_params!(PagingParams => paging, TimeBudgetParams => time_budget, RequireCompleteParams => require_complete);
}
