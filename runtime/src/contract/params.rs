//! The query parameters the contract names (contract §2.5 and §5.1–5.3): the one table the server's
//! extractors, the client, the fault kit and the OpenAPI parameters read (the client sends only the cursor).

/// The cursor of the next page (`PageRequest`).
#[cfg(any(feature = "axum", feature = "client", feature = "openapi"))]
pub(crate) const CURSOR: &str = "cursor";
/// The items per page (`PageRequest`).
#[cfg(any(feature = "axum", feature = "openapi"))]
pub(crate) const PAGE_SIZE: &str = "page_size";
/// The time budget of a request, in milliseconds (`TimeBudget`).
#[cfg(any(feature = "axum", feature = "openapi"))]
pub(crate) const TIME_BUDGET_MS: &str = "time_budget_ms";
/// The demand for a complete result (`RequireComplete`).
#[cfg(any(feature = "axum", feature = "openapi"))]
pub(crate) const REQUIRE_COMPLETE: &str = "require_complete";

/// The request-timeout header, in seconds (`TimeBudget`); header names are case-insensitive.
#[cfg(any(feature = "axum", feature = "openapi"))]
pub(crate) const REQUEST_TIMEOUT: &str = "request-timeout";
