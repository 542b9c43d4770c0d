//! `tail`'s machinery beside the command: the owner graph that `--follow-owned` follows
//! (`owners`), and which resources an owner's objects own objects in (`owned_resources`). The
//! command does the watching and printing.

pub mod owned_resources;
pub mod owners;
