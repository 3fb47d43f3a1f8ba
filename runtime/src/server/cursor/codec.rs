//! A small length-prefixed binary layout for token payloads (authenticated before it is read).

/// Appends fields to a payload.
#[derive(Default)]
pub(crate) struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub(crate) fn with_capacity(capacity: usize) -> Writer {
        Writer { bytes: Vec::with_capacity(capacity) }
    }

    pub(crate) fn u64(&mut self, value: u64) -> &mut Self {
        self.bytes.extend_from_slice(&value.to_be_bytes());
        self
    }

    pub(crate) fn digest(&mut self, value: &[u8; 32]) -> &mut Self {
        self.bytes.extend_from_slice(value);
        self
    }

    /// A string of at most `u16::MAX` bytes (longer ones are cut at a char boundary;
    /// callers bound their inputs far below that).
    pub(crate) fn str(&mut self, value: &str) -> &mut Self {
        let mut end = value.len().min(usize::from(u16::MAX));
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        self.bytes.extend_from_slice(&(end as u16).to_be_bytes());
        self.bytes.extend_from_slice(&value.as_bytes()[..end]);
        self
    }

    pub(crate) fn opt_str(&mut self, value: Option<&str>) -> &mut Self {
        match value {
            Some(value) => {
                self.bytes.push(1);
                self.str(value)
            }
            None => {
                self.bytes.push(0);
                self
            }
        }
    }

    /// A mark of one byte, for a field written only when it holds (so that a payload without
    /// it is the payload of before the field existed).
    pub(crate) fn mark(&mut self, value: u8) -> &mut Self {
        self.bytes.push(value);
        self
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads fields back; every read fails cleanly on short or invalid input.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_be_bytes(b.try_into().unwrap_or([0; 8])))
    }

    pub(crate) fn digest(&mut self) -> Option<[u8; 32]> {
        self.take(32).and_then(|b| b.try_into().ok())
    }

    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let len = self.take(2).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))?;
        std::str::from_utf8(self.take(len)?).ok()
    }

    pub(crate) fn opt_str(&mut self) -> Option<Option<&'a str>> {
        match self.take(1)?[0] {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }

    /// True, reading it, when the mark `value` comes next; false, reading nothing, otherwise.
    /// Marks are optional and written in a fixed order, so a reader asks for each in turn and
    /// [`Reader::is_done`] then refuses any byte none of them took.
    pub(crate) fn optional_mark(&mut self, value: u8) -> bool {
        let marked = self.bytes.first() == Some(&value);
        if marked {
            self.bytes = &self.bytes[1..];
        }
        marked
    }

    /// True when every byte was read (trailing bytes make a payload malformed).
    pub(crate) fn is_done(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_short_input_fails_cleanly() {
        let mut w = Writer::default();
        w.u64(7).digest(&[9; 32]).str("héllo").opt_str(None).opt_str(Some("s-1"));
        let bytes = w.finish();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u64(), Some(7));
        assert_eq!(r.digest(), Some([9; 32]));
        assert_eq!(r.str(), Some("héllo"));
        assert_eq!(r.opt_str(), Some(None));
        assert_eq!(r.opt_str(), Some(Some("s-1")));
        assert!(r.is_done());
        for cut in 0..bytes.len() {
            let mut r = Reader::new(&bytes[..cut]);
            let all = r.u64().is_some()
                && r.digest().is_some()
                && r.str().is_some()
                && r.opt_str().is_some()
                && r.opt_str().is_some();
            assert!(!all, "a payload cut at {cut} bytes must not read fully");
        }
    }
}
