//! One service account: the single-resource read with `omitted_fields`, and the mutations.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::{Extension, Json};
use completeness::warning::PartialFieldSet;
use completeness::{Exempt, Field, JsonObject, Omission, Problem, ProblemCode, ResultEnvelope, Warning};
use serde::Serialize;
use serde_json::Value;

use super::auth::Caller;
use super::db::{Account, Change, NewAccount, Snapshot, snapshot_label};
use super::http::{body, no_body, object_body, param, read_query, store_problem};
use super::seed::{TENANTS, is_account_id, not_an_account_id};
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
///
/// It reads back from its JSON as a client reads it (and as `--faults` reads back a view it
/// faulted for an MCP tool): a field listed in `omitted_fields` is left out, whatever its
/// `null` (contract §2.7).
#[derive(Debug, Clone, PartialEq, ResultEnvelope)]
#[envelope(deserialize)]
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
    /// `PARTIAL_FIELD_SET` when a field was not filled.
    pub warnings: Vec<Warning>,
}

/// The `PARTIAL_FIELD_SET` warning for the fields of `omitted` that were not filled.
fn partial_field_set(omitted: &[(&str, &Field<String>)]) -> Vec<Warning> {
    let fields: Vec<&str> = omitted.iter().filter(|(_, f)| f.omission().is_some()).map(|(name, _)| *name).collect();
    let requestable: Vec<&str> =
        omitted.iter().filter(|(_, f)| f.omission() == Some(&Omission::NotRequested)).map(|(name, _)| *name).collect();
    if fields.is_empty() { Vec::new() } else { vec![PartialFieldSet::new(&fields, &requestable).into()] }
}

/// The account `id` if the caller may read it; an unreadable one is indistinguishable from a missing one.
async fn readable(state: &AppState, caller: &Caller, id: &str) -> Result<Account, Problem> {
    if !is_account_id(id) {
        return Err(Problem::new(ProblemCode::InvalidRequest, not_an_account_id(id)));
    }
    match state.store.get(id).await.map_err(store_problem)? {
        Some(account) if caller.can_access(&account.tenant) => Ok(account),
        _ => Err(Problem::new(
            ProblemCode::NotFound,
            format!("No service account '{}' is readable by this credential.", super::seed::shown(id)),
        )),
    }
}

/// `GET /service-accounts/{id}?fields=`.
pub async fn get_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    Path(id): Path<String>,
    uri: Uri,
) -> Result<AccountView, Problem> {
    let pairs = read_query(&uri, &["fields"])?;
    // Every name is checked, an empty one too: `fields=` names no field and is refused.
    let fields = param(&pairs, "fields").map(|list| list.split(',')).into_iter().flatten();
    account_view(&state, &caller, &id, fields).await
}

/// The account `id` as `caller` may read it, with the optional `fields` filled: what
/// `GET /service-accounts/{id}` and the MCP tool `get_service_account` answer.
pub async fn account_view<'a>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    fields: impl IntoIterator<Item = &'a str>,
) -> Result<AccountView, Problem> {
    let mut requested = Vec::new();
    for field in fields {
        if !FIELDS.contains(&field) {
            return Err(Problem::new(
                ProblemCode::InvalidRequest,
                format!("unknown field '{field}'; fields are {}", FIELDS.join(", ")),
            )
            .with_parameter("fields"));
        }
        requested.push(field);
    }
    let account = readable(state, caller, id).await?;
    Ok(view(state, caller, account, &requested).await)
}

/// `account` as `caller` may see it: the one field policy of every response that carries an
/// account (reads and mutations alike). `requested` are the fields asked for with `fields=`.
pub async fn view(state: &AppState, caller: &Caller, account: Account, requested: &[&str]) -> AccountView {
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
    let warnings = partial_field_set(&[
        ("owner_email", &owner_email),
        ("last_used_at", &last_used_at),
        ("secret_fingerprint", &secret_fingerprint),
    ]);
    AccountView {
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
        warnings,
    }
}

/// What a mutation answers: the account as it now is, under the same field policy as `GET`
/// (with `omitted_fields`), and the snapshot the change created.
#[derive(Debug, Clone, Serialize)]
pub struct Mutated {
    /// The account after the change (before it, for a delete).
    pub account: AccountView,
    /// The snapshot that holds the change.
    pub snapshot: String,
    /// True for a delete.
    pub deleted: bool,
}

/// A mutation's answer is one account, not a list.
pub type MutationResponse = Exempt<Json<Mutated>>;

/// Why a mutation's answer carries no completeness block (also stated in the OpenAPI document).
pub const MUTATION_EXEMPT: &str = "one account, not a list";

async fn mutated(
    state: &AppState,
    caller: &Caller,
    account: Account,
    snapshot: Snapshot,
    deleted: bool,
) -> MutationResponse {
    let account = view(state, caller, account, &[]).await;
    Exempt::new(Json(Mutated { account, snapshot: snapshot_label(snapshot), deleted }), MUTATION_EXEMPT)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    name: String,
    tenant: String,
    #[serde(default)]
    owner: Option<String>,
}

/// The rule for account names, as the OpenAPI document states it.
pub const NAME_PATTERN: &str = "^[a-z0-9-]{1,64}$";

/// The rule for owner names, as the OpenAPI document states it: `none` is what `owner=none`
/// selects unowned accounts with, so no owner may be called that.
pub const OWNER_PATTERN: &str = "^(?!none$)[a-z][a-z0-9-]{0,63}$";

/// True when `text` keeps [`NAME_PATTERN`]: a whole name, or any part of one.
pub fn fits_names(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn check_name(name: &str) -> Result<(), Problem> {
    if fits_names(name) {
        Ok(())
    } else {
        Err(Problem::new(ProblemCode::InvalidBody, "`name` must be 1-64 characters of a-z, 0-9 and '-'"))
    }
}

/// True when `owner` is a valid owner name ([`OWNER_PATTERN`]).
pub fn is_owner_name(owner: &str) -> bool {
    owner != "none"
        && owner.len() <= 64
        && owner.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && owner.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn check_owner(owner: &Option<String>) -> Result<(), Problem> {
    match owner {
        Some(o) if o == "none" => Err(Problem::new(
            ProblemCode::InvalidBody,
            "`owner` cannot be \"none\": `owner=none` selects unowned accounts; send null to clear the owner",
        )),
        Some(o) if !is_owner_name(o) => Err(Problem::new(
            ProblemCode::InvalidBody,
            "`owner` must be null or a name of 1-64 characters of a-z, 0-9 and '-', starting with a letter",
        )),
        _ => Ok(()),
    }
}

/// `POST /service-accounts` `{"name", "tenant", "owner"}`: admin, or the tenant's credential.
pub async fn create_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    bytes: Bytes,
) -> Result<(StatusCode, MutationResponse), Problem> {
    let request: CreateBody = object_body(&bytes)?;
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
    let by = caller.grantee();
    let (account, snapshot) = state
        .store
        .create(Some(&by), NewAccount { name: request.name, tenant: request.tenant, owner: request.owner })
        .await
        .map_err(store_problem)?;
    state.propagate(&Change::Created(account.clone()), snapshot);
    Ok((StatusCode::CREATED, mutated(&state, &caller, account, snapshot, false).await))
}

/// `PATCH /service-accounts/{id}` `{"owner"}`: sets or clears the owner.
pub async fn patch_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<MutationResponse, Problem> {
    // Distinct members: `{"owner": "zed", "owner": null}` is a mistake, not a clear.
    let JsonObject(mut object) = body(&bytes)?;
    let owner = object.remove("owner");
    // A member that cannot change is named first: `{"name": ..}` is an attempt to rename,
    // which "must name `owner`" would not explain.
    if let Some(other) = object.keys().next() {
        return Err(Problem::new(
            ProblemCode::InvalidBody,
            format!("`{other}` cannot be changed here; the body names only `owner` (a string or null)"),
        ));
    }
    let owner = match owner {
        Some(Value::Null) => None,
        Some(Value::String(owner)) => Some(owner),
        Some(_) => return Err(Problem::new(ProblemCode::InvalidBody, "`owner` must be a string or null")),
        None => return Err(Problem::new(ProblemCode::InvalidBody, "the body must name `owner` (a string or null)")),
    };
    check_owner(&owner)?;
    readable(&state, &caller, &id).await?;
    let by = caller.grantee();
    let set = state.store.set_owner(Some(&by), &id, owner).await.map_err(store_problem)?;
    // The copies take a change at the snapshot it opened, and only then: an owner the account
    // already had changes nothing, and its snapshot may be another replica's write, which a
    // copy that takes it would claim to have seen.
    if set.opened {
        state.propagate(&Change::Updated(set.account.clone()), set.snapshot);
    }
    Ok(mutated(&state, &caller, set.account, set.snapshot, false).await)
}

/// `DELETE /service-accounts/{id}`.
pub async fn delete_account(
    State(state): State<AppState>,
    Extension(caller): Extension<Arc<Caller>>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Result<MutationResponse, Problem> {
    no_body(&bytes)?;
    readable(&state, &caller, &id).await?;
    let by = caller.grantee();
    let (account, snapshot) = state.store.delete(Some(&by), &id).await.map_err(store_problem)?;
    state.propagate(&Change::Deleted(account.id.clone()), snapshot);
    Ok(mutated(&state, &caller, account, snapshot, true).await)
}
