//! A deterministic, realistic inventory: tenants, owners (some missing), usage, fingerprints.

use sha2::{Digest, Sha256};

use super::clock::rfc3339;
use super::db::Account;

/// The tenants every account belongs to one of.
pub const TENANTS: [&str; 3] = ["north", "south", "east"];

const OWNERS: [&str; 16] = [
    "dana", "li", "priya", "mateo", "amara", "jonas", "sofia", "kenji", "olu", "marta", "yusuf", "elena", "tariq",
    "ines", "noah", "hana",
];

/// 2026-01-01T00:00:00Z: seeded times lie in the year before it.
const SEED_EPOCH: i64 = 1_767_225_600;

/// One seeded account and its usage record.
#[derive(Debug, Clone)]
pub struct Seeded {
    /// The account row.
    pub account: Account,
    /// When the `usage` source last saw it, if ever.
    pub last_used_at: Option<String>,
}

/// splitmix64: a small, well-distributed generator so every run seeds the same inventory.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The id of the `n`-th account: `sa-000042`.
pub fn account_id(n: u64) -> String {
    format!("sa-{n:06}")
}

/// True for text of the form of an account id: `sa-` and six or more ASCII digits (the form
/// [`super::openapi::ACCOUNT_ID_PATTERN`] states).
pub fn is_account_id(text: &str) -> bool {
    text.strip_prefix("sa-").is_some_and(|digits| digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The refusal of `text` where an account id belongs: what it is not, and the form it needs.
pub fn not_an_account_id(text: &str) -> String {
    format!("'{}' is not an account id: an id is `sa-` and six or more digits, e.g. sa-000042", shown(text))
}

/// `text` as a problem's detail quotes it: its first 64 characters, and `…` when it goes on (a
/// client may send an id of any length, which the answer need not echo whole).
pub fn shown(text: &str) -> String {
    let first: String = text.chars().take(64).collect();
    if first.len() < text.len() { format!("{first}…") } else { first }
}

/// The name of the `n`-th account in `tenant`: `svc-north-00042`.
pub fn account_name(tenant: &str, n: u64) -> String {
    format!("svc-{tenant}-{n:05}")
}

/// A stable secret fingerprint for an account id.
pub fn fingerprint(id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("SHA256:{hex}")
}

/// The e-mail address of an owner.
pub fn owner_email(owner: &str) -> String {
    format!("{owner}@example.com")
}

/// The `n`-th seeded account (1-based). About one in thirty has no owner, one in fifty is archived.
pub fn seeded(n: u64) -> Seeded {
    let r = mix(n);
    let tenant = TENANTS[(r % 3) as usize];
    let owner =
        if (r >> 8).is_multiple_of(30) { None } else { Some(OWNERS[((r >> 16) % OWNERS.len() as u64) as usize]) };
    let created = SEED_EPOCH - 86_400 * 365 + ((r >> 24) % (86_400 * 300)) as i64;
    let last_used_at =
        if (r >> 40).is_multiple_of(7) { None } else { Some(rfc3339(created + ((r >> 44) % (86_400 * 60)) as i64)) };
    let id = account_id(n);
    Seeded {
        account: Account {
            name: account_name(tenant, n),
            tenant: tenant.to_owned(),
            owner: owner.map(str::to_owned),
            owner_email: owner.map(owner_email),
            description: (r >> 52).is_multiple_of(5).then(|| format!("{tenant} batch job {}", n % 97)),
            created_at: rfc3339(created),
            secret_fingerprint: fingerprint(&id),
            archived: (r >> 32).is_multiple_of(50),
            id,
        },
        last_used_at,
    }
}
