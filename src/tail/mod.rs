//! What `tail` computes, beside the command that wires it: a run's `session` reads the merged
//! watches until a stop condition; each resource's `feed` applies its reflector's events to its
//! cache and says which object events they make, and how each is shown; what is shown goes to
//! a `sink` the command gives (nothing here renders or knows the recording format); `stats`
//! counts for the exit summary; `filter` what of it is hidden (`--types`, `--ignore-field`); `react` the reactions of a controller to the writes seen
//! (`--react`); `owners` is the owner graph `--follow-owned` follows, and
//! `owned_resources` finds which resources an owner's objects own objects in.

pub mod error;
pub mod feed;
pub mod filter;
pub mod owned_resources;
pub mod owners;
pub mod react;
pub mod session;
pub mod sink;
pub mod stats;

pub use error::TailError;
pub use feed::{Detail, Feed, Lookup};
pub use filter::Filter;
pub use react::{ReactConfig, Reacting, ReactionStats};
pub use session::{Deadlines, Session, SessionConfig, Stop};
pub use sink::{ReactionShown, Shown, Sink};
