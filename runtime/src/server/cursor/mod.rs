//! Honest cursors (contract §2.5): signed, versioned, bound to query and credential, expiring.
//!
//! A cursor is `c1.<kid>.<payload>.<mac>` (see [`token`] for the envelope). Its payload
//! holds the issue and expiry times, the [`QueryBinding`] fingerprint (resource, filters,
//! ordering), the [`Credential`] fingerprint (name, permission epoch, tenants), the
//! snapshot of the traversal and the position (the last keyset key returned), and marks for a
//! traversal one page of which was read from stale state, or was incomplete for a reason other
//! than the next page (contract §6: such a traversal backs no evidence).
//!
//! Verification ([`CursorClaims::verify`]) refuses, in this order:
//! oversized / malformed / unknown key / altered → `INVALID_CURSOR` (400);
//! another credential or changed permissions → `CURSOR_CREDENTIAL_MISMATCH` (403);
//! other filters, ordering or resource → `CURSOR_QUERY_MISMATCH` (400);
//! past its expiry → `CURSOR_EXPIRED` (410, with a `restart` continuation).
//! An expired cursor is never turned into a fresh traversal.
//!
//! Most services use cursors through [`PageRequest`](crate::server::page_request::PageRequest).

mod clock;
mod codec;
mod fingerprint;
mod keys;
pub mod token;

use crate::contract::continuation::Continuation;
use crate::contract::params::CURSOR;
use crate::server::credential::Credential;
use crate::server::problem::{Problem, ProblemCode};

pub use clock::rfc3339;
pub(crate) use clock::{after, now_ms, rfc3339_rounded_up, unix_ms};
pub(crate) use codec::{Reader, Writer};
pub use fingerprint::{QueryBinding, canonical_filters, filters_fingerprint};
pub use keys::{CursorKeys, KEY_LEN, KeyError, MAX_KEY_ID_LEN};
pub use token::TokenError;

/// The version prefix of cursors.
pub const CURSOR_VERSION: &str = "c1";

/// The default longest token (cursor or evidence) accepted, in bytes. Longer ones are
/// refused before any decoding.
pub const DEFAULT_MAX_TOKEN_LEN: usize = 4096;

/// The verified contents of a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorClaims {
    issued_at_ms: u64,
    expires_at_ms: u64,
    query: [u8; 32],
    credential: [u8; 32],
    snapshot: Option<String>,
    position: String,
    stale: bool,
    partial: bool,
    whole: bool,
}

/// The byte that marks a cursor of a traversal a page of which was read from stale state.
const STALE_MARK: u8 = 0x53;

/// The byte that marks a cursor of a traversal a page of which was incomplete for a reason
/// other than the next page. Written after [`STALE_MARK`] when both hold.
const PARTIAL_MARK: u8 = 0x50;

/// The byte that marks a cursor of a traversal attested whole and current up to it: every page
/// that led to it ended with [`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence)
/// finding nothing missing but the next page. Written last. A cursor without it leads to pages
/// that get no evidence, so that a page whose handler skipped the check counts as partial.
const WHOLE_MARK: u8 = 0x57;

/// Why a cursor was refused. Converts into the problem of contract §2.5.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CursorError {
    /// Oversized, malformed, signed by an unknown key, or altered.
    Invalid(TokenError),
    /// Issued for another credential, or the credential's permissions changed since.
    CredentialMismatch,
    /// Issued for other filters, another ordering or another resource.
    QueryMismatch,
    /// Past its expiry.
    Expired {
        /// The snapshot of the traversal, when it had one.
        snapshot: Option<String>,
    },
    /// The service no longer retains the traversal's snapshot.
    SnapshotGone {
        /// The snapshot.
        snapshot: String,
    },
}

impl CursorError {
    /// The problem response: status and code as in contract §2.5.
    pub fn to_problem(&self) -> Problem {
        match self {
            CursorError::Invalid(why) => {
                // A key retired since the cursor was issued: the client sent it as it was given,
                // and only a new traversal goes on.
                let advice = match why {
                    TokenError::UnknownKey | TokenError::Unreadable => {
                        "If this server returned it, its key has been retired since: start a new traversal; its \
                         pages cannot be combined with a new one's."
                    }
                    // A client that lost or mangled its cursor has one way on besides: a new
                    // traversal, which it must not merge with the pages it read.
                    _ => {
                        "Send a cursor exactly as the server returned it, or leave `cursor` out to start a new \
                         traversal from the first page; its pages cannot be combined with this one's."
                    }
                };
                Problem::new(
                    ProblemCode::InvalidCursor,
                    format!("The cursor was refused: {}. {advice}", why.describe()),
                )
                .with_parameter(CURSOR)
                .with_cause(why.cause())
            }
            CursorError::CredentialMismatch => Problem::new(
                ProblemCode::CursorCredentialMismatch,
                "The cursor was issued to another credential, or this credential's permissions changed since. \
                 Start a new traversal with this credential.",
            ),
            CursorError::QueryMismatch => Problem::new(
                ProblemCode::CursorQueryMismatch,
                "The cursor belongs to another query: another list (resource or route), other filters or \
                 another ordering. Send it to the list that gave it, with the same filters and ordering as the \
                 first page (page_size may change), or start a new traversal.",
            ),
            CursorError::Expired { snapshot } => {
                let reason = match snapshot {
                    Some(snapshot) => format!("cursor of snapshot {snapshot} expired"),
                    None => "cursor expired".to_owned(),
                };
                Problem::new(
                    ProblemCode::CursorExpired,
                    "The cursor expired. Start a new traversal; results from this one cannot be combined with a new one.",
                )
                .with_continuation(&Continuation::Restart { reason })
            }
            CursorError::SnapshotGone { snapshot } => Problem::new(
                ProblemCode::CursorExpired,
                "The snapshot this cursor belongs to is no longer retained. Start a new traversal; results from \
                 this one cannot be combined with a new one.",
            )
            .with_continuation(&Continuation::Restart { reason: format!("snapshot {snapshot} is no longer retained") }),
        }
    }
}

impl From<CursorError> for Problem {
    fn from(error: CursorError) -> Problem {
        error.to_problem()
    }
}

impl std::fmt::Display for CursorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let problem = self.to_problem();
        write!(f, "{}: {}", problem.code(), problem.detail())
    }
}

impl std::error::Error for CursorError {}

impl CursorClaims {
    /// Claims for the page after `position`, issued now and valid for `ttl`.
    pub fn new(
        query: &QueryBinding,
        credential: &Credential,
        snapshot: Option<&str>,
        position: &str,
        ttl: std::time::Duration,
    ) -> CursorClaims {
        let now = now_ms();
        CursorClaims::at(query.fingerprint(), credential.fingerprint(), snapshot, position, now, after(now, ttl))
    }

    /// Claims from precomputed fingerprints and explicit times (milliseconds since the epoch).
    pub fn at(
        query_fingerprint: [u8; 32],
        credential_fingerprint: [u8; 32],
        snapshot: Option<&str>,
        position: &str,
        issued_at_ms: u64,
        expires_at_ms: u64,
    ) -> CursorClaims {
        CursorClaims {
            issued_at_ms,
            expires_at_ms,
            query: query_fingerprint,
            credential: credential_fingerprint,
            snapshot: snapshot.map(str::to_owned),
            position: position.to_owned(),
            stale: false,
            partial: false,
            whole: false,
        }
    }

    /// The same claims, for a traversal a page of which was read from stale state (a lagging
    /// replica, index or cache): no later page of it gets evidence (contract §6).
    pub fn read_stale_state(mut self) -> CursorClaims {
        self.stale = true;
        self
    }

    /// True when a page of the traversal was read from stale state.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The same claims, for a traversal a page of which was incomplete for a reason other than
    /// the next page (a source unavailable, a limit, a permission filter): the pages after it
    /// do not make the inventory whole, so no later page of it gets evidence (contract §6).
    pub fn read_partial_page(mut self) -> CursorClaims {
        self.partial = true;
        self
    }

    /// True when a page of the traversal was incomplete for a reason other than the next page.
    pub fn is_partial(&self) -> bool {
        self.partial
    }

    /// The same claims, attested whole and current up to here by
    /// [`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence): the pages
    /// this cursor leads to may get evidence (contract §6). Claims without it never lead to any.
    pub fn attested_whole(mut self) -> CursorClaims {
        self.whole = true;
        self
    }

    /// The same claims without the attestation: for a page found partial after its cursor was
    /// attested (the fault layer's faults).
    #[cfg(feature = "faults")]
    pub(crate) fn without_attestation(mut self) -> CursorClaims {
        self.whole = false;
        self
    }

    /// True when every page of the traversal up to this cursor was attested whole and current.
    pub fn is_attested_whole(&self) -> bool {
        self.whole
    }

    /// Signs the claims with the ring's active key.
    pub fn encode(&self, keys: &CursorKeys) -> String {
        let mut w = Writer::with_capacity(96 + self.position.len() + self.snapshot.as_ref().map_or(0, String::len));
        w.u64(self.issued_at_ms)
            .u64(self.expires_at_ms)
            .digest(&self.query)
            .digest(&self.credential)
            .opt_str(self.snapshot.as_deref())
            .str(&self.position);
        // Written only when they hold, in this order.
        if self.stale {
            w.mark(STALE_MARK);
        }
        if self.partial {
            w.mark(PARTIAL_MARK);
        }
        if self.whole {
            w.mark(WHOLE_MARK);
        }
        token::seal(keys, CURSOR_VERSION, &w.finish())
    }

    /// Authenticates and decodes a cursor, without checking its bindings or expiry.
    pub fn decode(keys: &CursorKeys, cursor: &str, max_len: usize) -> Result<CursorClaims, CursorError> {
        let claims = token::open_with(keys, CURSOR_VERSION, cursor, max_len, |payload| {
            let mut r = Reader::new(payload);
            let claims = CursorClaims {
                issued_at_ms: r.u64()?,
                expires_at_ms: r.u64()?,
                query: r.digest()?,
                credential: r.digest()?,
                snapshot: r.opt_str()?.map(str::to_owned),
                position: r.str()?.to_owned(),
                stale: r.optional_mark(STALE_MARK),
                partial: r.optional_mark(PARTIAL_MARK),
                whole: r.optional_mark(WHOLE_MARK),
            };
            r.is_done().then_some(claims)
        })
        .map_err(CursorError::Invalid)?;
        // Signed by us yet unreadable: only a token of another format version could be.
        claims.ok_or(CursorError::Invalid(TokenError::Unreadable))
    }

    /// Checks the bindings and expiry of decoded claims at `now_ms`.
    pub fn check(
        &self,
        query_fingerprint: &[u8; 32],
        credential_fingerprint: &[u8; 32],
        now_ms: u64,
    ) -> Result<(), CursorError> {
        if &self.credential != credential_fingerprint {
            return Err(CursorError::CredentialMismatch);
        }
        if &self.query != query_fingerprint {
            return Err(CursorError::QueryMismatch);
        }
        if now_ms >= self.expires_at_ms {
            return Err(CursorError::Expired { snapshot: self.snapshot.clone() });
        }
        Ok(())
    }

    /// [`CursorClaims::decode`] then [`CursorClaims::check`] at the current time.
    pub fn verify(
        keys: &CursorKeys,
        cursor: &str,
        query: &QueryBinding,
        credential: &Credential,
    ) -> Result<CursorClaims, CursorError> {
        let claims = CursorClaims::decode(keys, cursor, DEFAULT_MAX_TOKEN_LEN)?;
        claims.check(&query.fingerprint(), &credential.fingerprint(), now_ms())?;
        Ok(claims)
    }

    /// The snapshot of the traversal, when it freezes one.
    pub fn snapshot(&self) -> Option<&str> {
        self.snapshot.as_deref()
    }

    /// The position: the keyset key of the last item already returned.
    pub fn position(&self) -> &str {
        &self.position
    }

    /// When it was issued (milliseconds since the Unix epoch).
    pub fn issued_at_ms(&self) -> u64 {
        self.issued_at_ms
    }

    /// When it expires (milliseconds since the Unix epoch).
    pub fn expires_at_ms(&self) -> u64 {
        self.expires_at_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (CursorKeys, QueryBinding, Credential) {
        (
            CursorKeys::ephemeral(),
            QueryBinding::new("service_accounts", "id ascending").with_filter("owner", "none"),
            Credential::new("north", 3).with_tenant("north"),
        )
    }

    #[test]
    fn a_cursor_round_trips_its_snapshot_and_position() {
        let (keys, query, who) = fixture();
        let cursor = CursorClaims::new(&query, &who, Some("1042"), "sa-000042", std::time::Duration::from_secs(60))
            .encode(&keys);
        assert!(cursor.starts_with("c1.eph-"));
        let claims = CursorClaims::verify(&keys, &cursor, &query, &who).unwrap();
        assert_eq!(claims.snapshot(), Some("1042"));
        assert_eq!(claims.position(), "sa-000042");
        assert!(claims.expires_at_ms() > claims.issued_at_ms());
    }

    #[test]
    fn the_stale_mark_round_trips_and_a_current_cursor_is_unchanged() {
        let (keys, query, who) = fixture();
        let ttl = std::time::Duration::from_secs(60);
        let current = CursorClaims::at(query.fingerprint(), who.fingerprint(), Some("7"), "a", 1, 2);
        let stale = current.clone().read_stale_state();
        let read = |claims: &CursorClaims| CursorClaims::decode(&keys, &claims.encode(&keys), 4096).unwrap();
        assert!(!read(&current).is_stale());
        assert!(read(&stale).is_stale());
        assert_eq!(read(&stale), stale);
        // The mark adds one byte to the payload and nothing else: a current traversal's cursor
        // is the one of before the mark existed.
        let payload = |claims: &CursorClaims| claims.encode(&keys).split('.').nth(2).unwrap().len();
        assert!(payload(&stale) > payload(&current));
        let fresh = CursorClaims::new(&query, &who, None, "a", ttl);
        assert!(!CursorClaims::verify(&keys, &fresh.encode(&keys), &query, &who).unwrap().is_stale());
    }

    #[test]
    fn the_partial_and_whole_marks_round_trip_alone_and_after_the_stale_one() {
        let (keys, query, who) = fixture();
        let current = CursorClaims::at(query.fingerprint(), who.fingerprint(), Some("7"), "a", 1, 2);
        let read = |claims: &CursorClaims| CursorClaims::decode(&keys, &claims.encode(&keys), 4096).unwrap();
        let partial = current.clone().read_partial_page();
        let both = current.clone().read_stale_state().read_partial_page();
        assert_eq!((read(&current).is_partial(), read(&current).is_stale()), (false, false));
        assert_eq!((read(&partial).is_partial(), read(&partial).is_stale()), (true, false));
        assert_eq!((read(&both).is_partial(), read(&both).is_stale()), (true, true));
        assert_eq!(read(&both), both);
        let whole = current.clone().attested_whole();
        assert_eq!((read(&current).is_attested_whole(), read(&whole).is_attested_whole()), (false, true));
        assert_eq!(read(&whole), whole);
        let all = current.clone().read_stale_state().read_partial_page().attested_whole();
        assert_eq!(read(&all), all);
        // A mark out of order, or twice, is a payload no server of this version wrote: signed, not read.
        let mut w = Writer::default();
        w.u64(1).u64(2).digest(&query.fingerprint()).digest(&who.fingerprint()).opt_str(None).str("a");
        w.mark(PARTIAL_MARK).mark(STALE_MARK);
        let cursor = token::seal(&keys, CURSOR_VERSION, &w.finish());
        assert_eq!(CursorClaims::decode(&keys, &cursor, 4096), Err(CursorError::Invalid(TokenError::Unreadable)));
    }

    #[test]
    fn each_binding_failure_maps_to_its_problem() {
        let (keys, query, who) = fixture();
        let ttl = std::time::Duration::from_secs(60);
        let cursor = CursorClaims::new(&query, &who, None, "a", ttl).encode(&keys);
        let other_query = query.clone().with_filter("tenant", "north");
        let err = CursorClaims::verify(&keys, &cursor, &other_query, &who).unwrap_err();
        assert_eq!(err, CursorError::QueryMismatch);
        assert_eq!(err.to_problem().status(), 400);
        let revoked = Credential::new("north", 4).with_tenant("north");
        let err = CursorClaims::verify(&keys, &cursor, &query, &revoked).unwrap_err();
        assert_eq!(err.to_problem().code(), &ProblemCode::CursorCredentialMismatch);
        assert_eq!(err.to_problem().status(), 403);
        let claims = CursorClaims::decode(&keys, &cursor, DEFAULT_MAX_TOKEN_LEN).unwrap();
        let err = claims.check(&query.fingerprint(), &who.fingerprint(), claims.expires_at_ms()).unwrap_err();
        let problem = err.to_problem();
        assert_eq!((problem.status(), problem.code()), (410, &ProblemCode::CursorExpired));
        assert_eq!(problem.extension("continuation").unwrap()["kind"], "restart");
    }

    #[test]
    fn an_evidence_shaped_token_is_not_a_cursor() {
        let (keys, ..) = fixture();
        let token = token::seal(&keys, "ev1", b"whatever");
        assert_eq!(
            CursorClaims::decode(&keys, &token, DEFAULT_MAX_TOKEN_LEN),
            Err(CursorError::Invalid(TokenError::Malformed))
        );
    }
}
