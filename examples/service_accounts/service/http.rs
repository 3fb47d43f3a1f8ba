//! Request plumbing shared by the handlers: strict query and body parsing, error mapping.

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode, Uri};
use completeness::{Problem, ProblemCode};
use serde::de::DeserializeOwned;

use super::db::{Snapshot, StoreError, snapshot_label};
use super::refusals::refusal_saying;
use super::store::Store;

/// The query pairs of `uri`, refusing parameters outside `allowed` and repeated ones:
/// a misspelt filter must not silently widen the scope.
pub fn query(uri: &Uri, allowed: &[&str]) -> Result<Vec<(String, String)>, Problem> {
    pairs(uri, allowed, false)
}

/// [`query`] for a read. A `cursor` on a read that does not take one (it never pages) is the
/// 400 `CURSOR_QUERY_MISMATCH` of contract §2.5, as the framework answers it, not an unknown
/// parameter: the cursor cannot be one of this route's pages.
pub fn read_query(uri: &Uri, allowed: &[&str]) -> Result<Vec<(String, String)>, Problem> {
    pairs(uri, allowed, true)
}

fn pairs(uri: &Uri, allowed: &[&str], read: bool) -> Result<Vec<(String, String)>, Problem> {
    let pairs: Vec<(String, String)> = match uri.query() {
        None => Vec::new(),
        Some(_) => {
            completeness::extract::check_query_encoding(uri)?;
            axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
                .map_err(|e| {
                    Problem::new(ProblemCode::InvalidRequest, format!("the query string could not be read: {e}"))
                })?
                .0
        }
    };
    for (i, (key, _)) in pairs.iter().enumerate() {
        if read && key == "cursor" && !allowed.contains(&"cursor") {
            return Err(Problem::new(
                ProblemCode::CursorQueryMismatch,
                "this route never pages and reads no cursor: the cursor is not one of its pages; ask without \
                 `cursor` for the whole answer",
            )
            .with_parameter(key));
        }
        if !allowed.contains(&key.as_str()) {
            let accepted = if allowed.is_empty() {
                "this route takes no query parameters".to_owned()
            } else {
                format!("this route accepts {}", allowed.join(", "))
            };
            return Err(Problem::new(
                ProblemCode::InvalidRequest,
                format!("unknown query parameter '{key}'; {accepted}"),
            )
            .with_parameter(key));
        }
        if pairs[..i].iter().any(|(k, _)| k == key) {
            return Err(Problem::new(ProblemCode::InvalidRequest, format!("query parameter '{key}' is repeated"))
                .with_parameter(key));
        }
    }
    Ok(pairs)
}

/// The value of `key` among `pairs`.
pub fn param<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Parses a JSON body strictly; any mistake is a 400 `INVALID_BODY` problem.
pub fn body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, Problem> {
    serde_json::from_slice(bytes).map_err(|e| {
        Problem::new(ProblemCode::InvalidBody, format!("the request body is not what this route expects: {e}"))
    })
}

/// Parses a JSON body that must be one object, as the OpenAPI document declares it, into `T`:
/// serde's derived `Deserialize` also takes a struct's members as an array in field order
/// (`["name", "tenant"]`), which the document does not allow, and a member named twice is
/// refused ([`JsonObject`](completeness::JsonObject)). Any mistake is a 400 `INVALID_BODY` problem.
pub fn object_body<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, Problem> {
    let completeness::JsonObject(object) = body(bytes)?;
    serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| {
        Problem::new(ProblemCode::InvalidBody, format!("the request body is not what this route expects: {e}"))
    })
}

/// Refuses a body on a write that takes none (a delete, a revocation): what it asked for
/// (`{"dry_run": true}`, a condition) would be ignored while the write went ahead, so the write
/// is refused instead (400 `INVALID_BODY`), as a query parameter on a write is. An empty object,
/// `{}`, asks for nothing and passes, as no body does.
pub fn no_body(bytes: &Bytes) -> Result<(), Problem> {
    if bytes.is_empty() || body::<serde_json::Map<String, serde_json::Value>>(bytes)?.is_empty() {
        return Ok(());
    }
    Err(Problem::new(
        ProblemCode::InvalidBody,
        "this route takes no request body (what it acts on is in its path), and its members would be \
         ignored: send the request without one (or with `{}`); nothing was changed",
    ))
}

/// Refuses a write whose body is not declared as JSON (`completeness::extract::declared_json`:
/// `application/json`, as the OpenAPI document says, or another `application/*+json`), so a
/// body sent as another media type, or with no `Content-Type` at all, is answered 415
/// `INVALID_BODY` rather than read as JSON anyway. `has_body` is false for a request that
/// carries no body, which needs no `Content-Type`.
pub fn json_content_type(headers: &HeaderMap, has_body: bool) -> Result<(), Problem> {
    if !has_body && !headers.contains_key(CONTENT_TYPE) {
        return Ok(());
    }
    completeness::extract::declared_json(headers)
}

/// How long a client is told to wait (`Retry-After`, seconds) before retrying a request the
/// database could not serve.
pub const OUTAGE_RETRY_AFTER_SECS: u64 = 5;

/// Whether `snapshot` is still retained, as a resumed cursor or an evidence token asks: only a
/// pruned snapshot is `false` (an expiry); a store that cannot answer is its problem (an outage,
/// 503), never taken for an expiry.
pub async fn snapshot_retained(store: &Store, snapshot: Snapshot) -> Result<bool, Problem> {
    match store.check_retained(snapshot).await {
        Ok(()) => Ok(true),
        Err(StoreError::SnapshotGone(_)) => Ok(false),
        Err(other) => Err(store_problem(other)),
    }
}

/// What a client is told of a write whose COMMIT the database did not confirm.
const OUTCOME_UNKNOWN: &str = "The database did not confirm the change in time: it may have been made, or not. \
     Read what it would have changed before sending it again.";

/// The problem member that marks a write whose outcome is unknown (`"outcome": "unknown"`).
const OUTCOME: &str = "outcome";

/// True for the problem of a write the database may have applied ([`store_problem`] of
/// [`StoreError::OutcomeUnknown`]), which a client must not be told changed nothing.
pub fn outcome_unknown(problem: &Problem) -> bool {
    problem.extension(OUTCOME).is_some_and(|outcome| outcome == "unknown")
}

/// The code of a write refused because its account is archived (409).
pub const ACCOUNT_ARCHIVED: &str = "ACCOUNT_ARCHIVED";

/// The problem a store failure is answered with. A database that cannot be reached is a 503
/// `SERVICE_UNAVAILABLE` with `Retry-After`, and so is a write whose COMMIT it did not confirm,
/// which says `"outcome": "unknown"` (it may have been made); any other failure a 500 `INTERNAL`; neither says
/// more than that to the client (the driver's text names databases, hosts and users, and is
/// the same for every request, whoever sends it): the cause is logged at error level instead,
/// inside the request's span; an outage's once, when it begins, by the store's
/// [`Health`](super::store::watched::Health), and at debug level for each request.
pub fn store_problem(error: StoreError) -> Problem {
    match error {
        StoreError::NotFound => Problem::new(ProblemCode::NotFound, "No such service account."),
        StoreError::Archived => Problem::new(
            ProblemCode::custom(ACCOUNT_ARCHIVED),
            "This account is archived: it is kept as it was archived, and no list shows it. An archived account \
             is neither given an owner nor deleted; nothing was changed.",
        )
        .with_title("Account archived")
        .with_status(409),
        StoreError::PermissionsChanged => Problem::new(
            ProblemCode::Forbidden,
            "This credential's permissions changed while the request was waiting; nothing was changed. Send it \
             again with the permissions it has now.",
        ),
        StoreError::SnapshotGone(gone) => {
            let label = snapshot_label(gone.0);
            Problem::new(
                ProblemCode::CursorExpired,
                format!(
                    "Snapshot {label} is no longer retained. Start a new traversal; results from this one cannot be combined with a new one."
                ),
            )
            .with_continuation(&completeness::Continuation::Restart {
                reason: format!("snapshot {label} is no longer retained"),
            })
        }
        StoreError::OutcomeUnknown(cause) => {
            tracing::error!(error = %cause, "a write's COMMIT was not confirmed; answering 503, outcome unknown");
            refusal_saying(StatusCode::SERVICE_UNAVAILABLE, Some(OUTCOME_UNKNOWN))
                .with_extension(OUTCOME, "unknown")
                .with_retry_after(OUTAGE_RETRY_AFTER_SECS)
        }
        // The outage's beginning, end and cause are logged by the store's `Health`, once.
        StoreError::ReadOnly(cause) => {
            tracing::debug!(error = %cause, "the database takes no writes now (read-only: a failover?); answering 503");
            outage(
                "Its database takes no writes now (it turned read-only, as during a failover); reads are still served.",
            )
        }
        StoreError::Busy(cause) => {
            tracing::debug!(error = %cause, "every connection to the database is in use; answering 503");
            outage(POOL_EXHAUSTED)
        }
        error if error.is_outage() => {
            tracing::debug!(error = %error, "the database cannot be reached or did not answer in time; answering 503");
            outage("Its database cannot be reached or did not answer in time.")
        }
        error => {
            tracing::error!(error = %error, "the database failed; answering 500");
            Problem::new(ProblemCode::Internal, "The server failed; the cause is in its log.")
        }
    }
}

/// What a 503 of a replica whose pooled connections are all in use says happened.
pub const POOL_EXHAUSTED: &str = "Every one of this replica's connections to its database is in use.";

/// The 503 `SERVICE_UNAVAILABLE` of a database that cannot serve now, its detail followed by
/// `what` happened, with `Retry-After`. The wait is in the body too: a client that reads only
/// the problem (an MCP tool error carries the body, not the header) learns when to ask again.
/// Not on a write whose outcome is unknown, which is read back before it is sent again.
pub fn outage(what: &str) -> Problem {
    refusal_saying(StatusCode::SERVICE_UNAVAILABLE, Some(what))
        .with_retry_after(OUTAGE_RETRY_AFTER_SECS)
        .with_continuation(&completeness::Continuation::RetryAfter { seconds: OUTAGE_RETRY_AFTER_SECS })
}

/// The tenant named by a request, checked against the known tenants.
pub fn tenant_param(value: Option<&str>) -> Result<Option<String>, Problem> {
    match value {
        None => Ok(None),
        Some(t) if super::seed::TENANTS.contains(&t) => Ok(Some(t.to_owned())),
        Some(t) => Err(Problem::new(
            ProblemCode::InvalidRequest,
            format!("unknown tenant '{t}'; tenants are {}", super::seed::TENANTS.join(", ")),
        )
        .with_parameter("tenant")),
    }
}
