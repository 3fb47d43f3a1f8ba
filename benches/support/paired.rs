//! How the benchmarks measure a ratio in one run: adjacent pairs of samples of both sides, in
//! alternating order, so that load from other processes and drift hit both sides alike.

use std::time::Duration;

/// One comparison of `a` against `b`, measured in this run.
pub struct Paired {
    /// `a`'s time over `b`'s time in each pair, sorted.
    ratios: Vec<f64>,
    /// The fastest sample of `a`.
    pub best_a: Duration,
    /// The fastest sample of `b`.
    pub best_b: Duration,
}

impl Paired {
    /// `samples` pairs of one sample of `a` and one of `b`, each closure timing one sample.
    pub fn measure(samples: u32, mut a: impl FnMut() -> Duration, mut b: impl FnMut() -> Duration) -> Paired {
        let (mut ratios, mut best_a, mut best_b) = (Vec::new(), Duration::MAX, Duration::MAX);
        for sample in 0..samples {
            let (a_time, b_time) = if sample % 2 == 0 {
                let a_time = a();
                (a_time, b())
            } else {
                let b_time = b();
                (a(), b_time)
            };
            best_a = best_a.min(a_time);
            best_b = best_b.min(b_time);
            ratios.push(a_time.as_secs_f64() / b_time.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        Paired { ratios, best_a, best_b }
    }

    /// A 95% confidence interval of the median ratio, free of any assumption on the
    /// distribution: the order statistics `n/2 ± 0.98·√n` (the normal approximation of the
    /// binomial count of samples below the true median). A target is settled by this run
    /// only when the whole interval lies on one side of it.
    pub fn median_interval(&self) -> (f64, f64) {
        let n = self.ratios.len() as f64;
        let half_width = 0.98 * n.sqrt();
        let low = ((n / 2.0 - half_width).floor().max(0.0)) as usize;
        let high = ((n / 2.0 + half_width).ceil() as usize).min(self.ratios.len() - 1);
        (self.ratios[low], self.ratios[high])
    }

    /// "median of N paired samples M (95% interval L..H; quartiles Q1..Q3)" of the ratios `a`/`b`.
    pub fn summary(&self) -> String {
        let r = &self.ratios;
        let (low, high) = self.median_interval();
        format!(
            "median of {} paired samples {:.3} (95% interval of the median {low:.3}..{high:.3}; quartiles {:.3}..{:.3})",
            r.len(),
            r[r.len() / 2],
            r[r.len() / 4],
            r[3 * r.len() / 4]
        )
    }
}
