//! Handlers at every visibility, with their own attributes: the reason type takes the handler's
//! visibility, and the handler keeps its attributes and doc comments as written.

use axum::Router;
use completeness::routing::get;
use completeness::{CompletenessConfig, CursorKeys};

mod inventory {
    use completeness::{Envelope, Scope, completeness};

    /// Every account.
    #[completeness(resource = "accounts", reasons(MorePagesAvailable))]
    #[must_use = "a handler's future does nothing unless awaited"]
    pub(crate) async fn list_all() -> Envelope<String, ListAllReason> {
        Envelope::complete(vec![], Scope::new("accounts", "all"))
    }

    pub(crate) mod nested {
        use completeness::{Envelope, Scope, completeness};

        #[completeness(resource = "accounts", reasons(VisibilityRestricted))]
        pub(super) async fn list_mine() -> Envelope<String, ListMineReason> {
            Envelope::complete(vec![], Scope::new("accounts", "mine"))
        }

        #[completeness(resource = "accounts", reasons(ResultLimitReached))]
        pub(in crate::inventory) async fn list_some() -> Envelope<String, ListSomeReason> {
            Envelope::complete(vec![], Scope::new("accounts", "some"))
        }

        #[completeness(resource = "accounts", reasons())]
        #[allow(dead_code)]
        async fn list_none() -> Envelope<String, ListNoneReason> {
            Envelope::complete(vec![], Scope::new("accounts", "none"))
        }
    }

    pub(crate) fn routes() -> axum::Router<completeness::CompletenessConfig> {
        assert_eq!(nested::ListMineReason::ALL.len(), 1);
        assert_eq!(nested::ListSomeReason::ALL.len(), 1);
        axum::Router::new()
            .route("/mine", completeness::routing::get(nested::list_mine).into())
            .route("/some", completeness::routing::get(nested::list_some).into())
    }
}

fn main() {
    assert_eq!(inventory::ListAllReason::ALL.len(), 1);
    let _app: Router = Router::new()
        .route("/all", get(inventory::list_all).into())
        .merge(inventory::routes())
        .with_state(CompletenessConfig::new(CursorKeys::ephemeral()));
}
