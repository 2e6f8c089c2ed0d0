//! One integration-test binary, a module per feature.

mod adapter;
mod analyses;
mod authority;
mod behaviour;
mod cli;
mod common;
mod engine;
mod engine_corners;
mod everyday;
mod faults;
mod goldens;
mod invariants;
mod layers;
mod loading;
mod malformed;
mod properties;
mod protocol;
mod reports;
mod reproducers;
#[cfg(feature = "serve")]
mod serve;
mod tokens;
mod views;
mod yaml_scan;
