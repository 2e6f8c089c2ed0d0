//! One integration-test binary, a module per feature.

mod adapter;
mod cli;
mod common;
mod engine;
mod everyday;
mod goldens;
mod invariants;
mod loading;
mod malformed;
mod properties;
mod protocol;
mod reports;
