//! Replicas of one database keep one another's promises only when they share two settings: how
//! long a superseded snapshot stays readable (`--snapshot-retention`: a cursor or evidence
//! issued by one replica is honoured by another only as long as the other keeps its snapshot)
//! and the key ring (a token signed by one is checked by another). Each replica records its
//! settings in the database when it starts and at every pruning round, and logs a warning,
//! once, for each way a live replica's differ from its own.
//!
//! A difference is reported, never refused: replicas differ for a while on purpose during a
//! rolling change (a key rotation adds the new key to every ring before any replica signs with
//! it, and such rings do not disagree here).

use std::hash::BuildHasher;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use completeness::CursorKeys;

/// A replica that has not checked in for this long is taken to be gone: its settings no longer
/// matter. Replicas check in at every pruning round, at least every 5 s, and a replica that
/// stops cleanly checks out at once; one that crashed counts as live for this long.
pub const ALIVE: Duration = Duration::from_secs(30);

/// The settings a replica's clients depend on, as it records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaSettings {
    /// Which replica: the address it listens on, its host (`HOSTNAME`, when set), its process
    /// id, which service of the process, a random number, and when it started.
    pub replica: String,
    /// How long a superseded snapshot stays readable, in milliseconds.
    pub retention_ms: i64,
    /// Every key of its ring, `(id, check value)` ([`CursorKeys::key_checks`]); the first signs.
    pub keys: Vec<(String, String)>,
}

impl ReplicaSettings {
    /// The settings of a service this process starts (a process may start several, as the
    /// tests do: each is a replica of its own).
    pub fn of_this_process(retention: Duration, keys: &CursorKeys, addr: SocketAddr) -> ReplicaSettings {
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let nth = STARTED.fetch_add(1, Ordering::Relaxed);
        // Pids repeat across machines (every container's first process is 1): a random number
        // from std's hasher keys, which the OS seeds, tells replicas started together apart.
        let nonce = std::hash::RandomState::new().hash_one(nth);
        // What an operator finds the replica by: in a container, its host name (`HOSTNAME`,
        // which Docker and Kubernetes set to the container's or the pod's name).
        let host = std::env::var("HOSTNAME").ok().filter(|host| !host.trim().is_empty());
        let on = host.map(|host| format!(" on {}", host.trim())).unwrap_or_default();
        let (pid, started) = (std::process::id(), started.as_millis());
        ReplicaSettings {
            replica: format!("{addr}{on}, pid {pid} #{nth} {nonce:016x} (started at {started} ms)"),
            retention_ms: i64::try_from(retention.as_millis()).unwrap_or(i64::MAX),
            keys: keys.key_checks().map(|(id, check)| (id.to_owned(), check)).collect(),
        }
    }

    /// The ring as stored: `id:check` pairs, comma-separated, the signing key first (key ids
    /// hold neither `:` nor `,`).
    pub fn keys_text(&self) -> String {
        self.keys.iter().map(|(id, check)| format!("{id}:{check}")).collect::<Vec<_>>().join(",")
    }

    /// Settings as stored by [`ReplicaSettings::keys_text`].
    pub fn from_stored(replica: String, retention_ms: i64, keys: &str) -> ReplicaSettings {
        let keys = keys
            .split(',')
            .filter_map(|pair| pair.split_once(':'))
            .map(|(id, check)| (id.to_owned(), check.to_owned()))
            .collect();
        ReplicaSettings { replica, retention_ms, keys }
    }

    fn signing_key(&self) -> Option<&str> {
        self.keys.first().map(|(id, _)| id.as_str())
    }

    fn check_of(&self, id: &str) -> Option<&str> {
        self.keys.iter().find(|(key, _)| key == id).map(|(_, check)| check.as_str())
    }
}

/// Each way `other` differs from `me` that breaks a promise made to a client, said as what goes
/// wrong and what to change; empty when they agree.
pub fn disagreements(me: &ReplicaSettings, other: &ReplicaSettings) -> Vec<String> {
    let who = &other.replica;
    let mut found = Vec::new();
    if me.retention_ms != other.retention_ms {
        found.push(format!(
            "replica {who} keeps superseded snapshots for {} s, this one for {} s: a cursor or evidence issued by the \
             one that keeps them longer is refused by the other once the shorter time has passed (the database \
             keeps them for the longer); start every replica with the same --snapshot-retention",
            seconds(other.retention_ms),
            seconds(me.retention_ms)
        ));
    }
    let fix = "add the key to every ring before any replica signs with it";
    if let Some(id) = other.signing_key()
        && me.check_of(id).is_none()
    {
        found.push(format!(
            "replica {who} signs cursors and evidence with key '{id}', which this replica's ring lacks: they are \
             refused here; {fix}"
        ));
    }
    if let Some(id) = me.signing_key()
        && other.check_of(id).is_none()
    {
        found.push(format!(
            "this replica signs cursors and evidence with key '{id}', which the ring of replica {who} lacks: they \
             are refused there; {fix}"
        ));
    }
    for (id, check) in &me.keys {
        if other.check_of(id).is_some_and(|theirs| theirs != check) {
            found.push(format!(
                "replica {who} holds another secret under key id '{id}': a token signed with it by one is refused \
                 as forged by the other; give every replica the same ring"
            ));
        }
    }
    found
}

fn seconds(ms: i64) -> String {
    let text = format!("{:.3}", ms as f64 / 1000.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}
