//! a2a-sim: a simulator for agent-to-agent delegation over A2A.
//!
//! The layers are crates, arrows pointing down: `engine` (the pure model) ← `token` (verified
//! callers) ← `scenario` (files into the engine's model) ← `output` (reports and protocol shapes) ←
//! `serve` (the HTTP edge) ← this crate, the `a2a-sim` binary: [`cli`] and [`testing`] drive,
//! [`analysis`] reads runs. Only this crate prints and chooses exit codes.

pub mod analysis;
pub mod annotation;
pub mod cli;
pub mod error;
pub mod running;
pub mod testing;

pub use engine;
pub use output::{protocol, report};
pub use scenario;
pub use scenario::{corpus, escape, regular_file};
#[cfg(feature = "serve")]
pub use serve;
pub use token;
