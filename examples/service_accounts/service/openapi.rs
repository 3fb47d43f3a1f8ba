//! `GET /openapi.json`: the OpenAPI document of every route (placeholder until the reason enums land).

use axum::Json;
use serde_json::{Value, json};

/// The OpenAPI document.
pub async fn document() -> Json<Value> {
    Json(json!({"openapi": "3.1.0", "info": {"title": "service_accounts", "version": "0.1.0"}, "paths": {}}))
}
