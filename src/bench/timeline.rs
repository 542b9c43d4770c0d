//! Backlog and workqueue depth over the measured window, sample by sample: what the charts of
//! bench's exports draw.

use serde::Serialize;

/// Every sample taken in the window (one every `run::SAMPLE_EVERY`, and one when the source
/// ended), as three columns of the same length.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timeline {
    /// Seconds since the window opened, to the millisecond.
    pub seconds: Vec<f64>,
    /// The worst listener's backlog (notifications) at that time.
    pub backlog: Vec<u64>,
    /// The workqueue's depth (items) at that time.
    pub depth: Vec<u64>,
}

impl Timeline {
    pub fn push(&mut self, seconds: f64, backlog: u64, depth: u64) {
        self.seconds.push(seconds);
        self.backlog.push(backlog);
        self.depth.push(depth);
    }

    pub fn len(&self) -> usize {
        self.seconds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seconds.is_empty()
    }

    /// At most `points` points, for a chart: the samples cut into `points` runs of consecutive
    /// samples, as equal as can be, each drawn as its largest backlog and depth (a spike is
    /// never averaged away) at the time of its last sample. With no more samples than `points`,
    /// the timeline itself.
    pub fn downsample(&self, points: usize) -> Timeline {
        let n = self.len();
        if n <= points || points == 0 {
            return self.clone();
        }
        let mut out = Timeline::default();
        for bucket in 0..points {
            let (start, end) = (bucket * n / points, (bucket + 1) * n / points);
            let max = |column: &[u64]| column[start..end].iter().copied().max().unwrap_or(0);
            out.push(self.seconds[end - 1], max(&self.backlog), max(&self.depth));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(n: u64) -> Timeline {
        let mut t = Timeline::default();
        for i in 0..n {
            t.push(i as f64 / 10.0, i % 7, 100 - i % 5);
        }
        t
    }

    #[test]
    fn a_short_timeline_is_drawn_sample_by_sample() {
        let t = timeline(50);
        assert_eq!(t.downsample(100), t);
    }

    #[test]
    fn a_long_timeline_keeps_each_runs_peak_at_its_last_samples_time() {
        let mut t = timeline(1000);
        t.backlog[537] = 9_999;
        let d = t.downsample(100);
        assert_eq!(d.len(), 100);
        // 1000 samples in 100 runs of 10: the run of samples 530..540 ends at 53.9 s.
        assert_eq!(d.backlog[53], 9_999);
        assert_eq!(d.seconds[53], 53.9);
        assert_eq!(d.seconds[99], 99.9);
        assert!(d.backlog.iter().filter(|&&b| b == 9_999).count() == 1);
        assert!(d.depth.iter().all(|&x| x == 100));
    }

    #[test]
    fn runs_of_uneven_length_cover_every_sample_once() {
        let t = timeline(7);
        let d = t.downsample(3);
        // 7 samples in 3 runs: 0..2, 2..4, 4..7.
        assert_eq!(d.seconds, vec![0.1, 0.3, 0.6]);
        assert_eq!(d.backlog, vec![1, 3, 6]);
    }
}
