//! The completeness block every collection response carries (contract §2.1).

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::contract::continuation::Continuation;
use crate::contract::declared::AcceptsWarning;
use crate::contract::reason::{Reason, ReasonCode, ReasonKind, StandardReason, continues};
use crate::contract::rules::{self, Received, Rule, Violation};
use crate::contract::scope::{PageInfo, Scope};
use crate::contract::warning::Warning;

/// `"complete"` or `"partial"`: derived from `complete`, never set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The response covers the whole requested scope.
    Complete,
    /// It does not; `incomplete_reasons` say why.
    Partial,
}

impl Status {
    /// The wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Partial => "partial",
        }
    }
}

/// Whether a response covers its whole requested scope, why not, and how to continue.
///
/// The invariants of contract §2.1 hold by construction: a value is complete exactly
/// when it has no reasons (there is no way to build one otherwise), `status` and
/// `truncated` are derived when serializing, the continuation is the recovery of the
/// first reason that has one, `next_cursor` comes from the reason that carries a
/// cursor, and evidence is kept only while the value is complete.
///
/// ```
/// use completeness_runtime::{Completeness, Scope, StandardReason};
/// use completeness_runtime::reason::MorePagesAvailable;
///
/// let scope = Scope::new("service_accounts", "service accounts readable by credential 'north'");
/// let mut c: Completeness<StandardReason> = Completeness::complete(scope);
/// assert!(c.is_complete());
/// c.push_reason(MorePagesAvailable::new("c1.k1.abc"));
/// assert!(!c.is_complete());
/// assert_eq!(c.next_cursor(), Some("c1.k1.abc"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Completeness<R = StandardReason> {
    reasons: Vec<R>,
    continuation: Option<Continuation>,
    next_cursor: Option<String>,
    page: Option<PageInfo>,
    scope: Scope,
    warnings: Vec<Warning>,
    evidence: Option<String>,
    /// The reason that carried the next cursor before a page attested it, put back when a reason
    /// other than the next page's, or a stale warning, is pushed afterwards.
    unattested: Unattested<R>,
}

/// The reason that carried a block's next cursor before a page attested it whole
/// ([`Page::attach_evidence`](crate::server::page_request::Page::attach_evidence)): its cursor,
/// signed without the mark. Not part of what the block says, so equality ignores it.
#[derive(Debug, Clone)]
struct Unattested<R>(Option<R>);

impl<R> Default for Unattested<R> {
    fn default() -> Self {
        Unattested(None)
    }
}

impl<R> PartialEq for Unattested<R> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Over an endpoint's declared reason type, the scope's resource is the declared one: an empty
/// resource is filled with it, and a different one is replaced (the declaration is the one
/// source), with a `WARN` event under the target `completeness` that names both, so that the
/// typo is seen; never a panic in a request.
fn keep_declared_resource<R: Reason>(scope: &mut Scope) {
    if let Some(declared) = R::declared_set().and_then(|set| set.resource)
        && scope.resource != declared
    {
        #[cfg(feature = "axum")]
        if !scope.resource.is_empty() {
            tracing::warn!(
                target: crate::server::observe::TARGET,
                event = "resource_replaced",
                declared,
                written = %scope.resource,
                "the scope names another resource than the handler declares; the declared one is used"
            );
        }
        scope.resource = declared.to_owned();
    }
}

/// The scope of a block, borrowed mutably by [`Completeness::scope_mut`]; when dropped, the
/// resource is the declared one again, and evidence attached before a change of the scope is
/// gone: it attests the scope it was issued for (contract §6), not the one the answer now names.
#[derive(Debug)]
pub struct ScopeMut<'a, R: Reason> {
    scope: &'a mut Scope,
    evidence: &'a mut Option<String>,
    /// The scope the evidence was issued for, while there is evidence.
    attested: Option<Scope>,
    reasons: PhantomData<R>,
}

impl<R: Reason> Deref for ScopeMut<'_, R> {
    type Target = Scope;

    fn deref(&self) -> &Scope {
        self.scope
    }
}

impl<R: Reason> DerefMut for ScopeMut<'_, R> {
    fn deref_mut(&mut self) -> &mut Scope {
        self.scope
    }
}

impl<R: Reason> Drop for ScopeMut<'_, R> {
    fn drop(&mut self) {
        keep_declared_resource::<R>(self.scope);
        if self.attested.as_ref().is_some_and(|attested| attested != &*self.scope) {
            *self.evidence = None;
        }
    }
}

/// Which members a completeness block writes: collections carry `page` and `evidence`,
/// aggregates do not (contract §2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A list or search response.
    Collection,
    /// A count or other aggregate.
    Aggregate,
}

impl Shape {
    /// The members this shape owns, in wire order (the data members go after `truncated`).
    pub fn members(self) -> &'static [&'static str] {
        match self {
            Shape::Collection => completeness_codes::COLLECTION_MEMBERS,
            Shape::Aggregate => completeness_codes::AGGREGATE_MEMBERS,
        }
    }
}

impl<R: Reason> Completeness<R> {
    /// A complete answer over `scope`. Over an endpoint's declared reason type the resource is
    /// the declared one: an empty one is filled, another one replaced with a `WARN` event under
    /// the target `completeness` that names both (never a panic in a request).
    pub fn complete(mut scope: Scope) -> Self {
        keep_declared_resource::<R>(&mut scope);
        Completeness {
            reasons: Vec::new(),
            continuation: None,
            next_cursor: None,
            page: None,
            scope,
            warnings: Vec::new(),
            evidence: None,
            unattested: Unattested::default(),
        }
    }

    /// An incomplete answer over `scope`, for `reason`.
    pub fn incomplete(scope: Scope, reason: impl Into<R>) -> Self {
        let mut completeness = Completeness::complete(scope);
        completeness.push_reason(reason);
        completeness
    }

    /// Adds a reason; the value is incomplete from now on and loses any evidence.
    pub fn push_reason(&mut self, reason: impl Into<R>) {
        let reason = reason.into();
        if !continues(&reason) {
            self.withdraw_attestation();
        }
        let recovery = reason.recovery();
        if let Some(Continuation::NextCursor { cursor }) = &recovery
            && self.next_cursor.is_none()
        {
            self.next_cursor = Some(cursor.clone());
        }
        if self.continuation.is_none() {
            self.continuation = recovery;
        }
        self.evidence = None;
        self.reasons.push(reason);
        self.state_cursor_contract();
    }

    /// R10: page facts without a cursor contract take the one the reason carrying
    /// `next_cursor` was issued with, whichever of the two was set first.
    fn state_cursor_contract(&mut self) {
        if let Some(page) = &mut self.page
            && page.cursor.is_none()
            && self.next_cursor.is_some()
        {
            page.cursor = self.reasons.iter().find_map(Reason::cursor_contract).cloned();
        }
    }

    /// [`Completeness::push_reason`], by value.
    pub fn with_reason(mut self, reason: impl Into<R>) -> Self {
        self.push_reason(reason);
        self
    }

    /// Sets the page facts.
    pub fn with_page(mut self, page: PageInfo) -> Self {
        self.set_page(Some(page));
        self
    }

    /// Sets the page facts in place.
    pub fn set_page(&mut self, page: Option<PageInfo>) {
        self.page = page;
        self.state_cursor_contract();
    }

    /// Adds a warning (it never changes `complete`); only a warning `R` accepts: a declared
    /// endpoint's reason type accepts the warnings it declares.
    pub fn with_warning<W: Into<Warning>>(mut self, warning: W) -> Self
    where
        R: AcceptsWarning<W>,
    {
        self.push_warning(warning);
        self
    }

    /// Adds a warning in place; see [`Completeness::with_warning`]. A stale warning
    /// ([`Warning::is_stale`]) removes any evidence: a change needs current state.
    pub fn push_warning<W: Into<Warning>>(&mut self, warning: W)
    where
        R: AcceptsWarning<W>,
    {
        let warning = warning.into();
        // Evidence backs a change, which needs current state (contract §6).
        if warning.is_stale() {
            self.evidence = None;
            self.withdraw_attestation();
        }
        self.warnings.push(warning);
    }

    /// True only when the response covers the whole requested scope.
    pub fn is_complete(&self) -> bool {
        self.reasons.is_empty()
    }

    /// `complete` or `partial`.
    pub fn status(&self) -> Status {
        if self.is_complete() { Status::Complete } else { Status::Partial }
    }

    /// True when a truncation reason is present.
    pub fn is_truncated(&self) -> bool {
        self.reasons.iter().any(|r| r.kind() == ReasonKind::Truncation)
    }

    /// The reasons, in the order they were reported.
    pub fn reasons(&self) -> &[R] {
        &self.reasons
    }

    /// The codes of the reasons.
    pub fn reason_codes(&self) -> Vec<ReasonCode> {
        self.reasons.iter().map(Reason::code).collect()
    }

    /// True when a reason with `code` is present.
    pub fn has_reason(&self, code: &ReasonCode) -> bool {
        self.reasons.iter().any(|r| &r.code() == code)
    }

    /// How to recover; `None` when complete or when no reason has a recovery.
    /// A `None` never means complete: only [`Completeness::is_complete`] does.
    pub fn continuation(&self) -> Option<&Continuation> {
        self.continuation.as_ref()
    }

    /// The cursor of the next page (or the resume cursor of a client limit).
    pub fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref()
    }

    /// The position in `reasons` of the reason whose recovery is `next_cursor`, when one is.
    pub(crate) fn next_cursor_carrier(&self) -> Option<usize> {
        let next = self.next_cursor.as_deref()?;
        self.reasons
            .iter()
            .position(|r| matches!(r.recovery(), Some(Continuation::NextCursor { cursor }) if cursor == next))
    }

    /// Puts `reason`, another next page's, in the place of the reason that carries
    /// `next_cursor`; the cursor, and the continuation where it was that cursor's, follow it.
    /// Returns the reason it replaced; nothing changes when no reason carries the cursor or
    /// `reason` carries none. (Pages re-sign their cursor through it; they are a server-side
    /// type.)
    pub(crate) fn reissue_next_cursor(&mut self, reason: R) -> Option<R> {
        let Some(Continuation::NextCursor { cursor: new }) = reason.recovery() else {
            return None;
        };
        let at = self.next_cursor_carrier()?;
        if let Some(Continuation::NextCursor { cursor }) = &mut self.continuation
            && Some(&*cursor) == self.next_cursor.as_ref()
        {
            cursor.clone_from(&new);
        }
        self.next_cursor = Some(new);
        Some(std::mem::replace(&mut self.reasons[at], reason))
    }

    /// [`Completeness::reissue_next_cursor`] with `attested`, the same next page's reason whose
    /// cursor a page attested whole, keeping the reason it replaces: a reason other than the next
    /// page's, or a stale warning, pushed afterwards puts that one back
    /// ([`Completeness::withdraw_attestation`]), so an attested cursor never leaves on a partial
    /// or stale page, whatever order the handler took.
    #[cfg(feature = "axum")]
    pub(crate) fn attest_next_cursor(&mut self, attested: R) {
        self.unattested = Unattested(self.reissue_next_cursor(attested));
    }

    /// Puts back the next cursor as it was before a page attested it, if one did.
    fn withdraw_attestation(&mut self) {
        if let Some(before) = self.unattested.0.take() {
            self.reissue_next_cursor(before);
        }
    }

    /// The position of the service's own truncation that offered this answer's `next_cursor`,
    /// when the answer says which: it has no `MORE_PAGES_AVAILABLE` and no
    /// `CLIENT_LIMIT_REACHED` (the other reasons that may offer one, R7), exactly one reason of
    /// a code outside the standard table, of kind `truncation`, and its `continuation` is that
    /// cursor (R6, R8). Following the cursor is then that reason's recovery, as it is
    /// `MORE_PAGES_AVAILABLE`'s: pagination by the service's own name (contract §8). With two
    /// such reasons, a reader cannot tell whose cursor it is. Read from the wire members only,
    /// so a client and a server (and the fault layer, which reads a block back) agree.
    pub(crate) fn own_paging_reason(&self) -> Option<usize> {
        let cursor = self.next_cursor()?;
        if !matches!(self.continuation(), Some(Continuation::NextCursor { cursor: offered }) if offered == cursor) {
            return None;
        }
        let reasons = self.reasons();
        if reasons.iter().any(|r| matches!(r.code(), ReasonCode::MorePagesAvailable | ReasonCode::ClientLimitReached)) {
            return None;
        }
        let mut own = reasons.iter().enumerate().filter(|(_, reason)| !reason.code().is_standard());
        match (own.next(), own.next()) {
            (Some((at, reason)), None) if reason.kind() == ReasonKind::Truncation => Some(at),
            _ => None,
        }
    }

    /// Moves the next cursor out, for a collector that is done with this block (its
    /// `continuation` keeps the cursor's copy).
    pub(crate) fn take_next_cursor(&mut self) -> Option<String> {
        self.next_cursor.take()
    }

    /// The page facts.
    pub fn page(&self) -> Option<&PageInfo> {
        self.page.as_ref()
    }

    /// The scope.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The scope, mutably. Over an endpoint's declared reason type the resource stays the
    /// declared one: a change to it is undone when the guard is dropped, as in
    /// [`Completeness::complete`]. Evidence already attached is dropped with the guard when the
    /// scope changed: attach it once the scope is final.
    pub fn scope_mut(&mut self) -> ScopeMut<'_, R> {
        let attested = self.evidence.is_some().then(|| self.scope.clone());
        ScopeMut { scope: &mut self.scope, evidence: &mut self.evidence, attested, reasons: PhantomData }
    }

    /// The warnings.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The evidence token of a complete inventory response.
    pub fn evidence(&self) -> Option<&str> {
        self.evidence.as_deref()
    }

    /// Attaches evidence; refused (returns false) unless the value is complete and read from
    /// current state (no stale warning, contract §6).
    pub(crate) fn attach_evidence(&mut self, token: String) -> bool {
        if self.is_complete() && !self.warnings.iter().any(Warning::is_stale) {
            self.evidence = Some(token);
            true
        } else {
            false
        }
    }

    /// Converts the reasons, keeping everything else but what `R2` does not declare: over an
    /// endpoint's declared reason type, the scope's resource becomes the declared one (as in
    /// [`Completeness::complete`]) and a warning the endpoint does not declare is left out (its
    /// OpenAPI document does not list it), each with a `WARN` event under the target
    /// `completeness`. A stale warning ([`Warning::is_stale`]) is kept even then, with its own
    /// `WARN` event: without it the answer would read as current (contract §3.5); and the
    /// evidence goes when a stale warning stays (§6). A block of no endpoint (as
    /// [`Completeness::to_standard`] makes for a client) keeps both as they are.
    pub fn map_reasons<R2: Reason>(self, mut f: impl FnMut(R) -> R2) -> Completeness<R2> {
        let mut scope = self.scope;
        keep_declared_resource::<R2>(&mut scope);
        let mut warnings = self.warnings;
        let mut evidence = self.evidence;
        if let Some(declared) = R2::declared_set() {
            warnings.retain(|warning| {
                let declared = declared.warnings.contains(warning.code());
                #[cfg(feature = "axum")]
                match (declared, warning.is_stale()) {
                    (true, _) => {}
                    (false, true) => tracing::warn!(
                        target: crate::server::observe::TARGET,
                        event = "stale_warning_kept",
                        warning = %warning.code(),
                        "a stale warning the handler does not declare was kept: the answer is not current"
                    ),
                    (false, false) => tracing::warn!(
                        target: crate::server::observe::TARGET,
                        event = "warning_left_out",
                        warning = %warning.code(),
                        "a warning the handler does not declare was left out"
                    ),
                }
                declared || warning.is_stale()
            });
            // An endpoint's answer: its evidence never goes beside a stale warning (contract
            // §6), whoever made the block (an older upstream's answer, relayed).
            if warnings.iter().any(Warning::is_stale) {
                evidence = None;
            }
        }
        Completeness {
            reasons: self.reasons.into_iter().map(&mut f).collect(),
            continuation: self.continuation,
            next_cursor: self.next_cursor,
            page: self.page,
            scope,
            warnings,
            evidence,
            unattested: Unattested::default(),
        }
    }

    /// The same block with [`StandardReason`]s, as a client sees it.
    pub fn to_standard(&self) -> Completeness<StandardReason> {
        self.clone().map_reasons(|r| StandardReason::from_reason(&r))
    }

    /// Writes `status`, `complete` and `truncated`: the members before the data.
    pub fn serialize_head<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        map.serialize_entry("status", self.status().as_str())?;
        map.serialize_entry("complete", &self.is_complete())?;
        map.serialize_entry("truncated", &self.is_truncated())
    }

    /// Writes the members after the data.
    pub fn serialize_tail<M: SerializeMap>(&self, map: &mut M, shape: Shape) -> Result<(), M::Error> {
        self.write_tail(map, shape, None)
    }

    /// Writes the members after the data of a collection that wrote `returned` items:
    /// `page.returned` says that many (contract §2.2 R11), whatever the page facts were built with.
    pub fn serialize_collection_tail<M: SerializeMap>(&self, map: &mut M, returned: usize) -> Result<(), M::Error> {
        self.write_tail(map, Shape::Collection, Some(returned))
    }

    fn write_tail<M: SerializeMap>(&self, map: &mut M, shape: Shape, returned: Option<usize>) -> Result<(), M::Error> {
        // R7 on the way out: `MorePagesAvailable::new("")` would send a cursor that many servers,
        // given it back, read as none (the first page again). The answer does not serialize
        // (over HTTP, the 500 `INTERNAL` problem) rather than go out.
        if self.next_cursor.as_deref() == Some("") {
            return Err(serde::ser::Error::custom(
                "`next_cursor` is the empty string (contract §2.2 R7): give the next page a non-empty cursor",
            ));
        }
        map.serialize_entry("incomplete_reasons", &self.reasons)?;
        map.serialize_entry("continuation", &self.continuation)?;
        map.serialize_entry("next_cursor", &self.next_cursor)?;
        if shape == Shape::Collection {
            match (&self.page, returned.map(|n| n as u64)) {
                (Some(page), Some(returned)) if page.returned != returned => {
                    map.serialize_entry("page", &PageInfo { returned, ..page.clone() })?;
                }
                (page, _) => map.serialize_entry("page", page)?,
            }
        }
        map.serialize_entry("scope", &self.scope)?;
        map.serialize_entry("warnings", &self.warnings)?;
        if shape == Shape::Collection {
            map.serialize_entry("evidence", &self.evidence)?;
        }
        Ok(())
    }

    /// R11 for a block read apart from its items (through `#[serde(flatten)]` in a struct of
    /// one's own): `page.returned`, when the block has page facts, must be the number of items
    /// the data member `name` holds. The error says which differ.
    pub fn check_returned(&self, name: &str, items: usize) -> Result<(), String> {
        let page = self.page();
        match page.and_then(|page| crate::contract::rules::check_page_returned(page.returned, name, items)) {
            Some(violation) => Err(violation.to_string()),
            None => Ok(()),
        }
    }

    /// Strictly reads a completeness block out of a wire object, removing its members.
    ///
    /// Every rule of contract §2.2 must hold (R1–R10, R12, R13); the error names the first
    /// one broken.
    pub fn take_from<E: serde::de::Error>(object: &mut Map<String, Value>, shape: Shape) -> Result<Self, E> {
        match Completeness::read_checked(object, shape) {
            Ok((value, violations)) => match violations.into_iter().next() {
                Some(violation) => Err(E::custom(violation)),
                None => Ok(value),
            },
            Err(problems) => Err(E::custom(problems.into_iter().next().unwrap_or_default())),
        }
    }

    /// Reads a completeness block out of a wire object and lists every rule it breaks. `Err`
    /// when a member is missing (R1), a member has the wrong type, or a reason or warning object
    /// is malformed (R12, R13): then it lists every such problem, with every rule among R3, R5
    /// and R9 the members received still break.
    pub(crate) fn read_checked(
        object: &mut Map<String, Value>,
        shape: Shape,
    ) -> Result<(Self, Vec<Violation>), Vec<String>> {
        let missing: Vec<String> = shape
            .members()
            .iter()
            .filter(|member| !object.contains_key(**member))
            .map(|member| {
                let message = format!("missing `{member}`: a response without it cannot be trusted to be complete");
                Violation::new(Rule::MembersPresent, message).to_string()
            })
            .collect();
        if !missing.is_empty() {
            return Err(missing);
        }
        let mut take = |name: &str| object.remove(name).unwrap_or(Value::Null);
        let complete = match take("complete") {
            Value::Bool(b) => b,
            other => return Err(vec![format!("`complete` must be a boolean, got {other}")]),
        };
        let (status, truncated, continuation) = (take("status"), take("truncated"), take("continuation"));
        let (reasons, next_cursor, scope, warnings) =
            (take("incomplete_reasons"), take("next_cursor"), take("scope"), take("warnings"));
        // An aggregate has neither: they read as null.
        let (page, evidence) =
            if shape == Shape::Collection { (take("page"), take("evidence")) } else { (Value::Null, Value::Null) };
        let received = Received {
            complete,
            status: &status,
            truncated: &truncated,
            has_continuation: !continuation.is_null(),
            has_evidence: !evidence.is_null(),
        };

        // Each member is read on its own, so that one unreadable member hides no other problem.
        let mut problems: Vec<String> = Vec::new();
        let continuation: Option<Option<Continuation>> = read_member("continuation", continuation, &mut problems);
        let next_cursor: Option<Option<String>> = read_member("next_cursor", next_cursor, &mut problems);
        let page: Option<Option<PageInfo>> = read_member("page", page, &mut problems);
        let scope: Option<Scope> = read_member("scope", scope, &mut problems);
        let evidence: Option<Option<String>> = read_member("evidence", evidence, &mut problems);
        let reasons = read_reasons::<R>(reasons).map_err(|found| problems.extend(found)).ok();
        let warnings = read_warnings(warnings).map_err(|found| problems.extend(found)).ok();

        let mut violations = rules::check_received(&received);
        let (
            Some(reasons),
            Some(continuation),
            Some(next_cursor),
            Some(page),
            Some(scope),
            Some(warnings),
            Some(evidence),
        ) = (reasons, continuation, next_cursor, page, scope, warnings, evidence)
        else {
            problems.extend(violations.iter().map(ToString::to_string));
            return Err(problems);
        };
        let unattested = Unattested::default();
        let mut value =
            Completeness { reasons, continuation, next_cursor, page, scope, warnings, evidence, unattested };
        violations.extend(rules::check_block(&value, &received));
        violations.sort_by_key(|violation| violation.rule);
        value.restore_recoveries();
        Ok((value, violations))
    }

    /// Gives reasons read from the wire back the recoveries that travelled beside them: the
    /// `continuation` to the first standard reason whose recovery it is, else to the service's
    /// own reason when the block has one (with two, whose it is cannot be told); the next cursor
    /// to the standard reason that offers it. (A next cursor no standard reason offers is an own
    /// reason's paging, which [`Completeness::own_paging_reason`] reads from the wire members.)
    ///
    /// A `continuation` a reason already carries in its details (`QUOTA_EXHAUSTED`'s wait) is
    /// that reason's, and no other's: a `SOURCE_UNAVAILABLE` before it that offered no retry
    /// would otherwise be read as offering the quota's wait, a retry its source never offered.
    fn restore_recoveries(&mut self) {
        if let Some(continuation) = &self.continuation {
            let carried = self.reasons.iter().any(|reason| reason.recovery().as_ref() == Some(continuation));
            let claimed = carried || self.reasons.iter_mut().any(|reason| reason.restore_recovery(continuation));
            if !claimed && !matches!(continuation, Continuation::NextCursor { .. }) {
                let mut own = self.reasons.iter_mut().filter(|reason| !reason.code().is_standard());
                if let (Some(only), None) = (own.next(), own.next()) {
                    only.adopt_recovery(continuation);
                }
            }
        }
        if let Some(cursor) = &self.next_cursor {
            let next = Continuation::NextCursor { cursor: cursor.clone() };
            for reason in &mut self.reasons {
                if reason.restore_recovery(&next) {
                    break;
                }
            }
        }
    }
}

/// One member as received, or `None` with the problem noted.
fn read_member<T: serde::de::DeserializeOwned>(what: &str, value: Value, problems: &mut Vec<String>) -> Option<T> {
    serde_json::from_value(value).map_err(|e| problems.push(format!("`{what}`: {e}"))).ok()
}

/// `incomplete_reasons` as received: every malformed reason object (R12), every code the
/// reader's declaration leaves out (contract §4), or the reasons.
fn read_reasons<R: Reason>(value: Value) -> Result<Vec<R>, Vec<String>> {
    let Value::Array(values) = value else {
        return Err(vec!["`incomplete_reasons` must be an array".to_owned()]);
    };
    let mut objects = Vec::with_capacity(values.len());
    let mut problems = Vec::new();
    for (i, value) in values.into_iter().enumerate() {
        match value {
            Value::Object(object) => match rules::check_reason_object(i, &object) {
                Some(violation) => problems.push(violation.to_string()),
                None => objects.push(object),
            },
            _ => problems.push(format!("incomplete_reasons[{i}] must be an object")),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut reasons = Vec::with_capacity(objects.len());
    // A reader of an endpoint's declared reasons tells a code its declaration leaves out, or
    // declares of another kind (contract §4), from an object no reader takes (R12).
    let declared = R::declared_set();
    for (i, object) in objects.into_iter().enumerate() {
        let left_out = declared.as_ref().is_some_and(|set| leaves_out(set, &object));
        match R::from_wire(object) {
            Ok(reason) => reasons.push(reason),
            Err(why) if left_out => problems.push(format!(
                "incomplete_reasons[{i}]: {why} (contract §4: a reader of the endpoint's declared reasons takes no \
                 others; one of any reason, `Envelope<T>`, keeps a code it does not know)"
            )),
            Err(why) => {
                problems.push(Violation::new(Rule::ReasonObject, format!("incomplete_reasons[{i}]: {why}")).to_string())
            }
        }
    }
    if problems.is_empty() { Ok(reasons) } else { Err(problems) }
}

/// True when `set`, an endpoint's declaration, leaves out the reason `object`: its code is not
/// declared, or declared of another kind than the one the object carries.
fn leaves_out(set: &crate::contract::declared::DeclaredSet, object: &Map<String, Value>) -> bool {
    let Some(code) = object.get("code").and_then(Value::as_str) else {
        return false;
    };
    match set.kind_of(code) {
        None => true,
        Some(declared) => object.get("kind").and_then(Value::as_str).is_some_and(|kind| declared.as_str() != kind),
    }
}

/// `warnings` as received: every malformed warning object (R13), or the warnings.
fn read_warnings(value: Value) -> Result<Vec<Warning>, Vec<String>> {
    let Value::Array(values) = value else {
        return Err(vec![format!("`warnings` must be an array, got {value}")]);
    };
    let problems: Vec<String> = values
        .iter()
        .enumerate()
        .filter_map(|(i, warning)| rules::check_warning_object(i, warning).map(|violation| violation.to_string()))
        .collect();
    if !problems.is_empty() {
        return Err(problems);
    }
    serde_json::from_value(Value::Array(values)).map_err(|e| vec![format!("`warnings`: {e}")])
}

impl<R: Reason> Serialize for Completeness<R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.serialize_head(&mut map)?;
        self.serialize_tail(&mut map, Shape::Collection)?;
        map.end()
    }
}

/// Reads a block strictly ([`Completeness::take_from`]). Read alone, or through
/// `#[serde(flatten)]` in a struct of a client's own, it does not see the items beside it, so it
/// cannot check R11 (`page.returned` counts them): [`Envelope`](crate::Envelope) does; a struct
/// of one's own calls [`Completeness::check_returned`] with its items once read.
impl<'de, R: Reason> Deserialize<'de> for Completeness<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut object = crate::contract::members::distinct_members(deserializer)?;
        Completeness::take_from(&mut object, Shape::Collection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::reason::{SourceUnavailable, VisibilityRestricted};

    fn scope() -> Scope {
        Scope::new("service_accounts", "all")
    }

    #[test]
    fn evidence_goes_when_the_scope_it_attests_changes() {
        let mut block: Completeness<StandardReason> = Completeness::complete(Scope::new("accounts", "tenant=a"));
        assert!(block.attach_evidence("ev1.x".into()));
        // Borrowed and left as it was: the evidence stays.
        drop(block.scope_mut());
        assert_eq!(block.evidence(), Some("ev1.x"));
        block.scope_mut().visibility = "tenant=a,b".to_owned();
        assert_eq!(block.evidence(), None, "evidence of another scope than the one the answer names");
    }

    #[test]
    fn evidence_attaches_only_to_a_complete_block() {
        let mut incomplete: Completeness = Completeness::incomplete(scope(), VisibilityRestricted::new());
        assert!(!incomplete.attach_evidence("ev1.x".into()));
        assert_eq!(incomplete.evidence(), None);
        let mut complete: Completeness = Completeness::complete(scope());
        assert!(complete.attach_evidence("ev1.x".into()));
        assert_eq!(complete.evidence(), Some("ev1.x"));
    }

    #[test]
    fn a_later_reason_removes_evidence() {
        let mut c: Completeness = Completeness::complete(scope());
        c.attach_evidence("ev1.x".into());
        c.push_reason(SourceUnavailable::new("legacy"));
        assert_eq!(c.evidence(), None, "evidence never survives on a partial read");
        assert!(!c.is_complete());
    }

    #[test]
    fn a_stale_warning_removes_evidence_and_keeps_it_off() {
        use crate::contract::warning::{PageSizeReduced, StaleIndex};
        let mut c: Completeness = Completeness::complete(scope());
        assert!(c.attach_evidence("ev1.x".into()));
        c.push_warning(PageSizeReduced::new(500, 100));
        assert_eq!(c.evidence(), Some("ev1.x"), "a warning that is not stale keeps it");
        c.push_warning(StaleIndex::new("audit"));
        assert_eq!(c.evidence(), None, "evidence never survives on a stale read");
        assert!(!c.attach_evidence("ev1.y".into()));
        assert_eq!(c.evidence(), None);
        assert!(c.is_complete(), "a warning never changes `complete`");
    }
}
