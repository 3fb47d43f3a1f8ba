//! What an audit finds: one finding per route and method, and the files it skipped.

use serde::{Deserialize, Serialize};

/// The verdict on one route and method, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Returns a list (or a struct carrying one) without a completeness block.
    ListWithoutCompleteness,
    /// Returns a single resource with a collection inside: probably bounded, but say why.
    NestedCollection,
    /// The audit cannot see what the handler returns; `why` says what stopped it.
    Unknown,
    /// Annotated with `#[completeness]`, or returns a type that reports completeness.
    ReportsCompleteness,
    /// Returns `Exempt`: the handler declares, with a reason in its code, that its answer needs
    /// no completeness block; or the route mounts a file service (tower-http's `ServeDir`,
    /// `ServeFile`), which is no list endpoint. Counted apart, so that an exemption is never
    /// taken for a migration.
    Exempt,
    /// Returns something that is not a list.
    NotAList,
}

impl Verdict {
    /// Every verdict, most severe first.
    pub const ALL: [Verdict; 6] = [
        Verdict::ListWithoutCompleteness,
        Verdict::NestedCollection,
        Verdict::Unknown,
        Verdict::ReportsCompleteness,
        Verdict::Exempt,
        Verdict::NotAList,
    ];

    /// The verdict as the table prints it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::ListWithoutCompleteness => "list without completeness",
            Verdict::NestedCollection => "single resource with nested collection",
            Verdict::Unknown => "unknown",
            Verdict::ReportsCompleteness => "reports completeness",
            Verdict::Exempt => "exempt",
            Verdict::NotAList => "not a list",
        }
    }

    /// The stable code of the verdict (JSON, SARIF rule ids, baselines).
    pub fn code(self) -> &'static str {
        match self {
            Verdict::ListWithoutCompleteness => "list_without_completeness",
            Verdict::NestedCollection => "nested_collection",
            Verdict::Unknown => "unknown",
            Verdict::ReportsCompleteness => "reports_completeness",
            Verdict::Exempt => "exempt",
            Verdict::NotAList => "not_a_list",
        }
    }

    /// True when the finding asks for a change.
    pub fn needs_attention(self) -> bool {
        matches!(self, Verdict::ListWithoutCompleteness | Verdict::NestedCollection | Verdict::Unknown)
    }
}

/// One route and method of the audited service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// `GET`, `POST`, ... (`ANY` for `any(handler)`; `*` for a service or a router's fallback).
    pub method: String,
    /// The full path, with the prefixes of every `nest` joined (`(fallback)` for a router's
    /// fallback). A part the audit does not read is an expression in angle brackets, never
    /// axum's `{param}` syntax ([`unread_path`](crate::routes::unread_path): `<p>` for a loop's
    /// variable, `<self.prefix>/users`, `<mount!>` for a macro), and `/*` stands for any path (a
    /// merged router the audit cannot follow, a handler whose path it cannot read).
    pub path: String,
    /// The handler as registered (`inventory::list`, `Self::list`; `closure` for a closure).
    pub handler: String,
    /// The package the route is registered in (`svc-users`); empty for sources audited without
    /// a manifest. Part of the baseline key: two services of a workspace can have the same route.
    #[serde(rename = "crate", default)]
    pub krate: String,
    /// The handler's file, relative to the audited directory (the registration's when the handler was not found).
    pub file: String,
    /// The line of the handler's name in `file`.
    pub line: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// What the verdict rests on.
    pub why: String,
    /// What to change, when something should change.
    pub fix: Option<String>,
    /// True when a baseline lists this finding: it is known and does not fail `--deny`.
    #[serde(default)]
    pub baselined: bool,
}

impl Finding {
    /// True when the reports show this finding: it asks for a change, or it reports
    /// completeness past the completeness layer ([`Finding::is_unchecked`]).
    pub fn is_shown(&self) -> bool {
        self.verdict.needs_attention() || self.is_unchecked()
    }

    /// True when the route reports completeness past the completeness layer (routed with
    /// `axum::routing`, or a block inside `Json`): the one case where a reporting finding comes
    /// with a fix. `--deny unchecked` fails on it.
    pub fn is_unchecked(&self) -> bool {
        self.verdict == Verdict::ReportsCompleteness && self.fix.is_some()
    }

    /// The identity of a finding across runs: lines move, routes and handlers rarely do, so
    /// nothing in it depends on a line (a closure handler is `closure`, wherever it is). It
    /// starts with the package (`svc-users list_without_completeness GET /users list`), so that
    /// a route known in one service of a workspace is not taken as known in another.
    pub fn key(&self) -> String {
        if self.krate.is_empty() {
            return self.key_without_crate();
        }
        format!("{} {}", self.krate, self.key_without_crate())
    }

    /// The identity of a finding without its package, as baselines of version 1 list it.
    pub fn key_without_crate(&self) -> String {
        format!("{} {} {} {}", self.verdict.code(), self.method, self.path, self.handler)
    }
}

/// A file the audit could not read or parse; it was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file, relative to the audited directory.
    pub file: String,
    /// The line of the error (1 when unknown).
    pub line: usize,
    /// What went wrong.
    pub error: String,
}

/// The result of one audit.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// Every route and method found, sorted by path then method.
    pub findings: Vec<Finding>,
    /// Files that were skipped.
    pub skipped: Vec<Skipped>,
    /// How many files were parsed.
    pub files: usize,
    /// The entries of the `--baseline` read that no finding matches any more: fixed, removed or
    /// renamed routes. Left in the baseline, each would let its route come back unnoticed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_baseline: Vec<String>,
}

impl Report {
    /// How many findings have `verdict`, baselined ones excluded when `new_only`.
    pub fn count(&self, verdict: Verdict, new_only: bool) -> usize {
        self.findings.iter().filter(|f| f.verdict == verdict && !(new_only && f.baselined)).count()
    }
}
