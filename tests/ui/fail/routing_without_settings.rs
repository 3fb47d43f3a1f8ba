//! A router whose state does not carry the completeness settings: refused at the checked
//! route. A handler whose extractors read them fails axum's own `Handler` bound as well.
use axum::Router;
use completeness::cursor::QueryBinding;
use completeness::routing::get;
use completeness::{Envelope, PageRequest, Problem, Scope};

async fn list_names() -> Envelope<String> {
    Envelope::complete(vec![], Scope::new("names", "every name"))
}

async fn list_numbers(request: PageRequest) -> Result<Envelope<u32>, Problem> {
    let scope = Scope::new("numbers", "every number");
    let page = request.bind(QueryBinding::for_scope(&scope, "value ascending"))?;
    Ok(page.envelope(scope, vec![], |n| n.to_string()))
}

fn main() {
    let _app: Router =
        Router::new().route("/names", get(list_names).into()).route("/numbers", get(list_numbers).into());
}
