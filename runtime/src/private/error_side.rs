//! The type-level check of a `Result`'s error side that `#[completeness]` puts beside
//! `assert_declared`: the macro reads the error type as written, and an alias hides what it is
//! (`type Accounts = Json<Vec<Account>>`, `type ApiResult<T> = Result<T, Accounts>`), so the
//! compiler checks what the type resolves to.
//!
//! The rules, most specific first:
//! 1. An error side that reports completeness is held to the declared reason type: its block
//!    goes out (with a success status, read as an answer), and must report only declared
//!    reasons. `Problem`, a status and `Exempt` carry every reason type.
//! 2. An error side that is `Json` of a standard collection is refused: it goes out as a 200,
//!    a list without completeness metadata, read as an answer. So is a tuple of response parts
//!    (headers, extensions: what sets no status) ending in one, `(HeaderMap, Json<Vec<T>>)`; a
//!    tuple that starts with a status, `(StatusCode, Json<Vec<T>>)`, is an error response.
//! 3. Any other error side is a response (`IntoResponse`): axum answers an `Err` with it. Said
//!    here, on the error type, rather than by axum's "not a handler" on the route. axum's own
//!    `ErrorResponse` (of `axum::response::Result<T>`) is one only inside a `Result`, which axum
//!    makes a response: it passes. It holds any response, so no type says what it answers with:
//!    a list in it (`Err(Json(vec![..]).into())`) is a success without a block, which the routes
//!    of `completeness::routing` answer with the 500 `INTERNAL` problem at run time.
//! 4. Any other answer passes: one that is not a `Result`.
//!
//! Generated as `ErrorSide::<Output, Reason>::new().check()`. Each rule is an inherent `check`
//! of one probe type, and each probe type dereferences to the next: method resolution calls the
//! first whose impl applies to the type (a `Result` whose error side reports completeness, a
//! `Result` whose error side is `Json` of a collection, anything), and the compiler then checks
//! that method's bound, whose message says what is wrong. (Inherent methods need no import, and
//! cost less to resolve than trait methods on references.)

use std::marker::PhantomData;
use std::ops::Deref;

#[cfg(feature = "axum")]
use axum::response::IntoResponseParts;

use crate::server::report::{CarriesReason, ReportsCompleteness};

/// The probe of rule 1: a handler's written return type `O` and its declared reason type `R`.
pub struct ErrorSide<O, R>(ListError<O, R>);

/// The probe of rule 2.
pub struct ListError<O, R>(ErrorResponse<O, R>);

/// The probe of rule 3.
pub struct ErrorResponse<O, R>(AnyOther<O, R>);

/// The probe of rule 4.
pub struct AnyOther<O, R>(PhantomData<fn() -> (O, R)>);

impl<O, R> ErrorSide<O, R> {
    /// The probe, to call `check` on.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ErrorSide(ListError(ErrorResponse(AnyOther(PhantomData))))
    }
}

impl<O, R> Deref for ErrorSide<O, R> {
    type Target = ListError<O, R>;
    fn deref(&self) -> &ListError<O, R> {
        &self.0
    }
}

impl<O, R> Deref for ListError<O, R> {
    type Target = ErrorResponse<O, R>;
    fn deref(&self) -> &ErrorResponse<O, R> {
        &self.0
    }
}

impl<O, R> Deref for ErrorResponse<O, R> {
    type Target = AnyOther<O, R>;
    fn deref(&self) -> &AnyOther<O, R> {
        &self.0
    }
}

impl<T, E: ReportsCompleteness, R> ErrorSide<Result<T, E>, R> {
    /// Rule 1.
    pub fn check(&self)
    where
        E: ErrorSideOverDeclared<R>,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, C: StandardCollection, R> ListError<Result<T, axum::Json<C>>, R> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        axum::Json<C>: ErrorSideNotAList,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, P1: IntoResponseParts, C: StandardCollection, R> ListError<Result<T, (P1, axum::Json<C>)>, R> {
    /// Rule 2 for a list after one response part.
    pub fn check(&self)
    where
        (P1, axum::Json<C>): ErrorSideNotAList,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, P1: IntoResponseParts, P2: IntoResponseParts, C: StandardCollection, R>
    ListError<Result<T, (P1, P2, axum::Json<C>)>, R>
{
    /// Rule 2 for a list after two response parts.
    pub fn check(&self)
    where
        (P1, P2, axum::Json<C>): ErrorSideNotAList,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, P1: IntoResponseParts, P2: IntoResponseParts, P3: IntoResponseParts, C: StandardCollection, R>
    ListError<Result<T, (P1, P2, P3, axum::Json<C>)>, R>
{
    /// Rule 2 for a list after three response parts.
    pub fn check(&self)
    where
        (P1, P2, P3, axum::Json<C>): ErrorSideNotAList,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, E, R> ErrorResponse<Result<T, E>, R> {
    /// Rule 3.
    pub fn check(&self)
    where
        E: ErrorSideResponds,
    {
    }
}

/// Rule 3 for axum's `ErrorResponse`, a response only as the error side of a `Result`. (A
/// bound cannot say it: axum may yet make it `IntoResponse`, so an impl of `ErrorSideResponds`
/// beside the blanket one would overlap.)
#[cfg(feature = "axum")]
impl<T, R> ListError<Result<T, axum::response::ErrorResponse>, R> {
    /// Rule 3, met.
    pub fn check(&self) {}
}

impl<O, R> AnyOther<O, R> {
    /// Rule 4.
    pub fn check(&self) {}
}

/// Rule 3's bound: `IntoResponse`, with a message about the error side.
#[cfg(feature = "axum")]
#[diagnostic::on_unimplemented(
    message = "the error side `{Self}` is no response: axum answers a handler's `Err` with it",
    label = "does not implement `axum::response::IntoResponse`",
    note = "implement `axum::response::IntoResponse` for the error type, or return an error that is a response, \
            e.g. `completeness::Problem` or `(StatusCode, String)`"
)]
pub trait ErrorSideResponds {}

#[cfg(feature = "axum")]
impl<E: axum::response::IntoResponse> ErrorSideResponds for E {}

/// Rule 1's bound: `CarriesReason<R>`, with a message about the error side.
#[diagnostic::on_unimplemented(
    message = "the error side `{Self}` reports over another reason type than this endpoint's `{R}`",
    label = "its completeness block can report reasons the handler does not declare",
    note = "an envelope returned as an error goes out with its block like an answer: build it over the handler's \
            reason type, `completeness::Envelope<T, {R}>`, or return an error, e.g. `completeness::Problem`"
)]
pub trait ErrorSideOverDeclared<R> {}

impl<E: CarriesReason<R>, R> ErrorSideOverDeclared<R> for E {}

/// Rule 2's bound; no type implements it.
#[diagnostic::on_unimplemented(
    message = "the error side `{Self}` is a list, which goes out as a 200 like an answer, without completeness metadata",
    label = "`Json` of a list, sent with axum's default status",
    note = "return an error with an error status, e.g. `completeness::Problem` or `(StatusCode::BAD_REQUEST, Json<Vec<E>>)`"
)]
pub trait ErrorSideNotAList {}

/// The standard collections of unbounded size rule 2 knows by type (the macro's syntax check
/// knows more by name; arrays have a fixed size and are not collections).
pub trait StandardCollection {}

impl<T> StandardCollection for Vec<T> {}
impl<T> StandardCollection for std::collections::VecDeque<T> {}
impl<T> StandardCollection for std::collections::LinkedList<T> {}
impl<T> StandardCollection for std::collections::BinaryHeap<T> {}
impl<T, S> StandardCollection for std::collections::HashSet<T, S> {}
impl<T> StandardCollection for std::collections::BTreeSet<T> {}
impl<K, V, S> StandardCollection for std::collections::HashMap<K, V, S> {}
impl<K, V> StandardCollection for std::collections::BTreeMap<K, V> {}
impl<T> StandardCollection for Box<[T]> {}
impl<T> StandardCollection for &[T] {}
impl<T> StandardCollection for std::sync::Arc<[T]> {}
impl<T> StandardCollection for std::rc::Rc<[T]> {}
impl<T: Clone> StandardCollection for std::borrow::Cow<'_, [T]> {}
