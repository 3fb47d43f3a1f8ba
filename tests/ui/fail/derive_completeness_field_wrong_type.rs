use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Search {
    hits: Vec<String>,
    #[envelope(completeness)]
    complete: bool,
}

fn main() {}
