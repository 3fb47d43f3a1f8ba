//! The rules of a service's own reason or warning, and why each exists:
//! 1. `code` is a wire code (SCREAMING_SNAKE_CASE): clients branch on it (contract §3.1).
//! 2. `code` is not a standard one: a standard code has its own type with its own details,
//!    and one code means one thing. Nor is it one or two letters from one (`STALE_INDEXX`):
//!    readers tell codes apart at a glance, and a slip of a standard code would pass for it
//!    (contract §3.3).
//! 3. A reason has a `kind` among the declarable ones: the kind decides `truncated` and how
//!    clients classify a code they do not know (contract §3.3).
//! 4. `message` is given: every reason and warning says in words what happened. (Its
//!    placeholders are checked by the compiler, which points at a misspelled one inside the
//!    string; a proc macro can point only at the whole literal.)
//! 5. A warning has an `owner` and a valid `review_by` date: every warning code is owned and
//!    reviewed (contract §3.5).
//! 6. No field is named like a member the object already has (`code`, `message`, and `kind`
//!    for a reason or `stale` for a warning): the wire object would name it twice.
//! 7. No field borrows (`&'static str`, also inside it: `Option<&str>`): clients that know the code read its details back into
//!    the type (contract §3.3), so each field is owned. (A field type that does not
//!    deserialize at all is reported by the compiler, on the field's type.)
//! 8. No `#[serde(...)]` on the struct or a field: this derive writes and reads each field
//!    under its own name, and a serde attribute would change only the struct's own `Serialize`,
//!    so the object on the wire and the struct's serde form would silently disagree (a rename
//!    the wire ignores, a skipped field it sends). The field's name is the member's.
//! 9. `next_cursor` comes with a `recovery`: a reason hands out a cursor only as its recovery,
//!    and an endpoint whose reasons say `next_cursor` reads cursors, so a flag without one
//!    would keep an endpoint open to cursors it never issues (contract §2.5).
//! 10. A reason of kind `visibility` has no `recovery`: nothing a retry, a next page or another
//!     question shows is what the credential may not read (contract §3.4), so a continuation
//!     beside it would send a caller that follows it round in circles.
//! 11. `next_cursor` only on a reason of kind `truncation`: a next page is the way on from an
//!     answer cut short, and clients follow a service's own cursor only as that (contract §8); a
//!     cursor beside a source or budget reason is one no client takes.

use proc_macro2::Span;
use syn::{Attribute, Data, DeriveInput, Ident, Type};

use super::Which;
use super::attr::Attrs;
use crate::ctxt::Ctxt;

/// `text` in SCREAMING_SNAKE_CASE as far as its letters allow (`replica-lag`, `replicaLag` and
/// `replica lag` are `REPLICA_LAG`), for a message to suggest; rule 1 checks what comes out.
fn screaming(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut previous: Option<char> = None;
    for c in text.trim().chars() {
        if matches!(c, '-' | ' ' | '.' | '_') {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        } else {
            if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
                out.push('_');
            }
            out.extend(c.to_uppercase());
        }
        previous = Some(c);
    }
    out.trim_end_matches('_').to_owned()
}

/// The standard code `code` is a slip of (rule 2), with the table it is in and its type's name.
fn confusable(code: &str) -> Option<(&'static str, &'static str, &'static str)> {
    let standard = completeness_codes::confusable_standard_code(code)?;
    let reason =
        completeness_codes::REASONS.iter().find(|entry| entry.code == standard).map(|entry| ("reason", entry.name));
    let warning =
        completeness_codes::WARNINGS.iter().find(|entry| entry.code == standard).map(|entry| ("warning", entry.name));
    let (what, name) = reason.or(warning)?;
    Some((standard, what, name))
}

/// Runs every rule.
pub(crate) fn check(cx: &Ctxt, which: Which, attrs: &Attrs, fields: &[(&Ident, &Type)]) {
    let name = which.attribute();
    // A key missing (not reported when the attribute did not parse to its end: the key may
    // be among those after the mistake).
    let at = |cx: &Ctxt, message: String| match &attrs.attribute {
        _ if attrs.unread => {}
        Some(path) => cx.error_spanned_by(path, message),
        None => cx.error_at(Span::call_site(), message),
    };
    if attrs.attribute.is_none() {
        let example = match which {
            Which::Reason => "#[reason(code = \"LEGAL_HOLD\", kind = visibility, message = \"...\")]",
            Which::Warning => {
                "#[warning(code = \"REPLICA_LAG\", owner = \"storage-team\", review_by = \"2027-06-30\", message = \"...\")]"
            }
        };
        cx.error_at(Span::call_site(), format!("missing `#[{name}(...)]`: declare the code, e.g. `{example}`"));
        return;
    }
    // Rules 1 and 2.
    match &attrs.code.value {
        None if attrs.code.given => {}
        None => at(cx, format!("missing `code`: write `code = \"SCREAMING_SNAKE_CASE\"` in `#[{name}(...)]`")),
        Some(code) => {
            let text = code.value();
            if !completeness_codes::is_wire_code(&text) {
                let suggested = screaming(&text);
                let example =
                    if completeness_codes::is_wire_code(&suggested) { suggested } else { "LEGAL_HOLD".to_owned() };
                cx.error_spanned_by(
                    code,
                    format!("`{text}` is not a wire code: write it in SCREAMING_SNAKE_CASE, e.g. `\"{example}\"`"),
                );
            } else if let Some(entry) = completeness_codes::standard_reason(&text) {
                cx.error_spanned_by(
                    code,
                    format!("`{text}` is a standard reason: report `completeness::reason::{}` instead", entry.name),
                );
            } else if let Some(entry) = completeness_codes::standard_warning(&text) {
                cx.error_spanned_by(
                    code,
                    format!("`{text}` is a standard warning: push `completeness::warning::{}` instead", entry.name),
                );
            } else if let Some((standard, what, name)) = confusable(&text) {
                let verb = if what == "reason" { "report" } else { "push" };
                cx.error_spanned_by(
                    code,
                    format!(
                        "`{text}` is a letter or two from the standard {what} `{standard}`: {verb} \
                         `completeness::{what}::{name}` if that is meant, or choose a code that cannot be read as it"
                    ),
                );
            }
        }
    }
    // Rule 3.
    if which == Which::Reason {
        let kinds = completeness_codes::ReasonKind::DECLARABLE.map(|kind| kind.as_str());
        match &attrs.kind.value {
            None if attrs.kind.given => {}
            None => at(cx, format!("missing `kind`: write `kind = ` one of {}", kinds.join(", "))),
            Some(kind) if !kinds.contains(&kind.to_string().as_str()) => {
                let written = kind.to_string();
                let message = match kinds.iter().find(|known| known.eq_ignore_ascii_case(&written)) {
                    Some(known) => format!("unknown kind `{written}`: kinds are lower-case, write `{known}`"),
                    None => format!("unknown kind `{written}`: expected one of {}", kinds.join(", ")),
                };
                cx.error_spanned_by(kind, message)
            }
            Some(_) => {}
        }
    }
    // Rule 4.
    if !attrs.message.given {
        at(cx, "missing `message`: write `message = \"...\"` (it may name fields, as in `\"{field}\"`)".to_owned());
    }
    // Rule 5.
    if which == Which::Warning {
        match &attrs.owner.value {
            None if attrs.owner.given => {}
            None => at(
                cx,
                "missing `owner`: name the team answerable for this warning, e.g. `owner = \"storage-team\"`".into(),
            ),
            Some(owner) if owner.value().trim().is_empty() => cx.error_spanned_by(
                owner,
                "`owner` must not be empty: name the team answerable for this warning, e.g. `owner = \"storage-team\"`",
            ),
            Some(_) => {}
        }
        match &attrs.review_by.value {
            None if attrs.review_by.given => {}
            None => at(
                cx,
                "missing `review_by`: write the date it must be reviewed by, e.g. `review_by = \"2027-06-30\"`".into(),
            ),
            Some(date) if let Some(mistake) = date_mistake(&date.value()) => cx.error_spanned_by(date, mistake),
            Some(_) => {}
        }
    }
    // Rule 9 (unless rule 11 refuses the flag itself: adding a recovery would not mend it).
    let flag_refused = attrs.kind.value.as_ref().is_some_and(|kind| kind != "truncation");
    if let (Some(flag), false, false) = (&attrs.next_cursor, attrs.recovery.given, flag_refused) {
        cx.error_spanned_by(
            flag,
            "`next_cursor` without a `recovery`: the cursor is handed out by the recovery; add \
             `recovery = path` to a `fn(&Self) -> Option<Continuation>`, or remove `next_cursor`",
        );
    }
    // Rules 10 and 11.
    if let Some(kind) = &attrs.kind.value {
        let recovery = attrs.recovery.value.as_ref().filter(|_| kind == "visibility");
        if let Some(recovery) = recovery {
            cx.error_spanned_by(
                recovery,
                "a reason of kind `visibility` offers no continuation: no retry, next page or other question \
                 shows what the credential may not read (contract §3.4); remove `recovery`, or declare the kind \
                 the way on belongs to",
            );
        }
        if let Some(flag) = attrs.next_cursor.as_ref().filter(|_| kind != "truncation") {
            cx.error_spanned_by(
                flag,
                format!(
                    "`next_cursor` on a reason of kind `{kind}`: a next page continues an answer cut short, and \
                     clients follow a service's own cursor only from a reason of kind `truncation` (contract §8); \
                     declare `kind = truncation`, or offer another continuation without `next_cursor`"
                ),
            );
        }
    }
    // Rules 6 and 7.
    for &(field, ty) in fields {
        // (The member a raw identifier is written as: `r#kind` writes `kind`.)
        let field_name = crate::names::unraw(field);
        let head = match which {
            Which::Reason => completeness_codes::REASON_HEAD_MEMBERS,
            Which::Warning => completeness_codes::WARNING_HEAD_MEMBERS,
        };
        if head.contains(&field_name.as_str()) {
            cx.error_spanned_by(
                field,
                format!("field `{field_name}` clashes with the {name} object's own member: rename it"),
            );
        }
        if let Some(reference) = borrowed(ty) {
            cx.error_spanned_by(
                reference,
                format!(
                    "field `{field_name}` borrows: clients read a {name}'s details back, so each field is owned; \
                     write an owned type, e.g. `String` for `&str`"
                ),
            );
        }
    }
}

/// Rule 8, on the struct's attributes and its fields'.
pub(crate) fn check_no_serde(cx: &Ctxt, which: Which, input: &DeriveInput) {
    let derive = crate::names::capitalized(which.attribute());
    let refuse = |cx: &Ctxt, attrs: &[Attribute], on: &str| {
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            cx.error_spanned_by(
                attr.path(),
                format!(
                    "`#[derive({derive})]` writes and reads each field under its own name, so `#[serde(...)]` on \
                     {on} would change only the struct's own `Serialize`, not the {} object on the wire: remove it, \
                     and name the field as the member should be (a keyword as a raw identifier: `r#type`)",
                    which.attribute()
                ),
            );
        }
    };
    refuse(cx, &input.attrs, "the struct");
    if let Data::Struct(data) = &input.data {
        for field in &data.fields {
            refuse(cx, &field.attrs, "a field");
        }
    }
}

/// The first reference in `ty`, at its top or inside it (`Option<&'static str>`, `Vec<(u8, &str)>`).
fn borrowed(ty: &Type) -> Option<&syn::TypeReference> {
    match ty {
        Type::Reference(reference) => Some(reference),
        Type::Array(array) => borrowed(&array.elem),
        Type::Slice(slice) => borrowed(&slice.elem),
        Type::Paren(paren) => borrowed(&paren.elem),
        Type::Group(group) => borrowed(&group.elem),
        Type::Tuple(tuple) => tuple.elems.iter().find_map(borrowed),
        Type::Path(path) => {
            let qself = path.qself.as_ref().and_then(|qself| borrowed(&qself.ty));
            qself.or_else(|| {
                path.path.segments.iter().find_map(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                        syn::GenericArgument::Type(ty) => borrowed(ty),
                        _ => None,
                    }),
                    _ => None,
                })
            })
        }
        _ => None,
    }
}

/// What is wrong with `text` as the `YYYY-MM-DD` of a real calendar date; `None` when it is one.
fn date_mistake(text: &str) -> Option<String> {
    let written = || Some(format!("`{text}` is not a date: write it as YYYY-MM-DD"));
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts.as_slice() else { return written() };
    // Digits only: `u32`'s parser also takes a sign (`2027-+6-30`), which the runtime's reader
    // of the catalog refuses.
    if year.len() != 4 || month.len() != 2 || day.len() != 2 || !text.bytes().all(|b| b == b'-' || b.is_ascii_digit()) {
        return written();
    }
    let (Ok(year), Ok(month), Ok(day)) = (year.parse::<u32>(), month.parse::<u32>(), day.parse::<u32>()) else {
        return written();
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Some(format!("`{text}` is not a calendar date: there is no month {month}")),
    };
    (!(1..=days).contains(&day))
        .then(|| format!("`{text}` is not a calendar date: month {month} of {year} has days 1 to {days}"))
}
