//! Warehouses, migrated: the hand-rolled page became a derived envelope.

use axum::Router;
use completeness::CompletenessConfig;
use completeness::routing::get;
use completeness::{Completeness, ResultEnvelope, Scope, completeness};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Warehouse {
    pub id: String,
    pub city: String,
}

/// A page of warehouses that says whether it is the whole inventory.
#[derive(Debug, ResultEnvelope)]
pub struct WarehousePage {
    pub items: Vec<Warehouse>,
    #[envelope(completeness)]
    pub completeness: Completeness<ListWarehousesReason>,
}

pub fn router() -> Router<CompletenessConfig> {
    Router::new().route("/", get(list_warehouses).into())
}

/// `GET /api/warehouses`: three warehouses, all of them. It never pages, so it declares no
/// reason: it is always complete, and a cursor sent to it is refused, not answered with the
/// whole list as if it were the next page.
#[completeness(resource = "warehouses", reasons())]
async fn list_warehouses() -> WarehousePage {
    let items = ["Lyon", "Porto", "Turku"]
        .iter()
        .enumerate()
        .map(|(i, city)| Warehouse { id: format!("w-{}", i + 1), city: (*city).to_owned() })
        .collect();
    WarehousePage { items, completeness: Completeness::complete(Scope::new("warehouses", "every warehouse")) }
}
