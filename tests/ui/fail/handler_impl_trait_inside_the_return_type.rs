// `impl Trait` as a type argument of the response: the check writes the type out, so it is
// refused with a message that says to name it.
use completeness::{Envelope, Scope, completeness};

#[completeness(resource = "names", reasons())]
async fn list_names() -> Envelope<impl serde::Serialize, ListNamesReason> {
    Envelope::complete(vec!["ana".to_owned()], Scope::new("names", "all"))
}

fn main() {}
