//! The engine: the world of in-process A2A servers, its scheduler, the lifecycle table, admission,
//! discovery, push, chains, conditions and faults — the whole deterministic model of a run.
//!
//! The bottom layer of a2a-sim: it depends on no other crate of the workspace, and on nothing
//! that reads files, parses YAML, runs async code, speaks HTTP or does crypto. The loader hands it
//! a [`scenario::Scenario`]; a run ([`world::run`]) drives it tick by tick; reports read what it
//! recorded.
//!
//! Inside, imports point down too. At the bottom, the words every file speaks: [`ids`], `codes`,
//! [`data`], [`lifecycle`], [`symbols`]. Above them, the scenario model and the [`record`] with the
//! entries it keeps; then `world.rs`, and on top the files that add to `impl World` (`status`,
//! `handler`, `delegating`, `driver`, ...), which nothing below them imports.

pub mod admission;
mod caller_context;
mod chain;
mod codes;
pub mod conditions;
pub mod data;
mod delegating;
pub mod delegation;
pub mod delivery;
pub mod discovery;
mod driver;
mod escalation;
mod external;
pub mod faults;
mod handler;
pub mod ids;
mod ix;
pub mod lifecycle;
mod member;
mod names;
mod new_task;
mod notification;
mod outage;
mod parts;
mod program;
pub mod push;
mod push_config;
mod rare;
pub mod record;
mod resolution;
mod run_state;
pub mod scenario;
mod scheduler;
mod session;
mod shared;
mod status;
pub mod symbols;
pub mod task;
mod template;
pub mod timestamp;
pub mod token;
mod verified;
pub mod world;

pub use chain::{ChainRef, Chains};
pub use ix::ix32;
pub use names::NameList;
pub use outage::CRASHED;
pub use program::{Op, compile};
pub use template::{DataTemplate, Field, Part};
