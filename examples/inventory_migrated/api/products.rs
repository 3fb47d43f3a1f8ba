//! Products, migrated: the list and the search say whether they are whole; the single product
//! declares its tags bounded.

use axum::Router;
use axum::extract::{Path, Query};
use completeness::CompletenessConfig;
use completeness::reason::{MorePagesAvailable, ResultLimitReached};
use completeness::routing::get;
use completeness::{Envelope, Problem, ProblemCode, ResultEnvelope, Scope, completeness};
use serde::{Deserialize, Serialize};

/// A product as listed.
#[derive(Debug, Clone, Serialize)]
pub struct Product {
    pub id: String,
    pub name: String,
    pub tags: Vec<String>,
}

/// One product: a single resource whose tags are few by construction.
#[derive(Debug, Clone, ResultEnvelope)]
pub struct ProductView {
    pub id: String,
    pub name: String,
    #[envelope(bounded = "a product has at most five tags")]
    pub tags: Vec<String>,
}

/// The catalog, as in the legacy service.
pub fn catalog() -> Vec<Product> {
    (1..=12)
        .map(|i| Product {
            id: format!("p-{i}"),
            name: if i % 3 == 0 { format!("bolt {i}") } else { format!("nut {i}") },
            tags: vec!["hardware".to_owned()],
        })
        .collect()
}

const PAGE: usize = 10;
const SEARCH_LIMIT: usize = 3;

pub fn router() -> Router<CompletenessConfig> {
    Router::new()
        .route("/products", get(list_products).into())
        .route("/products/search", get(search_products).into())
        .route("/products/{id}", get(get_product).into())
}

/// `GET /api/products`: the first ten, and a reason when there are more.
#[completeness(resource = "products", reasons(MorePagesAvailable))]
async fn list_products() -> Envelope<Product, ListProductsReason> {
    let all = catalog();
    let scope = Scope::new("products", "every product");
    if all.len() > PAGE {
        let page = all.into_iter().take(PAGE).collect();
        Envelope::incomplete(page, scope, MorePagesAvailable::new(format!("after-p-{PAGE}")))
    } else {
        Envelope::complete(all, scope)
    }
}

#[derive(Deserialize)]
struct Search {
    q: String,
}

/// `GET /api/products/search?q=`: at most three hits, and a reason when more matched.
#[completeness(resource = "products", reasons(ResultLimitReached))]
async fn search_products(Query(search): Query<Search>) -> Envelope<Product, SearchProductsReason> {
    let matched: Vec<Product> = catalog().into_iter().filter(|p| p.name.contains(&search.q)).collect();
    let scope = Scope::new("products", format!("products whose name contains '{}'", search.q));
    if matched.len() > SEARCH_LIMIT {
        let shown = matched.into_iter().take(SEARCH_LIMIT).collect();
        Envelope::incomplete(shown, scope, ResultLimitReached::new(SEARCH_LIMIT as u64, "narrow the query"))
    } else {
        Envelope::complete(matched, scope)
    }
}

/// `GET /api/products/{id}`.
async fn get_product(Path(id): Path<String>) -> Result<ProductView, Problem> {
    catalog()
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| ProductView { id: p.id, name: p.name, tags: p.tags })
        .ok_or_else(|| Problem::new(ProblemCode::NotFound, format!("no product '{id}'")))
}
