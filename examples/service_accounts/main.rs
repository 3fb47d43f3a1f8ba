//! The service_accounts example service (minimal first version: one envelope route).

use axum::Router;
use axum::routing::get;
use completeness::{Envelope, Scope};

async fn list() -> Envelope<String> {
    let scope = Scope::new("service_accounts", "service accounts readable by anyone");
    Envelope::complete(vec!["sa-000001".to_owned()], scope)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = Router::new().route("/service-accounts", get(list));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    println!("serving on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
