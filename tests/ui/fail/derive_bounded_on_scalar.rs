use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct User {
    #[envelope(bounded = "a name is one string")]
    name: String,
}

fn main() {}
