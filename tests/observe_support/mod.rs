//! Shared by the observability tests: a tracing layer that keeps every event of the
//! `completeness` target with its fields, and a reader of Prometheus text.

#![allow(dead_code)] // each test file uses a different part

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// One captured event: its level and its fields as text (the message under `message`).
#[derive(Debug, Clone)]
pub struct Captured {
    pub level: Level,
    pub fields: BTreeMap<String, String>,
}

impl Captured {
    /// The text of field `name`, or "" when absent.
    pub fn field(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", String::as_str)
    }
}

/// A layer that captures the events of the `completeness` target.
#[derive(Debug, Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<Captured>>>);

impl Capture {
    /// Every event captured so far.
    pub fn events(&self) -> Vec<Captured> {
        self.0.lock().unwrap().clone()
    }

    /// The captured events whose `event` field is `kind`.
    pub fn of_kind(&self, kind: &str) -> Vec<Captured> {
        self.events().into_iter().filter(|e| e.field("event") == kind).collect()
    }

    /// Forgets the events captured so far.
    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != "completeness" {
            return;
        }
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(Captured { level: *event.metadata().level(), fields });
    }
}

/// One sample of a Prometheus text exposition: name, labels, value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// The samples of a Prometheus text exposition (comments skipped).
pub fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value in '{line}'"));
            let value: f64 = value.parse().unwrap_or_else(|_| panic!("bad value in '{line}'"));
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => (name, rest.strip_suffix('}').expect("labels end with }")),
                None => (series, ""),
            };
            let labels = labels
                .split("\",")
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (key, value) = pair.split_once("=\"").unwrap_or_else(|| panic!("bad label in '{line}'"));
                    (key.to_owned(), value.trim_end_matches('"').to_owned())
                })
                .collect();
            Sample { name: name.to_owned(), labels, value }
        })
        .collect()
}

/// The value of the series `name{labels}` in `text`, 0 when absent.
pub fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    series(text, name, labels).unwrap_or(0.0)
}

/// The value of the series `name{labels}` in `text`, `None` when it does not exist: a series
/// at zero is told from none.
pub fn series(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples(text)
        .into_iter()
        .find(|s| {
            s.name == name
                && s.labels.len() == labels.len()
                && labels.iter().all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}
