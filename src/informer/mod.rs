//! The informer pipeline, one stage per module with client-go's names: the wire protocol of
//! LIST/WATCH (`listwatch`), raw objects (`object`), the `Reflector` and its backoff, the in-order
//! `Fifo`, the `Store`/Indexer, the `Processor` and its listeners, the `Workqueue`, and the
//! `SharedInformer` that runs them; several reflectors merged into one stream (`merge`, for
//! `tail a,b,c`); plus field changes between two versions of an object (`fields`) and the
//! JSON Patch from one to the other (`patch`). It knows neither printers nor the recording
//! format.

pub mod backoff;
pub mod core;
pub mod fields;
pub mod fifo;
pub mod listwatch;
pub mod merge;
pub mod object;
pub mod patch;
pub mod processor;
pub mod reflector;
#[cfg(test)]
pub(crate) mod script;
pub mod shared;
pub mod store;
pub mod transition;
pub mod workqueue;
