//! RFC 9457 problem responses with stable codes.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::continuation::Continuation;

macro_rules! problem_codes {
    ($($variant:ident => $code:literal, $status:literal, $title:literal;)*) => {
        /// A stable problem code. Programs branch on this, never on `detail`. Two codes are
        /// equal when their wire forms are.
        #[derive(Debug, Clone)]
        #[non_exhaustive]
        pub enum ProblemCode {
            $(
                #[doc = concat!("`", $code, "` (", stringify!($status), "): ", $title, ".")]
                $variant,
            )*
            /// A code of the service's own, written in its code ([`ProblemCode::custom`]): one
            /// of a bounded set, which the metrics count by name.
            Custom(&'static str),
            /// A code this version does not know (read, or built at run time).
            Other(String),
        }

        impl ProblemCode {
            /// Every code this version knows.
            pub const KNOWN: &'static [ProblemCode] = &[$(ProblemCode::$variant),*];

            /// The wire form.
            pub fn as_str(&self) -> &str {
                match self {
                    $(ProblemCode::$variant => $code,)*
                    ProblemCode::Custom(code) => code,
                    ProblemCode::Other(code) => code,
                }
            }

            /// The standard code written `code`, else `code` as one of the service's own; in a
            /// `const fn`.
            const fn standard_or_own(code: &'static str) -> ProblemCode {
                $(if completeness_codes::same_text(code, $code) {
                    return ProblemCode::$variant;
                })*
                ProblemCode::Custom(code)
            }

            /// Parses the wire form.
            pub fn parse(code: &str) -> ProblemCode {
                ProblemCode::standard(code).unwrap_or_else(|| ProblemCode::Other(code.to_owned()))
            }

            /// The standard code written `code`, if it is one.
            fn standard(code: &str) -> Option<ProblemCode> {
                match code {
                    $($code => Some(ProblemCode::$variant),)*
                    _ => None,
                }
            }

            /// The HTTP status this code is answered with (a default for one of the service's
            /// own or one this version does not know). A code equal to a standard one (two
            /// codes are equal when they are written alike) has its status, however it was built.
            pub fn status(&self) -> u16 {
                match self {
                    $(ProblemCode::$variant => $status,)*
                    ProblemCode::Custom(_) | ProblemCode::Other(_) => {
                        ProblemCode::standard(self.as_str()).map_or(400, |known| known.status())
                    }
                }
            }

            /// A short human title (the generic `Request failed` for one of the service's own
            /// or one this version does not know; as [`ProblemCode::status`], a code equal to a
            /// standard one has its title).
            pub fn title(&self) -> &'static str {
                match self {
                    $(ProblemCode::$variant => $title,)*
                    ProblemCode::Custom(_) | ProblemCode::Other(_) => {
                        ProblemCode::standard(self.as_str()).map_or("Request failed", |known| known.title())
                    }
                }
            }
        }
    };
}

problem_codes! {
    InvalidPageSize => "INVALID_PAGE_SIZE", 400, "Invalid page size";
    InvalidCursor => "INVALID_CURSOR", 400, "Invalid cursor";
    CursorQueryMismatch => "CURSOR_QUERY_MISMATCH", 400, "Cursor does not match the query";
    CursorCredentialMismatch => "CURSOR_CREDENTIAL_MISMATCH", 403, "Cursor belongs to another credential";
    CursorExpired => "CURSOR_EXPIRED", 410, "Cursor expired";
    InvalidTimeBudget => "INVALID_TIME_BUDGET", 400, "Invalid time budget";
    InvalidRequest => "INVALID_REQUEST", 400, "Invalid request";
    InvalidBody => "INVALID_BODY", 400, "Invalid request body";
    Unauthenticated => "UNAUTHENTICATED", 401, "Missing or unknown credential";
    Forbidden => "FORBIDDEN", 403, "Not allowed";
    NotFound => "NOT_FOUND", 404, "Not found";
    CompleteResultUnavailable => "COMPLETE_RESULT_UNAVAILABLE", 503, "A complete result is not available";
    EvidenceRequired => "EVIDENCE_REQUIRED", 428, "Evidence required";
    EvidenceInvalid => "EVIDENCE_INVALID", 412, "Evidence invalid";
    EvidenceExpired => "EVIDENCE_EXPIRED", 412, "Evidence expired";
    EvidenceCredentialMismatch => "EVIDENCE_CREDENTIAL_MISMATCH", 412, "Evidence belongs to another credential";
    TargetNotInEvidence => "TARGET_NOT_IN_EVIDENCE", 412, "Target not in evidence";
    TargetChanged => "TARGET_CHANGED", 409, "Target changed";
    Internal => "INTERNAL", 500, "Internal error";
}

/// The members a problem writes before its extensions, in order.
const HEAD_MEMBERS: [&str; 5] = ["type", "title", "status", "detail", "code"];

/// The extension members this crate writes, each with its adder below and its entry in the
/// problem's schema, so that a name is written in one place.
const PARAMETER: &str = "parameter";
const CONTINUATION: &str = "continuation";
const INCOMPLETE_REASONS: &str = "incomplete_reasons";
const TARGETS: &str = "targets";

/// Reports a change to a problem that was not taken (`member`, fixed by the contract or written
/// by the problem itself): a `WARN` event, so that the mistake is seen; never a panic in a request.
fn refused_member(code: &ProblemCode, member: &str) {
    #[cfg(feature = "axum")]
    tracing::warn!(
        target: crate::server::observe::TARGET,
        event = "problem_member_refused",
        code = %code,
        member,
        "a problem's head member cannot be set as an extension, nor a standard code's title changed; it was left as it was"
    );
    #[cfg(not(feature = "axum"))]
    let _ = (code, member);
}

crate::contract::one_code_per_text!(ProblemCode);

impl ProblemCode {
    /// A code of the service's own (`"SERVICE_UNAVAILABLE"`), or the standard one of that name.
    /// Written in the service's code, it is one of a bounded set: the metrics count it by its
    /// name, where a code read or built at run time ([`ProblemCode::parse`]) counts as `OTHER`.
    ///
    /// A code of its own is answered with status 400 and the title "Request failed" unless the
    /// problem says otherwise ([`Problem::with_status`], [`Problem::with_title`]): give a
    /// service outage its 503.
    ///
    /// # Panics
    ///
    /// When `code` is not SCREAMING_SNAKE_CASE (contract §7): its `type` would not be a URI, and
    /// a client branches on the code. Written as a constant
    /// (`const DRAINING: ProblemCode = ProblemCode::custom("SHARD_DRAINING");`), such a code is
    /// a compile error instead.
    pub const fn custom(code: &'static str) -> ProblemCode {
        assert!(
            completeness_codes::is_wire_code(code),
            "a problem code is SCREAMING_SNAKE_CASE, e.g. `SHARD_DRAINING`"
        );
        ProblemCode::standard_or_own(code)
    }

    /// True for a standard code or one of the service's own ([`ProblemCode::custom`]): a
    /// metric label can name it.
    pub fn is_bounded(&self) -> bool {
        matches!(self, ProblemCode::Custom(_)) || self.is_standard()
    }

    /// The refusals of a cursor (contract §2.5): what a traversal can meet when it resumes.
    pub const CURSOR_REFUSALS: &'static [ProblemCode] = &[
        ProblemCode::InvalidCursor,
        ProblemCode::CursorQueryMismatch,
        ProblemCode::CursorCredentialMismatch,
        ProblemCode::CursorExpired,
    ];

    /// The refusals of a destructive action's evidence or of its targets (contract §6): each is
    /// mended by a new complete inventory, never by retrying the same request.
    pub const EVIDENCE_REFUSALS: &'static [ProblemCode] = &[
        ProblemCode::EvidenceRequired,
        ProblemCode::EvidenceInvalid,
        ProblemCode::EvidenceExpired,
        ProblemCode::EvidenceCredentialMismatch,
        ProblemCode::TargetNotInEvidence,
        ProblemCode::TargetChanged,
    ];

    /// True for a code of the contract's table (contract §5.4), however it was built.
    pub fn is_standard(&self) -> bool {
        ProblemCode::KNOWN.iter().any(|known| known.as_str() == self.as_str())
    }

    /// True for a code of [`ProblemCode::CURSOR_REFUSALS`].
    pub fn refuses_cursor(&self) -> bool {
        Self::CURSOR_REFUSALS.contains(self)
    }

    /// True for a code of [`ProblemCode::EVIDENCE_REFUSALS`].
    pub fn refuses_evidence(&self) -> bool {
        Self::EVIDENCE_REFUSALS.contains(self)
    }
}

impl fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An RFC 9457 problem: `{type, title, status, detail, code, ...extensions}`.
///
/// Served as `application/problem+json`; `Retry-After` is sent when known.
#[derive(Debug, Clone)]
pub struct Problem {
    code: ProblemCode,
    status: u16,
    title: String,
    detail: String,
    /// Boxed: a problem travels in `Result`s, and a map (an `IndexMap` with serde_json's
    /// `preserve_order`) would make every one of them large.
    extensions: Box<Map<String, Value>>,
    retry_after: Option<u64>,
    /// Already observed (a strict refusal an entry point's `answer` emitted and counted): no
    /// part of the problem, so not compared, written or read.
    observed: bool,
    /// Which of the ways its code covers this refusal is, for the log ([`Problem::with_cause`]):
    /// no part of the problem either.
    cause: Option<&'static str>,
}

/// Two problems are equal when they say the same; whether one was observed is not said.
impl PartialEq for Problem {
    fn eq(&self, other: &Problem) -> bool {
        let Problem { code, status, title, detail, extensions, retry_after, observed: _, cause: _ } = self;
        (code, status, title, detail, extensions, retry_after)
            == (&other.code, &other.status, &other.title, &other.detail, &other.extensions, &other.retry_after)
    }
}

impl Problem {
    /// A problem with the code's status and title.
    pub fn new(code: ProblemCode, detail: impl Into<String>) -> Self {
        Problem {
            status: code.status(),
            title: code.title().to_owned(),
            code,
            detail: detail.into(),
            extensions: Box::default(),
            retry_after: None,
            observed: false,
            cause: None,
        }
    }

    /// Overrides the status with another error status (400 to 599). Any other status is not
    /// taken: a problem sent as a 2xx would read as a success, and as a 1xx or 3xx would not be
    /// read as an answer at all. The code's status stays, with a `WARN` event under the target
    /// `completeness` (`problem_status_refused`) so that the mistake is seen; never a panic in a
    /// request.
    pub fn with_status(mut self, status: u16) -> Self {
        if (400..=599).contains(&status) {
            self.status = status;
        } else {
            #[cfg(feature = "axum")]
            tracing::warn!(
                target: crate::server::observe::TARGET,
                event = "problem_status_refused",
                code = %self.code,
                status,
                kept = self.status,
                "a problem's status must be an error status (400 to 599); the code's own is sent"
            );
        }
        self
    }

    /// Overrides the title: for a code of the service's own, whose default title is the
    /// generic "Request failed". Keep one title per code (RFC 9457, section 3.1.3). A standard
    /// code's title is fixed by the contract (§5.4): it stays, with a `WARN` event
    /// (`problem_member_refused`).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        if self.code.is_standard() {
            refused_member(&self.code, "title");
        } else {
            self.title = title.into();
        }
        self
    }

    /// Adds an extension member. The members every problem writes first (`type`, `title`,
    /// `status`, `detail`, `code`) are not extensions: a second `code` or `status` would read,
    /// to a client keeping the last one, as another answer (contract §5.4 names each member
    /// once). Such a key is not taken, with a `WARN` event (`problem_member_refused`).
    pub fn with_extension(mut self, key: &str, value: impl Serialize) -> Self {
        if HEAD_MEMBERS.contains(&key) {
            refused_member(&self.code, key);
            return self;
        }
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.extensions.insert(key.to_owned(), value);
        self
    }

    /// Adds the `continuation` extension.
    pub fn with_continuation(self, continuation: &Continuation) -> Self {
        self.with_extension(CONTINUATION, continuation)
    }

    /// Adds the `parameter` extension: the query parameter, header or body member at fault.
    pub fn with_parameter(self, name: &str) -> Self {
        self.with_extension(PARAMETER, name)
    }

    /// Adds the `incomplete_reasons` extension of a `COMPLETE_RESULT_UNAVAILABLE` problem.
    pub(crate) fn with_incomplete_reasons(self, reasons: &[Value]) -> Self {
        self.with_extension(INCOMPLETE_REASONS, reasons)
    }

    /// Adds the `targets` extension of an evidence problem: the targets at fault.
    #[cfg(feature = "axum")]
    pub(crate) fn with_targets(self, targets: &[&str]) -> Self {
        self.with_extension(TARGETS, targets)
    }

    /// Names, for operators, which of the ways its code covers this refusal is: a word from a
    /// small set written in code (`unknown_key` or `altered` for an `INVALID_CURSOR`, `missing`
    /// or `unknown` for an `UNAUTHENTICATED`), so that a bad key rotation is not read as a
    /// client's noise. It goes into the refusal's event as its `cause`, never on the wire: the
    /// detail says it to the client.
    pub fn with_cause(mut self, cause: &'static str) -> Self {
        self.cause = Some(cause);
        self
    }

    /// What [`Problem::with_cause`] named.
    pub fn cause(&self) -> Option<&'static str> {
        self.cause
    }

    /// Sets `Retry-After` (seconds).
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The stable code.
    pub fn code(&self) -> &ProblemCode {
        &self.code
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The human detail.
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// The title.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// An extension member.
    pub fn extension(&self, key: &str) -> Option<&Value> {
        self.extensions.get(key)
    }

    /// The `parameter` extension: the query parameter, header or body member at fault, when
    /// the problem names one.
    pub fn parameter(&self) -> Option<&str> {
        self.extension(PARAMETER).and_then(Value::as_str)
    }

    /// The `targets` extension of `TARGET_NOT_IN_EVIDENCE` and `TARGET_CHANGED` (contract §6):
    /// the ids at fault, in the order sent; empty when the problem lists none. The ids a
    /// destructive client must read again before it asks again.
    ///
    /// ```
    /// use completeness_runtime::{Continuation, Problem};
    ///
    /// let refused: Problem = serde_json::from_value(serde_json::json!({
    ///     "type": "about:blank", "title": "Target changed", "status": 409, "code": "TARGET_CHANGED",
    ///     "detail": "sa-2 changed since the inventory.", "targets": ["sa-2"],
    ///     "continuation": {"kind": "restart", "reason": "take the inventory again"},
    /// }))
    /// .unwrap();
    /// assert_eq!(refused.targets(), ["sa-2"]);
    /// assert_eq!(refused.parameter(), None);
    /// assert!(matches!(refused.continuation(), Some(Continuation::Restart { .. })));
    /// ```
    pub fn targets(&self) -> Vec<&str> {
        let listed = self.extension(TARGETS).and_then(Value::as_array);
        listed.into_iter().flatten().filter_map(Value::as_str).collect()
    }

    /// The `continuation` extension, read: how to go on after this refusal (a restart, a wait);
    /// `None` when the problem carries none or one this version cannot read.
    pub fn continuation(&self) -> Option<Continuation> {
        self.extension(CONTINUATION).and_then(|value| Continuation::deserialize(value).ok())
    }

    /// `Retry-After`, in seconds, when known.
    pub fn retry_after(&self) -> Option<u64> {
        self.retry_after
    }

    /// True when a refusal of `status` may be sent again as it was, after its wait (contract §7):
    /// a 5xx, or a 429 that names a wait (`Retry-After`, or a `retry_after` continuation). Any
    /// other refusal says the request, as sent, will not be served.
    pub fn may_be_retried(status: u16, names_a_wait: bool) -> bool {
        (500..=599).contains(&status) || (status == 429 && names_a_wait)
    }

    /// The problem, marked as observed already (its event written and counted), so that an
    /// entry point that is handed it again does not observe it twice.
    #[cfg_attr(
        not(feature = "axum"),
        expect(dead_code, reason = "only an entry point (axum) marks a problem observed")
    )]
    pub(crate) fn observed(mut self) -> Problem {
        self.observed = true;
        self
    }

    /// True when the problem was observed already ([`Self::observed`]).
    #[cfg_attr(
        not(feature = "axum"),
        expect(dead_code, reason = "only an entry point (axum) marks a problem observed")
    )]
    pub(crate) fn is_observed(&self) -> bool {
        self.observed
    }

    /// The `type` URI: `urn:completeness:problem:` and the code in kebab case.
    pub fn type_uri(&self) -> String {
        format!("urn:completeness:problem:{}", self.code.as_str().to_ascii_lowercase().replace('_', "-"))
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status, self.code, self.detail)
    }
}

impl std::error::Error for Problem {}

impl Serialize for Problem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(HEAD_MEMBERS.len() + self.extensions.len()))?;
        let [kind, title, status, detail, code] = HEAD_MEMBERS;
        map.serialize_entry(kind, &self.type_uri())?;
        map.serialize_entry(title, &self.title)?;
        map.serialize_entry(status, &self.status)?;
        map.serialize_entry(detail, &self.detail)?;
        map.serialize_entry(code, self.code.as_str())?;
        for (key, value) in self.extensions.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// The OpenAPI schema of a problem (contract §5.4), for a route's error responses:
/// `responses((status = 503, content_type = "application/problem+json", body = Problem))`. The
/// head members are required; the runtime's extensions are named (`parameter`, `continuation`,
/// `incomplete_reasons`, `targets`); a service's own members are let through.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Problem {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Type};
        let text = |about: &str| ObjectBuilder::new().schema_type(Type::String).description(Some(about));
        // Any reason, with the details of its code: the endpoint's own declared set is not known
        // here, and a reader keeps what it does not know (§7).
        let reason = <crate::StandardReason as crate::schema::BlockSchemas>::reason_openapi();
        let [kind, title, status, detail, code] = HEAD_MEMBERS;
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("An RFC 9457 problem with a stable `code` (contract §5.4)."))
            .property(kind, text("`urn:completeness:problem:` and the code in kebab case.").pattern(Some("^urn:")))
            .property(title, text("The code's title."))
            .property(status, ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(400)).maximum(Some(599)))
            .property(detail, text("What went wrong, for people."))
            .property(
                code,
                text("The stable code; programs branch on it.").pattern(Some(crate::contract::schema::WIRE_CODE)),
            )
            .required(kind)
            .required(title)
            .required(status)
            .required(detail)
            .required(code)
            .property(PARAMETER, text("The query parameter, header or member at fault."))
            .property(CONTINUATION, {
                let mut continuation = Ref::from_schema_name("Continuation");
                continuation.description =
                    "How to go on after this refusal, since its caller reads no block (contract §5.3): a \
                     `retry_after` wait (also in `Retry-After`), a `retry_with_deadline` (ask again with a time \
                     budget of at least `minimum_seconds`, in seconds: `time_budget_ms` is in milliseconds; the \
                     same request again fails the same way), a `narrow_query`, or a `restart` of the traversal. \
                     Absent: a 5xx may be retried as any, with a wait and a number of attempts of the client's \
                     own (contract §7); a 4xx other than 429 is not sent again unchanged."
                        .to_owned();
                continuation
            })
            .property(
                INCOMPLETE_REASONS,
                ArrayBuilder::new()
                    .items(reason)
                    .description(Some("COMPLETE_RESULT_UNAVAILABLE: why the answer was incomplete (contract §5.3).")),
            )
            .property(
                TARGETS,
                ArrayBuilder::new()
                    .items(ObjectBuilder::new().schema_type(Type::String))
                    .description(Some("TARGET_NOT_IN_EVIDENCE, TARGET_CHANGED: the targets at fault (contract §6).")),
            )
            .additional_properties(Some(AdditionalProperties::FreeForm(true)))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Problem {
    fn name() -> std::borrow::Cow<'static, str> {
        "Problem".into()
    }
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        crate::contract::schema::add_component::<Continuation>(schemas);
        crate::schema::reason_components(schemas);
    }
}

impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // A problem naming `code` twice would read as either code: refused, as a response is.
        let mut object = crate::contract::members::distinct_members(deserializer)?;
        let code = match object.remove("code") {
            Some(Value::String(code)) => ProblemCode::parse(&code),
            _ => return Err(D::Error::custom("a problem needs a string `code`")),
        };
        let status = object
            .remove("status")
            .and_then(|s| s.as_u64())
            .and_then(|s| u16::try_from(s).ok())
            .ok_or_else(|| D::Error::custom("a problem needs a numeric `status`"))?;
        let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let title = text(object.remove("title"));
        let detail = text(object.remove("detail"));
        object.remove("type");
        let extensions = Box::new(object);
        Ok(Problem { code, status, title, detail, extensions, retry_after: None, observed: false, cause: None })
    }
}
