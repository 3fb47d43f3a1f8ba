//! `CursorKeys`: the HMAC key ring that signs cursors and evidence tokens.

use std::fmt;
use std::io::Read;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The length of every secret in the ring, in bytes.
pub const KEY_LEN: usize = 32;

/// The longest key id accepted.
pub const MAX_KEY_ID_LEN: usize = 16;

/// A key ring of HMAC-SHA256 secrets, each with a short id; the first key is the active one.
///
/// Tokens are signed with the active key and name its id, so any replica holding the
/// same ring verifies them without shared state. To rotate: put the new key first and
/// keep the old one after it while tokens signed by it may still be live; then remove it.
/// A token whose key id is not in the ring is refused.
///
/// Configuration format (see [`CursorKeys::parse`]): `kid:base64key[,kid2:base64key2...]`,
/// each key exactly 32 random bytes in base64 (standard or URL-safe, padding optional; one
/// byte repeated is refused as no secret), key ids of 1–16 characters from `A-Z a-z 0-9 _ -`.
///
/// ```
/// use completeness_runtime::cursor::CursorKeys;
///
/// let keys = CursorKeys::parse("k2:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8,k1:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA").unwrap();
/// assert_eq!(keys.active_key_id(), "k2");
/// assert_eq!(keys.key_ids().collect::<Vec<_>>(), ["k2", "k1"]);
/// ```
#[derive(Clone)]
pub struct CursorKeys {
    ring: Arc<Vec<RingKey>>,
}

struct RingKey {
    id: String,
    /// The HMAC state already keyed with the secret (cloned per token).
    mac: Hmac<Sha256>,
}

/// Why a key ring configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// The environment variable is not set (or not valid Unicode).
    MissingVariable(String),
    /// The configuration names no key.
    Empty,
    /// An entry is not `kid:base64key`.
    MalformedEntry(String),
    /// A key id is empty, too long or uses a character outside `A-Z a-z 0-9 _ -`.
    BadKeyId(String),
    /// Two keys share an id.
    DuplicateKeyId(String),
    /// A key is not base64 of exactly 32 bytes.
    BadSecret(String),
    /// A key is one byte repeated (32 zero bytes, say): a placeholder or a mistake, not a
    /// secret, and anyone who guesses it signs cursors and evidence this ring accepts.
    WeakSecret(String),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::MissingVariable(name) => {
                write!(f, "environment variable {name} is not set; expected `kid:base64key[,kid2:base64key2]`")
            }
            KeyError::Empty => f.write_str("the key ring configuration names no key"),
            KeyError::MalformedEntry(entry) => write!(f, "key ring entry '{entry}' is not `kid:base64key`"),
            KeyError::BadKeyId(id) => {
                write!(f, "key id '{id}' must be 1-{MAX_KEY_ID_LEN} characters from A-Z a-z 0-9 _ -")
            }
            KeyError::DuplicateKeyId(id) => write!(f, "key id '{id}' appears twice in the key ring"),
            KeyError::BadSecret(id) => write!(f, "the secret of key '{id}' is not base64 of exactly {KEY_LEN} bytes"),
            KeyError::WeakSecret(id) => write!(
                f,
                "the secret of key '{id}' is one byte repeated, not a secret; generate one (32 random bytes, e.g. \
                 `CursorKeys::generate_secret`)"
            ),
        }
    }
}

impl std::error::Error for KeyError {}

impl CursorKeys {
    /// A ring from `(key id, secret)` pairs; the first is the active key.
    pub fn new<I, S>(keys: I) -> Result<CursorKeys, KeyError>
    where
        I: IntoIterator<Item = (S, [u8; KEY_LEN])>,
        S: Into<String>,
    {
        let mut ring: Vec<RingKey> = Vec::new();
        for (id, secret) in keys {
            let id = id.into();
            check_key_id(&id)?;
            if ring.iter().any(|k| k.id == id) {
                return Err(KeyError::DuplicateKeyId(id));
            }
            if secret.iter().all(|byte| *byte == secret[0]) {
                return Err(KeyError::WeakSecret(id));
            }
            let mac =
                <Hmac<Sha256> as KeyInit>::new_from_slice(&secret).map_err(|_| KeyError::BadSecret(id.clone()))?;
            ring.push(RingKey { id, mac });
        }
        if ring.is_empty() {
            return Err(KeyError::Empty);
        }
        Ok(CursorKeys { ring: Arc::new(ring) })
    }

    /// Parses `kid:base64key[,kid2:base64key2...]` (the first key is active).
    pub fn parse(spec: &str) -> Result<CursorKeys, KeyError> {
        let mut keys = Vec::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((id, secret)) = entry.split_once(':') else {
                return Err(KeyError::MalformedEntry(redact(entry)));
            };
            let id = id.trim();
            // The id first: an entry written the other way round (`secret:kid`) names its
            // secret as the id, which an error about that secret would show.
            check_key_id(id)?;
            keys.push((id.to_owned(), decode_secret(secret.trim()).ok_or_else(|| KeyError::BadSecret(id.to_owned()))?));
        }
        CursorKeys::new(keys)
    }

    /// Reads the ring from the environment variable `name` (format of [`CursorKeys::parse`]).
    ///
    /// The conventional name is `COMPLETENESS_CURSOR_KEYS`.
    pub fn from_env(name: &str) -> Result<CursorKeys, KeyError> {
        let spec = std::env::var(name).map_err(|_| KeyError::MissingVariable(name.to_owned()))?;
        CursorKeys::parse(&spec)
    }

    /// A ring with one fresh random key, for demos and tests. Its id is `eph-` and eight random
    /// hex digits, so that a token of an earlier run is refused as signed with a key this
    /// server no longer accepts, not as a forgery.
    ///
    /// Tokens signed by it die with the process and are not accepted by other replicas:
    /// production services configure keys with [`CursorKeys::from_env`].
    pub fn ephemeral() -> CursorKeys {
        let id: String = random_secret()[..4].iter().map(|byte| format!("{byte:02x}")).collect();
        CursorKeys::new([(format!("eph-{id}"), random_secret())])
            .unwrap_or_else(|_| unreachable!("`eph-` and 8 hex digits is a valid key id"))
    }

    /// A 32-byte secret in the configuration's base64 form, for generating a key ring entry.
    pub fn generate_secret() -> String {
        URL_SAFE_NO_PAD.encode(random_secret())
    }

    /// The id of the key new tokens are signed with.
    pub fn active_key_id(&self) -> &str {
        &self.ring[0].id
    }

    /// Every key id, active first.
    pub fn key_ids(&self) -> impl Iterator<Item = &str> {
        self.ring.iter().map(|k| k.id.as_str())
    }

    /// Every key id, active first, with a check value of its secret: the key's MAC of a fixed
    /// label, as 16 hex digits. Replicas compare rings with it: the same id with another check
    /// value holds another secret, so one replica's tokens fail at the other. It reveals
    /// nothing of the secret.
    pub fn key_checks(&self) -> impl Iterator<Item = (&str, String)> {
        self.ring.iter().map(|key| {
            let check = key.mac.clone().chain_update(b"completeness key check").finalize().into_bytes();
            (key.id.as_str(), check[..8].iter().map(|byte| format!("{byte:02x}")).collect())
        })
    }

    /// The active key's id and a keyed HMAC state.
    pub(crate) fn active(&self) -> (&str, Hmac<Sha256>) {
        let key = &self.ring[0];
        (&key.id, key.mac.clone())
    }

    /// A keyed HMAC state for key `id`, when the ring holds it.
    pub(crate) fn mac_for(&self, id: &str) -> Option<Hmac<Sha256>> {
        self.ring.iter().find(|k| k.id == id).map(|k| k.mac.clone())
    }
}

impl fmt::Debug for CursorKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print secrets.
        f.debug_struct("CursorKeys").field("key_ids", &self.key_ids().collect::<Vec<_>>()).finish()
    }
}

fn decode_secret(text: &str) -> Option<[u8; KEY_LEN]> {
    let normalized: String = text
        .trim_end_matches('=')
        .chars()
        .map(|c| {
            if c == '+' {
                '-'
            } else if c == '/' {
                '_'
            } else {
                c
            }
        })
        .collect();
    let bytes = URL_SAFE_NO_PAD.decode(normalized).ok()?;
    bytes.try_into().ok()
}

/// Refuses a key id that is not 1 to [`MAX_KEY_ID_LEN`] characters of `A-Za-z0-9_-`, showing
/// only its length: it may be a secret written where the id goes.
fn check_key_id(id: &str) -> Result<(), KeyError> {
    let fits = !id.is_empty()
        && id.len() <= MAX_KEY_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match fits {
        true => Ok(()),
        // Not shown either: an id that is no id is most often a secret written before its id
        // (`secret:kid`) or without one.
        false => Err(KeyError::BadKeyId(redact(id))),
    }
}

/// What an error says of an entry without `:` or of a key id too long: its length, nothing of
/// its text, which may be a secret written without its id (or before it): even its first
/// characters are a part of the secret an error message would carry into a log.
fn redact(entry: &str) -> String {
    format!("<{} characters>", entry.chars().count())
}

/// 32 bytes from the operating system's random source.
fn random_secret() -> [u8; KEY_LEN] {
    let mut secret = [0u8; KEY_LEN];
    let from_os = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut secret));
    if from_os.is_err() {
        // No /dev/urandom (e.g. Windows): std's RandomState is seeded from the OS's
        // random source; hash several of its outputs into a secret.
        use sha2::Digest;
        use std::hash::{BuildHasher, Hasher};
        let mut digest = Sha256::new();
        for i in 0..8u64 {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u64(i);
            digest.update(hasher.finish().to_le_bytes());
        }
        digest.update(format!("{:?}", std::time::SystemTime::now()).as_bytes());
        secret.copy_from_slice(&digest.finalize());
    }
    secret
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

    #[test]
    fn key_checks_tell_secrets_apart_without_showing_them() {
        let other = "Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA";
        let ring = CursorKeys::parse(&format!("k1:{SECRET},k2:{other}")).unwrap();
        let again = CursorKeys::parse(&format!("k1:{SECRET}")).unwrap();
        let changed = CursorKeys::parse(&format!("k1:{other}")).unwrap();
        let checks: Vec<(&str, String)> = ring.key_checks().collect();
        assert_eq!(checks.iter().map(|(id, _)| *id).collect::<Vec<_>>(), ["k1", "k2"]);
        assert_eq!(checks[0].1.len(), 16);
        assert_eq!(again.key_checks().next().unwrap().1, checks[0].1, "the same secret, the same check");
        assert_ne!(changed.key_checks().next().unwrap().1, checks[0].1, "another secret, another check");
        assert_eq!(changed.key_checks().next().unwrap().1, checks[1].1, "it depends on the secret, not the id");
    }

    #[test]
    fn the_first_key_is_active_and_standard_or_padded_base64_is_accepted() {
        let keys = CursorKeys::parse(&format!(" new:{SECRET}= , old:{} ", SECRET.replace('_', "/"))).unwrap();
        assert_eq!(keys.active_key_id(), "new");
        assert_eq!(keys.key_ids().collect::<Vec<_>>(), ["new", "old"]);
    }

    #[test]
    fn bad_configurations_are_refused_with_a_reason() {
        assert_eq!(CursorKeys::parse("").unwrap_err(), KeyError::Empty);
        assert!(matches!(CursorKeys::parse("justasecretwithoutid").unwrap_err(), KeyError::MalformedEntry(_)));
        // Nothing of a bare secret is shown, not even its start.
        let secret = CursorKeys::generate_secret();
        let said = CursorKeys::parse(&secret).unwrap_err().to_string();
        assert_eq!(said, format!("key ring entry '<{} characters>' is not `kid:base64key`", secret.len()));
        let said = CursorKeys::parse(&format!("{secret}:k1")).unwrap_err().to_string();
        assert!(said.starts_with(&format!("key id '<{} characters>' must be", secret.len())), "{said}");
        assert!(!said.contains(&secret[..4]), "{said}");
        // An id that is no id is not shown, short as it may be: it may be the start of a secret.
        assert_eq!(
            CursorKeys::parse(&format!("a.b:{SECRET}")).unwrap_err(),
            KeyError::BadKeyId("<3 characters>".into())
        );
        assert_eq!(CursorKeys::parse(&format!(":{SECRET}")).unwrap_err(), KeyError::BadKeyId("<0 characters>".into()));
        let said = CursorKeys::parse(&format!("Ur9OQLtm+/x:{SECRET}")).unwrap_err().to_string();
        assert!(said.starts_with("key id '<11 characters>' must be") && !said.contains("Ur9"), "{said}");
        assert_eq!(
            CursorKeys::parse(&format!("k:{SECRET},k:{SECRET}")).unwrap_err(),
            KeyError::DuplicateKeyId("k".into())
        );
        assert_eq!(CursorKeys::parse("k:c2hvcnQ").unwrap_err(), KeyError::BadSecret("k".into()));
        assert_eq!(CursorKeys::parse("k:!!!").unwrap_err(), KeyError::BadSecret("k".into()));
        // Thirty-two zero bytes, and as many 0xff: one byte repeated is no secret.
        for weak in ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "__________________________________________8"] {
            let refused = CursorKeys::parse(&format!("k1:{SECRET},k0:{weak}")).unwrap_err();
            assert_eq!(refused, KeyError::WeakSecret("k0".into()));
            assert!(refused.to_string().contains("one byte repeated"), "{refused}");
        }
        let missing = CursorKeys::from_env("COMPLETENESS_TEST_VARIABLE_THAT_IS_NEVER_SET").unwrap_err();
        assert!(missing.to_string().contains("kid:base64key"));
    }

    #[test]
    fn secrets_never_show_in_debug_or_errors() {
        let keys = CursorKeys::parse(&format!("k1:{SECRET}")).unwrap();
        assert!(!format!("{keys:?}").contains(SECRET));
        let error = CursorKeys::parse(SECRET).unwrap_err().to_string();
        assert!(!error.contains(SECRET), "{error}");
        // An entry the other way round, `secret:kid`: the secret is where the id goes.
        for written in [format!("{SECRET}:k1"), format!("k0:{SECRET},{SECRET}:k1")] {
            let error = CursorKeys::parse(&written).unwrap_err().to_string();
            assert!(!error.contains(SECRET), "{error}");
            assert!(error.starts_with("key id '"), "{error}");
        }
    }

    #[test]
    fn ephemeral_rings_differ_and_generated_secrets_parse() {
        let a = CursorKeys::ephemeral();
        let b = CursorKeys::ephemeral();
        let token = super::super::token::seal(&a, "t1", b"x");
        // Another run's key is a key this ring does not hold, not a forgery.
        assert_eq!(
            super::super::token::open(&b, "t1", &token, 4096).err(),
            Some(super::super::token::TokenError::UnknownKey)
        );
        assert_ne!(a.active_key_id(), b.active_key_id());
        let secret = CursorKeys::generate_secret();
        assert!(CursorKeys::parse(&format!("g:{secret}")).is_ok());
    }
}
