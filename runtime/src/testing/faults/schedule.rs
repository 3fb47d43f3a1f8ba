//! [`Schedule`]: which fault each request gets, reproducibly.

use std::fmt;
use std::str::FromStr;

use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};

use super::fault::Fault;

/// Which fault each request gets. Request `n` is decided by the schedule and `n` alone, so the
/// same schedule gives the same faults on every run and platform, and a failing client test is
/// replayed by its schedule.
///
/// The layer numbers, from 0 in the order it answers them, only the requests it can fault: a
/// `GET` of a route that declares its reasons, or of a single resource with a `Field` member,
/// answered `200` ([`FaultRecord::draw`](super::FaultRecord::draw)).
/// A request it cannot fault (a metrics scrape, `/openapi.json`, a health check, a resource
/// with no field it may leave out, a write, a refusal made before the route answered) takes no number: sent between
/// two reads, it changes neither
/// fault, so the same seed misbehaves the same way again whatever else the service is asked.
///
/// A request may also name its fault in the [`FAULT_HEADER`](super::FAULT_HEADER) header,
/// which wins over the schedule; a fault the request does not offer (the route does not declare
/// it, or the request is not a `GET` of a route that declares its reasons or of a single
/// resource with a `Field` member) is refused with 400
/// `INVALID_REQUEST`, a write before it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    plan: Plan,
    weights: Vec<(String, f64)>,
    /// Every faulted collection keeps none of its items ([`Schedule::emptied`]).
    emptied: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Plan {
    /// No fault unless a request names one in the header.
    HeaderOnly,
    /// Faults drawn from a seed: a request is faulted with `probability`.
    Seeded { seed: u64, probability: f64 },
    /// Faultable request `n` gets the fault named at position `n` (`None`: none), when its route
    /// offers it.
    Sequence(Vec<Option<String>>),
    /// Every request gets the named fault when its route offers it.
    Always(String),
}

impl Schedule {
    /// No fault, unless a request names one in the header.
    pub fn header_only() -> Schedule {
        Schedule::of(Plan::HeaderOnly)
    }

    /// Each request is faulted with `probability` (clamped to 0..=1), the fault drawn among
    /// those its route offers (equally likely unless [`Schedule::weight`] says otherwise),
    /// all from `seed`.
    pub fn seeded(seed: u64, probability: f64) -> Schedule {
        // `-0.0` is zero too, and prints as `0`.
        let probability = if probability.is_nan() { 0.0 } else { probability.clamp(0.0, 1.0) + 0.0 };
        Schedule::of(Plan::Seeded { seed, probability })
    }

    /// Request `n` gets the fault named at position `n` (`None`: no fault); requests past the
    /// end get none. A named fault the request's route does not offer is not applied. Only the
    /// requests the layer can fault are counted (see [`Schedule`]): the first list read is
    /// position 0 however many other requests came before it.
    pub fn sequence<I, S>(faults: I) -> Schedule
    where
        I: IntoIterator<Item = Option<S>>,
        S: Into<String>,
    {
        Schedule::of(Plan::Sequence(faults.into_iter().map(|f| f.map(Into::into)).collect()))
    }

    /// Every request whose route offers the fault named `name` gets it.
    pub fn always(name: impl Into<String>) -> Schedule {
        Schedule::of(Plan::Always(name.into()))
    }

    /// The faults this schedule names (by [`Schedule::always`], [`Schedule::sequence`] or
    /// [`Schedule::weight`]), each once, in the order first named.
    pub fn named(&self) -> Vec<&str> {
        let mut named: Vec<&str> = Vec::new();
        let plan: Vec<&str> = match &self.plan {
            Plan::Always(name) => vec![name.as_str()],
            Plan::Sequence(names) => names.iter().flatten().map(String::as_str).collect(),
            Plan::HeaderOnly | Plan::Seeded { .. } => Vec::new(),
        };
        for name in plan.into_iter().chain(self.weights.iter().map(|(name, _)| name.as_str())) {
            if !named.contains(&name) {
                named.push(name);
            }
        }
        named
    }

    /// The schedule of `plan`, with the default weights and its collections not emptied.
    fn of(plan: Plan) -> Schedule {
        Schedule { plan, weights: Vec::new(), emptied: false }
    }

    /// Sets the relative weight of the fault named `name` in a seeded draw (default 1; 0
    /// never picks it).
    pub fn weight(mut self, name: impl Into<String>, weight: f64) -> Schedule {
        // Finite, so that it prints as a number ([`Schedule::code`]); the largest is as good as
        // an infinite one.
        let weight = if weight.is_nan() { 0.0 } else { weight.clamp(0.0, f64::MAX) };
        self.weights.push((name.into(), weight));
        self
    }

    /// Every collection this schedule faults with a reason keeps none of its items: the
    /// incomplete and empty answer (contract §2.3), the one a client must never read as
    /// "nothing exists". A warning or an expired cursor is given as without it; an aggregate
    /// keeps its value; `SOURCE_UNAVAILABLE` on items that name their sources removes the named
    /// source's items only (the reason names one). A single resource's `FIELD_OMITTED` leaves
    /// out every field it filled with a value, not one.
    pub fn emptied(mut self) -> Schedule {
        self.emptied = true;
        self
    }

    /// True when [`Schedule::emptied`] was asked for.
    pub fn is_emptied(&self) -> bool {
        self.emptied
    }

    /// The Rust expression that builds this schedule (`Schedule::seeded(68, 0.5)`,
    /// `Schedule::always("STALE_INDEX")`), for a test that replays it with
    /// [`Kit::replay`](super::Kit::replay).
    pub fn code(&self) -> String {
        let mut code = match &self.plan {
            Plan::HeaderOnly => "Schedule::header_only()".to_owned(),
            Plan::Seeded { seed, probability } => format!("Schedule::seeded({seed}, {probability:?})"),
            Plan::Always(name) => format!("Schedule::always({name:?})"),
            Plan::Sequence(names) => {
                // `None::<&str>`: a sequence of `None` alone leaves the type to infer.
                let names: Vec<String> = names
                    .iter()
                    .map(|name| name.as_ref().map_or_else(|| "None::<&str>".to_owned(), |n| format!("Some({n:?})")))
                    .collect();
                format!("Schedule::sequence([{}])", names.join(", "))
            }
        };
        for (name, weight) in &self.weights {
            code.push_str(&format!(".weight({name:?}, {weight:?})"));
        }
        if self.emptied {
            code.push_str(".emptied()");
        }
        code
    }

    /// The seed of the draws (0 for schedules without one).
    pub fn seed(&self) -> u64 {
        match self.plan {
            Plan::Seeded { seed, .. } => seed,
            _ => 0,
        }
    }

    /// The fault of request `n` (numbered among the requests the layer can fault), among the
    /// faults its route `offered`.
    pub fn choose(&self, n: u64, offered: &[Fault]) -> Option<Fault> {
        match &self.plan {
            Plan::HeaderOnly => None,
            Plan::Always(name) => Fault::find(offered, name).cloned(),
            Plan::Sequence(names) => {
                let name = names.get(usize::try_from(n).ok()?)?.as_deref()?;
                Fault::find(offered, name).cloned()
            }
            Plan::Seeded { probability, .. } => {
                let mut rng = self.rng(n, Draw::Choice);
                if offered.is_empty() || unit(&mut rng) >= *probability {
                    return None;
                }
                let weights: Vec<f64> = offered.iter().map(|fault| self.weight_of(fault.name())).collect();
                let total: f64 = weights.iter().sum();
                if total <= 0.0 {
                    return None;
                }
                let mut point = unit(&mut rng) * total;
                for (fault, weight) in offered.iter().zip(&weights) {
                    if point < *weight {
                        return Some(fault.clone());
                    }
                    point -= weight;
                }
                offered.iter().zip(&weights).rev().find(|(_, w)| **w > 0.0).map(|(f, _)| f.clone())
            }
        }
    }

    fn weight_of(&self, name: &str) -> f64 {
        self.weights.iter().rev().find(|(n, _)| n == name).map_or(1.0, |(_, w)| *w)
    }

    /// The random numbers of request `n` for one purpose: a ChaCha stream keyed by the
    /// seed, the request number and the purpose.
    pub(crate) fn rng(&self, n: u64, draw: Draw) -> TestRng {
        stream(self.seed(), n, draw)
    }
}

/// What a request's random numbers are for: each purpose has its own stream.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Draw {
    /// Whether, and which, fault.
    Choice = 1,
    /// Which items the fault removes, and its numbers.
    Shape = 2,
}

/// The ChaCha stream of `seed`, request `n` and `draw`.
pub(crate) fn stream(seed: u64, n: u64, draw: Draw) -> TestRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&n.to_le_bytes());
    key[16] = draw as u8;
    TestRng::from_seed(RngAlgorithm::ChaCha, &key)
}

/// A number in `0..1`.
pub(crate) fn unit(rng: &mut TestRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A number in `0..bound` (0 when `bound` is 0).
pub(crate) fn below(rng: &mut TestRng, bound: u64) -> u64 {
    if bound == 0 { 0 } else { rng.next_u64() % bound }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.plan {
            Plan::HeaderOnly => f.write_str("header only")?,
            Plan::Seeded { seed, probability } => write!(f, "seed {seed}, probability {probability}")?,
            Plan::Always(name) => write!(f, "always {name}")?,
            Plan::Sequence(names) => {
                f.write_str("sequence [")?;
                for (i, name) in names.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", name.as_deref().unwrap_or("none"))?;
                }
                f.write_str("]")?;
            }
        }
        for (name, weight) in &self.weights {
            write!(f, ", weight {name}={weight}")?;
        }
        if self.emptied {
            f.write_str(", emptied")?;
        }
        Ok(())
    }
}

/// The probability of `SEED` without `:PROBABILITY`.
pub const DEFAULT_PROBABILITY: f64 = 0.5;

/// Parses `SEED[:PROBABILITY]` (an operator's flag, e.g. `--faults 42:0.3`): a seed of
/// 0..=2^64-1 and a probability of 0..=1, 0.5 when left out.
impl FromStr for Schedule {
    type Err = String;

    fn from_str(text: &str) -> Result<Schedule, String> {
        let (seed, probability) = match text.split_once(':') {
            Some((seed, probability)) => (seed, Some(probability)),
            None => (text, None),
        };
        let seed: u64 = seed
            .trim()
            .parse()
            .map_err(|_| format!("the seed must be a whole number from 0 to {}, got '{seed}'", u64::MAX))?;
        let probability = match probability {
            None => DEFAULT_PROBABILITY,
            Some(p) => match p.trim().parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => p,
                _ => return Err(format!("the probability must be a number from 0 to 1, got '{p}'")),
            },
        };
        Ok(Schedule::seeded(seed, probability))
    }
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    /// Each kind of schedule is written as the Rust that builds it.
    #[test]
    fn code_is_the_rust_that_builds_the_schedule() {
        assert_eq!(Schedule::header_only().code(), "Schedule::header_only()");
        assert_eq!(Schedule::seeded(68, 0.5).code(), "Schedule::seeded(68, 0.5)");
        assert_eq!(Schedule::seeded(7, 1.0).code(), "Schedule::seeded(7, 1.0)");
        assert_eq!(Schedule::always("STALE_INDEX").emptied().code(), r#"Schedule::always("STALE_INDEX").emptied()"#);
        assert_eq!(
            Schedule::sequence([None, Some("A\"B")]).code(),
            r#"Schedule::sequence([None::<&str>, Some("A\"B")])"#
        );
        assert_eq!(Schedule::sequence::<_, &str>([None]).code(), "Schedule::sequence([None::<&str>])");
        let weighted = Schedule::seeded(1, 0.25).weight("X", f64::INFINITY).weight("Y", 2.0);
        assert_eq!(
            weighted.code(),
            format!(r#"Schedule::seeded(1, 0.25).weight("X", {:?}).weight("Y", 2.0)"#, f64::MAX)
        );
    }
}
