//! `diff`'s machinery: drift classification (`drift`), the comparisons of a cache with a LIST
//! (`compare`), what ends one without a report (`error`), and the report with its watchdog
//! (`report`).

pub mod compare;
pub mod drift;
pub mod error;
pub mod report;

pub use error::DiffError;
