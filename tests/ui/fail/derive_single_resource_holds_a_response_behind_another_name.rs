// A response of the framework's behind an alias or another name, inside a single resource: its
// reasons would go out unseen by the endpoint's declaration.
use completeness::Completeness as Block;
use completeness::Envelope as Page;
use completeness::{Aggregate, ResultEnvelope};

type Totals = Aggregate<u64>;

#[derive(ResultEnvelope)]
pub struct Wrapper {
    pub id: u64,
    pub page: Page<String>,
    pub block: Option<Block>,
    pub totals: Totals,
}

fn main() {}
