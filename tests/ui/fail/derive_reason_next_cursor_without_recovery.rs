// A reason hands out a cursor only as its recovery: `next_cursor` alone would open its endpoints
// to cursors they never issue. A flag given a value, or given twice, is refused too.
#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "UPSTREAM_PAGED", kind = truncation, message = "The upstream has more.", next_cursor)]
struct UpstreamPaged;

#[derive(Debug, Clone, completeness::Reason)]
#[reason(code = "ARCHIVE_PENDING", kind = truncation, message = "More in the archive.", recovery = ArchivePending::next)]
#[reason(next_cursor = true, next_cursor)]
struct ArchivePending {
    cursor: String,
}

impl ArchivePending {
    fn next(&self) -> Option<completeness::Continuation> {
        Some(completeness::Continuation::NextCursor { cursor: self.cursor.clone() })
    }
}

fn main() {}
