// A type of the service's own named like a response of the framework (an e-mail's envelope)
// is taken for it by its name: the error says how to tell them apart.
mod mail {
    #[derive(serde::Serialize)]
    pub struct Envelope {
        pub from: String,
        pub to: String,
    }
}

#[derive(completeness::ResultEnvelope)]
pub struct Message {
    id: String,
    envelope: mail::Envelope,
}

fn main() {}
