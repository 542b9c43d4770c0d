//! A controller's reaction to a write, seen from outside by the conventions of the API (no code
//! in the controller): what counts as one (`reaction`: `observed-generation`, `owned:RESOURCE`,
//! `condition:TYPE[=STATUS]`), the writes and signals the watch events of the written (and
//! owned) objects show (`signals`), and the matching of each write with the first signal that
//! covers it, newer writes superseding older ones a controller coalesced (`matching`). `bench
//! --react` measures it in aggregate over its window; `tail --react` shows it write by write.

pub mod matching;
pub mod reaction;
pub mod signals;

pub use matching::{match_reactions, Fate, Matched, Matcher, Resolved};
pub use reaction::{Reaction, DEFAULT_TIMEOUT};
pub use signals::{Covers, Observed, Signal, Signals, Write};
