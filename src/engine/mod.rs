//! The simulation itself: the world of in-process A2A servers, its scheduler, the lifecycle table,
//! admission, discovery, push, chains and conditions. Pure: imports nothing else of this crate.

pub mod admission;
pub mod chain;
pub mod discovery;
pub mod lifecycle;
pub mod push;
pub mod record;
pub mod scenario;
pub mod symbols;
pub mod task;
pub mod world;
