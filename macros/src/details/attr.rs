//! `#[reason(code = "...", kind = ..., message = "...", recovery = path, next_cursor)]` and
//! `#[warning(code = "...", owner = "...", review_by = "YYYY-MM-DD", message = "...", stale)]`, each
//! with `crate = "..."` for a framework reached by another path.

use syn::{DeriveInput, Ident, LitStr, Path};

use super::Which;
use crate::ctxt::Ctxt;
use crate::krate::Krate;
use crate::meta::{self, Slot};

/// The keys, each as written (validation checks the values).
#[derive(Default)]
pub(crate) struct Attrs {
    /// The first attribute, for errors about a missing key.
    pub(crate) attribute: Option<Path>,
    pub(crate) code: Slot<LitStr>,
    pub(crate) kind: Slot<Ident>,
    pub(crate) message: Slot<LitStr>,
    pub(crate) recovery: Slot<Path>,
    /// `next_cursor`: the reason's recovery may hand out a cursor to the next page.
    pub(crate) next_cursor: Option<Path>,
    pub(crate) owner: Slot<LitStr>,
    pub(crate) review_by: Slot<LitStr>,
    /// `stale`: the warning says the answer was not read from current state.
    pub(crate) stale: Option<Path>,
    /// `crate = "..."`: the framework's path, `::completeness` when not given.
    pub(crate) krate: Krate,
    /// An attribute did not parse to its end: the keys after the mistake were not read, so
    /// none is reported missing (one mistake, one error).
    pub(crate) unread: bool,
}

/// Reads the helper attribute; every mistake goes to `cx`.
pub(crate) fn parse(cx: &Ctxt, which: Which, input: &DeriveInput) -> Attrs {
    let mut attrs = Attrs::default();
    let mut krate = Slot::default();
    let name = which.attribute();
    for attribute in input.attrs.iter().filter(|a| a.path().is_ident(name)) {
        // Keys may be spread over several attributes, as serde's may; a key given twice is
        // reported by `Slot::fill`.
        attrs.attribute.get_or_insert_with(|| attribute.path().clone());
        let result = attribute.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            let duplicate = format!("duplicate `{key}` key: give it once");
            match (which, key.as_str()) {
                (_, "crate") => Krate::read(cx, &meta, &mut krate),
                (_, "code") => attrs.code.fill(cx, &meta, "a string", "code = \"LEGAL_HOLD\"", &duplicate),
                (_, "message") => attrs.message.fill(cx, &meta, "a string", "message = \"...\"", &duplicate),
                (Which::Reason, "kind") => attrs.kind.fill(cx, &meta, "a name", "kind = visibility", &duplicate),
                (Which::Reason, "recovery") => {
                    attrs.recovery.fill(cx, &meta, "a path", "recovery = LegalHold::narrow", &duplicate)
                }
                (Which::Reason, "next_cursor") => {
                    let how = "write `next_cursor` when the reason's `recovery` may return \
                               `Continuation::NextCursor`, and leave it out otherwise";
                    meta::flag(cx, &meta, &mut attrs.next_cursor, how, &duplicate)
                }
                (Which::Warning, "owner") => {
                    attrs.owner.fill(cx, &meta, "a string", "owner = \"storage-team\"", &duplicate)
                }
                (Which::Warning, "review_by") => {
                    attrs.review_by.fill(cx, &meta, "a string", "review_by = \"2027-06-30\"", &duplicate)
                }
                (Which::Warning, "stale") => {
                    let how = "write `#[warning(stale, ...)]` for a warning that the answer is not current, and leave \
                               it out otherwise";
                    meta::flag(cx, &meta, &mut attrs.stale, how, &duplicate)
                }
                (Which::Reason, "stale") => {
                    cx.error_spanned_by(
                        &meta.path,
                        "a reason has no `stale`: a stale answer is still complete, so say it with a warning \
                         (`#[derive(Warning)]` with `#[warning(stale, ...)]`, pushed with `push_warning`)",
                    );
                    meta::skip_value(&meta)
                }
                _ => {
                    let expected = match which {
                        Which::Reason => "`code`, `kind`, `message`, `recovery`, `next_cursor` or `crate`",
                        Which::Warning => "`code`, `owner`, `review_by`, `message`, `stale` or `crate`",
                    };
                    cx.error_spanned_by(
                        &meta.path,
                        format!("unknown key `{key}` in `#[{name}(...)]`: expected {expected}"),
                    );
                    meta::skip_value(&meta)
                }
            }
        });
        if let Err(error) = result {
            cx.syn_error(error);
            attrs.unread = true;
        }
    }
    attrs.krate = Krate::from_slot(cx, &krate);
    attrs
}
