//! The events a piece of code emits, for its unit tests: a subscriber that keeps each event's
//! target, level and message. (In an integration test binary, other tests hit the same
//! callsites from their own threads, and tracing's per-callsite cache hides events.)

use std::fmt;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata};

/// One event as emitted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Emitted {
    pub(crate) target: String,
    pub(crate) level: Level,
    pub(crate) message: String,
}

/// Every event, in order, while it is the default subscriber.
#[derive(Clone, Default)]
pub(crate) struct Events(Arc<Mutex<Vec<Emitted>>>);

impl Events {
    /// The events of `target`, in order.
    pub(crate) fn of(&self, target: &str) -> Vec<Emitted> {
        self.0.lock().unwrap().iter().filter(|event| event.target == target).cloned().collect()
    }
}

struct Message<'a>(&'a mut String);

impl Visit for Message<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Events {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut message = String::new();
        event.record(&mut Message(&mut message));
        let metadata = event.metadata();
        self.0.lock().unwrap().push(Emitted {
            target: metadata.target().to_owned(),
            level: *metadata.level(),
            message,
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
