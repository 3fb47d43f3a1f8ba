use completeness::{Field, ResultEnvelope, Warning};

// A single resource's warnings go out in `warnings`, where clients read them.
#[derive(ResultEnvelope)]
struct Ticket {
    id: String,
    assignee: Field<String>,
    #[serde(rename = "notices")]
    warnings: Vec<Warning>,
}

// `rename_all` that changes the name renames them as well.
#[derive(ResultEnvelope)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct Shouting {
    id: String,
    warnings: Vec<Warning>,
}

fn main() {}
