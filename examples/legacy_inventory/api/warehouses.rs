//! Warehouses: a hand-rolled page with a cursor, and no completeness.

use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Warehouse {
    pub id: String,
    pub city: String,
}

/// A page of warehouses: a client cannot tell a last page from a page cut short.
#[derive(Debug, Serialize)]
pub struct WarehousePage {
    pub items: Vec<Warehouse>,
    pub next_cursor: Option<String>,
}

pub fn router() -> Router {
    Router::new().route("/", get(list_warehouses))
}

/// `GET /api/warehouses`.
async fn list_warehouses() -> Json<WarehousePage> {
    let items = ["Lyon", "Porto", "Turku"]
        .iter()
        .enumerate()
        .map(|(i, city)| Warehouse { id: format!("w-{}", i + 1), city: (*city).to_owned() })
        .collect();
    Json(WarehousePage { items, next_cursor: None })
}
