//! The query pairs of a request URI, as the framework's extractors read them.
//!
//! Every list request passes through several extractors that each look for their own
//! parameters. A query string with no `%` and no `+` decodes to itself, so its pairs
//! are read in place; only a query that needs decoding is decoded (by axum's `Query`,
//! which the results match exactly), once [`check_encoding`] has found nothing to guess at.

use std::borrow::Cow;

use axum::http::Uri;

use crate::server::problem::{Problem, ProblemCode};

/// The query pairs of `uri`, in order, duplicates kept; a parameter without `=` has
/// an empty value.
pub(crate) fn query_pairs(uri: &Uri) -> Result<QueryPairs<'_>, Problem> {
    let Some(query) = uri.query() else {
        return Ok(QueryPairs::Raw("".split('&')));
    };
    if !query.contains(['%', '+']) {
        return Ok(QueryPairs::Raw(query.split('&')));
    }
    check_encoding(query)?;
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map(|query| QueryPairs::Decoded(query.0.into_iter()))
        .map_err(|e| Problem::new(ProblemCode::InvalidRequest, format!("the query string could not be read: {e}")))
}

/// Refuses a query string a decoder would have to guess at (400 `INVALID_REQUEST`): a `%` not
/// followed by two hex digits, or escapes that decode to bytes that are not UTF-8 (`%FF`).
/// axum's `Query` reads the first as literal text and turns the second into U+FFFD, so a
/// filter the client never sent would be answered, even as complete, as if it had been.
pub(crate) fn check_encoding(query: &str) -> Result<(), Problem> {
    let refused = |detail: String| Problem::new(ProblemCode::InvalidRequest, detail);
    let bytes = query.as_bytes();
    let unescaped = (0..bytes.len()).find(|&at| {
        bytes[at] == b'%' && !bytes.get(at + 1..at + 3).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    });
    if let Some(at) = unescaped {
        return Err(refused(format!(
            "the query string has a '%' at byte {at} that two hex digits do not follow: send a literal '%' as %25"
        )));
    }
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if [key, value].iter().any(|part| percent_encoding::percent_decode_str(part).decode_utf8().is_err()) {
            // Decoded when the name is UTF-8 (its value was not), else as sent: never with a
            // U+FFFD the client did not send.
            let name = percent_encoding::percent_decode_str(key).decode_utf8().unwrap_or(Cow::Borrowed(key));
            return Err(refused(format!(
                "the query parameter '{name}' does not decode to UTF-8 text: percent-encode the UTF-8 bytes of its name and value"
            ))
            .with_parameter(&name));
        }
    }
    Ok(())
}

/// The pairs of one query string; see [`query_pairs`].
pub(crate) enum QueryPairs<'a> {
    /// Nothing to decode: the pairs are slices of the query string.
    Raw(std::str::Split<'a, char>),
    /// Decoded pairs.
    Decoded(std::vec::IntoIter<(String, String)>),
}

impl<'a> Iterator for QueryPairs<'a> {
    type Item = (Cow<'a, str>, Cow<'a, str>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            QueryPairs::Raw(pairs) => {
                let pair = pairs.find(|pair| !pair.is_empty())?;
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                Some((Cow::Borrowed(key), Cow::Borrowed(value)))
            }
            QueryPairs::Decoded(pairs) => pairs.next().map(|(key, value)| (Cow::Owned(key), Cow::Owned(value))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(uri: &str) -> Vec<(String, String)> {
        let uri: Uri = uri.parse().unwrap();
        query_pairs(&uri).unwrap().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()
    }

    fn decoded_by_axum(uri: &str) -> Vec<(String, String)> {
        let uri: Uri = uri.parse().unwrap();
        if uri.query().is_none() {
            return Vec::new();
        }
        axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&uri).unwrap().0
    }

    #[test]
    fn escapes_a_decoder_would_guess_at_are_refused() {
        for query in ["q=%FF", "q=svc%zz", "q=svc%", "q=%2", "q=%+f", "%FF=1", "a=1&q=%C3", "q=%ED%A0%80"] {
            let refused = check_encoding(query).expect_err(query);
            assert_eq!(refused.code(), &ProblemCode::InvalidRequest, "{query}");
        }
        for query in ["q=%25", "q=caf%C3%A9", "q=a+b", "q=plain&page_size=10", "q=%7e%7E", ""] {
            assert!(check_encoding(query).is_ok(), "{query}");
        }
        // The parameter is named as the client wrote it when its name does not decode, and
        // decoded when only its value does not.
        let parameter = |query| check_encoding(query).unwrap_err().parameter().map(str::to_owned);
        assert_eq!(parameter("a=1&x%FF=1"), Some("x%FF".to_owned()));
        assert_eq!(parameter("caf%C3%A9=%FF"), Some("café".to_owned()));
        // Through the pairs every extractor reads.
        let uri: Uri = "/a?page_size=%FF".parse().unwrap();
        assert!(query_pairs(&uri).is_err());
    }

    #[test]
    fn pairs_read_in_place_match_the_decoded_pairs() {
        for uri in [
            "/a",
            "/a?",
            "/a?page_size=10",
            "/a?page_size=10&cursor=c1.abc_-",
            "/a?&&page_size=&cursor&=x&a=b=c&",
            "/a?require_complete=true&require_complete=false",
            "/a?owner=none&tenant=north&page_size=100",
        ] {
            assert_eq!(read(uri), decoded_by_axum(uri), "{uri}");
        }
    }

    #[test]
    fn escaped_pairs_are_decoded() {
        for uri in ["/a?page%5Fsize=10", "/a?owner=a+b&tenant=n%C3%B6rth", "/a?x=%7a&y=%41"] {
            assert_eq!(read(uri), decoded_by_axum(uri), "{uri}");
        }
        assert_eq!(read("/a?page%5Fsize=1+0"), vec![("page_size".to_owned(), "1 0".to_owned())]);
    }
}
