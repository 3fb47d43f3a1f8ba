//! Envelope serialization overhead versus a bare Vec (written next).
fn main() {}
