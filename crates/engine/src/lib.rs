//! The engine: the world of in-process A2A servers, its scheduler, the lifecycle table, admission,
//! discovery, push, chains, conditions and faults — the whole deterministic model of a run.
//!
//! The bottom layer of a2a-sim: it depends on no other crate of the workspace, and on nothing
//! that reads files, parses YAML, runs async code, speaks HTTP or does crypto.
//!
//! What the crates above see:
//! - [`scenario`]: the model a run is given. The loader builds a [`Scenario`] from these types
//!   (agents, callers, steps, faults, policy, token grants).
//! - [`run`] (also [`run_recording`], which says which calls' stream events to keep, and
//!   [`run_with`], under other faults), or [`World`] stepwise with its server [`Session`], for
//!   `serve` and `explain`: the run.
//! - [`record`]: what a run gives back. A [`Record`] with its tasks, steps, denials, errors,
//!   pushes, deliveries and events, which every report reads.
//! - A few things the analyses and outputs share with the engine: admission
//!   ([`check_delegation`], [`CallerContext`]), discovery ([`discover`], [`top`]), a handler as
//!   the engine compiles it ([`compile`], [`Op`]), the text of a crashed task ([`CRASHED`]) and
//!   the clock's RFC 3339 form ([`format_utc`], [`parse_rfc3339`], [`MAX_MS`]).
//!
//! Every other module is private. Inside, imports point down too. At the bottom are the words
//! every file speaks: `ids`, `codes`, `data`, `lifecycle`, `symbols`. Above them are the scenario
//! model and the record with the entries it keeps, then `world.rs`. On top are the files that add
//! to `impl World` (`status`, `handler`, `delegating`, `driver`, ...), which nothing below them
//! imports.

mod admission;
mod caller_context;
mod chain;
mod codes;
mod conditions;
mod data;
mod delegating;
mod delegation;
mod delivery;
mod discovery;
mod driver;
mod escalation;
mod external;
mod faults;
mod handler;
mod ids;
mod ix;
mod lifecycle;
mod member;
mod names;
mod new_task;
mod notification;
mod outage;
mod parts;
mod program;
mod push;
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
mod symbols;
mod task;
mod template;
mod timestamp;
mod token;
mod verified;
mod world;

pub use admission::{CallerContext, check_delegation};
pub use discovery::{discover, top};
pub use outage::CRASHED;
pub use program::{Op, compile};
pub use record::Record;
pub use scenario::Scenario;
pub use timestamp::{MAX_MS, format_utc, parse_rfc3339};
pub use world::{RecordStreams, Session, World, run, run_recording, run_with};
