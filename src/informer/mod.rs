//! The informer pipeline, one stage per module with client-go's names. So far: the wire
//! protocol of LIST/WATCH, raw objects, client-go's backoff, and the Reflector.

pub mod backoff;
pub mod drift;
pub mod fields;
pub mod fifo;
pub mod listwatch;
pub mod object;
pub mod processor;
pub mod recording;
pub mod reflector;
pub mod shared;
pub mod store;
pub mod workqueue;
