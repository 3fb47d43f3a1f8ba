use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Search {
    hits: Option<Vec<String>>,
}

fn main() {}
