//! The query parameters the contract names (contract §2.5 and §5.1–5.3): the one table the server's
//! extractors, the client and the fault kit read (the client sends only the cursor).

/// The cursor of the next page (`PageRequest`).
pub(crate) const CURSOR: &str = "cursor";
/// The items per page (`PageRequest`).
#[cfg(feature = "axum")]
pub(crate) const PAGE_SIZE: &str = "page_size";
/// The time budget of a request, in milliseconds (`TimeBudget`).
#[cfg(feature = "axum")]
pub(crate) const TIME_BUDGET_MS: &str = "time_budget_ms";
/// The demand for a complete result (`RequireComplete`).
#[cfg(feature = "axum")]
pub(crate) const REQUIRE_COMPLETE: &str = "require_complete";
