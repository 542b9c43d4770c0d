//! Diagnostics on stderr at the level `-v` asks for, as kubectl's `-v` (klog's verbosity). Every
//! layer's diagnostic lines go through [`Verbosity::say`], so that they read alike
//! (`kubectl-informer: …`) and a level means the same everywhere: 0 always, 1 what the server
//! answered (the encoding of a LIST or WATCH, a group version discovery skipped), 6 every request
//! (kubectl's `-v=6` line).

/// The `-v` level asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Verbosity(pub u8);

impl Verbosity {
    /// Whether lines of `level` are shown.
    pub fn at_least(self, level: u8) -> bool {
        self.0 >= level
    }

    /// Prints `message` on stderr when lines of `level` are shown; `message` is only built then.
    pub fn say(self, level: u8, message: impl FnOnce() -> String) {
        if self.at_least(level) {
            eprintln!("kubectl-informer: {}", message());
        }
    }
}
