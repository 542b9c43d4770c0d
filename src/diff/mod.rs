//! `diff`'s machinery: drift classification (`drift`), the comparisons of a cache with a LIST
//! (`compare`), what ends one without a report (`error`), the report with its watchdog's record
//! (`report`), the informer up to its first comparison (`run`), and a synced informer compared
//! once or every interval (`session`).

pub mod compare;
pub mod drift;
pub mod error;
pub mod report;
pub mod run;
pub mod session;

pub use error::DiffError;
