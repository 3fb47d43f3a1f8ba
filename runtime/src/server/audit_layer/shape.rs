//! The top-level shape of a JSON text, read no further than the answer needs: the layer must
//! know whether a body is an array, or an object with an array member and no `complete` member,
//! at a small fraction of the cost of producing the body.
//!
//! Rules:
//! 1. The first and last bytes other than whitespace must be `[` and `]`, `{` and `}`, or open
//!    and close a scalar that serde_json accepts; anything else is bad JSON (a body cut short,
//!    or with text after it).
//! 2. A top-level array is [`Problem::BareArray`] when it ends at the body's last bracket; one
//!    followed by more text (`[1] [2]`) is bad JSON. Its contents are only scanned by rule 4.
//! 3. A top-level object is read member by member until a member named `complete` (the
//!    completeness block: not a problem, reading stops) or its end, which must be the body's
//!    last brace. A member whose value starts with `[` is an array member:
//!    [`Problem::ArrayWithoutComplete`] when there is one and no block.
//! 4. While reading an array or an object, strings end at their first unescaped quote and
//!    brackets nest and match; a string left open or a bracket closed by the other kind is bad
//!    JSON.
//!
//! So an envelope (whose `complete` member comes second) is decided in its first few dozen
//! bytes, and a bare list by a scan for its closing bracket that reads no value.

use std::fmt;

use serde::de::IgnoredAny;

use super::Problem;

/// A body that is not JSON by rules 1 and 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadJson;

impl fmt::Display for BadJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the body is not JSON")
    }
}

impl std::error::Error for BadJson {}

/// Rules 1 to 4 on a JSON text.
pub fn shape(bytes: &[u8]) -> Result<Option<Problem>, BadJson> {
    let first = skip_whitespace(bytes, 0);
    let last = bytes.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')).ok_or(BadJson)?;
    match (bytes[first], bytes[last]) {
        (b'[', b']') | (b'{', b'}') => container(&bytes[..=last], first),
        (b'[' | b'{', _) | (_, b']' | b'}') => Err(BadJson),
        _ => serde_json::from_slice::<IgnoredAny>(bytes).map(|_| None).map_err(|_| BadJson),
    }
}

/// Rules 2 to 4 for the array or object opening at `i`; `bytes` ends with its closing bracket or
/// brace, which must close it.
fn container(bytes: &[u8], mut i: usize) -> Result<Option<Problem>, BadJson> {
    let object = bytes[i] == b'{';
    let mut closers: Vec<u8> = Vec::with_capacity(16);
    let mut array_member = false;
    // The next string at depth 1 of an object is a member name.
    let mut expect_name = object;
    loop {
        // Skip what cannot change the shape: digits, letters, whitespace.
        while bytes.get(i).is_some_and(|b| !STRUCTURAL[*b as usize]) {
            i += 1;
        }
        let byte = *bytes.get(i).ok_or(BadJson)?;
        match byte {
            b'"' => {
                let end = string_end(bytes, i + 1)?;
                if expect_name && closers.len() == 1 {
                    if &bytes[i + 1..end] == b"complete" {
                        return Ok(None);
                    }
                    expect_name = false;
                }
                i = end + 1;
                continue;
            }
            b'[' => closers.push(b']'),
            b'{' => closers.push(b'}'),
            b']' | b'}' => {
                if closers.pop() != Some(byte) {
                    return Err(BadJson);
                }
                if closers.is_empty() {
                    break;
                }
            }
            b':' if object && closers.len() == 1 => {
                array_member |= bytes.get(skip_whitespace(bytes, i + 1)) == Some(&b'[');
            }
            b',' if object && closers.len() == 1 => expect_name = true,
            _ => {}
        }
        i += 1;
    }
    if i + 1 != bytes.len() {
        return Err(BadJson);
    }
    if !object {
        return Ok(Some(Problem::BareArray));
    }
    Ok(array_member.then_some(Problem::ArrayWithoutComplete))
}

/// The bytes the scan stops at: quotes, brackets, colons and commas.
const STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 7 {
        table[b"\"[]{}:,"[i] as usize] = true;
        i += 1;
    }
    table
};

/// The index of the quote that closes the string starting at `start` (rule 4).
fn string_end(bytes: &[u8], mut start: usize) -> Result<usize, BadJson> {
    loop {
        let offset = bytes.get(start..).ok_or(BadJson)?.iter().position(|&b| b == b'"' || b == b'\\').ok_or(BadJson)?;
        let at = start + offset;
        if bytes[at] == b'"' {
            return Ok(at);
        }
        start = at + 2;
    }
}

fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(shape(b" [1, 2] "), Ok(Some(Problem::BareArray)));
        assert_eq!(shape(b"[]"), Ok(Some(Problem::BareArray)));
        assert_eq!(shape(br#"{"items": [1], "next": null}"#), Ok(Some(Problem::ArrayWithoutComplete)));
        assert_eq!(shape(br#"{"complete": false, "items": []}"#), Ok(None));
        assert_eq!(shape(br#"{"items": [], "complete": true}"#), Ok(None));
        assert_eq!(
            shape(br#"{"a": {"items": [1]}, "b": "[x"}"#),
            Ok(None),
            "nested arrays and strings are not members"
        );
        assert_eq!(shape(br#"{"s": "a\"b", "list": ["]"]}"#), Ok(Some(Problem::ArrayWithoutComplete)));
        assert_eq!(shape(br#"{"x": {"complete": true}, "items": [1]}"#), Ok(Some(Problem::ArrayWithoutComplete)));
        assert_eq!(shape(b"42"), Ok(None));
        assert_eq!(shape(b"\"text\""), Ok(None));
        assert_eq!(shape(b"{}"), Ok(None));
        assert_eq!(shape(br#"[[1], {"a": "]"}, "[x"]"#), Ok(Some(Problem::BareArray)), "brackets in strings");
    }

    #[test]
    fn bad_json() {
        for text in [
            &b""[..],
            b"  ",
            b"[1, 2",
            b"{} []",
            b"[1}",
            b"{\"a\": \"open}",
            b"nope",
            b"]",
            b"{\"a\": [1}, \"b\": 2}",
            b"{\"a\": 1}}",
            b"[1] [2]",
            b"[[1]] [2]",
            b"[\"]\"] [\"[\"]",
            b"[1]]",
            b"[{\"a\": 1]}",
        ] {
            assert_eq!(shape(text), Err(BadJson), "{}", String::from_utf8_lossy(text));
        }
    }
}
