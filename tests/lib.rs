//! One integration-test binary, a module per feature.

mod adapter;
mod analyses;
mod artifacts_from_results;
mod authority;
mod cancel;
mod cli;
mod common;
mod conditions;
mod decisions;
mod delegation_outcomes;
mod driver_steps;
mod engine;
mod everyday;
mod expectations;
mod fan_out;
mod faults;
mod goldens;
mod invariants;
mod loading;
mod malformed;
mod pauses_and_escalation;
mod properties;
mod protocol;
mod report_stability;
mod reports;
mod retries_and_timeouts;
mod scheduler;
#[cfg(feature = "serve")]
mod serve;
mod tokens;
mod views;
mod yaml_scan;
