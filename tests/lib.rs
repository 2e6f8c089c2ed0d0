//! One integration-test binary, a module per feature.

mod common;
mod engine;
mod invariants;
