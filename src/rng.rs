//! The one random number generator: SplitMix64, seeded by a bench's `--seed` (the same draws on
//! every machine) or from the clock and the process id (backoff jitter, watch timeouts, scratch
//! names). Spread, not cryptographic quality.

/// The letters kube-apiserver draws a generated name's suffix from (k8s.io/apimachinery
/// pkg/util/rand: no vowels, no 0, 1 or 3), so that no suffix reads as a word.
pub const NAME_SUFFIX_LETTERS: &str = "bcdfghjklmnpqrstvwxz2456789";

/// SplitMix64: small, fast, and the same sequence for the same seed on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n); `n` must be above 0.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

impl Rng {
    /// Seeded from the clock and the process id: runs (and processes started together) differ.
    pub fn from_clock() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15);
        Rng::new(nanos ^ u64::from(std::process::id()).rotate_left(32))
    }
}
