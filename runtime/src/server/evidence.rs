//! Evidence for destructive actions (contract §6).
//!
//! A complete inventory response carries `evidence`: a signed token (`ev1.<kid>.<payload>.<mac>`,
//! same key ring and envelope as cursors, another version prefix) binding the resource,
//! the applied filters, the snapshot, the credential fingerprint and an expiry. Only
//! [`EvidenceIssuer::attach`] (and [`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence))
//! make one, and only for a complete response read from current state: an incomplete one, or
//! one with a stale warning (`STALE_INDEX`, or a service's own `#[warning(stale)]`), never
//! carries evidence.
//!
//! A destructive action extracts [`RequireEvidence<T>`]: the JSON body with its `evidence`
//! member verified. The handler then checks what the evidence covers
//! ([`Evidence::require_resource`], [`Evidence::require_filters`]), that the snapshot is
//! still retained ([`Evidence::ensure_retained`]), that every target was in the inventory
//! ([`Evidence::check_targets`]) and, at execution, that none changed
//! ([`Evidence::targets_changed`]) — all before changing anything.
//!
//! | situation | status | code |
//! | --- | --- | --- |
//! | no evidence | 428 | `EVIDENCE_REQUIRED` |
//! | forged, wrong resource or filters | 412 | `EVIDENCE_INVALID` |
//! | expired or snapshot gone | 412 | `EVIDENCE_EXPIRED` |
//! | other credential (or its permissions changed) | 412 | `EVIDENCE_CREDENTIAL_MISMATCH` |
//! | an id not in the inventory at that snapshot | 412 | `TARGET_NOT_IN_EVIDENCE` |
//! | a target no longer matches now | 409 | `TARGET_CHANGED` |

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::reason::Reason;
use crate::server::config::{CompletenessConfig, CompletenessState};
use crate::server::credential::Credential;
use crate::server::cursor::{
    CURSOR_VERSION, Reader, TokenError, Writer, after, canonical_filters, filters_fingerprint, now_ms, rfc3339, token,
};
use crate::server::extract::{JsonObject, json_body_bytes};
use crate::server::problem::{Problem, ProblemCode};

/// The version prefix of evidence tokens.
pub const EVIDENCE_VERSION: &str = "ev1";

/// The body member that carries the evidence token.
pub const EVIDENCE_MEMBER: &str = "evidence";

/// Issues evidence on complete inventory responses for the request's credential.
///
/// Extracting it needs the settings in the router state ([`CompletenessState`]) and a
/// [`Credential`] (401 without one).
#[derive(Debug, Clone)]
pub struct EvidenceIssuer {
    config: CompletenessConfig,
    credential: Credential,
}

impl EvidenceIssuer {
    /// An issuer for `credential`.
    pub fn new(config: CompletenessConfig, credential: Credential) -> EvidenceIssuer {
        EvidenceIssuer { config, credential }
    }

    /// Attaches evidence binding the block's `scope` (resource, filters, snapshot), the
    /// credential and an expiry. Returns false, attaching nothing, when the block is
    /// incomplete, carries a stale warning, names no resource, or the token would exceed the
    /// configured length; and on a later page of a traversal (`page.resumed`), whose earlier
    /// pages this issuer cannot see (contract §6: no evidence on a page of a traversal another
    /// page of which was partial): a paginated route attaches it with
    /// [`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence), whose
    /// cursor says.
    ///
    /// Attach it last: a reason or a stale warning pushed afterwards removes the evidence again.
    pub fn attach<R: Reason>(&self, completeness: &mut Completeness<R>) -> bool {
        if completeness.page().is_some_and(|page| page.resumed == Some(true)) {
            return false;
        }
        attach(&self.config, &self.credential, completeness)
    }

    /// [`EvidenceIssuer::attach`] on an envelope.
    pub fn attach_to<T, R: Reason>(&self, envelope: &mut Envelope<T, R>) -> bool {
        self.attach(&mut envelope.completeness)
    }
}

impl<S: CompletenessState> FromRequestParts<S> for EvidenceIssuer {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let config = state.completeness();
        let credential = Credential::from_parts(parts, &config)?;
        Ok(EvidenceIssuer::new(config, credential))
    }
}

pub(crate) fn attach<R: Reason>(
    config: &CompletenessConfig,
    credential: &Credential,
    completeness: &mut Completeness<R>,
) -> bool {
    if !completeness.is_complete() || completeness.scope().resource.is_empty() {
        return false;
    }
    let scope = completeness.scope();
    let now = now_ms();
    let mut w = Writer::with_capacity(256);
    w.u64(now)
        .u64(after(now, config.evidence_ttl()))
        .digest(&credential.fingerprint())
        .str(credential.name())
        .str(&scope.resource)
        .opt_str(scope.snapshot.as_deref())
        .str(&canonical_filters(&scope.filters));
    let token = token::seal(config.keys(), EVIDENCE_VERSION, &w.finish());
    token.len() <= config.max_token_len() && completeness.attach_evidence(token)
}

/// A verified evidence token: what inventory it proves complete, for whom, until when.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    resource: String,
    filters: Map<String, Value>,
    snapshot: Option<String>,
    credential: String,
    issued_at_ms: u64,
    expires_at_ms: u64,
}

impl Evidence {
    /// Verifies `token` for `credential`: 412 `EVIDENCE_INVALID` when forged, altered,
    /// oversized or signed by a retired key; 412 `EVIDENCE_CREDENTIAL_MISMATCH` for
    /// another credential or changed permissions; 412 `EVIDENCE_EXPIRED` past its expiry;
    /// 428 `EVIDENCE_REQUIRED` when empty.
    pub fn verify(config: &CompletenessConfig, token: &str, credential: &Credential) -> Result<Evidence, Problem> {
        if token.is_empty() {
            return Err(evidence_required());
        }
        let decoded = token::open_with(config.keys(), EVIDENCE_VERSION, token, config.max_token_len(), |payload| {
            let mut r = Reader::new(payload);
            let issued_at_ms = r.u64()?;
            let expires_at_ms = r.u64()?;
            let bound_credential = r.digest()?;
            let name = r.str()?.to_owned();
            let resource = r.str()?.to_owned();
            let snapshot = r.opt_str()?.map(str::to_owned);
            let filters: Map<String, Value> = serde_json::from_str(r.str()?).ok()?;
            let evidence = Evidence { resource, filters, snapshot, credential: name, issued_at_ms, expires_at_ms };
            r.is_done().then_some((bound_credential, evidence))
        })
        .map_err(|why| {
            // A cursor where evidence belongs: both are this server's tokens, so say which it is.
            let cursor = why == TokenError::Malformed && token.split('.').next() == Some(CURSOR_VERSION);
            let said = if cursor {
                "it is a cursor (a page's `next_cursor`), not evidence: send the `evidence` of the last page of a \
                 complete inventory"
            } else {
                why.describe()
            };
            forged(said).with_cause(why.cause())
        })?;
        let Some((bound_credential, evidence)) = decoded else {
            return Err(forged(TokenError::Unreadable.describe()).with_cause(TokenError::Unreadable.cause()));
        };
        if bound_credential != credential.fingerprint() {
            return Err(Problem::new(
                ProblemCode::EvidenceCredentialMismatch,
                "The evidence was issued to another credential, or this credential's permissions changed since. \
                 Take the inventory again with this credential.",
            ));
        }
        if now_ms() >= evidence.expires_at_ms {
            return Err(evidence_expired(format!("The evidence expired at {}.", rfc3339(evidence.expires_at_ms))));
        }
        Ok(evidence)
    }

    /// The inventoried resource.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The filters the inventory applied.
    pub fn filters(&self) -> &Map<String, Value> {
        &self.filters
    }

    /// SHA-256 of the canonical form of [`Evidence::filters`].
    pub fn filters_fingerprint(&self) -> [u8; 32] {
        filters_fingerprint(&self.filters)
    }

    /// The snapshot the inventory was read at, when it had one.
    pub fn snapshot(&self) -> Option<&str> {
        self.snapshot.as_deref()
    }

    /// The name of the credential it was issued to (always the verifying credential).
    pub fn credential_name(&self) -> &str {
        &self.credential
    }

    /// When it was issued (milliseconds since the Unix epoch).
    pub fn issued_at_ms(&self) -> u64 {
        self.issued_at_ms
    }

    /// When it expires (milliseconds since the Unix epoch).
    pub fn expires_at_ms(&self) -> u64 {
        self.expires_at_ms
    }

    /// 412 `EVIDENCE_INVALID` unless it inventories `resource`.
    pub fn require_resource(&self, resource: &str) -> Result<(), Problem> {
        if self.resource == resource {
            Ok(())
        } else {
            Err(forged(&format!("it covers '{}', not '{resource}'", self.resource)))
        }
    }

    /// 412 `EVIDENCE_INVALID` unless its filters are exactly `expected`.
    pub fn require_filters(&self, expected: &Map<String, Value>) -> Result<(), Problem> {
        if canonical_filters(&self.filters) == canonical_filters(expected) {
            Ok(())
        } else {
            Err(forged(&format!(
                "it covers the filters {}, this action needs {}",
                canonical_filters(&self.filters),
                canonical_filters(expected)
            )))
        }
    }

    /// 412 `EVIDENCE_INVALID` unless filter `name` was applied with exactly `value`.
    pub fn require_filter(&self, name: &str, value: impl Into<Value>) -> Result<(), Problem> {
        let value = value.into();
        match self.filters.get(name) {
            Some(applied) if *applied == value => Ok(()),
            _ => Err(forged(&format!("its inventory was not filtered by {name} = {value}"))),
        }
    }

    /// 412 `EVIDENCE_EXPIRED` when its snapshot is no longer retained (`retained` is
    /// asked only when the evidence has a snapshot).
    pub fn ensure_retained(&self, retained: impl FnOnce(&str) -> bool) -> Result<(), Problem> {
        match &self.snapshot {
            Some(snapshot) if !retained(snapshot) => Err(evidence_expired(format!(
                "The snapshot {snapshot} of this evidence is no longer retained; take the inventory again."
            ))),
            _ => Ok(()),
        }
    }

    /// 412 `TARGET_NOT_IN_EVIDENCE` listing (in `targets`) every target for which
    /// `in_inventory` is false: ids that were not in the inventory at the snapshot.
    pub fn check_targets<'a, I>(&self, targets: I, mut in_inventory: impl FnMut(&str) -> bool) -> Result<(), Problem>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let missing: Vec<&str> = targets.into_iter().filter(|id| !in_inventory(id)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Problem::new(
            ProblemCode::TargetNotInEvidence,
            format!(
                "{} target(s) were not in the inventory this evidence proves complete{}; nothing was changed.",
                missing.len(),
                self.snapshot.as_deref().map(|s| format!(" at snapshot {s}")).unwrap_or_default()
            ),
        )
        .with_targets(&missing))
    }

    /// The 409 `TARGET_CHANGED` problem listing (in `targets`) the targets that no
    /// longer match the inventory now.
    pub fn targets_changed<'a, I: IntoIterator<Item = &'a str>>(targets: I) -> Problem {
        let changed: Vec<&str> = targets.into_iter().collect();
        Problem::new(
            ProblemCode::TargetChanged,
            format!(
                "{} target(s) changed since the inventory was taken; nothing was changed. Take the inventory again.",
                changed.len()
            ),
        )
        .with_targets(&changed)
    }
}

fn evidence_required() -> Problem {
    Problem::new(
        ProblemCode::EvidenceRequired,
        "This action needs the evidence token of a complete inventory that contains every target.",
    )
}

fn evidence_expired(detail: String) -> Problem {
    Problem::new(ProblemCode::EvidenceExpired, detail)
}

fn forged(why: &str) -> Problem {
    Problem::new(ProblemCode::EvidenceInvalid, format!("The evidence was refused: {why}."))
}

/// A JSON request body whose `evidence` member holds verified [`Evidence`]; the other
/// members are deserialized into `T`.
///
/// Refusals: a body (not an empty one) not declared as JSON → 415 `INVALID_BODY` (as for
/// [`JsonBody`](crate::server::extract::JsonBody)); a body that is not a JSON object, whose
/// `evidence` is not a string, or whose other members do not fit `T` → 400 `INVALID_BODY`; no body, or no (or a null or empty) `evidence` → 428 `EVIDENCE_REQUIRED`;
/// then the refusals of [`Evidence::verify`]. It needs the settings in the router state and a
/// [`Credential`].
#[derive(Debug, Clone)]
pub struct RequireEvidence<T> {
    /// The verified evidence.
    pub evidence: Evidence,
    /// The rest of the body.
    pub body: T,
}

impl<S: CompletenessState, T: DeserializeOwned> FromRequest<S> for RequireEvidence<T> {
    type Rejection = Problem;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let (parts, body) = request.into_parts();
        let config = state.completeness();
        let credential = Credential::from_parts(&parts, &config)?;
        let observed = parts.extensions.get::<crate::server::observe::EvidenceSlot>().cloned();
        let bytes = json_body_bytes(Request::from_parts(parts, body), state).await?;
        // No body is no evidence (contract §6: 428), whatever its `Content-Type`: what the
        // client lacks first is the token, and the problem says how to get one.
        if bytes.is_empty() {
            return Err(evidence_required());
        }
        // Distinct members: with `ids` given twice, which ones the evidence is for is a guess.
        let JsonObject(mut object) = serde_json::from_slice(&bytes).map_err(|error| {
            Problem::new(
                ProblemCode::InvalidBody,
                format!("The request body must be a JSON object with distinct members: {error}"),
            )
        })?;
        let token = match object.remove(EVIDENCE_MEMBER) {
            None | Some(Value::Null) => return Err(evidence_required()),
            Some(Value::String(token)) => token,
            Some(_) => {
                return Err(Problem::new(
                    ProblemCode::InvalidBody,
                    "`evidence` must be a string: the token of an inventory response.",
                ));
            }
        };
        let body: T = serde_json::from_value(Value::Object(object)).map_err(|error| {
            // serde names only `T`'s members; `evidence` was taken out before, so say so.
            Problem::new(ProblemCode::InvalidBody, format!("The request body besides `evidence` does not fit: {error}"))
        })?;
        let evidence = Evidence::verify(&config, &token, &credential)?;
        if let Some(observed) = observed {
            observed.verified(&evidence);
        }
        Ok(RequireEvidence { evidence, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::reason::{MorePagesAvailable, SourceUnavailable};
    use crate::contract::scope::Scope;
    use crate::server::cursor::CursorKeys;
    use crate::{Envelope, StandardReason};

    fn issuer() -> EvidenceIssuer {
        let config = CompletenessConfig::new(CursorKeys::ephemeral());
        EvidenceIssuer::new(config, Credential::new("admin", 1).with_all_tenants())
    }

    fn scope() -> Scope {
        Scope::new("service_accounts", "all").with_snapshot("7").with_filter("owner", "none")
    }

    /// A later page of a traversal gets no evidence from the issuer, which cannot see whether
    /// an earlier page was partial (contract §6); a first page, or a response that is no page, does.
    #[test]
    fn a_resumed_page_gets_no_evidence_from_the_issuer() {
        let issuer = issuer();
        let page = |resumed: bool| crate::PageInfo {
            returned: 1,
            requested_size: None,
            applied_size: 10,
            ordering: "id ascending".to_owned(),
            snapshot: Some("7".to_owned()),
            cursor: None,
            resumed: Some(resumed),
        };
        let mut last: Envelope<u32, StandardReason> = Envelope::complete(vec![1], scope());
        last.completeness.set_page(Some(page(true)));
        assert!(!issuer.attach_to(&mut last));
        assert_eq!(last.completeness.evidence(), None);
        let mut only: Envelope<u32, StandardReason> = Envelope::complete(vec![1], scope());
        only.completeness.set_page(Some(page(false)));
        assert!(issuer.attach_to(&mut only));
        let mut unpaged: Envelope<u32, StandardReason> = Envelope::complete(vec![1], scope());
        assert!(issuer.attach_to(&mut unpaged));
    }

    #[test]
    fn an_incomplete_block_never_gets_evidence() {
        let issuer = issuer();
        let mut partial: Envelope<u32, StandardReason> =
            Envelope::incomplete(vec![1], scope(), SourceUnavailable::new("legacy"));
        assert!(!issuer.attach_to(&mut partial));
        assert_eq!(partial.completeness.evidence(), None);
        let mut empty_partial: Envelope<u32, StandardReason> =
            Envelope::incomplete(vec![], scope(), MorePagesAvailable::new("c"));
        assert!(!issuer.attach_to(&mut empty_partial));
        assert_eq!(empty_partial.completeness.evidence(), None);
    }

    #[test]
    fn evidence_is_dropped_when_a_reason_is_added_afterwards() {
        let issuer = issuer();
        let mut envelope: Envelope<u32, StandardReason> = Envelope::complete(vec![], scope());
        assert!(issuer.attach_to(&mut envelope));
        assert!(envelope.completeness.evidence().is_some());
        envelope.completeness.push_reason(SourceUnavailable::new("legacy"));
        assert_eq!(envelope.completeness.evidence(), None);
    }

    #[test]
    fn a_complete_block_read_from_stale_state_never_gets_evidence() {
        let issuer = issuer();
        let mut stale: Envelope<u32, StandardReason> = Envelope::complete(vec![], scope());
        stale.completeness.push_warning(crate::contract::warning::StaleIndex::new("audit"));
        assert!(!issuer.attach_to(&mut stale));
        assert_eq!(stale.completeness.evidence(), None);
        assert!(stale.is_complete());
    }

    #[test]
    fn evidence_round_trips_resource_filters_snapshot_and_credential() {
        let issuer = issuer();
        let mut envelope: Envelope<u32, StandardReason> = Envelope::complete(vec![3], scope());
        assert!(issuer.attach_to(&mut envelope));
        let token = envelope.completeness.evidence().unwrap();
        let evidence = Evidence::verify(&issuer.config, token, &issuer.credential).unwrap();
        assert_eq!(evidence.resource(), "service_accounts");
        assert_eq!(evidence.snapshot(), Some("7"));
        assert_eq!(evidence.filters()["owner"], "none");
        assert_eq!(evidence.credential_name(), "admin");
        assert_eq!(evidence.filters_fingerprint(), filters_fingerprint(&scope().filters));
        assert!(evidence.require_filters(&scope().filters).is_ok());
        assert_eq!(evidence.require_resource("teams").unwrap_err().code(), &ProblemCode::EvidenceInvalid);
    }

    #[test]
    fn no_evidence_without_a_resource_or_beyond_the_token_limit() {
        let issuer = issuer();
        let mut nameless: Envelope<u32, StandardReason> = Envelope::complete(vec![], Scope::new("", "all"));
        assert!(!issuer.attach_to(&mut nameless));
        let mut wide: Envelope<u32, StandardReason> =
            Envelope::complete(vec![], scope().with_filter("q", "x".repeat(5000)));
        assert!(!issuer.attach_to(&mut wide), "a token the verifier would refuse is not issued");
        assert_eq!(wide.completeness.evidence(), None);
    }
}
