// Three mistakes, three errors; the stub impls keep `Report` usable, so the handler
// below adds no error of its own.
use completeness::{Completeness, ResultEnvelope};

#[derive(ResultEnvelope)]
struct Report {
    #[envelope(sorted)]
    rows: Vec<String>,
    #[envelope(bounded = "")]
    tags: Vec<String>,
    #[envelope(completeness)]
    completeness: Completeness,
    #[envelope(completeness)]
    again: Completeness,
}

async fn report() -> Report {
    unimplemented!()
}

fn main() {
    let _ = completeness::routing::get::<_, _, completeness::CompletenessConfig>(report);
}
