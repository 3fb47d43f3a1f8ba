use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct User {
    name: String,
    #[envelope(bounded = "  ")]
    roles: Vec<String>,
}

fn main() {}
