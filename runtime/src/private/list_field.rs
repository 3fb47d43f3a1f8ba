//! The type-level checks the envelope derive puts on the data fields of a struct, where the type
//! as written may hide what the type is: the derive reads a field's type as written, and an
//! alias or an import under another name hides a list (`type Members = Vec<Account>`), a
//! `Field` (`type Email = Field<String>`) or a response of the framework's
//! (`use completeness::Envelope as Page`), so the compiler checks what the type resolves to.
//!
//! Generated as a chain of probes on the field's type, spanned on it. As in
//! [`error_side`](super::error_side), each probe type has an inherent `check` for one shape and
//! dereferences to the next; the first that applies is called, and its bound reports:
//! 0. (only on a field the derive did not read as a response) a response of the framework's,
//!    also inside `Option`, `Box`, `Rc` or `Arc`, is refused in a single resource: its reasons
//!    would go out unseen by the endpoint's declaration ([`NestedResponse`]);
//! 1. (only on a field the derive did not read as a `Field`) a `Field`, also inside those
//!    wrappers, is refused: what it leaves out would go out as a plain `null`, not listed in
//!    `omitted_fields` (contract §2.7) ([`HiddenField`]);
//! 2. a standard collection is refused;
//! 3. one inside `Option`, `Field`, `Box`, `Rc` or `Arc` is refused (the derive's syntax check
//!    reads through the same wrappers);
//! 4. any other type passes.
//!
//! A single resource (a struct without a completeness block) gets rules 2 and 3 from
//! [`ListField`]: a list there goes out without completeness metadata. A struct with a
//! completeness block gets [`AliasedList`] instead, of rule 2: a list behind an alias there would
//! go out uncounted by `page.returned`, and could be skipped when empty, as the written
//! collection cannot (contract §2.1, §2.5).

use std::marker::PhantomData;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use super::error_side::StandardCollection;
use crate::client::collect::Collected;
use crate::contract::aggregate::Aggregate;
use crate::contract::completeness::Completeness;
use crate::contract::envelope::Envelope;
use crate::contract::field::Field;

/// The probe of rule 2 in a single resource: a field's type `F`.
pub struct ListField<F>(WrappedList<F>);

/// The probe of rule 3.
pub struct WrappedList<F>(AnyField<F>);

/// The probe of rule 4.
pub struct AnyField<F>(PhantomData<fn() -> F>);

impl<F> ListField<F> {
    /// The probe, to call `check` on.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ListField(WrappedList(AnyField(PhantomData)))
    }
}

impl<F> Deref for ListField<F> {
    type Target = WrappedList<F>;
    fn deref(&self) -> &WrappedList<F> {
        &self.0
    }
}

impl<F> Deref for WrappedList<F> {
    type Target = AnyField<F>;
    fn deref(&self) -> &AnyField<F> {
        &self.0
    }
}

impl<C: StandardCollection> ListField<C> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        C: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Option<C>> {
    /// Rule 3, by a bound no type meets.
    pub fn check(&self)
    where
        Option<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Field<C>> {
    /// Rule 3, by a bound no type meets.
    pub fn check(&self)
    where
        Field<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Box<C>> {
    /// Rule 3, by a bound no type meets.
    pub fn check(&self)
    where
        Box<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Rc<C>> {
    /// Rule 3, by a bound no type meets.
    pub fn check(&self)
    where
        Rc<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Arc<C>> {
    /// Rule 3, by a bound no type meets.
    pub fn check(&self)
    where
        Arc<C>: ListWithoutCompleteness,
    {
    }
}

impl<F> AnyField<F> {
    /// Rule 4.
    pub fn check(&self) {}
}

/// The probe on a data field of a struct with a completeness block: a field's type `F`.
pub struct AliasedList<F>(AnyField<F>);

impl<F> AliasedList<F> {
    /// The probe, to call `check` on.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        AliasedList(AnyField(PhantomData))
    }
}

impl<F> Deref for AliasedList<F> {
    type Target = AnyField<F>;
    fn deref(&self) -> &AnyField<F> {
        &self.0
    }
}

impl<C: StandardCollection> AliasedList<C> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        C: ListBehindAnAlias,
    {
    }
}

/// The bound [`AliasedList`] places; no type implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a list behind a type alias, which the envelope derive reads as no list",
    label = "a list the derive would not count in `page.returned`, nor always write",
    note = "write the collection type out (`Vec<T>`), so that the derive treats it as the list it is, or mark a \
            deliberately small one `#[envelope(bounded = \"why it cannot grow\")]`"
)]
pub trait ListBehindAnAlias {}

/// The bound rules 2 and 3 place in a single resource; no type implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a list, and this struct has no completeness metadata",
    label = "a list behind a type alias, in a single resource",
    note = "add a field `#[envelope(completeness)] completeness: Completeness<R>` to the struct, or mark a \
            deliberately small collection `#[envelope(bounded = \"why it cannot grow\")]`"
)]
pub trait ListWithoutCompleteness {}

/// The probe of rule 0, on a field's type `F`, before `next`.
pub struct NestedResponse<F, N>(N, PhantomData<fn() -> F>);

/// The probe of rule 1, on a field's type `F`, before `next`.
pub struct HiddenField<F, N>(N, PhantomData<fn() -> F>);

impl<F, N> NestedResponse<F, N> {
    /// The probe, to call `check` on; `next` takes the types it lets through.
    pub fn new(next: N) -> Self {
        NestedResponse(next, PhantomData)
    }
}

impl<F, N> HiddenField<F, N> {
    /// The probe, to call `check` on; `next` takes the types it lets through.
    pub fn new(next: N) -> Self {
        HiddenField(next, PhantomData)
    }
}

impl<F, N> Deref for NestedResponse<F, N> {
    type Target = N;
    fn deref(&self) -> &N {
        &self.0
    }
}

impl<F, N> Deref for HiddenField<F, N> {
    type Target = N;
    fn deref(&self) -> &N {
        &self.0
    }
}

impl<R: FrameworkResponse, N> NestedResponse<R, N> {
    /// Rule 0, by a bound no type meets.
    pub fn check(&self)
    where
        R: ResponseInsideASingleResource,
    {
    }
}

impl<X: FieldOrWrapped, N> HiddenField<X, N> {
    /// Rule 1, by a bound no type meets.
    pub fn check(&self)
    where
        X: FieldBehindAnotherName,
    {
    }
}

/// A response of the framework's that reports completeness, or one inside a wrapper: what a
/// single resource cannot hold (rule 0).
pub trait FrameworkResponse {}

impl<T, R> FrameworkResponse for Envelope<T, R> {}
impl<T, R> FrameworkResponse for Aggregate<T, R> {}
impl<R> FrameworkResponse for Completeness<R> {}
impl<T> FrameworkResponse for Collected<T> {}
impl<X: FrameworkResponse> FrameworkResponse for Option<X> {}
impl<X: FrameworkResponse> FrameworkResponse for Box<X> {}
impl<X: FrameworkResponse> FrameworkResponse for Rc<X> {}
impl<X: FrameworkResponse> FrameworkResponse for Arc<X> {}

/// A `Field`, or one inside a wrapper (rule 1).
pub trait FieldOrWrapped {}

impl<T> FieldOrWrapped for Field<T> {}
impl<X: FieldOrWrapped> FieldOrWrapped for Option<X> {}
impl<X: FieldOrWrapped> FieldOrWrapped for Box<X> {}
impl<X: FieldOrWrapped> FieldOrWrapped for Rc<X> {}
impl<X: FieldOrWrapped> FieldOrWrapped for Arc<X> {}

/// The bound rule 0 places; no type implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a response of the framework's, inside a struct with no completeness block to report it",
    label = "a response behind a type alias or another name, in a single resource",
    note = "its reasons would go out unseen by the endpoint's declaration and by `require_complete`: return the \
            response itself, or give the struct a field `#[envelope(completeness)] completeness: Completeness<R>` \
            that reports them (the derive knows `Envelope`, `Aggregate`, `Collected` and `Completeness` by those \
            names: write them so)"
)]
pub trait ResponseInsideASingleResource {}

/// The bound rule 1 places; no type implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a `Field` that the envelope derive does not see as one",
    label = "a `Field` behind a type alias, another name or a wrapper",
    note = "what it leaves out would go out as a plain `null`, not listed in `omitted_fields` (contract §2.7): \
            write the field's type as `Field<T>`, the name the derive knows it by"
)]
pub trait FieldBehindAnotherName {}
