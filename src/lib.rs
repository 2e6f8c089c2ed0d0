//! a2a-sim: a simulator for agent-to-agent delegation over A2A.
//!
//! Layers, arrows pointing down: [`cli`] and [`testing`] drive; [`scenario`] loads files into the
//! [`engine`]'s model; [`report`] and [`protocol`] render what the engine recorded. The engine is
//! pure (no I/O, no clock, no async) and imports none of the others.

pub mod analysis;
pub mod annotation;
pub mod bench_support;
pub mod cli;
pub mod corpus;
pub mod engine;
pub mod error;
pub mod escape;
pub mod protocol;
pub mod regular_file;
pub mod report;
pub mod scenario;
#[cfg(feature = "serve")]
pub mod serve;
pub mod testing;
pub mod token;
