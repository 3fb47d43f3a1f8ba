//! A small versioned inventory service used by the `axum_*` tests: real axum Router,
//! real extractors, requests sent with tower's `oneshot`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{FromRef, Query, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use completeness::budget::TimeBudget;
use completeness::config::CompletenessConfig;
use completeness::cursor::{CursorKeys, QueryBinding};
use completeness::evidence::{Evidence, EvidenceIssuer, RequireEvidence};
use completeness::fanout::FanOut;
use completeness::page_request::PageRequest;
use completeness::reason::{QuotaExhausted, ResultLimitReached, SourceUnavailable, VisibilityRestricted};
use completeness::{Credential, Envelope, Problem, ProblemCode, RequireComplete, Scope, StandardReason};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower::ServiceExt;

/// One version of an account row: visible at snapshots `from..to`.
#[derive(Debug, Clone)]
struct Row {
    id: String,
    tenant: String,
    owner: Option<String>,
    from: u64,
    to: Option<u64>,
}

/// An account as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub id: String,
    pub tenant: String,
    pub owner: Option<String>,
}

#[derive(Debug, Default)]
pub struct Store {
    rows: Vec<Row>,
    /// The current snapshot.
    pub version: u64,
    /// Snapshots below this are no longer retained.
    pub oldest_retained: u64,
    pub archived: Vec<String>,
}

impl Store {
    fn at(&self, snapshot: u64) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.from <= snapshot && r.to.is_none_or(|to| snapshot < to))
    }

    /// Inserts a new account at a new snapshot.
    pub fn insert(&mut self, id: &str, tenant: &str, owner: Option<&str>) {
        self.version += 1;
        self.rows.push(Row {
            id: id.into(),
            tenant: tenant.into(),
            owner: owner.map(Into::into),
            from: self.version,
            to: None,
        });
    }

    /// Changes an account's owner at a new snapshot.
    pub fn set_owner(&mut self, id: &str, owner: Option<&str>) {
        self.version += 1;
        let version = self.version;
        let Some(current) = self.rows.iter_mut().find(|r| r.id == id && r.to.is_none()) else { return };
        current.to = Some(version);
        let mut next = current.clone();
        next.owner = owner.map(Into::into);
        next.from = version;
        next.to = None;
        self.rows.push(next);
    }

    /// Removes an account at a new snapshot.
    pub fn remove(&mut self, id: &str) {
        self.version += 1;
        let version = self.version;
        if let Some(current) = self.rows.iter_mut().find(|r| r.id == id && r.to.is_none()) {
            current.to = Some(version);
        }
    }

    pub fn current_ids(&self) -> Vec<String> {
        self.at(self.version).map(|r| r.id.clone()).collect()
    }
}

#[derive(Clone)]
pub struct App {
    pub store: Arc<Mutex<Store>>,
    /// Permission epochs by credential name.
    pub epochs: Arc<Mutex<HashMap<String, u64>>>,
}

impl App {
    pub fn bump_epoch(&self, credential: &str) {
        *self.epochs.lock().unwrap().entry(credential.to_owned()).or_insert(1) += 1;
    }
}

/// 30 accounts `sa-001`..`sa-030` over tenants north/south/east; every third has no owner.
pub fn seeded_store() -> Store {
    let mut store = Store::default();
    for i in 1..=30 {
        let tenant = ["north", "south", "east"][i % 3];
        let owner = if i % 3 == 0 { None } else { Some("dana") };
        store.insert(&format!("sa-{i:03}"), tenant, owner);
    }
    store
}

pub const K1: &str = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
pub const K2: &str = "k2:Hx4dHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA";

pub fn config(keys: &str) -> CompletenessConfig {
    CompletenessConfig::new(CursorKeys::parse(keys).unwrap())
        .with_page_sizes(4, 10)
        .with_time_budgets(Duration::from_millis(200), Duration::from_millis(1000))
}

pub fn app(config: CompletenessConfig) -> (Router, App) {
    app_with_store(config, seeded_store())
}

pub fn app_with_store(config: CompletenessConfig, store: Store) -> (Router, App) {
    let state = App { store: Arc::new(Mutex::new(store)), epochs: Arc::new(Mutex::new(HashMap::new())) };
    (router(config, state.clone()), state)
}

/// One replica's router state: the shared service state and this replica's settings.
#[derive(Clone)]
struct Replica {
    app: App,
    config: CompletenessConfig,
}

impl FromRef<Replica> for App {
    fn from_ref(replica: &Replica) -> App {
        replica.app.clone()
    }
}

impl FromRef<Replica> for CompletenessConfig {
    fn from_ref(replica: &Replica) -> CompletenessConfig {
        replica.config.clone()
    }
}

/// The same service state behind another configuration (another replica, rotated keys).
/// Routed with `axum::routing`, so the budget echo is a route layer of its own.
pub fn router(config: CompletenessConfig, state: App) -> Router {
    Router::new()
        .route("/accounts", get(list_accounts))
        .route("/teams", get(list_teams))
        .route("/accounts/archive", post(archive))
        .route("/strict", get(strict))
        .route("/search", get(search))
        .route("/budget", get(budget_echo))
        .route_layer(completeness::budget::echo_layer())
        .layer(middleware::from_fn_with_state(state.clone(), authenticate))
        .with_state(Replica { app: state, config })
}

async fn authenticate(State(app): State<App>, mut request: Request, next: Next) -> Response {
    let name = request
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let epoch = |name: &str| app.epochs.lock().unwrap().get(name).copied().unwrap_or(1);
    let credential = match name.as_deref() {
        Some("admin") => Credential::new("admin", epoch("admin")).with_all_tenants(),
        Some(tenant @ ("north" | "south")) => Credential::new(tenant, epoch(tenant)).with_tenant(tenant),
        _ => return Problem::new(ProblemCode::Unauthenticated, "unknown credential").into_response(),
    };
    request.extensions_mut().insert(credential);
    next.run(request).await
}

#[derive(Debug, Deserialize)]
struct AccountFilters {
    owner: Option<String>,
    tenant: Option<String>,
    /// `desc` lists in descending id order.
    order: Option<String>,
}

fn matches(row: &Row, filters: &serde_json::Map<String, Value>) -> bool {
    let owner_ok = match filters.get("owner").and_then(Value::as_str) {
        None => true,
        Some("none") => row.owner.is_none(),
        Some(owner) => row.owner.as_deref() == Some(owner),
    };
    let tenant_ok = filters.get("tenant").and_then(Value::as_str).is_none_or(|t| row.tenant == t);
    owner_ok && tenant_ok
}

fn account(row: &Row) -> Account {
    Account { id: row.id.clone(), tenant: row.tenant.clone(), owner: row.owner.clone() }
}

async fn list_accounts(
    State(app): State<App>,
    require: RequireComplete,
    request: PageRequest,
    Query(filters): Query<AccountFilters>,
) -> Result<Response, Problem> {
    let credential = request.credential().clone();
    let mut scope = Scope::new("accounts", credential.visibility("accounts"));
    if let Some(owner) = &filters.owner {
        scope = scope.with_filter("owner", owner.as_str());
    }
    if let Some(tenant) = &filters.tenant {
        scope = scope.with_filter("tenant", tenant.as_str());
    }
    let descending = filters.order.as_deref() == Some("desc");
    let ordering = if descending { "id descending" } else { "id ascending" };
    let mut page = request.bind(QueryBinding::for_scope(&scope, ordering))?;
    let store = app.store.lock().unwrap();
    page.ensure_retained(|s| s.parse::<u64>().is_ok_and(|s| s >= store.oldest_retained))?;
    let snapshot: u64 = page.pin_snapshot(store.version.to_string()).parse().map_err(|_| page.unreadable_position())?;
    let after = page.position().unwrap_or("").to_owned();
    let after_position = |r: &Row| match (page.position(), descending) {
        (None, _) => true,
        (Some(_), false) => r.id.as_str() > after.as_str(),
        (Some(_), true) => r.id.as_str() < after.as_str(),
    };
    let in_scope: Vec<&Row> = store.at(snapshot).filter(|r| matches(r, &scope.filters) && after_position(r)).collect();
    let hidden = store.at(snapshot).any(|r| matches(r, &scope.filters) && !credential.can_read(&r.tenant));
    let mut rows: Vec<&Row> = in_scope.into_iter().filter(|r| credential.can_read(&r.tenant)).collect();
    rows.sort_by(|a, b| if descending { b.id.cmp(&a.id) } else { a.id.cmp(&b.id) });
    rows.truncate(page.fetch_size());
    let rows: Vec<Account> = rows.into_iter().map(account).collect();
    if hidden {
        page.mark_partial();
    }
    let mut envelope: Envelope<Account> = page.envelope(scope, rows, |a| a.id.clone());
    if hidden {
        envelope.completeness.push_reason(VisibilityRestricted::new());
    }
    page.attach_evidence(&mut envelope.completeness);
    Ok(require.apply(envelope))
}

/// Another inventory (another resource), complete, with evidence.
async fn list_teams(issuer: EvidenceIssuer) -> Envelope<String> {
    let mut envelope =
        Envelope::complete(vec!["ops".to_owned()], Scope::new("teams", "all teams").with_filter("owner", "none"));
    assert!(issuer.attach_to(&mut envelope));
    envelope
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchiveBody {
    ids: Vec<String>,
}

async fn archive(
    State(app): State<App>,
    credential: Credential,
    RequireEvidence { evidence, body }: RequireEvidence<ArchiveBody>,
) -> Result<Json<Value>, Problem> {
    evidence.require_resource("accounts")?;
    evidence.require_filter("owner", "none")?;
    let mut store = app.store.lock().unwrap();
    evidence.ensure_retained(|s| s.parse::<u64>().is_ok_and(|s| s >= store.oldest_retained))?;
    let snapshot: u64 = evidence
        .snapshot()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| Problem::new(ProblemCode::EvidenceInvalid, "the evidence has no snapshot"))?;
    let filters = evidence.filters().clone();
    evidence.check_targets(body.ids.iter().map(String::as_str), |id| {
        store.at(snapshot).any(|r| r.id == id && matches(r, &filters) && credential.can_read(&r.tenant))
    })?;
    let changed: Vec<&str> = body
        .ids
        .iter()
        .map(String::as_str)
        .filter(|id| !store.at(store.version).any(|r| r.id == *id && matches(r, &filters)))
        .collect();
    if !changed.is_empty() {
        return Err(Evidence::targets_changed(changed));
    }
    for id in &body.ids {
        store.remove(id);
        store.archived.push(id.clone());
    }
    Ok(Json(json!({"archived": body.ids})))
}

#[derive(Debug, Deserialize)]
struct StrictQuery {
    reasons: Option<String>,
}

/// An endpoint whose result carries the reasons named in `?reasons=`.
async fn strict(require: RequireComplete, Query(q): Query<StrictQuery>) -> Response {
    let scope = Scope::new("things", "all things");
    let mut envelope: Envelope<u32, StandardReason> = Envelope::complete(vec![1, 2], scope);
    for reason in q.reasons.as_deref().unwrap_or("").split(',').filter(|r| !r.is_empty()) {
        let c = &mut envelope.completeness;
        match reason {
            "more" => c.push_reason(completeness::reason::MorePagesAvailable::new("c1.k1.x.y")),
            "visibility" => c.push_reason(VisibilityRestricted::new()),
            "limit" => c.push_reason(ResultLimitReached::new(2, "add a tenant filter")),
            "source" => c.push_reason(SourceUnavailable::new("legacy").retry_after(7)),
            "source_unknown_retry" => c.push_reason(SourceUnavailable::new("legacy")),
            "quota" => c.push_reason(QuotaExhausted::new(30)),
            _ => {}
        }
    }
    require.apply(envelope)
}

#[derive(Debug, Deserialize)]
struct SearchQuery {
    fail: Option<String>,
    slow: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Hit {
    pub id: String,
    pub source: String,
}

/// Fan-out over `directory`, `audit`, `legacy`; `fail=a,b` makes sources fail, `slow=a,b` makes them never answer.
async fn search(require: RequireComplete, budget: TimeBudget, Query(q): Query<SearchQuery>) -> Response {
    let source = |name: &'static str| {
        let named = |list: &Option<String>| list.as_deref().unwrap_or("").split(',').any(|n| n == name);
        let fail = named(&q.fail);
        let slow = named(&q.slow);
        async move {
            if slow {
                std::future::pending::<()>().await;
            }
            tokio::task::yield_now().await;
            if fail {
                return Err(format!("{name} refused the connection"));
            }
            Ok(vec![Hit { id: format!("{name}-1"), source: name.to_owned() }])
        }
    };
    let result = FanOut::new()
        .source("directory", source("directory"))
        .source("audit", source("audit"))
        .source("legacy", source("legacy"))
        .run(&budget)
        .await;
    let envelope: Envelope<Hit> = result.into_envelope(Scope::new("search", "records readable by credential"));
    require.apply(envelope)
}

/// Echoes the applied budget in the body too.
async fn budget_echo(budget: TimeBudget) -> Json<Value> {
    Json(json!({"applied_ms": budget.applied_ms(), "capped": budget.was_capped()}))
}

/// A response, decoded.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    pub fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// Asserts a problem response with this status and code.
    pub fn assert_problem(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "status of {:#}", self.body);
        assert_eq!(self.code(), code, "code of {:#}", self.body);
        assert_eq!(self.content_type(), "application/problem+json");
        assert_eq!(self.body["status"], status);
    }

    pub fn next_cursor(&self) -> Option<String> {
        self.body["next_cursor"].as_str().map(str::to_owned)
    }

    pub fn ids(&self) -> Vec<String> {
        self.body["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect()
    }
}

pub async fn send(app: &Router, request: axum::http::Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
    };
    Reply { status, headers, body }
}

pub async fn get_as(app: &Router, who: &str, uri: &str) -> Reply {
    let request =
        axum::http::Request::get(uri).header("authorization", format!("Bearer {who}")).body(Body::empty()).unwrap();
    send(app, request).await
}

pub async fn post_json_as(app: &Router, who: &str, uri: &str, body: &Value) -> Reply {
    post_raw_as(app, who, uri, serde_json::to_vec(body).unwrap()).await
}

pub async fn post_raw_as(app: &Router, who: &str, uri: &str, body: Vec<u8>) -> Reply {
    let request = axum::http::Request::post(uri)
        .header("authorization", format!("Bearer {who}"))
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    send(app, request).await
}

/// Percent-encodes a query value.
pub fn enc(value: &str) -> String {
    value.bytes().fold(String::new(), |mut out, b| {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        out
    })
}

/// Follows `next_cursor` from `first` until a complete page, returning every page.
pub async fn traverse(app: &Router, who: &str, first: &str) -> Vec<Reply> {
    let mut pages = vec![get_as(app, who, first).await];
    while let Some(cursor) = pages.last().unwrap().next_cursor() {
        assert!(pages.len() < 50, "runaway traversal");
        let sep = if first.contains('?') { '&' } else { '?' };
        pages.push(get_as(app, who, &format!("{first}{sep}cursor={}", enc(&cursor))).await);
    }
    pages
}
