use completeness::completeness;

#[completeness(resource = "service_accounts", reasons(VisibilityRestricted))]
async fn list_accounts() -> Vec<String> {
    vec![]
}

fn main() {}
