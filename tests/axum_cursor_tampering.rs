//! Property: no byte flip, truncation or extension of a valid cursor (or evidence-shaped
//! token) is ever accepted.

use std::time::Duration;

use completeness::Credential;
use completeness::cursor::{CursorClaims, CursorKeys, DEFAULT_MAX_TOKEN_LEN, QueryBinding};
use proptest::prelude::*;

fn keys() -> CursorKeys {
    CursorKeys::parse("k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8,k0:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA")
        .unwrap()
}

fn query() -> QueryBinding {
    QueryBinding::new("service_accounts", "id ascending").with_filter("owner", "none")
}

fn credential() -> Credential {
    Credential::new("north", 7).with_tenant("north")
}

fn cursor(snapshot: &str, position: &str) -> String {
    CursorClaims::new(&query(), &credential(), Some(snapshot), position, Duration::from_secs(600)).encode(&keys())
}

/// True when `bytes` would be accepted as a cursor by a server.
fn accepted(bytes: &[u8]) -> bool {
    match std::str::from_utf8(bytes) {
        // A query string that is not UTF-8 never reaches the verifier as a cursor.
        Err(_) => false,
        Ok(text) => {
            CursorClaims::verify(&keys(), text, &query(), &credential()).is_ok()
                || CursorClaims::decode(&keys(), text, DEFAULT_MAX_TOKEN_LEN).is_ok()
        }
    }
}

fn valid_parts() -> impl Strategy<Value = (String, String)> {
    ("[0-9]{1,6}", "[a-z0-9-]{0,24}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_valid_cursor_verifies((snapshot, position) in valid_parts()) {
        let text = cursor(&snapshot, &position);
        let claims = CursorClaims::verify(&keys(), &text, &query(), &credential()).unwrap();
        prop_assert_eq!(claims.position(), position.as_str());
        prop_assert_eq!(claims.snapshot(), Some(snapshot.as_str()));
    }

    #[test]
    fn a_flipped_byte_is_never_accepted((snapshot, position) in valid_parts(), at in any::<prop::sample::Index>(), mask in 1u8..=255) {
        let mut bytes = cursor(&snapshot, &position).into_bytes();
        let i = at.index(bytes.len());
        bytes[i] ^= mask;
        prop_assert!(!accepted(&bytes), "flip at {} with {:#04x} accepted", i, mask);
    }

    #[test]
    fn a_truncation_is_never_accepted((snapshot, position) in valid_parts(), at in any::<prop::sample::Index>()) {
        let bytes = cursor(&snapshot, &position).into_bytes();
        let len = at.index(bytes.len());
        prop_assert!(!accepted(&bytes[..len]), "truncation to {} accepted", len);
    }

    #[test]
    fn an_extension_is_never_accepted((snapshot, position) in valid_parts(), tail in prop::collection::vec(any::<u8>(), 1..64), front in any::<bool>()) {
        let text = cursor(&snapshot, &position).into_bytes();
        let bytes = if front { [tail.as_slice(), &text].concat() } else { [text.as_slice(), &tail].concat() };
        prop_assert!(!accepted(&bytes));
    }

    #[test]
    fn arbitrary_text_is_never_accepted(text in ".{0,300}") {
        prop_assert!(!accepted(text.as_bytes()));
    }
}

#[test]
fn a_one_megabyte_cursor_is_refused_as_oversized() {
    let huge = cursor("1", "a") + &"A".repeat(1 << 20);
    let error = CursorClaims::decode(&keys(), &huge, DEFAULT_MAX_TOKEN_LEN).unwrap_err();
    let problem = error.to_problem();
    assert_eq!((problem.status(), problem.code().as_str()), (400, "INVALID_CURSOR"));
    assert!(problem.detail().contains("longer"));
}

/// A refused cursor's problem says how to go on without it: a client that lost or mangled its
/// cursor may start a new traversal, whose pages it does not merge with this one's.
#[test]
fn a_refused_cursor_says_a_new_traversal_is_the_way_on() {
    let forged = cursor("1", "a").replace('.', "-");
    let problem = CursorClaims::decode(&keys(), &forged, DEFAULT_MAX_TOKEN_LEN).unwrap_err().to_problem();
    assert_eq!((problem.status(), problem.code().as_str()), (400, "INVALID_CURSOR"));
    assert_eq!(
        problem.detail(),
        "The cursor was refused: it is not a token this server issues. Send a cursor exactly as the server returned \
         it, or leave `cursor` out to start a new traversal from the first page; its pages cannot be combined with \
         this one's."
    );
}
