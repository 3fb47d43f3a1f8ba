//! `GET /ready`: whether this replica can serve now, for a load balancer's health check or a
//! readiness probe. It needs no credential, as a prober holds none, and it reads nothing a
//! credential would be needed for: a replica whose database answers is ready; one whose
//! database cannot be reached, or does not answer within [`READY_TIMEOUT`], answers the same
//! 503 `SERVICE_UNAVAILABLE` with `Retry-After` as every route that needs the database, so that
//! the balancer sends its requests to another replica in the meantime. So does a replica whose
//! pooled connections are all in use for as long (its detail says so, not that the database is
//! down): it is too busy to be sent more.
//!
//! The process being up says little by itself: a replica whose database is down answers every
//! authenticated request with a 503, and would stay in the balancer's rotation if only the
//! port were probed.

use std::time::Duration;

use axum::extract::State;
use axum::{Extension, Json};
use completeness::{Exempt, Problem};
use serde::Serialize;

use super::http::{POOL_EXHAUSTED, outage, store_problem};
use super::state::AppState;
use super::telemetry::Routine;

/// Why `GET /ready` carries no completeness block.
pub const READY_EXEMPT: &str = "whether this replica can serve now, not a list";

/// How long `GET /ready` waits for the database: a prober gives up after a few seconds, and a
/// database slower than this is not one to send requests to.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// What `GET /ready` answers while the replica can serve.
#[derive(Debug, Serialize)]
pub struct Ready {
    /// Always `ready`.
    pub status: &'static str,
    /// Which replica answered (its name in the log and in the replicas table): behind a
    /// balancer, the one a probe reached.
    pub replica: String,
}

/// `GET /ready`: 200 with [`Ready`] when the database answered a read within [`READY_TIMEOUT`],
/// else the 503 of an outage (and that 503 once the replica is stopping, [`Running::stop`](super::Running::stop)) (and the 500 of any other failure of the database, a file that is
/// no database any more say, whose cause is logged: a balancer takes the replica out for either).
pub async fn ready(State(state): State<AppState>) -> Result<Exempt<(Extension<Routine>, Json<Ready>)>, Problem> {
    if state.stopping.is_cancelled() {
        return Err(outage("This replica is stopping: send requests to another one."));
    }
    // A task of its own: SQLite's calls run on their thread (`store::sqlite`), where a timeout
    // around them could not fire before they return; this task's timeout fires all the same.
    let store = state.store.clone();
    let mut check = tokio::spawn(async move { store.current_snapshot().await });
    let checked = tokio::time::timeout(READY_TIMEOUT, &mut check).await;
    // A check given up on stops here: it would end the outage it is counted in with its late
    // answer, or wait on for a connection and be counted once more.
    check.abort();
    match checked {
        Ok(Ok(Ok(_))) => {
            let ready = Ready { status: "ready", replica: state.replica.replica.clone() };
            Ok(Exempt::new((Extension(Routine), Json(ready)), READY_EXEMPT))
        }
        Ok(Ok(Err(error))) => Err(store_problem(error)),
        Ok(Err(failed)) => {
            tracing::error!(error = %failed, "the readiness check failed; answering 500");
            Err(Problem::new(completeness::ProblemCode::Internal, "The server failed; the cause is in its log."))
        }
        Err(_) => match state.store.connections().filter(|pool| pool.exhausted()) {
            // The database may be fine (a lock held elsewhere, a burst of slow requests): this
            // replica holds every connection it may have, and is too busy to be sent more.
            Some(pool) => {
                tracing::warn!(
                    connections = pool.max,
                    waiting = pool.waiting,
                    "the readiness check waited for a database connection for {READY_TIMEOUT:?}: every one of \
                     this replica's is in use; answering 503"
                );
                Err(outage(POOL_EXHAUSTED))
            }
            None => {
                state.health.unanswered(READY_TIMEOUT);
                Err(outage("Its database did not answer in time."))
            }
        },
    }
}
