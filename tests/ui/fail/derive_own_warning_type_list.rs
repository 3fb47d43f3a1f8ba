use completeness::ResultEnvelope;

mod model {
    #[derive(serde::Serialize)]
    pub struct Warning {
        pub text: String,
    }
}

// A list of the service's own `Warning` records is data, not the resource's warnings.
#[derive(ResultEnvelope)]
struct Alerts {
    generated_at: String,
    alerts: Vec<model::Warning>,
}

fn main() {}
