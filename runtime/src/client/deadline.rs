//! The collector's deadline: read the clock before a fetch unless that read would cost
//! more than the fetches it guards.
//!
//! A clock read costs about 20–25 ns. Against pages that arrive over a network that is
//! nothing, but against an in-memory source that serves a page in a few hundred
//! nanoseconds it is a tenth of the work. So the clock is read before every fetch,
//! except while the fetches are measured to be cheap and the deadline is far: then the
//! reads are spread out, at most [`MAX_STRIDE`] fetches apart. A fetch that had to wait
//! (its future returned `Pending` at least once) always brings the next read forward,
//! because waiting is how real time passes unseen.

use std::time::{Duration, Instant};

/// Fetches cheaper than this (measured between two reads) let the reads spread out.
const CHEAP_FETCH: Duration = Duration::from_micros(2);

/// The most fetches between two clock reads.
const MAX_STRIDE: u32 = 16;

/// Watches a deadline counted from when the traversal started.
#[derive(Debug)]
pub(crate) struct Deadline {
    started: Instant,
    limit: Duration,
    /// Elapsed time at the last read.
    last_read: Duration,
    /// Fetches since the last read.
    since_read: u32,
    /// Fetches allowed between two reads.
    stride: u32,
}

impl Deadline {
    /// Starts the clock now.
    pub(crate) fn start(limit: Duration) -> Self {
        // A zero deadline has passed before the first fetch; any other has not, so the
        // first check needs no read.
        let stride = if limit.is_zero() { 0 } else { 1 };
        Deadline { started: Instant::now(), limit, last_read: Duration::ZERO, since_read: 0, stride }
    }

    /// True once the deadline has passed. Called before each fetch; `waited` says
    /// whether the previous fetch had to wait.
    #[inline]
    pub(crate) fn passed(&mut self, waited: bool) -> bool {
        let started = self.started;
        self.check(waited, || started.elapsed())
    }

    /// The decision, with the clock passed in (so it can be tested without sleeping).
    #[inline]
    fn check(&mut self, waited: bool, elapsed: impl FnOnce() -> Duration) -> bool {
        if self.since_read < self.stride && !waited {
            self.since_read += 1;
            return false;
        }
        self.read(waited, elapsed())
    }

    /// A clock read: adjusts the stride to how long the fetches since the last read took.
    fn read(&mut self, waited: bool, now: Duration) -> bool {
        let remaining = self.limit.saturating_sub(now);
        if self.since_read > 0 {
            let per_fetch = now.saturating_sub(self.last_read) / self.since_read;
            // Spread the reads only while a whole stride of such fetches stays far
            // (four strides) from the deadline.
            let far = per_fetch.saturating_mul(4 * MAX_STRIDE) < remaining;
            self.stride = if per_fetch < CHEAP_FETCH && far && !waited { MAX_STRIDE } else { 1 };
        }
        self.last_read = now;
        self.since_read = 1;
        now >= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(micros: u64) -> impl FnOnce() -> Duration {
        move || Duration::from_micros(micros)
    }

    /// Runs `fetches` checks of fetches that each take `each` microseconds, starting at
    /// `start`; returns how many of them read the clock and the time reached.
    fn run(deadline: &mut Deadline, start: u64, fetches: u32, each: u64, waited: bool) -> (u32, u64) {
        let (mut reads, mut now) = (0, start);
        for _ in 0..fetches {
            let mut read = false;
            deadline.check(waited, || {
                read = true;
                Duration::from_micros(now)
            });
            reads += u32::from(read);
            now += each;
        }
        (reads, now)
    }

    fn deadline(limit: Duration) -> Deadline {
        Deadline::start(limit)
    }

    #[test]
    fn a_zero_deadline_has_passed_before_the_first_fetch() {
        let mut spent = deadline(Duration::ZERO);
        assert!(spent.check(false, at(0)));
    }

    #[test]
    fn the_clock_is_first_read_after_the_first_fetch() {
        let mut open = deadline(Duration::from_millis(1));
        let mut read = false;
        assert!(!open.check(false, || {
            read = true;
            Duration::ZERO
        }));
        assert!(!read, "no time can have passed before the first fetch");
        assert!(open.check(false, at(5_000)), "a first fetch that outlasts the deadline is seen at once");
    }

    #[test]
    fn slow_fetches_read_the_clock_before_every_fetch() {
        let mut d = deadline(Duration::from_secs(60));
        let (reads, _) = run(&mut d, 0, 100, 50, false);
        assert_eq!(reads, 99, "every fetch but the first is followed by a read");
    }

    #[test]
    fn cheap_fetches_far_from_the_deadline_spread_the_reads() {
        let mut d = deadline(Duration::from_secs(60));
        let (reads, _) = run(&mut d, 0, 1_000, 0, false);
        assert!(reads < 100, "1,000 cheap fetches read the clock {reads} times");
        assert!(reads >= 1_000 / MAX_STRIDE, "reads are never more than {MAX_STRIDE} fetches apart: {reads}");
    }

    #[test]
    fn a_fetch_that_waited_brings_the_next_read_forward() {
        let mut d = deadline(Duration::from_secs(60));
        let (_, now) = run(&mut d, 0, 200, 0, false);
        assert!(d.stride > 1);
        let (reads, _) = run(&mut d, now, 10, 0, true);
        assert_eq!(reads, 10, "every fetch that waited is followed by a read");
        assert_eq!(d.stride, 1);
    }

    #[test]
    fn cheap_fetches_near_the_deadline_read_the_clock_every_time() {
        // One microsecond a fetch, 40 microseconds left: too close to spread the reads.
        let mut d = deadline(Duration::from_micros(40));
        let (reads, _) = run(&mut d, 0, 30, 1, false);
        assert_eq!(reads, 29);
    }

    #[test]
    fn a_slowdown_is_noticed_within_one_stride() {
        let mut d = deadline(Duration::from_millis(10));
        let (_, now) = run(&mut d, 0, 200, 0, false);
        // Fetches now take 1 ms each without waiting: the deadline passes within
        // ten fetches, and is seen at most one stride later.
        let mut checks = 0;
        let mut clock = now;
        while !d.check(false, || Duration::from_micros(clock)) {
            checks += 1;
            clock += 1_000;
            assert!(checks <= 10 + MAX_STRIDE, "the deadline was missed");
        }
        assert!(clock >= 10_000);
    }
}
