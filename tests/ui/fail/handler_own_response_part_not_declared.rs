// A response part of the service's own before an envelope: accepted once the part type says it
// is one (`impl completeness::report::ResponsePart`); until then, the error says how.
use axum::response::{IntoResponseParts, ResponseParts};
use completeness::{Envelope, Scope, completeness};

struct RequestId(&'static str);

impl IntoResponseParts for RequestId {
    type Error = std::convert::Infallible;

    fn into_response_parts(self, mut parts: ResponseParts) -> Result<ResponseParts, Self::Error> {
        parts.headers_mut().insert("x-request-id", axum::http::HeaderValue::from_static(self.0));
        Ok(parts)
    }
}

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list() -> (RequestId, Envelope<String, ListReason>) {
    (RequestId("r-1"), Envelope::complete(vec![], Scope::new("service_accounts", "all")))
}

fn main() {}
