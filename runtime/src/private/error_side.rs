//! The type-level check of a `Result`'s error side that `#[completeness]` puts beside
//! `assert_declared`: the macro reads the error type as written, and an alias hides what it is
//! (`type Accounts = Json<Vec<Account>>`), so the compiler checks what the type resolves to.
//!
//! The rules, most specific first (each a trait on one more level of reference, so that method
//! resolution tries them in this order, and the first that applies is the one called):
//! 1. An error side that reports completeness over the declared reason type (an envelope of the
//!    handler's reasons, `Problem`, a status, `Exempt`) passes: its block, if any, reports only
//!    declared reasons.
//! 2. An error side that reports completeness over another reason type is refused: its block
//!    goes out (with a success status, read as an answer) reporting undeclared reasons.
//! 3. An error side that is `Json` of a standard collection is refused: it goes out as a 200,
//!    a list without completeness metadata, read as an answer.
//! 4. Any other type passes: an error, not read as an answer (any answer type, no `Result`).
//!
//! Called as `(&&&&ErrorSide::<Output, Reason>::CHECK).check_error_side()` with the four
//! traits in scope.

use std::marker::PhantomData;

use crate::server::report::{CarriesReason, ReportsCompleteness};

/// The probe: a handler's written return type `O` and its declared reason type `R`.
pub struct ErrorSide<O, R>(PhantomData<fn() -> (O, R)>);

impl<O, R> ErrorSide<O, R> {
    /// The value the check calls on.
    pub const CHECK: Self = ErrorSide(PhantomData);
}

/// Rule 1.
pub trait DeclaredOrNoBlock {
    /// Passes.
    fn check_error_side(&self) {}
}

impl<T, E: ReportsCompleteness + CarriesReason<R>, R> DeclaredOrNoBlock for &&&ErrorSide<Result<T, E>, R> {}

/// Rule 2.
pub trait OtherReasonType<E, R> {
    /// Refused, by a bound no type meets.
    fn check_error_side(&self)
    where
        E: ErrorSideOverDeclared<R>,
    {
    }
}

impl<T, E: ReportsCompleteness, R> OtherReasonType<E, R> for &&ErrorSide<Result<T, E>, R> {}

/// Rule 3.
pub trait BareListError<E> {
    /// Refused, by a bound no type meets.
    fn check_error_side(&self)
    where
        E: ErrorSideNotAList,
    {
    }
}

#[cfg(feature = "axum")]
impl<T, C: StandardCollection, R> BareListError<axum::Json<C>> for &ErrorSide<Result<T, axum::Json<C>>, R> {}

/// Rule 4.
pub trait AnyOther {
    /// Passes.
    fn check_error_side(&self) {}
}

impl<O, R> AnyOther for ErrorSide<O, R> {}

/// The bound rule 2 places; no type implements it.
#[diagnostic::on_unimplemented(
    message = "the error side `{Self}` reports over another reason type than this endpoint's `{R}`",
    label = "its completeness block can report reasons the handler does not declare",
    note = "an envelope returned as an error goes out with its block like an answer: build it over the handler's \
            reason type, `completeness::Envelope<T, {R}>`, or return an error, e.g. `completeness::Problem`"
)]
pub trait ErrorSideOverDeclared<R> {}

/// The bound rule 3 places; no type implements it.
#[diagnostic::on_unimplemented(
    message = "the error side `{Self}` is a list, which goes out as a 200 like an answer, without completeness metadata",
    label = "`Json` of a list, behind a type alias",
    note = "return an error with a status, e.g. `completeness::Problem` or `(StatusCode, Json<Vec<E>>)`"
)]
pub trait ErrorSideNotAList {}

/// The standard collections of unbounded size rule 3 knows by type (the macro's syntax check
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
