//! The `Credential` hook: how a service tells the framework who the caller is.
//!
//! The service's own authentication middleware resolves the caller and inserts a
//! [`Credential`] into the request's extensions; the framework's extractors
//! ([`PageRequest`](crate::server::page_request::PageRequest), [`RequireEvidence`](crate::server::evidence::RequireEvidence),
//! [`EvidenceIssuer`](crate::server::evidence::EvidenceIssuer)) and handlers read it from there.
//! A service without authentication sets
//! [`CompletenessConfig::with_anonymous_credential`] instead.
//! Its fingerprint (name, permission epoch and tenant access) is what cursors and
//! evidence are bound to: bump the permission epoch whenever the credential's
//! permissions change and every cursor and evidence token it holds stops working.
//!
//! The name is not a secret: answers say it (`scope.visibility`), evidence tokens carry it
//! (they are signed, not encrypted: whoever holds one reads its payload), and the `observe`
//! events log it. Name the caller by who it is (a user or service id), never by its bearer
//! token or another secret.
//!
//! ```
//! use axum::{Router, middleware::{self, Next}, extract::Request, response::{IntoResponse, Response}};
//! use completeness_runtime::{CompletenessConfig, Credential, CursorKeys, Problem, ProblemCode};
//!
//! async fn authenticate(mut request: Request, next: Next) -> Response {
//!     let bearer = request.headers().get("authorization").and_then(|v| v.to_str().ok());
//!     let credential = match bearer {
//!         Some("Bearer admin") => Credential::new("admin", 1).with_all_tenants(),
//!         Some("Bearer north") => Credential::new("north", 1).with_tenant("north"),
//!         _ => return Problem::new(ProblemCode::Unauthenticated, "send a known bearer credential").into_response(),
//!     };
//!     request.extensions_mut().insert(credential);
//!     next.run(request).await
//! }
//!
//! async fn whoami(credential: Credential) -> String {
//!     credential.name().to_owned()
//! }
//!
//! let app: Router = Router::new()
//!     .route("/whoami", axum::routing::get(whoami))
//!     .layer(middleware::from_fn(authenticate))
//!     .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
//! ```

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use crate::server::config::{CompletenessConfig, CompletenessState};
use crate::server::problem::{Problem, ProblemCode};

/// Which tenants a credential can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TenantAccess {
    /// Every tenant.
    All,
    /// Only these tenants (possibly none).
    Only(BTreeSet<String>),
}

/// The caller: its name, permission epoch and tenant access.
///
/// Inserted into the request extensions by the service's authentication middleware;
/// extracting it in a handler without that middleware yields 401 `UNAUTHENTICATED`.
/// Cloning it is cheap (the extractors clone it out of the extensions on every request).
#[derive(Clone, PartialEq, Eq)]
pub struct Credential {
    inner: Arc<Grants>,
}

/// What a credential is: shared by its clones.
#[derive(Clone, PartialEq, Eq)]
struct Grants {
    name: String,
    permission_epoch: u64,
    tenants: TenantAccess,
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("name", &self.inner.name)
            .field("permission_epoch", &self.inner.permission_epoch)
            .field("tenants", &self.inner.tenants)
            .finish()
    }
}

impl Credential {
    /// The caller of a service without authentication: named `anonymous`, reading every
    /// tenant. [`CompletenessConfig::with_anonymous_credential`](crate::server::config::CompletenessConfig::with_anonymous_credential)
    /// gives it to every request that brings no credential.
    pub fn anonymous() -> Credential {
        Credential::new("anonymous", 0).with_all_tenants()
    }

    /// A credential named `name` whose permissions are at version `permission_epoch`,
    /// with access to no tenant yet (add them with the `with_` methods). `name` is shown in
    /// answers, tokens and logs: never a secret (see the module's docs).
    pub fn new(name: impl Into<String>, permission_epoch: u64) -> Credential {
        let grants = Grants { name: name.into(), permission_epoch, tenants: TenantAccess::Only(BTreeSet::new()) };
        Credential { inner: Arc::new(grants) }
    }

    /// Grants every tenant.
    pub fn with_all_tenants(mut self) -> Credential {
        Arc::make_mut(&mut self.inner).tenants = TenantAccess::All;
        self
    }

    /// Grants one more tenant.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Credential {
        if let TenantAccess::Only(set) = &mut Arc::make_mut(&mut self.inner).tenants {
            set.insert(tenant.into());
        }
        self
    }

    /// Grants several more tenants.
    pub fn with_tenants<I: IntoIterator<Item = S>, S: Into<String>>(self, tenants: I) -> Credential {
        tenants.into_iter().fold(self, Credential::with_tenant)
    }

    /// The credential's name, e.g. `"north"`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The version of its permissions; it changes whenever they change.
    pub fn permission_epoch(&self) -> u64 {
        self.inner.permission_epoch
    }

    /// Which tenants it can read.
    pub fn tenant_access(&self) -> &TenantAccess {
        &self.inner.tenants
    }

    /// True when it can read every tenant.
    pub fn sees_all_tenants(&self) -> bool {
        self.inner.tenants == TenantAccess::All
    }

    /// True when it can read `tenant`.
    pub fn can_read(&self, tenant: &str) -> bool {
        match &self.inner.tenants {
            TenantAccess::All => true,
            TenantAccess::Only(set) => set.contains(tenant),
        }
    }

    /// The tenants it can read, or `None` when it can read all of them.
    pub fn tenants(&self) -> Option<&BTreeSet<String>> {
        match &self.inner.tenants {
            TenantAccess::All => None,
            TenantAccess::Only(set) => Some(set),
        }
    }

    /// The `scope.visibility` text: `"<what> readable by credential '<name>'"`.
    pub fn visibility(&self, what: &str) -> String {
        format!("{what} readable by credential '{}'", self.inner.name)
    }

    /// SHA-256 over the name, the permission epoch and the tenant access: what cursors
    /// and evidence are bound to.
    pub fn fingerprint(&self) -> [u8; 32] {
        let mut digest = Sha256::new();
        digest.update(b"completeness/credential/v1\n");
        digest.update((self.inner.name.len() as u64).to_be_bytes());
        digest.update(self.inner.name.as_bytes());
        digest.update(self.inner.permission_epoch.to_be_bytes());
        match &self.inner.tenants {
            TenantAccess::All => digest.update(b"*"),
            TenantAccess::Only(set) => {
                digest.update(b"=");
                for tenant in set {
                    digest.update((tenant.len() as u64).to_be_bytes());
                    digest.update(tenant.as_bytes());
                }
            }
        }
        digest.finalize().into()
    }

    /// The credential the authentication middleware put on the request; else the
    /// configured anonymous credential ([`CompletenessConfig::with_anonymous_credential`]);
    /// else 401 `UNAUTHENTICATED`.
    ///
    /// The first such 401 of `config` is also a `WARN` event `credential_missing` (see
    /// [`observe`](crate::observe)): a request without a credential reaching a handler that
    /// needs one is the service's mistake as often as the client's (an authentication
    /// middleware that does not insert a `Credential`, a service without authentication that
    /// did not say so), and the client's 401 does not tell the operator.
    pub fn from_parts(parts: &Parts, config: &CompletenessConfig) -> Result<Credential, Problem> {
        match parts.extensions.get::<Credential>().or(config.anonymous_credential()) {
            Some(credential) => Ok(credential.clone()),
            None => {
                if config.first_missing_credential() {
                    let route = parts.extensions.get::<axum::extract::MatchedPath>().map(|path| path.as_str());
                    tracing::warn!(
                        target: crate::server::observe::TARGET, event = "credential_missing", route,
                        method = %parts.method,
                        "a request without a credential reached a handler that needs one, and the settings have \
                         no anonymous credential: it was answered 401. An authentication middleware inserts \
                         `completeness::Credential` into the request's extensions; a service without \
                         authentication sets `CompletenessConfig::with_anonymous_credential()`. Said once."
                    );
                }
                Err(Problem::new(ProblemCode::Unauthenticated, "This request carries no known credential; send one."))
            }
        }
    }
}

impl<S: CompletenessState> FromRequestParts<S> for Credential {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Credential::from_parts(parts, &state.completeness())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_changes_with_name_epoch_and_tenants_but_not_grant_order() {
        let north = Credential::new("north", 1).with_tenant("north");
        assert_eq!(north.fingerprint(), Credential::new("north", 1).with_tenant("north").fingerprint());
        assert_ne!(north.fingerprint(), Credential::new("north", 2).with_tenant("north").fingerprint());
        assert_ne!(north.fingerprint(), Credential::new("south", 1).with_tenant("north").fingerprint());
        assert_ne!(north.fingerprint(), Credential::new("north", 1).with_tenants(["north", "east"]).fingerprint());
        assert_ne!(north.fingerprint(), Credential::new("north", 1).with_all_tenants().fingerprint());
        let ab = Credential::new("x", 1).with_tenants(["a", "b"]);
        let ba = Credential::new("x", 1).with_tenants(["b", "a"]);
        assert_eq!(ab.fingerprint(), ba.fingerprint());
    }

    #[test]
    fn tenant_access_answers_can_read() {
        let north = Credential::new("north", 1).with_tenant("north");
        assert!(north.can_read("north") && !north.can_read("south"));
        let admin = Credential::new("admin", 1).with_all_tenants();
        assert!(admin.can_read("south") && admin.sees_all_tenants() && admin.tenants().is_none());
    }
}
