//! An annotated handler returning `Envelope` with its generated reason type routes through
//! `completeness::routing::get`; the enum holds exactly the declared codes.

use axum::Router;
use axum::extract::{FromRef, State};
use completeness::reason::MorePagesAvailable;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, ReasonCode, Scope, WarningCode, completeness};

/// The service's state carries the framework's settings, as axum states carry their parts.
#[derive(Clone)]
struct Db {
    completeness: CompletenessConfig,
}

impl FromRef<Db> for CompletenessConfig {
    fn from_ref(db: &Db) -> CompletenessConfig {
        db.completeness.clone()
    }
}

#[completeness(
    resource = "service_accounts",
    reasons(MorePagesAvailable, VisibilityRestricted),
    warnings(PageSizeReduced)
)]
async fn list_service_accounts(State(_db): State<Db>) -> Envelope<String, ListServiceAccountsReason> {
    let scope = Scope::new("", "service accounts readable by credential 'north'");
    Envelope::incomplete(vec!["svc-north-00001".to_owned()], scope, MorePagesAvailable::new("c1.k1.next"))
}

fn main() {
    let _app: Router = Router::new()
        .route("/service-accounts", get(list_service_accounts).into())
        .with_state(Db { completeness: CompletenessConfig::new(CursorKeys::ephemeral()) });
    assert_eq!(ListServiceAccountsReason::ALL, &[ReasonCode::MorePagesAvailable, ReasonCode::VisibilityRestricted]);
    assert_eq!(ListServiceAccountsReason::WARNINGS, &[WarningCode::PageSizeReduced]);
}
