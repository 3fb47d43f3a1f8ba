// A standard code has its own type: a service's own reason cannot reuse it.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "MORE_PAGES_AVAILABLE", kind = truncation, message = "More pages.")]
struct MorePages;

fn main() {}
