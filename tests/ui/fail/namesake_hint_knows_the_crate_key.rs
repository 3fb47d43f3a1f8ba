// Under `crate = "platform"`, `platform::Envelope` is the framework's own type: its errors give
// no hint about a type of the service's own that shares the name.
extern crate completeness as platform;

use axum::Json;

#[platform::completeness(crate = "platform", resource = "names", reasons(MorePagesAvailable))]
async fn list_names() -> Json<platform::Envelope<String, ListNamesReason>> {
    unimplemented!()
}

#[derive(platform::ResultEnvelope)]
#[envelope(crate = "platform")]
struct Names {
    names: Vec<String>,
    block: platform::Completeness,
}

#[derive(platform::ResultEnvelope)]
#[envelope(crate = "platform")]
struct Account {
    name: String,
    keys: platform::Envelope<String>,
}

fn main() {}
