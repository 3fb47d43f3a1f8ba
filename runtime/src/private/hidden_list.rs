//! The check at serialization that the derive puts on the data fields of a single resource
//! whose type the compile-time check ([`list_field`](super::list_field)) cannot see through: a
//! struct of the service's own that wraps a list (`struct Members(Vec<Account>)`), or holds one
//! among other fields (`struct Roster { members: Vec<Account>, updated: u64 }`), a generic
//! newtype `Wrapper<Vec<Account>>`, a `serde_json::Value` holding an array at any depth. Such a
//! field sends a JSON array without completeness metadata, the very answer the framework
//! exists to prevent (contract §2.7: a collection inside a single resource is a list like any
//! other unless it is declared bounded); no type says so, so the value does, when it is written.
//!
//! [`note`] asks the field how it serializes, through [`Probe`], a serializer that stops at
//! the first sequence of any length it meets (`serialize_seq`, what `Vec`, the sets, `Value`'s
//! arrays call), at any depth: through `Option`, newtypes and enum variants, and into the
//! members of structs, maps and tuples. A tuple or a fixed-size array (`serialize_tuple`) is no
//! list, nor is a map itself (a map is also how a flattened struct is written, so it cannot be
//! told from a keyed collection), but what they hold may be. A list found is reported
//! once per field and process with a `WARN` event `list_in_single_resource` under the target
//! `completeness`, and the answer goes out unchanged: a value whose shape depends on its data
//! (`Value`) must not turn a working answer into an error.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Reports `value`, the field `field` of the single resource `resource`, when it serializes as
/// a list (once per field and process).
pub fn note<T: Serialize + ?Sized>(resource: &'static str, field: &'static str, value: &T) {
    if value.serialize(Probe) != Err(Shape::List) {
        return;
    }
    #[cfg(feature = "axum")]
    {
        use std::collections::BTreeSet;
        use std::sync::Mutex;
        static REPORTED: Mutex<BTreeSet<(&str, &str)>> = Mutex::new(BTreeSet::new());
        let first = REPORTED.lock().map_or(true, |mut reported| reported.insert((resource, field)));
        if first {
            tracing::warn!(
                target: crate::server::observe::TARGET,
                event = "list_in_single_resource",
                single_resource = resource,
                field,
                "a field of a single resource went out holding a list, without completeness metadata: give \
                 the struct an `#[envelope(completeness)]` field, or mark the field \
                 `#[envelope(bounded = \"why it cannot grow\")]`"
            );
        }
    }
    #[cfg(not(feature = "axum"))]
    let _ = (resource, field);
}

/// What the first call of a value's `Serialize` says of its shape; the probe's "error", by
/// which it stops there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A sequence of any length.
    List,
    /// Anything else.
    Other,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Shape::List => "a list",
            Shape::Other => "not a list",
        })
    }
}

impl std::error::Error for Shape {}

impl ser::Error for Shape {
    fn custom<M: fmt::Display>(_message: M) -> Self {
        Shape::Other
    }
}

/// The serializer that stops at the first call and says what it was.
pub struct Probe;

/// The answer of every call but those that look inside.
type Stop<T> = Result<T, Shape>;

macro_rules! other {
    ($($method:ident($($arg:ty),*);)*) => {$(
        fn $method(self, $(_: $arg),*) -> Stop<()> {
            Err(Shape::Other)
        }
    )*};
}

impl ser::Serializer for Probe {
    type Ok = ();
    type Error = Shape;
    type SerializeSeq = Impossible<(), Shape>;
    type SerializeTuple = Look;
    type SerializeTupleStruct = Look;
    type SerializeTupleVariant = Look;
    type SerializeMap = Look;
    type SerializeStruct = Look;
    type SerializeStructVariant = Look;

    other! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Stop<()> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Stop<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Stop<()> {
        value.serialize(self)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Stop<Self::SerializeSeq> {
        Err(Shape::List)
    }

    fn serialize_tuple(self, _len: usize) -> Stop<Self::SerializeTuple> {
        Ok(Look)
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Stop<Self::SerializeTupleStruct> {
        Ok(Look)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Stop<Self::SerializeTupleVariant> {
        Ok(Look)
    }

    fn serialize_map(self, _len: Option<usize>) -> Stop<Self::SerializeMap> {
        Ok(Look)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Stop<Self::SerializeStruct> {
        Ok(Look)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Stop<Self::SerializeStructVariant> {
        Ok(Look)
    }
}

/// The members of a struct, map or tuple, each asked in turn: the first that holds a list
/// stops the walk; none does, and the value is no list.
pub struct Look;

impl Look {
    fn member<T: Serialize + ?Sized>(value: &T) -> Stop<()> {
        match value.serialize(Probe) {
            Err(Shape::List) => Err(Shape::List),
            _ => Ok(()),
        }
    }
}

macro_rules! look {
    ($($trait:ident { $($method:ident($($arg:ty),*);)* })*) => {$(
        impl ser::$trait for Look {
            type Ok = ();
            type Error = Shape;
            $(fn $method<T: Serialize + ?Sized>(&mut self, $(_: $arg,)* value: &T) -> Stop<()> {
                Look::member(value)
            })*
            fn end(self) -> Stop<()> {
                Err(Shape::Other)
            }
        }
    )*};
}

look! {
    SerializeTuple { serialize_element(); }
    SerializeTupleStruct { serialize_field(); }
    SerializeTupleVariant { serialize_field(); }
    SerializeStruct { serialize_field(&'static str); }
    SerializeStructVariant { serialize_field(&'static str); }
}

impl ser::SerializeMap for Look {
    type Ok = ();
    type Error = Shape;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, _key: &T) -> Stop<()> {
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Stop<()> {
        Look::member(value)
    }
    fn end(self) -> Stop<()> {
        Err(Shape::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape<T: Serialize + ?Sized>(value: &T) -> Shape {
        value.serialize(Probe).err().unwrap_or(Shape::Other)
    }

    #[derive(Serialize)]
    struct Members(Vec<u32>);

    #[derive(Serialize)]
    struct Point(f64, f64);

    #[derive(Serialize)]
    struct Named {
        id: u32,
    }

    #[test]
    fn lists_are_seen_through_options_and_newtypes() {
        assert_eq!(shape(&vec![1_u32]), Shape::List);
        assert_eq!(shape(&Vec::<u32>::new()), Shape::List, "an empty list is a list");
        assert_eq!(shape(&Members(vec![])), Shape::List);
        assert_eq!(shape(&Some(Members(vec![1]))), Shape::List);
        assert_eq!(shape(&serde_json::json!([1, 2])), Shape::List);
        assert_eq!(shape(&std::collections::BTreeSet::from([1])), Shape::List);
    }

    #[test]
    fn other_shapes_are_not_lists() {
        assert_eq!(shape(&1_u32), Shape::Other);
        assert_eq!(shape("text"), Shape::Other);
        assert_eq!(shape(&None::<Vec<u32>>), Shape::Other, "an absent list sends no list");
        assert_eq!(shape(&[1_u32, 2, 3]), Shape::Other, "a fixed-size array is a tuple");
        assert_eq!(shape(&Point(1.0, 2.0)), Shape::Other);
        assert_eq!(shape(&Named { id: 1 }), Shape::Other);
        assert_eq!(shape(&serde_json::json!({"a": {"b": 1}})), Shape::Other, "an object of no list");
        assert_eq!(shape(&Some(Point(1.0, 2.0))), Shape::Other);
    }

    #[derive(Serialize)]
    struct Roster {
        updated: u64,
        members: Vec<u32>,
    }

    #[derive(Serialize)]
    enum Holder {
        Many(Vec<u32>),
        Pair { left: u32, right: Members },
    }

    /// Contract §2.7: a collection inside a single resource is a list at any depth.
    #[test]
    fn lists_are_seen_inside_structs_maps_tuples_and_variants() {
        assert_eq!(shape(&Roster { updated: 1, members: vec![] }), Shape::List, "a struct holding one among others");
        assert_eq!(shape(&serde_json::json!({"a": {"b": [1]}})), Shape::List, "an array deep in a `Value`");
        assert_eq!(shape(&std::collections::BTreeMap::from([("k", vec![1_u32])])), Shape::List, "a map's values");
        assert_eq!(shape(&(1_u32, vec![2_u32])), Shape::List, "a tuple's element");
        assert_eq!(shape(&[Members(vec![]), Members(vec![])]), Shape::List, "a fixed-size array's element");
        assert_eq!(shape(&Holder::Many(vec![1])), Shape::List);
        assert_eq!(shape(&Holder::Pair { left: 1, right: Members(vec![]) }), Shape::List);
    }
}
