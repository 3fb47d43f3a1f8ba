//! The type-level check the envelope derive puts on the data fields of a single resource (a
//! struct without a completeness block): the derive reads a field's type as written, and an
//! alias hides a list (`type Members = Vec<Account>`), so the compiler checks what the type
//! resolves to. A list in a single resource goes out without completeness metadata.
//!
//! Generated as `ListField::<FieldType>::new().check()`, spanned on the field's type. As in
//! [`error_side`](super::error_side), each probe type has an inherent `check` for one shape and
//! dereferences to the next; the first that applies is called, and its bound reports:
//! 1. a standard collection is refused;
//! 2. one inside `Option`, `Field`, `Box`, `Rc` or `Arc` is refused (the derive's syntax check
//!    reads through the same wrappers);
//! 3. any other type passes.
//!
//! A struct with a completeness block gets [`AliasedList`] instead, of rules 1 and 3: a list
//! behind an alias there would go out uncounted by `page.returned`, and could be skipped when
//! empty, as the written collection cannot (contract §2.1, §2.5).

use std::marker::PhantomData;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use super::error_side::StandardCollection;
use crate::contract::field::Field;

/// The probe of rule 1: a field's type `F`.
pub struct ListField<F>(WrappedList<F>);

/// The probe of rule 2.
pub struct WrappedList<F>(AnyField<F>);

/// The probe of rule 3.
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
    /// Rule 1, by a bound no type meets.
    pub fn check(&self)
    where
        C: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Option<C>> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        Option<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Field<C>> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        Field<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Box<C>> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        Box<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Rc<C>> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        Rc<C>: ListWithoutCompleteness,
    {
    }
}

impl<C: StandardCollection> WrappedList<Arc<C>> {
    /// Rule 2, by a bound no type meets.
    pub fn check(&self)
    where
        Arc<C>: ListWithoutCompleteness,
    {
    }
}

impl<F> AnyField<F> {
    /// Rule 3.
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
    /// Rule 1, by a bound no type meets.
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

/// The bound rules 1 and 2 place; no type implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a list, and this struct has no completeness metadata",
    label = "a list behind a type alias, in a single resource",
    note = "add a field `#[envelope(completeness)] completeness: Completeness<R>` to the struct, or mark a \
            deliberately small collection `#[envelope(bounded = \"why it cannot grow\")]`"
)]
pub trait ListWithoutCompleteness {}
