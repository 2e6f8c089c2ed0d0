//! One integration-test binary, a module per feature.

mod adapter;
mod common;
mod engine;
mod invariants;
