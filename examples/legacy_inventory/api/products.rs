//! Products: a bare list, a search answering through `impl IntoResponse`, and one product.

use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

/// A product; a product has a handful of tags.
#[derive(Debug, Clone, Serialize)]
pub struct Product {
    pub id: String,
    pub name: String,
    pub tags: Vec<String>,
}

/// The catalog; the service answers at most `PAGE` of it per list.
pub fn catalog() -> Vec<Product> {
    (1..=12)
        .map(|i| Product {
            id: format!("p-{i}"),
            name: if i % 3 == 0 { format!("bolt {i}") } else { format!("nut {i}") },
            tags: vec!["hardware".to_owned()],
        })
        .collect()
}

/// The legacy page size: the first ten products, and no word about the rest.
const PAGE: usize = 10;

pub fn router() -> Router {
    Router::new()
        .route("/products", get(list_products))
        .route("/products/search", get(search_products))
        .route("/products/{id}", get(get_product))
}

/// `GET /api/products`: silently the first ten.
async fn list_products() -> Json<Vec<Product>> {
    Json(catalog().into_iter().take(PAGE).collect())
}

#[derive(Deserialize)]
struct Search {
    q: String,
}

/// `GET /api/products/search?q=`: at most three hits, whatever matched.
async fn search_products(Query(search): Query<Search>) -> impl IntoResponse {
    let hits: Vec<Product> = catalog().into_iter().filter(|p| p.name.contains(&search.q)).take(3).collect();
    (StatusCode::OK, Json(hits))
}

/// `GET /api/products/{id}`: one product, with its tags.
async fn get_product(Path(id): Path<String>) -> Result<Json<Product>, StatusCode> {
    catalog().into_iter().find(|p| p.id == id).map(Json).ok_or(StatusCode::NOT_FOUND)
}
