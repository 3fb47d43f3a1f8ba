//! Bearer credentials `admin`, `north`, `south`: the tenants each may read and write, and a
//! permission epoch that changes whenever those tenants change.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use completeness::{Credential, Problem, ProblemCode};

use super::seed::TENANTS;

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

/// The credential registry.
#[derive(Debug)]
pub struct Credentials {
    grants: Mutex<BTreeMap<String, (BTreeSet<String>, u64)>>,
}

impl Default for Credentials {
    fn default() -> Self {
        let all: BTreeSet<String> = TENANTS.iter().map(|t| (*t).to_owned()).collect();
        let one = |t: &str| BTreeSet::from([t.to_owned()]);
        let grants = BTreeMap::from([
            ("admin".to_owned(), (all, 1)),
            ("north".to_owned(), (one("north"), 1)),
            ("south".to_owned(), (one("south"), 1)),
        ]);
        Credentials { grants: Mutex::new(grants) }
    }
}

impl Credentials {
    /// The credential named by `Authorization: Bearer NAME`, or a 401 problem.
    pub fn authenticate(&self, parts: &Parts) -> Result<Caller, Problem> {
        let header = parts.headers.get(AUTHORIZATION).ok_or_else(|| {
            Problem::new(
                ProblemCode::Unauthenticated,
                "Send `Authorization: Bearer NAME` with one of the credentials admin, north, south.",
            )
        })?;
        let token = header.to_str().ok().and_then(|h| h.strip_prefix("Bearer ")).map(str::trim).ok_or_else(|| {
            Problem::new(ProblemCode::Unauthenticated, "The Authorization header must be `Bearer NAME`.")
        })?;
        self.caller(token)
            .ok_or_else(|| Problem::new(ProblemCode::Unauthenticated, "The credential is not known to this service."))
    }

    /// The current permissions of credential `name`.
    pub fn caller(&self, name: &str) -> Option<Caller> {
        let grants = self.grants.lock().unwrap_or_else(|p| p.into_inner());
        grants.get(name).map(|(tenants, epoch)| Caller {
            name: name.to_owned(),
            tenants: tenants.clone(),
            epoch: *epoch,
        })
    }

    /// Removes `tenant` from credential `name`; bumps its epoch when that changed anything.
    pub fn revoke_tenant(&self, name: &str, tenant: &str) -> Option<Caller> {
        let mut grants = self.grants.lock().unwrap_or_else(|p| p.into_inner());
        let (tenants, epoch) = grants.get_mut(name)?;
        if tenants.remove(tenant) {
            *epoch += 1;
        }
        Some(Caller { name: name.to_owned(), tenants: tenants.clone(), epoch: *epoch })
    }
}
