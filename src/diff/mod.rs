//! `diff`'s machinery: drift classification (`drift`), the comparisons of a cache with a LIST
//! (`compare`), and the report with its watchdog (`report`).

pub mod compare;
pub mod drift;
pub mod report;
