//! Page size and cursor handling of the inventory (interim: to be replaced by the runtime's `PageRequest`).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use completeness::{Continuation, CursorBinding, CursorContract, Problem, ProblemCode, Warning};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::auth::Caller;
use super::clock::{now_ms, rfc3339};
use super::db::{Snapshot, snapshot_label};

const MAX_CURSOR_LEN: usize = 4096;

/// The validated page size and the verified position of a request.
#[derive(Debug, Clone)]
pub struct Paging {
    /// `page_size` as sent.
    pub requested: Option<u64>,
    /// The size used.
    pub applied: u32,
    /// `PAGE_SIZE_REDUCED` when clamped.
    pub warning: Option<Warning>,
    /// Snapshot and last id of the previous page.
    pub resume: Option<(Snapshot, String)>,
}

#[derive(Serialize, Deserialize)]
struct Claims {
    s: Snapshot,
    after: String,
    q: String,
    c: String,
    exp: i64,
}

/// Signs and verifies cursors.
pub struct Cursors {
    key: [u8; 32],
    ttl: Duration,
}

impl Cursors {
    /// A signer with `key` issuing cursors valid for `ttl`.
    pub fn new(key: [u8; 32], ttl: Duration) -> Cursors {
        Cursors { key, ttl }
    }

    fn mac(&self, data: &[u8]) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(data);
        mac.finalize().into_bytes().to_vec()
    }

    /// A cursor for the page after `after` at `snapshot`, and its contract.
    pub fn issue(&self, binding: &str, caller: &Caller, snapshot: Snapshot, after: &str) -> (String, CursorContract) {
        let exp = now_ms() + self.ttl.as_millis() as i64;
        let claims = Claims {
            s: snapshot,
            after: after.to_owned(),
            q: binding.to_owned(),
            c: format!("{}:{}", caller.name, caller.epoch),
            exp,
        };
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap_or_default());
        let tag = URL_SAFE_NO_PAD.encode(self.mac(payload.as_bytes()));
        let contract = CursorContract {
            freezes_snapshot: true,
            expires_at: rfc3339(exp / 1000),
            invalidated_by: vec![CursorBinding::Filters, CursorBinding::Ordering, CursorBinding::Credential],
        };
        (format!("c0.{payload}.{tag}"), contract)
    }

    /// Reads `page_size` and `cursor`.
    pub fn read(
        &self,
        page_size: Option<&str>,
        cursor: Option<&str>,
        binding: &str,
        caller: &Caller,
        default: u32,
        max: u32,
    ) -> Result<Paging, Problem> {
        let (requested, applied, warning) = match page_size {
            None => (None, default, None),
            Some(text) => match text.parse::<i64>() {
                Ok(n) if n > 0 => {
                    let n = n as u64;
                    if n > u64::from(max) {
                        (Some(n), max, Some(Warning::page_size_reduced(n, u64::from(max))))
                    } else {
                        (Some(n), n as u32, None)
                    }
                }
                _ => {
                    return Err(Problem::new(
                        ProblemCode::InvalidPageSize,
                        format!("page_size must be a positive integer, got '{text}'"),
                    ));
                }
            },
        };
        let resume = match cursor {
            None => None,
            Some(text) => Some(self.verify(text, binding, caller)?),
        };
        Ok(Paging { requested, applied, warning, resume })
    }

    fn verify(&self, text: &str, binding: &str, caller: &Caller) -> Result<(Snapshot, String), Problem> {
        let invalid =
            || Problem::new(ProblemCode::InvalidCursor, "The cursor was refused: it is not one this server issued.");
        if text.len() > MAX_CURSOR_LEN {
            return Err(invalid());
        }
        let rest = text.strip_prefix("c0.").ok_or_else(invalid)?;
        let (payload, tag) = rest.split_once('.').ok_or_else(invalid)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid())?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        mac.update(payload.as_bytes());
        mac.verify_slice(&tag).map_err(|_| invalid())?;
        let claims: Claims = URL_SAFE_NO_PAD
            .decode(payload)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or_else(invalid)?;
        if claims.c != format!("{}:{}", caller.name, caller.epoch) {
            return Err(Problem::new(
                ProblemCode::CursorCredentialMismatch,
                "The cursor was issued to another credential, or its permissions changed since.",
            ));
        }
        if claims.q != binding {
            return Err(Problem::new(ProblemCode::CursorQueryMismatch, "The cursor belongs to other filters."));
        }
        if claims.exp < now_ms() {
            return Err(Problem::new(ProblemCode::CursorExpired, "The cursor expired. Start a new traversal.")
                .with_continuation(&Continuation::Restart {
                    reason: format!("cursor of snapshot {} expired", snapshot_label(claims.s)),
                }));
        }
        Ok((claims.s, claims.after))
    }
}
