//! The signed token format shared by cursors and evidence: `<version>.<kid>.<payload>.<mac>`.
//!
//! `payload` and `mac` are base64url without padding; `mac` is HMAC-SHA256 (32 bytes) over
//! the ASCII text `<version>.<kid>.<payload>`, so the version (which differs between
//! cursors and evidence) and the key id are authenticated too. Verification checks the
//! length first, then the MAC in constant time, and only then decodes the payload.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::Mac;

use super::keys::CursorKeys;

/// Length of the encoded MAC: 32 bytes in unpadded base64.
const MAC_B64_LEN: usize = 43;

/// Why a token was refused before its contents were looked at, or, signed by this server, could
/// not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// Longer than the configured maximum.
    Oversized,
    /// Not `<version>.<kid>.<payload>.<mac>`, wrong version, or bad base64.
    Malformed,
    /// Signed with a key id the ring does not hold (e.g. a retired key).
    UnknownKey,
    /// The MAC does not match: the token was altered or forged.
    BadSignature,
    /// Signed by this server, yet its contents cannot be read: a token of another format, one
    /// another version of the service issued (a fault of the servers', not the client's).
    Unreadable,
}

impl TokenError {
    /// One word for the log ([`Problem::with_cause`](crate::Problem::with_cause)):
    /// `oversized`, `malformed`, `unknown_key`, `altered` or `unreadable`.
    pub fn cause(self) -> &'static str {
        match self {
            TokenError::Oversized => "oversized",
            TokenError::Malformed => "malformed",
            TokenError::UnknownKey => "unknown_key",
            TokenError::BadSignature => "altered",
            TokenError::Unreadable => "unreadable",
        }
    }

    /// A short phrase for problem details.
    pub fn describe(self) -> &'static str {
        match self {
            TokenError::Oversized => "it is longer than the longest token this server accepts",
            TokenError::Malformed => "it is not a token this server issues",
            TokenError::UnknownKey => {
                "it was signed with a key this server does not accept (one retired, or another server's)"
            }
            TokenError::BadSignature => "its signature does not match (altered or forged)",
            TokenError::Unreadable => "this service signed it but cannot read it (another version of it issued it)",
        }
    }
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "token refused: {}", self.describe())
    }
}

impl std::error::Error for TokenError {}

/// Signs `payload` with the active key: `<version>.<kid>.<payload>.<mac>`.
pub(crate) fn seal(keys: &CursorKeys, version: &str, payload: &[u8]) -> String {
    let (kid, mut mac) = keys.active();
    let mut token = String::with_capacity(version.len() + kid.len() + payload.len() * 4 / 3 + MAC_B64_LEN + 8);
    token.push_str(version);
    token.push('.');
    token.push_str(kid);
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(payload, &mut token);
    mac.update(token.as_bytes());
    let tag = mac.finalize().into_bytes();
    token.push('.');
    URL_SAFE_NO_PAD.encode_string(tag, &mut token);
    token
}

/// Verifies a token of `version` and returns its payload bytes.
#[cfg(test)]
pub(crate) fn open(keys: &CursorKeys, version: &str, token: &str, max_len: usize) -> Result<Vec<u8>, TokenError> {
    open_with(keys, version, token, max_len, |payload| payload.to_vec())
}

/// Payloads up to this many bytes are decoded on the stack.
const STACK_PAYLOAD: usize = 512;

/// Verifies a token of `version` and hands its payload bytes to `read`.
pub(crate) fn open_with<T>(
    keys: &CursorKeys,
    version: &str,
    token: &str,
    max_len: usize,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, TokenError> {
    if token.len() > max_len {
        return Err(TokenError::Oversized);
    }
    let (signed, mac_b64) = token.rsplit_once('.').ok_or(TokenError::Malformed)?;
    let rest = signed.strip_prefix(version).and_then(|r| r.strip_prefix('.')).ok_or(TokenError::Malformed)?;
    let (kid, payload_b64) = rest.split_once('.').ok_or(TokenError::Malformed)?;
    if mac_b64.len() != MAC_B64_LEN || payload_b64.contains('.') {
        return Err(TokenError::Malformed);
    }
    let mut tag = [0u8; 33];
    let tag_len = URL_SAFE_NO_PAD.decode_slice(mac_b64, &mut tag).map_err(|_| TokenError::Malformed)?;
    let mut mac = keys.mac_for(kid).ok_or(TokenError::UnknownKey)?;
    mac.update(signed.as_bytes());
    mac.verify_slice(&tag[..tag_len]).map_err(|_| TokenError::BadSignature)?;
    if base64::decoded_len_estimate(payload_b64.len()) <= STACK_PAYLOAD {
        let mut buffer = [0u8; STACK_PAYLOAD];
        let len = URL_SAFE_NO_PAD.decode_slice(payload_b64, &mut buffer).map_err(|_| TokenError::Malformed)?;
        Ok(read(&buffer[..len]))
    } else {
        let payload = URL_SAFE_NO_PAD.decode(payload_b64).map_err(|_| TokenError::Malformed)?;
        Ok(read(&payload))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(spec: &str) -> CursorKeys {
        CursorKeys::parse(spec).unwrap()
    }

    const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
    const K2: &str = "k2:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA";

    #[test]
    fn a_sealed_token_opens_to_its_payload() {
        let keys = ring(K1);
        let token = seal(&keys, "t1", b"hello");
        assert!(token.starts_with("t1.k1."));
        assert_eq!(open(&keys, "t1", &token, 4096).unwrap(), b"hello");
    }

    #[test]
    fn another_version_prefix_is_refused() {
        let keys = ring(K1);
        let token = seal(&keys, "t1", b"hello");
        assert_eq!(open(&keys, "t2", &token, 4096), Err(TokenError::Malformed));
        let renamed = token.replacen("t1.", "t2.", 1);
        assert_eq!(open(&keys, "t2", &renamed, 4096), Err(TokenError::BadSignature));
    }

    #[test]
    fn a_token_of_a_removed_key_is_refused_as_unknown_key() {
        let old = ring(K1);
        let token = seal(&old, "t1", b"x");
        let rotated = ring(&format!("{K2},{K1}"));
        assert_eq!(open(&rotated, "t1", &token, 4096).unwrap(), b"x");
        let retired = ring(K2);
        assert_eq!(open(&retired, "t1", &token, 4096), Err(TokenError::UnknownKey));
    }

    #[test]
    fn a_key_with_the_same_id_but_another_secret_does_not_verify() {
        let token = seal(&ring(K1), "t1", b"x");
        let impostor = ring("k1:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA");
        assert_eq!(open(&impostor, "t1", &token, 4096), Err(TokenError::BadSignature));
    }

    #[test]
    fn an_oversized_token_is_refused_before_parsing() {
        let keys = ring(K1);
        let huge = "t1.k1.".to_owned() + &"A".repeat(1 << 20);
        assert_eq!(open(&keys, "t1", &huge, 4096), Err(TokenError::Oversized));
    }
}
