//! Twelve reasons on one endpoint, four of them the service's own, and two warnings: no
//! fixed limit, routed through `completeness::routing`.

use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};
use completeness::{Envelope, Scope, completeness};

mod own {
    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under hold {hold} are hidden.")]
    pub struct LegalHold {
        pub hold: String,
    }

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "REPLICA_BEHIND", kind = source, message = "The replica is behind.")]
    pub struct ReplicaBehind;

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "UPSTREAM_UNSURE", kind = truncation, message = "The upstream may have truncated.")]
    pub struct UpstreamUnsure;

    #[derive(Debug, Clone, completeness::Reason)]
    #[reason(code = "SHARD_MOVING", kind = budget, message = "Shard {shard} is moving.")]
    pub struct ShardMoving {
        pub shard: u8,
    }

    #[derive(Debug, Clone, completeness::Warning)]
    #[warning(code = "REPLICA_LAG", owner = "storage", review_by = "2027-01-31", message = "Lag.")]
    pub struct ReplicaLag;
}

#[completeness(
    resource = "documents",
    reasons(
        MorePagesAvailable,
        ResultLimitReached,
        TimeBudgetExceeded,
        SourceUnavailable,
        VisibilityRestricted,
        QuotaExhausted,
        ClientLimitReached,
        SnapshotExpired,
        own::LegalHold,
        own::ReplicaBehind,
        own::UpstreamUnsure,
        own::ShardMoving,
    ),
    warnings(StaleIndex, own::ReplicaLag)
)]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    let mut page = Envelope::incomplete(vec![], Scope::new("documents", "all"), own::ShardMoving { shard: 2 });
    page.completeness.push_reason(own::LegalHold { hold: "h".into() });
    page.completeness.push_warning(own::ReplicaLag);
    page
}

fn main() {
    assert_eq!(ListDocumentsReason::ALL.len(), 12);
    let _app: Router = Router::new()
        .route("/documents", get(list_documents).into())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
