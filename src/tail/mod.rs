//! `tail`'s machinery beside the command: the owner graph that `--follow-owned` follows
//! (`follow`), and which resources an owner's objects own objects in (`ownership`). Pure: the
//! command does the watching, listing and printing.

pub mod follow;
pub mod ownership;
