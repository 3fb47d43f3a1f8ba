//! The reason and warning names the `#[completeness]` attribute accepts (DESIGN §2.2, §2.5).

/// The eight reason codes, as `(CamelCase name, SCREAMING_SNAKE code)`.
pub(crate) const REASONS: [(&str, &str); 8] = [
    ("MorePagesAvailable", "MORE_PAGES_AVAILABLE"),
    ("ResultLimitReached", "RESULT_LIMIT_REACHED"),
    ("TimeBudgetExceeded", "TIME_BUDGET_EXCEEDED"),
    ("SourceUnavailable", "SOURCE_UNAVAILABLE"),
    ("VisibilityRestricted", "VISIBILITY_RESTRICTED"),
    ("QuotaExhausted", "QUOTA_EXHAUSTED"),
    ("ClientLimitReached", "CLIENT_LIMIT_REACHED"),
    ("SnapshotExpired", "SNAPSHOT_EXPIRED"),
];

/// The six warning codes, as `(CamelCase name, SCREAMING_SNAKE code)`.
pub(crate) const WARNINGS: [(&str, &str); 6] = [
    ("StaleIndex", "STALE_INDEX"),
    ("PartialFieldSet", "PARTIAL_FIELD_SET"),
    ("DefaultScopeApplied", "DEFAULT_SCOPE_APPLIED"),
    ("PageSizeReduced", "PAGE_SIZE_REDUCED"),
    ("OrderingDefaulted", "ORDERING_DEFAULTED"),
    ("DeprecatedField", "DEPRECATED_FIELD"),
];

/// The CamelCase name in `table` that `written` was probably meant to be
/// (same letters ignoring case and underscores), if any.
pub(crate) fn suggestion(table: &[(&'static str, &'static str)], written: &str) -> Option<&'static str> {
    let fold = |s: &str| s.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect::<String>();
    let written = fold(written);
    table.iter().map(|(name, _)| *name).find(|name| fold(name) == written)
}

/// `snake_case` → `CamelCase`.
pub(crate) fn camel_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map(|first| first.to_uppercase().chain(chars).collect::<String>()).unwrap_or_default()
        })
        .collect()
}
