// Types of the service's own that share a name with the framework's, which the macros know by
// name: a `Field` of its own is reported on the field, an own `Completeness` gets the hint to
// import it under another name, and a `PageRequest` by its own path is not the framework's.
use completeness::{Envelope, ResultEnvelope, Scope, completeness};

mod own {
    #[derive(serde::Serialize)]
    pub struct Field<T>(pub Option<T>);
}

mod mail {
    #[derive(serde::Serialize)]
    pub struct Completeness {
        pub percent: u8,
    }
}

mod paging {
    #[derive(Debug)]
    pub struct PageRequest;

    impl<S: Send + Sync> axum::extract::FromRequestParts<S> for PageRequest {
        type Rejection = std::convert::Infallible;
        async fn from_request_parts(_: &mut axum::http::request::Parts, _: &S) -> Result<Self, Self::Rejection> {
            Ok(PageRequest)
        }
    }
}

use own::Field;

#[derive(ResultEnvelope)]
pub struct Person {
    pub name: String,
    pub email: Field<String>,
}

#[derive(ResultEnvelope)]
pub struct Profile {
    pub name: String,
    pub profile: mail::Completeness,
}

#[completeness(resource = "names", reasons(VisibilityRestricted))]
async fn list_names(_request: paging::PageRequest) -> Envelope<String, ListNamesReason> {
    Envelope::complete(vec![], Scope::new("names", "all"))
}

fn main() {}
