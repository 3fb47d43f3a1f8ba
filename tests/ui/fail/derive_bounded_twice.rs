// One justification per bounded collection.
use completeness::ResultEnvelope;

#[derive(ResultEnvelope)]
struct Roles {
    #[envelope(bounded = "a user has at most three roles", bounded = "roles are few")]
    roles: Vec<String>,
}

fn main() {}
