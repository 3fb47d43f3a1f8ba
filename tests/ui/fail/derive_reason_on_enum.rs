// A reason is a struct: its fields are the wire members next to `code` and `message`.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "LEGAL_HOLD", kind = visibility, message = "Records under legal hold are hidden.")]
enum LegalHold {
    Active,
}

fn main() {}
