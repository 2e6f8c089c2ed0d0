//! a2a-sim: a simulator for agent-to-agent delegation over A2A.
//!
//! The engine ([`world`], [`admission`], [`discovery`], [`task_state`], [`push`], [`chain`]) is pure:
//! it runs a loaded [`scenario::Scenario`] and records what happens. Loading ([`loader`], [`yaml`])
//! and rendering ([`report_json`], [`report_table`]) sit at the edges.

pub mod adapter;
pub mod admission;
pub mod bench_support;
pub mod card;
pub mod card_file;
pub mod chain;
pub mod cli;
pub mod corpus;
pub mod discovery;
pub mod error;
pub mod expect;
pub mod export;
pub mod golden;
pub mod junit;
pub mod loader;
pub mod partition;
pub mod protocol;
pub mod push;
pub mod record;
pub mod report_json;
pub mod report_table;
pub mod scenario;
pub mod scenario_file;
pub mod schema;
pub mod symbols;
pub mod task;
pub mod task_state;
pub mod test_command;
pub mod timestamp;
pub mod world;
pub mod yaml;
