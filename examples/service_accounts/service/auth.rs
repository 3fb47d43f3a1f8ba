//! Bearer credentials `admin`, `north`, `south`: the tenants each may read and write, and a
//! permission epoch that changes whenever those tenants change. Both are stored with the data
//! and read on every request, so a revocation holds across restarts and across processes
//! sharing the database.

use std::collections::BTreeSet;

use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use completeness::{Credential, Problem, ProblemCode};

use super::db::Grantee;
use super::http::store_problem;
use super::seed::TENANTS;
use super::store::Store;

/// A credential as a request presents it, with its permissions at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// `admin`, `north` or `south`.
    pub name: String,
    /// The tenants it may read and write.
    pub tenants: BTreeSet<String>,
    /// Bumped on every permission change; part of every cursor's and evidence token's binding.
    pub epoch: u64,
}

impl Caller {
    /// This caller as a write names it to the store, which checks its grant under the write lock.
    pub fn grantee(&self) -> Grantee<'_> {
        Grantee { name: &self.name, epoch: self.epoch }
    }

    /// The framework's view of this caller: what cursors and evidence are bound to.
    pub fn credential(&self) -> Credential {
        Credential::new(self.name.clone(), self.epoch).with_tenants(self.tenants.iter().cloned())
    }

    /// True when the credential may read and write `tenant`.
    pub fn can_access(&self, tenant: &str) -> bool {
        self.tenants.contains(tenant)
    }

    /// True for the credential that may administer credentials and read owner e-mail addresses.
    pub fn is_admin(&self) -> bool {
        self.name == "admin"
    }

    /// The words of `scope.visibility`.
    pub fn visibility(&self, what: &str) -> String {
        format!("{what} readable by credential '{}'", self.name)
    }

    /// The tenants of `requested` (every tenant when `None`) this credential can read, and
    /// whether any requested tenant is hidden from it.
    pub fn readable(&self, requested: Option<&str>) -> (Vec<String>, bool) {
        let wanted: Vec<&str> = match requested {
            Some(tenant) => vec![tenant],
            None => TENANTS.to_vec(),
        };
        let readable: Vec<String> = wanted.iter().filter(|t| self.can_access(t)).map(|t| (*t).to_owned()).collect();
        let restricted = readable.len() < wanted.len();
        (readable, restricted)
    }
}

/// The credentials a fresh database starts with, and their tenants.
pub const DEFAULT_GRANTS: [(&str, &[&str]); 3] =
    [("admin", &["north", "south", "east"]), ("north", &["north"]), ("south", &["south"])];

/// The credential named by `Authorization: Bearer NAME`, with its permissions as stored now,
/// or a 401 problem. The scheme is case-insensitive (RFC 9110, section 11.1); a request with two
/// `Authorization` headers is refused rather than read by one of them.
pub async fn authenticate(store: &Store, parts: &Parts) -> Result<Caller, Problem> {
    let mut headers = parts.headers.get_all(AUTHORIZATION).iter();
    let (Some(header), None) = (headers.next(), headers.next()) else {
        let (detail, cause) = if parts.headers.contains_key(AUTHORIZATION) {
            ("Send one Authorization header, not several.", "several")
        } else {
            // Not the credentials' names: here they are the tokens too.
            ("Send `Authorization: Bearer TOKEN` with a credential of this service.", "missing")
        };
        return Err(Problem::new(ProblemCode::Unauthenticated, detail).with_cause(cause));
    };
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|token| !token.is_empty())
        .ok_or_else(|| {
            Problem::new(ProblemCode::Unauthenticated, "The Authorization header must be `Bearer NAME`.")
                .with_cause("malformed")
        })?;
    // The cause tells a mistyped or revoked token from a client that sends none, in the log.
    caller(store, token).await?.ok_or_else(|| {
        Problem::new(ProblemCode::Unauthenticated, "The credential is not known to this service.").with_cause("unknown")
    })
}

/// The current permissions of credential `name`, as stored.
pub async fn caller(store: &Store, name: &str) -> Result<Option<Caller>, Problem> {
    let grant = store.grant(name).await.map_err(store_problem)?;
    Ok(grant.map(|grant| Caller { name: name.to_owned(), tenants: grant.tenants, epoch: grant.epoch }))
}
