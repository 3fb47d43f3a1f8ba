use completeness::ResultEnvelope;
use serde::Serialize;

pub trait Source {
    type Items: Serialize;
}

// Each field holds its struct's type parameter, which can be a list:
// `Tagged<Vec<Account>>`, `Pinned<Vec<Account>>`, `FromSource<S>` with `S::Items = Vec<Account>`.
#[derive(ResultEnvelope)]
struct Tagged<T: Serialize> {
    data: (T, u64),
}

#[derive(ResultEnvelope)]
struct Pinned<T: Serialize> {
    data: [T; 1],
}

#[derive(ResultEnvelope)]
struct FromSource<S: Source> {
    data: S::Items,
    qualified: Option<<S as Source>::Items>,
}

fn main() {}
