// A helper generic over the reason type cannot report what an endpoint may not declare: it
// names the reason and the warning in its bounds.
use completeness::reason::VisibilityRestricted;
use completeness::warning::StaleIndex;
use completeness::{Completeness, Reason};

fn mark_stale<R: Reason>(completeness: &mut Completeness<R>) {
    completeness.push_warning(StaleIndex::new("audit"));
}

fn mark_hidden<R: Reason>(completeness: &mut Completeness<R>) {
    completeness.push_reason(VisibilityRestricted::new());
}

fn main() {}
