//! Products, migrated: the list and the search say whether they are whole; the single product
//! declares its tags bounded.

use axum::Router;
use axum::extract::Path;
use completeness::CompletenessConfig;
use completeness::page_request::PageRequest;
use completeness::reason::ResultLimitReached;
use completeness::routing::get;
use completeness::{Envelope, Problem, ProblemCode, QueryBinding, QueryParams, ResultEnvelope, Scope, completeness};
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

const SEARCH_LIMIT: usize = 3;

pub fn router() -> Router<CompletenessConfig> {
    Router::new()
        .route("/products", get(list_products).into())
        .route("/products/search", get(search_products).into())
        .route("/products/{id}", get(get_product).into())
}

/// `GET /api/products`: a page of products (ten unless the client asks for another size), and
/// `MORE_PAGES_AVAILABLE` with a signed cursor when there are more, where the legacy service
/// stopped at ten without a word. The cursor is read back by `PageRequest` (a forged, expired or
/// foreign one is refused), so the next page goes on after the last product this one listed.
#[completeness(resource = "products", reasons(MorePagesAvailable), warnings(PageSizeReduced))]
async fn list_products(request: PageRequest) -> Result<Envelope<Product, ListProductsReason>, Problem> {
    let scope = Scope::new("products", "every product");
    let page = request.bind(QueryBinding::for_scope(&scope, "catalog order"))?;
    // The position is the catalog number of the last product listed (`p-10` → 10).
    let after: usize = match page.position() {
        None => 0,
        Some(position) => position.parse().map_err(|_| page.unreadable_position())?,
    };
    let rows: Vec<Product> = catalog().into_iter().skip(after).take(page.fetch_size()).collect();
    Ok(page.envelope(scope, rows, |product| product.id.trim_start_matches("p-").to_owned()))
}

#[derive(Deserialize)]
struct Search {
    q: String,
}

/// `GET /api/products/search?q=`: at most three hits, and a reason when more matched. The query
/// is read with `QueryParams`, so a missing `q` is a 400 problem with a stable code (axum's
/// `Query` would answer plain text).
#[completeness(resource = "products", reasons(ResultLimitReached))]
async fn search_products(QueryParams(search): QueryParams<Search>) -> Envelope<Product, SearchProductsReason> {
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
