//! One service account: the single-resource read with `omitted_fields`, and the mutations.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::{Extension, Json};
use completeness::{Field, Omission, Problem, ProblemCode, Warning};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use super::auth::Caller;
use super::db::{Account, Change, NewAccount, Snapshot, snapshot_label};
use super::http::{body, param, query, store_problem};
use super::seed::TENANTS;
use super::state::AppState;

/// The fields only filled when asked for with `fields=`.
pub const REQUESTABLE: [&str; 1] = ["secret_fingerprint"];

/// Every field of the single-resource view, in wire order.
pub const FIELDS: [&str; 10] = [
    "id",
    "name",
    "tenant",
    "owner",
    "owner_email",
    "description",
    "created_at",
    "last_used_at",
    "secret_fingerprint",
    "archived",
];

/// `GET /service-accounts/{id}`: every declared field present; unfilled ones listed in `omitted_fields`.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountView {
    /// Stable id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Tenant.
    pub tenant: String,
    /// Owner; a genuine null when unowned.
    pub owner: Option<String>,
    /// Owner e-mail: admin only.
    pub owner_email: Field<String>,
    /// Description; a genuine null when there is none.
    pub description: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// From the `usage` source.
    pub last_used_at: Field<String>,
    /// Only when requested with `fields=secret_fingerprint`.
    pub secret_fingerprint: Field<String>,
    /// Archived accounts leave the default listing.
    pub archived: bool,
}

impl AccountView {
    fn omitted(&self) -> Vec<(&'static str, &Omission)> {
        [
            ("owner_email", self.owner_email.omission()),
            ("last_used_at", self.last_used_at.omission()),
            ("secret_fingerprint", self.secret_fingerprint.omission()),
        ]
        .into_iter()
        .filter_map(|(name, why)| why.map(|why| (name, why)))
        .collect()
    }

    /// The `PARTIAL_FIELD_SET` warning, when a field was not filled.
    pub fn warnings(&self) -> Vec<Warning> {
        let omitted = self.omitted();
        if omitted.is_empty() {
            return Vec::new();
        }
        let fields: Vec<&str> = omitted.iter().map(|(name, _)| *name).collect();
        let requestable: Vec<&str> =
            omitted.iter().filter(|(_, why)| **why == Omission::NotRequested).map(|(name, _)| *name).collect();
        vec![Warning::partial_field_set(&fields, &requestable)]
    }
}

impl Serialize for AccountView {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(12))?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("name", &self.name)?;
        map.serialize_entry("tenant", &self.tenant)?;
        map.serialize_entry("owner", &self.owner)?;
        map.serialize_entry("owner_email", &self.owner_email)?;
        map.serialize_entry("description", &self.description)?;
        map.serialize_entry("created_at", &self.created_at)?;
        map.serialize_entry("last_used_at", &self.last_used_at)?;
        map.serialize_entry("secret_fingerprint", &self.secret_fingerprint)?;
        map.serialize_entry("archived", &self.archived)?;
        let omitted: Map<String, Value> =
            self.omitted().into_iter().map(|(name, why)| (name.to_owned(), Value::from(why.as_str()))).collect();
        map.serialize_entry("omitted_fields", &omitted)?;
        map.serialize_entry("warnings", &self.warnings())?;
        map.end()
    }
}

/// The account `id` if the caller may read it; an unreadable one is indistinguishable from a missing one.
fn readable(state: &AppState, caller: &Caller, id: &str) -> Result<Account, Problem> {
    match state.store.get(id).map_err(store_problem)? {
        Some(account) if caller.can_access(&account.tenant) => Ok(account),
        _ => Err(Problem::new(
            ProblemCode::NotFound,
            format!("No service account '{id}' is readable by this credential."),
        )),
    }
}

/// `GET /service-accounts/{id}?fields=`.
pub async fn get_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<Json<AccountView>, Problem> {
    let pairs = query(&uri, &["fields"])?;
    let mut requested = Vec::new();
    for field in param(&pairs, "fields").unwrap_or("").split(',').map(str::trim).filter(|f| !f.is_empty()) {
        if !FIELDS.contains(&field) {
            return Err(Problem::new(
                ProblemCode::InvalidRequest,
                format!("unknown field '{field}'; fields are {}", FIELDS.join(", ")),
            )
            .with_extension("parameter", "fields"));
        }
        requested.push(field);
    }
    let account = readable(&state, &caller, &id)?;
    let last_used_at = match state.usage.last_used_at(&account.id).await {
        Ok(value) => Field::from_option(value),
        Err(_) => Field::Omitted(Omission::SourceFailed),
    };
    let owner_email =
        if caller.is_admin() { Field::from_option(account.owner_email) } else { Field::Omitted(Omission::NoAccess) };
    let secret_fingerprint = if requested.contains(&"secret_fingerprint") {
        Field::Filled(account.secret_fingerprint)
    } else {
        Field::Omitted(Omission::NotRequested)
    };
    Ok(Json(AccountView {
        id: account.id,
        name: account.name,
        tenant: account.tenant,
        owner: account.owner,
        owner_email,
        description: account.description,
        created_at: account.created_at,
        last_used_at,
        secret_fingerprint,
        archived: account.archived,
    }))
}

/// What a mutation answers: the account as it now is and the snapshot the change created.
#[derive(Debug, Clone, Serialize)]
pub struct Mutated {
    /// The account after the change (before it, for a delete).
    pub account: Account,
    /// The snapshot that holds the change.
    pub snapshot: String,
    /// True for a delete.
    pub deleted: bool,
}

fn mutated(account: Account, snapshot: Snapshot, deleted: bool) -> Json<Mutated> {
    Json(Mutated { account, snapshot: snapshot_label(snapshot), deleted })
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: String,
    tenant: String,
    #[serde(default)]
    owner: Option<String>,
}

fn check_name(name: &str) -> Result<(), Problem> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Problem::new(ProblemCode::InvalidBody, "`name` must be 1-64 characters of a-z, 0-9 and '-'"))
    }
}

fn check_owner(owner: &Option<String>) -> Result<(), Problem> {
    match owner {
        Some(o) if o.trim().is_empty() || o.len() > 64 => {
            Err(Problem::new(ProblemCode::InvalidBody, "`owner` must be null or a name of 1-64 characters"))
        }
        _ => Ok(()),
    }
}

/// `POST /service-accounts` `{"name", "tenant", "owner"}`: admin, or the tenant's credential.
pub async fn create_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    bytes: Bytes,
) -> Result<(StatusCode, Json<Mutated>), Problem> {
    let request: CreateBody = body(&bytes)?;
    check_name(&request.name)?;
    check_owner(&request.owner)?;
    if !TENANTS.contains(&request.tenant.as_str()) {
        return Err(Problem::new(ProblemCode::InvalidBody, format!("unknown tenant '{}'", request.tenant)));
    }
    if !caller.can_access(&request.tenant) {
        return Err(Problem::new(
            ProblemCode::Forbidden,
            format!("credential '{}' may not write tenant '{}'", caller.name, request.tenant),
        ));
    }
    let (account, snapshot) = state
        .store
        .create(NewAccount { name: request.name, tenant: request.tenant, owner: request.owner })
        .map_err(store_problem)?;
    state.propagate(&Change::Created(account.clone()));
    Ok((StatusCode::CREATED, mutated(account, snapshot, false)))
}

/// `PATCH /service-accounts/{id}` `{"owner"}`: sets or clears the owner.
pub async fn patch_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<Json<Mutated>, Problem> {
    let mut object: Map<String, Value> = body(&bytes)?;
    let owner = match object.remove("owner") {
        Some(Value::Null) => None,
        Some(Value::String(owner)) => Some(owner),
        Some(_) => return Err(Problem::new(ProblemCode::InvalidBody, "`owner` must be a string or null")),
        None => return Err(Problem::new(ProblemCode::InvalidBody, "the body must name `owner` (a string or null)")),
    };
    if let Some(extra) = object.keys().next() {
        return Err(Problem::new(
            ProblemCode::InvalidBody,
            format!("unknown member `{extra}`; only `owner` can change"),
        ));
    }
    check_owner(&owner)?;
    readable(&state, &caller, &id)?;
    let (account, snapshot) = state.store.set_owner(&id, owner).map_err(store_problem)?;
    state.propagate(&Change::Updated(account.clone()));
    Ok(mutated(account, snapshot, false))
}

/// `DELETE /service-accounts/{id}`.
pub async fn delete_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Mutated>, Problem> {
    readable(&state, &caller, &id)?;
    let (account, snapshot) = state.store.delete(&id).map_err(store_problem)?;
    state.propagate(&Change::Deleted(account.id.clone()));
    Ok(mutated(account, snapshot, true))
}
