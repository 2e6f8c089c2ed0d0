//! The simulation itself: the world of in-process A2A servers, its scheduler, the lifecycle table,
//! admission, discovery, push, chains and conditions. Pure: imports nothing else of this crate.

pub mod admission;
pub mod chain;
pub mod conditions;
pub mod delegation;
pub mod delivery;
pub mod discovery;
mod driver;
mod escalation;
pub mod faults;
mod handler;
pub mod ix;
pub mod lifecycle;
pub mod member;
pub mod names;
pub mod outage;
pub mod program;
pub mod push;
mod push_config;
pub mod rare;
pub mod record;
mod resolution;
mod run_state;
pub mod scenario;
pub mod scheduler;
mod session;
pub mod shared;
pub mod status;
pub mod symbols;
pub mod task;
pub mod template;
pub mod token;
mod verified;
pub mod world;
