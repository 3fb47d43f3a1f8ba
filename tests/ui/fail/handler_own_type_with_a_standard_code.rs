// A service's own type written by hand with the code of a standard reason, listed alone: it
// would send MORE_PAGES_AVAILABLE without the cursor that code always comes with.
use completeness::__private::serde::ser::SerializeMap;
use completeness::{Continuation, Envelope, ReasonCode, ReasonDetails, ReasonKind, Scope, StandardReason, completeness};
use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub struct MorePages;

impl ReasonDetails for MorePages {
    const CODE: ReasonCode = ReasonCode::MorePagesAvailable;
    const KIND: ReasonKind = ReasonKind::Truncation;
    fn default_message(&self) -> String {
        "More pages.".to_owned()
    }
    fn write_details<M: SerializeMap>(&self, _map: &mut M) -> Result<(), M::Error> {
        Ok(())
    }
    fn read_details(_object: &Map<String, Value>) -> Result<Self, String> {
        Ok(MorePages)
    }
    fn recovery(&self) -> Option<Continuation> {
        None
    }
    fn into_reason(self) -> StandardReason {
        StandardReason::Custom(completeness::CustomReason::from_details(&self))
    }
}

#[completeness(resource = "documents", reasons(crate::MorePages))]
async fn list_documents() -> Envelope<String, ListDocumentsReason> {
    Envelope::incomplete(vec![], Scope::new("documents", "all"), MorePages)
}

fn main() {}
