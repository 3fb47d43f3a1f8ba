//! Body and query extractors that answer client mistakes with problem responses.
//!
//! axum's own `Json` and `Query` reject bad input with plain-text bodies; these answer
//! with RFC 9457 problems (`INVALID_BODY`, `INVALID_REQUEST`) so every refusal of a
//! completeness service has the same machine-readable shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, TRANSFER_ENCODING};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, Uri};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::contract::media::declares_json;
use crate::server::problem::{Problem, ProblemCode};

/// A JSON request body; a body that is unreadable, too large, not JSON or does not
/// fit `T` is a 400 `INVALID_BODY` problem (413 when over the body limit), whose detail names
/// the member that does not fit (`count: invalid value ...`). A body not declared
/// as JSON is refused, as axum's `Json` refuses it: 415 `INVALID_BODY` ([`declared_json`]); a
/// missing (empty) body is the 400, whatever its `Content-Type`. A `T` that is a struct (also
/// in `Option` or a newtype) is read from a JSON object only: serde's derive also takes its
/// members as an array in field order (`["name", 7]`), which no schema of the struct allows, so
/// such a body is refused too. At the top of the body only: a struct nested in it, or an enum
/// (serde reads one through whatever JSON it is given), is read as serde reads it.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = Problem;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = json_body_bytes(request, state).await?;
        let does_not_fit =
            |detail: String| Problem::new(ProblemCode::InvalidBody, format!("The request body does not fit: {detail}"));
        if is_struct::<T>() && bytes.trim_ascii_start().starts_with(b"[") {
            return Err(does_not_fit("it is a JSON array, and this route takes a JSON object".to_owned()));
        }
        let mut reader = serde_json::Deserializer::from_slice(&bytes);
        let value =
            serde_path_to_error::deserialize(&mut reader).map_err(|error| match error.path().iter().next() {
                None => does_not_fit(error.into_inner().to_string()),
                Some(_) => does_not_fit(format!("{}: {}", error.path(), error.inner())),
            })?;
        reader.end().map_err(|error| does_not_fit(error.to_string()))?;
        Ok(JsonBody(value))
    }
}

/// True when `T` deserializes as a struct (through newtype wrappers and `Option`): what its
/// `Deserialize` asks of a deserializer first, read by one that answers nothing. (An enum or a
/// type that reads any JSON, `serde_json::Value`, asks for no struct: it is read as serde reads it.)
fn is_struct<T: DeserializeOwned>() -> bool {
    /// The first thing asked: whether it was a struct.
    #[derive(Debug)]
    struct Asked(bool);
    impl std::fmt::Display for Asked {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("shape read")
        }
    }
    impl std::error::Error for Asked {}
    impl serde::de::Error for Asked {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Asked(false)
        }
    }
    /// A deserializer that answers only what it was asked for.
    struct Shape;
    impl<'de> Deserializer<'de> for Shape {
        type Error = Asked;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
            Err(Asked(false))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Asked> {
            Err(Asked(true))
        }
        fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Asked> {
            visitor.visit_newtype_struct(self)
        }
        fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Asked> {
            visitor.visit_some(self)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
            unit_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    matches!(T::deserialize(Shape), Err(Asked(true)))
}

/// The bytes of a request body that is to be read as JSON: an unreadable body is the
/// `INVALID_BODY` problem with the status axum chose (413 over the limit), a body there but not
/// declared as JSON the 415 ([`declared_json`]). An empty body passes, whatever its
/// `Content-Type`: it is missing, which the caller's parse answers with its 400.
pub(crate) async fn json_body_bytes<S: Send + Sync>(request: Request, state: &S) -> Result<Bytes, Problem> {
    let declared = declared_json(request.headers());
    let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
        Problem::new(ProblemCode::InvalidBody, format!("The request body could not be read: {rejection}"))
            .with_status(rejection.status().as_u16())
    })?;
    if !bytes.is_empty() {
        declared?;
    }
    Ok(bytes)
}

/// Refuses a request body not declared as JSON: `Content-Type: application/json`, or another
/// `application/*+json` type, with any parameters but a `charset` other than UTF-8 (JSON is
/// UTF-8, and the body is read so). A body sent as another type, or with no
/// `Content-Type`, is the 415 `INVALID_BODY` problem rather than read as JSON anyway: a
/// browser sends a `text/plain` form to another site without asking first, so a route that
/// reads any body as JSON can be driven from another site with the user's cookies. Nor is a
/// body read as another than the client declared: one with two `Content-Type` fields (which
/// one was meant is not ours to guess), a `Content-Encoding` other than `identity` or a
/// `Transfer-Encoding` other than `chunked` (this reader decodes none, and would read the coded
/// bytes as JSON) is refused the same way.
pub fn declared_json(headers: &HeaderMap) -> Result<(), Problem> {
    let unsupported = |detail: String| {
        Problem::new(ProblemCode::InvalidBody, detail).with_status(StatusCode::UNSUPPORTED_MEDIA_TYPE.as_u16())
    };
    if headers.get_all(CONTENT_TYPE).iter().nth(1).is_some() {
        return Err(unsupported(
            "The request declares its body's media type twice (two `Content-Type` fields); send one, \
             `Content-Type: application/json`."
                .to_owned(),
        ));
    }
    // `chunked` frames the body and the HTTP server removes it; any other transfer coding
    // (`gzip, chunked`) would be left on the bytes, as a content coding is.
    for (field, plain) in [(CONTENT_ENCODING, "identity"), (TRANSFER_ENCODING, "chunked")] {
        let codings = headers.get_all(&field).iter().flat_map(|value| value.as_bytes().split(|b| *b == b','));
        if let Some(coding) = codings
            .map(|coding| String::from_utf8_lossy(coding).trim().to_owned())
            .find(|coding| !coding.is_empty() && !coding.eq_ignore_ascii_case(plain))
        {
            let field = if field == CONTENT_ENCODING { "Content-Encoding" } else { "Transfer-Encoding" };
            return Err(unsupported(format!(
                "The request body is sent with `{field}: {coding}`, which this server does not decode; send it as plain JSON."
            )));
        }
    }
    let declared = headers.get(CONTENT_TYPE).map(|value| value.to_str().unwrap_or("(not text)"));
    if let Some(declared) = declared.filter(|declared| declares_json(declared)) {
        // JSON is UTF-8 (RFC 8259 section 8.1): a body declared in another charset would be
        // read as UTF-8 all the same, its text not the one the client meant.
        return match charset(declared) {
            Some(charset) if !charset.eq_ignore_ascii_case("utf-8") => Err(unsupported(format!(
                "The request body is declared `charset={charset}`; JSON is read as UTF-8: send it in UTF-8, as \
                 `Content-Type: application/json`."
            ))),
            _ => Ok(()),
        };
    }
    let sent = declared.map_or("without a `Content-Type`".to_owned(), |value| format!("as `{value}`"));
    Err(unsupported(format!(
        "The request body must be JSON, sent as `Content-Type: application/json`; it was sent {sent}."
    )))
}

/// The `charset` parameter of a `Content-Type` value, unquoted, when it has one.
fn charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches('"'))
    })
}

/// A JSON object whose members all have distinct names: a member named twice is an error.
///
/// serde_json's `Map` keeps the last of two members of one name, so `{"ids": [a], "ids": [b]}`
/// would act on `b` alone; a route that changes things must not guess which was meant. Read a
/// body as `JsonBody<JsonObject>`, or `serde_json::from_slice::<JsonObject>`. Objects nested in
/// it are checked too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonObject(pub Map<String, Value>);

impl<'de> Deserialize<'de> for JsonObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::contract::members::distinct_members(deserializer).map(JsonObject)
    }
}

/// Refuses a query string a decoder would have to guess at, with a 400 `INVALID_REQUEST`
/// problem: a `%` not followed by two hex digits, or escapes that decode to bytes that are not
/// UTF-8 (`%FF`). axum's `Query` reads the first as literal text and turns the second into
/// U+FFFD, so a search for a term the client never sent would be answered as if it had been.
/// The framework's extractors and [`QueryParams`] check this; a handler reading the query with
/// axum's `Query` can call it first.
pub fn check_query_encoding(uri: &Uri) -> Result<(), Problem> {
    uri.query().map_or(Ok(()), crate::server::query::check_encoding)
}

/// Path parameters deserialized into `T`, as axum's `Path` reads them; a segment that does not
/// parse (`/accounts/abc` for a `u32`) is a 400 `INVALID_REQUEST` problem naming it, where
/// axum's rejection is plain text. A route whose template lacks the parameters `T` reads is the
/// service's mistake, not the client's: the 500 `INTERNAL` problem.
#[derive(Debug, Clone, Copy, Default)]
pub struct PathParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for PathParams<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(path) => Ok(PathParams(path.0)),
            // axum tells the client's segments from the route's own mistakes by status.
            Err(rejection) if rejection.status().is_client_error() => Err(Problem::new(
                ProblemCode::InvalidRequest,
                format!("The path does not fit: {}", rejection.body_text()),
            )),
            Err(rejection) => Err(Problem::new(
                ProblemCode::Internal,
                format!("The route does not give the path parameters its handler reads: {}", rejection.body_text()),
            )),
        }
    }
}

/// Query parameters deserialized into `T`; unreadable values (and a query string
/// [`check_query_encoding`] refuses) are a 400 `INVALID_REQUEST` problem, naming the parameter
/// (`parameter`) when the fault is one parameter's: given twice, unknown to a
/// `deny_unknown_fields` struct, or missing.
///
/// A query that `T` cannot read because of one of the framework's own parameters gets that
/// parameter's own problem, as its extractor gives it, whichever extractor runs first: `cursor`
/// given twice is `INVALID_CURSOR`, `page_size` given twice or unreadable `INVALID_PAGE_SIZE`,
/// `time_budget_ms` `INVALID_TIME_BUDGET`, `require_complete` its `INVALID_REQUEST` (contract
/// §5.4). So a filter struct may name them (to allow them under `deny_unknown_fields`) with
/// any type.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        check_query_encoding(&parts.uri)?;
        match axum::extract::Query::<T>::try_from_uri(&parts.uri) {
            Ok(query) => Ok(QueryParams(query.0)),
            Err(rejection) => {
                crate::server::page_request::query_parameters(&parts.uri)?;
                crate::server::budget::requested_in_query(&parts.uri)?;
                crate::server::require::RequireComplete::from_parts(parts)?;
                Err(query_does_not_fit(&rejection))
            }
        }
    }
}

/// The problem of a query string `T` cannot read: serde's words (without axum's preface), and
/// the parameter at fault when there is one: the one the path leads to (a value that does not
/// fit, a parameter unknown to a `deny_unknown_fields` struct), or the one serde names at the
/// top (given twice, missing).
fn query_does_not_fit(rejection: &axum::extract::rejection::QueryRejection) -> Problem {
    use std::error::Error;
    /// What axum's `Query` fails with: serde's error, with the path to where it stopped.
    type Unread = serde_path_to_error::Error<serde::de::value::Error>;
    let unread = std::iter::successors(rejection.source(), |cause| (*cause).source())
        .find_map(|cause| cause.downcast_ref::<Unread>());
    let Some(unread) = unread else {
        return Problem::new(
            ProblemCode::InvalidRequest,
            format!("The query string does not fit: {}", rejection.body_text()),
        );
    };
    let said = unread.inner().to_string();
    let problem = Problem::new(ProblemCode::InvalidRequest, format!("The query string does not fit: {unread}"));
    if unread.path().iter().next().is_some() {
        return problem.with_parameter(&unread.path().to_string());
    }
    // serde's own words for a field given twice or missing: "duplicate field `x`".
    let named = ["duplicate field `", "missing field `"]
        .iter()
        .find_map(|preface| said.strip_prefix(preface))
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name);
    match named {
        Some(name) => problem.with_parameter(name),
        None => problem,
    }
}
