//! The query pairs of a request URI, as the framework's extractors read them.
//!
//! Every list request passes through several extractors that each look for their own
//! parameters. A query string with no `%` and no `+` decodes to itself, so its pairs
//! are read in place; only a query that needs decoding is decoded (by axum's `Query`,
//! which the results match exactly).

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
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map(|query| QueryPairs::Decoded(query.0.into_iter()))
        .map_err(|e| Problem::new(ProblemCode::InvalidRequest, format!("the query string could not be read: {e}")))
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
        for uri in ["/a?page%5Fsize=10", "/a?owner=a+b&tenant=n%C3%B6rth", "/a?x=%ZZ&y=%41"] {
            assert_eq!(read(uri), decoded_by_axum(uri), "{uri}");
        }
        assert_eq!(read("/a?page%5Fsize=1+0"), vec![("page_size".to_owned(), "1 0".to_owned())]);
    }
}
