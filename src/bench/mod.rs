//! `bench`'s machinery: the simulated controller, the event sources (a recording, or a live
//! cluster with the load generator), the measuring loop, the report, and the gates.

pub mod dist;
pub mod error;
pub mod gate;
pub mod live;
pub mod load;
pub mod pipeline;
pub mod react;
pub mod replay;
pub mod report;
pub mod run;
pub mod scratch;
pub mod snapshot;
pub mod timeline;

pub use error::BenchError;
